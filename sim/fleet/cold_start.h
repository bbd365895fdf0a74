// The cold-start pipeline of one replica: how long each stage takes from the moment the
// autoscaler asks for it until it serves, for a given model, GPU, tensor-parallel degree and
// weight storage. Every default, its source and the formulas are in docs/fleet.md.
//
//   provisioning    provisioning_s                               (VM / GPU acquisition)
//   image pull      image_bytes * lazy_loading_share / registry_Bps
//   weight load     weight_bytes_per_gpu * tp / weight_storage_Bps      } replaced by a
//   engine init     engine_init_s * (params / 8e9)^exponent              } snapshot restore:
//                   + tp_setup_s_per_extra_gpu * (tp - 1)                } snapshot bytes /
//                                                                          restore_Bps + fixed_s
//   KV allocation   kv_alloc_s + kv_cache_bytes_per_gpu / hbm_bandwidth  (allocate, zero-fill)
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"

namespace tidal::fleet {

// A GPU memory snapshot of a warm replica (weights plus engine state: compiled kernels, CUDA
// graphs, allocator layout), restored instead of loading weights and initializing the engine.
struct SnapshotSpec {
  bool enabled = false;
  double restore_Bps = 4.5e9;        // per replica; fitted to thaw-vllm's restore times
  double fixed_s = 0.5;              // restore set-up independent of size
  double extra_bytes_per_gpu = 0.0;  // engine state saved beside the weights
};

struct ColdStartSpec {
  double provisioning_s = 60.0;     // VM / GPU acquisition; example value
  double image_bytes = 8e9;         // container image (engine + CUDA libraries)
  double registry_Bps = 0.5e9;      // image registry download rate
  double lazy_loading_share = 1.0;  // share of the image read before start; 1 = full pull
  std::string weight_storage = "network_disk";  // a storage preset name, or "custom"
  double weight_storage_Bps = 0.25e9;           // the preset's rate, or weight_storage_gb_per_s
  double engine_init_s = 10.0;                  // graph capture / compile of an 8e9-parameter model
  double engine_init_size_exponent = 0.5;
  double tp_setup_s_per_extra_gpu = 5.0;  // worker processes and communicators per extra GPU
  double kv_alloc_s = 0.5;                // profiling pass and allocation, before the zero fill
  SnapshotSpec snapshot;
};

// Parameters of the model that engine_init_s is quoted for.
inline constexpr double kEngineInitReferenceParams = 8e9;

// Every stage in seconds; the stages a snapshot replaces are 0 when it is used, and
// snapshot_restore_s is 0 when it is not.
struct ColdStartBreakdown {
  double provisioning_s = 0.0;
  double image_pull_s = 0.0;
  double weight_load_s = 0.0;
  double engine_init_s = 0.0;
  double snapshot_restore_s = 0.0;
  double kv_alloc_s = 0.0;
  bool from_snapshot = false;

  // Request to warm: every stage.
  double total_s() const;
  // The `loading` lifecycle state: everything after provisioning.
  double loading_s() const;
  // Engine process start to ready inside a running container (weights or restore, init, KV):
  // what published vLLM cold-start and snapshot figures measure.
  double engine_start_s() const;
};

// Parses a `cold_start` object; every key is optional (defaults above). `where` names the
// file, `path` this object's JSON path; unknown keys and bad values are InputErrors.
ColdStartSpec parse_cold_start_spec(const nlohmann::json& json, const std::string& where,
                                    const std::string& path);

// The stages for one replica of `model` on `gpu` at deployment.tp, with the memory plan the
// pool resolved (perf::plan_memory) for weight and KV bytes.
ColdStartBreakdown cold_start(const ColdStartSpec& spec, const perf::ModelSpec& model,
                              const perf::GpuSpec& gpu, const perf::Deployment& deployment,
                              const perf::MemoryPlan& memory);

}  // namespace tidal::fleet
