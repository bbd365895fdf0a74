#include "reports/lora_figures.h"

#include "reports/json_fields.h"

namespace tidal::reports {

LoraFigures read_lora_figures(const JsonView& v) {
  LoraFigures f;
  f.num_adapters = v.integer("num_adapters");
  f.num_adapter_requests = v.integer("num_adapter_requests");
  f.pools = read_each(v, "pools", [](const JsonView& p) {
    using P = LoraPoolFigures;
    LoraPoolFigures pool;
    read_fields(p, pool, "pool", &P::pool, "adapter_bytes", &P::adapter_bytes, "num_loads",
                &P::num_loads, "num_hits", &P::num_hits, "num_evictions", &P::num_evictions,
                "num_lora_skips", &P::num_lora_skips, "load_s", &P::load_s);
    pool.hit_ratio = p.nullable_number("hit_ratio");
    pool.mean_adapters_per_step = p.nullable_number("mean_adapters_per_step");
    return pool;
  });
  return f;
}

}  // namespace tidal::reports
