// A measured step-time description of one (hardware, model, TP) combination, and its JSON form.
// The schema is documented in docs/perf.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perf/dtype.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// Where a section's times come from: a measured table, or the roofline model of the deployment
// the profile is used with (computed at run time, never silently).
enum class TimeSource { measured, roofline };

struct ProfileProvenance {
  std::string backend;  // "vidur", "tidal-cpu", "tidal-cuda", ...
  std::string device;   // "h100", "NVIDIA H200", ...
  std::string date;     // ISO date of the measurement
  std::string commit;   // code revision that measured it
  std::string source;   // free text: files, method

  friend bool operator==(const ProfileProvenance&, const ProfileProvenance&) = default;
};

// Dimensions of the profiled model; checked against the ModelSpec a profile is used with.
struct ProfileModel {
  std::string name;
  int64_t hidden = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t intermediate = 0;  // dense MLP width
  int64_t vocab = 0;
  bool gated_mlp = true;

  friend bool operator==(const ProfileModel&, const ProfileModel&) = default;
};

enum class OpScope { layer, step };  // times are per layer (x num_layers) or once per step

// Seconds of one operator class over the number of tokens in the batch (per GPU at the profile's
// TP). num_tokens strictly increasing. Between points: linear interpolation; below the first
// point: the first value; above the last point: the last value scaled by num_tokens / last.
struct OperatorTable {
  OpScope scope = OpScope::layer;
  TimeSource source = TimeSource::measured;
  std::vector<int64_t> num_tokens;  // [num_points]
  std::vector<double> seconds;      // [num_points]

  friend bool operator==(const OperatorTable&, const OperatorTable&) = default;
};

// Attention kernel times, per layer. Prefill: one sequence's chunk of chunk_tokens new tokens on
// top of context_tokens cached ones; a batch's prefill time is the sum over its prefill chunks.
// Decode: batch_size sequences each at context_tokens (the batch's mean context). Bilinear
// interpolation inside the grid (prefill: of seconds per chunk token, then times the chunk);
// outside, the same clamp-and-scale rule as OperatorTable applied per axis. Chunks are >= 1.
struct AttentionTables {
  std::vector<int64_t> prefill_chunk_tokens;    // [num_chunk_points]
  std::vector<int64_t> prefill_context_tokens;  // [num_context_points]
  std::vector<double> prefill_seconds;          // [num_chunk_points, num_context_points]
  std::vector<int64_t> decode_batch_sizes;      // [num_batch_points]
  std::vector<int64_t> decode_context_tokens;   // [num_context_points]
  std::vector<double> decode_seconds;           // [num_batch_points, num_context_points]

  friend bool operator==(const AttentionTables&, const AttentionTables&) = default;
};

// One all-reduce of `bytes` bytes across the profile's TP group.
struct AllReduceTable {
  TimeSource source = TimeSource::roofline;
  std::vector<double> bytes;    // [num_points], strictly increasing
  std::vector<double> seconds;  // [num_points]

  friend bool operator==(const AllReduceTable&, const AllReduceTable&) = default;
};

// Per-step CPU overhead: seconds over the number of sequences in the batch, plus a share of the
// step's operator time (operators running slower inside the engine's steps than timed alone).
struct CpuOverheadTable {
  TimeSource source = TimeSource::roofline;
  std::vector<int64_t> num_seqs;  // [num_points], strictly increasing
  std::vector<double> seconds;    // [num_points]
  // Seconds per second of the tables' operator and attention time; measured only, in [-0.5, 1].
  double share_of_operator_time = 0.0;

  friend bool operator==(const CpuOverheadTable&, const CpuOverheadTable&) = default;
};

// Speculative drafting measured beside the target (`tidal profile`: the n-gram drafter). The
// engine drafts on the host before every step, one lookup per sequence it has already
// scheduled, whether or not the lookup finds a proposal; one lookup over a sequence of C known
// tokens takes seconds_per_seq + seconds_per_context_token x C (least squares over the measured
// contexts, the costly case of no match), measured at num_speculative_tokens drafts.
struct DraftCost {
  std::string method;  // "ngram"
  int32_t num_speculative_tokens = 0;
  double seconds_per_seq = 0.0;
  double seconds_per_context_token = 0.0;

  friend bool operator==(const DraftCost&, const DraftCost&) = default;
};

struct Profile {
  ProfileProvenance provenance;
  ProfileModel model;
  int32_t tp = 1;
  DType weight_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  std::map<OpClass, OperatorTable> operators;  // every op class but attention/allreduce/cpu
  TimeSource attention_source = TimeSource::roofline;
  AttentionTables attention;  // filled when attention_source == measured
  AllReduceTable allreduce;
  CpuOverheadTable cpu_overhead;
  std::optional<DraftCost> draft;  // JSON "draft"; absent when not measured

  friend bool operator==(const Profile&, const Profile&) = default;
};

// Strict: unknown keys, missing keys, wrong types, unsorted or mismatched tables are InputErrors
// "<path>: <json path>: what is wrong", e.g. "p.json: operators.qkv_proj.seconds[3]: must be a
// number".
Profile load_profile(const std::string& path);
// Writes the JSON form (2-space indent, keys in a fixed order); load_profile(save_profile(p)) == p.
void save_profile(const Profile& profile, const std::string& path);

// Checks a profile's internal consistency (tables sorted, sizes match, required sections);
// `where` prefixes error messages. load_profile calls it; importers do too.
void validate_profile(const Profile& profile, const std::string& where);

}  // namespace tidal::perf
