// Measured end-to-end runs of real serving engines: the rows of
// ../shared/benchmarks/silicon/measured.csv (mean TTFT and TPOT of one engine configuration at
// fixed input/output lengths and client concurrency) and `vllm bench serve --save-result` JSON
// files, and which of them tidal can express.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidal::validate {

// One side of a disaggregated run: its workers (replicas) and each worker's parallelism.
struct WorkerLayout {
  int64_t num_workers = 0;  // 0: the row does not say
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t attention_dp = 1;
  int64_t moe_tp = 1;
  int64_t moe_ep = 1;
  // The most requests one attention rank batches (measured.csv's prefill_/decode_batch_size): 0
  // when the row does not say.
  int64_t max_batch_size = 0;
};

struct MeasuredRun {
  std::string id;
  std::string where;   // "file:line" (or the JSON file) for messages
  std::string engine;  // backend: vllm | sglang | trtllm
  std::string engine_version;
  std::string model;            // Hugging Face repo id, e.g. "Qwen/Qwen3-32B"
  std::string system;           // GPU folder name, e.g. "h200_sxm"
  std::string precision;        // fp8, fp4, bf16, int4, "" (the checkpoint's)
  std::string gemm_quant_mode;  // fp8, fp8_block, nvfp4, int4_wo, "": the GEMM kernels' dtype
  std::string moe_quant_mode;   // the same for the MoE kernels
  std::string mode;             // agg | disagg
  int64_t isl = 0;              // input tokens per request
  int64_t osl = 0;              // output tokens per request
  int64_t concurrency = 0;      // clients in the closed loop
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t attention_dp = 1;
  int64_t moe_tp = 1;
  int64_t moe_ep = 1;
  // mode disagg: the prefill and decode workers (measured.csv's prefill_* and decode_* columns).
  WorkerLayout prefill;
  WorkerLayout decode;
  double ttft_ms = 0.0;  // measured mean
  double tpot_ms = 0.0;  // measured mean
  // The parallelism columns held a layout multiplied by its expert parallelism and were divided
  // back (undo_multiplied_layout, measured_id_layout.h).
  bool layout_unmultiplied = false;
};

// Reads a measured.csv file strictly: a missing column, a malformed number, a non-positive length
// or latency is an InputError "file:line: column: what". Rows whose parallelism columns are a
// layout multiplied by its expert parallelism are divided back (layout_unmultiplied).
std::vector<MeasuredRun> read_measured_csv(const std::string& path);

// Reads one `vllm bench serve --save-result` JSON (its mean_ttft_ms, mean_tpot_ms,
// max_concurrency, and the input/output lengths: input_lens/output_lens or
// random_input_len/random_output_len). The file does not say what ran where, so `defaults`
// gives engine "vllm", model, system and tp; its id is the file name.
std::vector<MeasuredRun> read_vllm_bench_json(const std::string& path, const MeasuredRun& defaults);

// Why tidal cannot simulate a row yet, or nullopt when it can (pipeline parallelism, a
// disaggregated row without its workers).
std::optional<std::string> inexpressible_reason(const MeasuredRun& run);

// A reason a row was left out, as the summaries count it: its details in parentheses (a row's
// own figures, a file's path) cut off, so rows left out for one cause count together.
std::string left_out_key(const std::string& reason);

// The error for a measured file none of whose `num_read` rows tidal can express, naming the
// reasons the rows were left out with their counts: "<path>: no row tidal can express (3 read;
// left out: 2 x <reason>; 1 x <reason>)".
std::string no_expressible_row_error(const std::string& path, size_t num_read,
                                     const std::map<std::string, int64_t>& left_out);

// The tidal GPU catalog name of a measured.csv `system` ("h200_sxm" -> "H200"), or "".
std::string gpu_of_system(const std::string& system);

}  // namespace tidal::validate
