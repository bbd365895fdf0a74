#include "sim/fleet/cold_start.h"

#include <cmath>

#include "sim/fleet/spec_reading.h"
#include "sim/fleet/storage.h"

namespace tidal::fleet {

double ColdStartBreakdown::total_s() const {
  return provisioning_s + loading_s();
}

double ColdStartBreakdown::loading_s() const {
  return image_pull_s + engine_start_s();
}

double ColdStartBreakdown::engine_start_s() const {
  return weight_load_s + engine_init_s + snapshot_restore_s + kv_alloc_s;
}

namespace {

constexpr double kGB = 1e9;  // decimal gigabytes, as storage and network rates are quoted

SnapshotSpec parse_snapshot(perf::JsonObjectReader reader) {
  SnapshotSpec spec;
  spec.enabled = read_boolean(reader, "enabled", spec.enabled);
  spec.restore_Bps =
      kGB * read_number(reader, "restore_gb_per_s", spec.restore_Bps / kGB, Bound::positive);
  spec.fixed_s = read_duration_s(reader, "fixed_s", spec.fixed_s, Bound::non_negative);
  spec.extra_bytes_per_gpu = kGB * read_number(reader, "extra_gb_per_gpu",
                                               spec.extra_bytes_per_gpu / kGB, Bound::non_negative);
  reader.finish();
  return spec;
}

}  // namespace

ColdStartSpec parse_cold_start_spec(const nlohmann::json& json, const std::string& where,
                                    const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  ColdStartSpec spec;
  spec.provisioning_s =
      read_duration_s(reader, "provisioning_s", spec.provisioning_s, Bound::non_negative);
  spec.image_bytes =
      kGB * read_number(reader, "image_gb", spec.image_bytes / kGB, Bound::non_negative);
  spec.registry_Bps =
      kGB * read_number(reader, "registry_gb_per_s", spec.registry_Bps / kGB, Bound::positive);
  spec.lazy_loading_share =
      read_number(reader, "lazy_loading_share", spec.lazy_loading_share, Bound::fraction);
  if (reader.has("weight_storage") && reader.has("weight_storage_gb_per_s")) {
    perf::throw_json_error(where, reader.child_path("weight_storage_gb_per_s"),
                           "give weight_storage (a preset) or weight_storage_gb_per_s, not both");
  }
  if (reader.has("weight_storage_gb_per_s")) {
    spec.weight_storage = "custom";
    spec.weight_storage_Bps =
        kGB * read_number(reader, "weight_storage_gb_per_s", 0.0, Bound::positive);
  } else {
    spec.weight_storage = read_string(reader, "weight_storage", spec.weight_storage);
    spec.weight_storage_Bps =
        find_storage(spec.weight_storage, where, reader.child_path("weight_storage")).read_Bps;
  }
  spec.engine_init_s =
      read_duration_s(reader, "engine_init_s", spec.engine_init_s, Bound::non_negative);
  spec.engine_init_size_exponent = read_number(reader, "engine_init_size_exponent",
                                               spec.engine_init_size_exponent, Bound::non_negative);
  spec.tp_setup_s_per_extra_gpu = read_duration_s(
      reader, "tp_setup_s_per_extra_gpu", spec.tp_setup_s_per_extra_gpu, Bound::non_negative);
  spec.kv_alloc_s = read_duration_s(reader, "kv_alloc_s", spec.kv_alloc_s, Bound::non_negative);
  if (reader.has("snapshot")) spec.snapshot = parse_snapshot(reader.object("snapshot"));
  reader.finish();
  return spec;
}

ColdStartBreakdown cold_start(const ColdStartSpec& spec, const perf::ModelSpec& model,
                              const perf::GpuSpec& gpu, const perf::Deployment& deployment,
                              const perf::MemoryPlan& memory) {
  const double num_gpus = deployment.num_gpus();
  ColdStartBreakdown stages;
  stages.provisioning_s = spec.provisioning_s;
  stages.image_pull_s = spec.image_bytes * spec.lazy_loading_share / spec.registry_Bps;
  if (spec.snapshot.enabled) {
    const double snapshot_bytes =
        (memory.weight_bytes_per_gpu + spec.snapshot.extra_bytes_per_gpu) * num_gpus;
    stages.snapshot_restore_s = snapshot_bytes / spec.snapshot.restore_Bps + spec.snapshot.fixed_s;
    stages.from_snapshot = true;
  } else {
    stages.weight_load_s = memory.weight_bytes_per_gpu * num_gpus / spec.weight_storage_Bps;
    const double size_factor =
        std::pow(model.total_params() / kEngineInitReferenceParams, spec.engine_init_size_exponent);
    stages.engine_init_s =
        spec.engine_init_s * size_factor + spec.tp_setup_s_per_extra_gpu * (num_gpus - 1);
  }
  stages.kv_alloc_s = spec.kv_alloc_s + memory.kv_cache_bytes_per_gpu / gpu.hbm_bandwidth_Bps;
  return stages;
}

}  // namespace tidal::fleet
