#include "sim/metrics.h"

#include <algorithm>
#include <limits>
#include <map>

#include "sim/warmup.h"

namespace tidal::sim {
namespace {

double seconds(int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

std::optional<double> optional_share(int64_t part, int64_t whole) {
  if (whole <= 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

std::optional<double> ratio(double part, double whole) {
  if (!(whole > 0.0)) return std::nullopt;
  return part / whole;
}

// Work over every GPU of a pool's or the fleet's steps (StepLoad is per GPU).
struct WorkTotals {
  double flops = 0.0, bytes = 0.0, peak_flops_seconds = 0.0, peak_bytes_seconds = 0.0;

  void add(const StepLoad& load, double num_gpus) {
    flops += num_gpus * load.flops;
    bytes += num_gpus * load.bytes;
    peak_flops_seconds += num_gpus * load.peak_flops_seconds;
    peak_bytes_seconds += num_gpus * load.peak_bytes_seconds;
  }
};

// The pool's load figures from its replicas' step sums, weighted by step time.
void add_pool_load(const std::vector<const StepLoad*>& loads, PoolMetrics& pm) {
  std::vector<int64_t> by_batch;  // [largest batch + 1] step ns
  int64_t busy_ns = 0;
  double batch_ns = 0.0;  // sum of batch x step ns
  double kv_share_ns = 0.0;
  WorkTotals work;
  for (const StepLoad* load : loads) {
    if (by_batch.size() < load->busy_ns_by_batch.size()) {
      by_batch.resize(load->busy_ns_by_batch.size(), 0);
    }
    for (size_t b = 0; b < load->busy_ns_by_batch.size(); ++b) {
      by_batch[b] += load->busy_ns_by_batch[b];
      batch_ns += static_cast<double>(b) * static_cast<double>(load->busy_ns_by_batch[b]);
    }
    busy_ns += load->busy_ns;
    kv_share_ns += load->kv_share_ns;
    pm.peak_kv_usage = std::max(pm.peak_kv_usage, load->peak_kv_share);
    work.add(*load, 1.0);
  }
  if (busy_ns > 0) {
    pm.mean_batch = batch_ns / static_cast<double>(busy_ns);
    pm.mean_kv_usage = kv_share_ns / static_cast<double>(busy_ns);
  }
  pm.p99_batch = count_percentile(by_batch, 99);
  for (size_t b = by_batch.size(); b-- > 0;) {
    if (by_batch[b] > 0) {
      pm.max_batch = static_cast<int64_t>(b);
      break;
    }
  }
  pm.mfu = ratio(work.flops, work.peak_flops_seconds);
  pm.mbu = ratio(work.bytes, work.peak_bytes_seconds);
}

std::optional<double> per_million(double dollars, int64_t tokens) {
  if (tokens <= 0) return std::nullopt;
  return dollars / (static_cast<double>(tokens) * 1e-6);
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

RequestLatency request_latency(const RequestRecord& r) {
  RequestLatency lat;
  if (r.first_scheduled_ns >= 0) lat.queue_delay_s = seconds(r.first_scheduled_ns - r.arrival_ns);
  if (r.status != RequestStatus::finished) return lat;
  lat.ttft_s = seconds(r.first_token_ns - r.arrival_ns);
  lat.e2e_s = seconds(r.finish_ns - r.arrival_ns);
  if (r.num_output_tokens_done > 1) {
    lat.tpot_s =
        seconds(r.finish_ns - r.first_token_ns) / static_cast<double>(r.num_output_tokens_done - 1);
  }
  return lat;
}

bool meets_slo(const RequestRecord& r, const RequestLatency& lat, const SloBounds& slo) {
  if (r.status != RequestStatus::finished) return false;
  if (slo.ttft_s && *lat.ttft_s > *slo.ttft_s) return false;
  if (slo.tpot_s && lat.tpot_s && *lat.tpot_s > *slo.tpot_s) return false;
  if (slo.e2e_s && *lat.e2e_s > *slo.e2e_s) return false;
  return true;
}

RunMetrics compute_metrics(const Scenario& scenario, RunResult& result) {
  RunMetrics m;
  const auto& requests = result.table.requests;
  const size_t n = requests.size();
  const MetricsSpec& spec = scenario.metrics;
  m.warmup.warmup_s = spec.warmup_s;
  m.warmup.exclude_first_per_client = spec.exclude_first_per_client;
  int64_t window_start_ns = std::numeric_limits<int64_t>::max();  // first kept arrival
  // Tokens of every finished request, kept or not: what the run's dollars paid for.
  int64_t num_billed_input_tokens = 0;
  int64_t num_billed_output_tokens = 0;

  struct ClassSamples {
    SampleSet ttft, tpot, e2e;
  };
  std::vector<ClassSamples> class_samples(scenario.slo_classes.size());
  for (const SloClass& c : scenario.slo_classes) {
    ClassMetrics& cm = m.classes.emplace_back();
    cm.name = c.name;
    cm.slo = c.slo;
  }
  SampleSet ttft, tpot, e2e, queue_delay;
  std::map<std::string, int64_t> rejections;

  for (size_t i = 0; i < n; ++i) {
    const RequestRecord& r = result.records[i];
    if (r.status == RequestStatus::finished) {
      num_billed_input_tokens += requests[i].prompt_tokens;
      num_billed_output_tokens += r.num_output_tokens_done;
    }
    const bool early = before_warmup(spec, r.arrival_ns);
    const bool first = first_of_client(spec, requests[i]);
    m.warmup.num_before_warmup += early ? 1 : 0;
    m.warmup.num_first_per_client += first ? 1 : 0;
    if (early || first) {
      ++m.warmup.num_excluded;
      continue;
    }
    window_start_ns = std::min(window_start_ns, r.arrival_ns);
    ++m.num_requests;
    const RequestLatency lat = request_latency(r);
    const auto c = static_cast<size_t>(result.table.slo_class[i]);
    ClassMetrics& cm = m.classes[c];
    ++cm.num_requests;
    m.num_preemptions += r.num_preemptions;
    m.num_prefix_hit_tokens += r.num_prefix_hit_tokens;
    if (r.status == RequestStatus::rejected) {
      ++m.num_rejected;
      ++cm.num_rejected;
      ++rejections[r.reason];
      continue;
    }
    ++m.num_finished;
    ++cm.num_finished;
    m.num_input_tokens += requests[i].prompt_tokens;
    m.num_output_tokens += r.num_output_tokens_done;
    ttft.add(*lat.ttft_s);
    e2e.add(*lat.e2e_s);
    queue_delay.add(*lat.queue_delay_s);
    class_samples[c].ttft.add(*lat.ttft_s);
    class_samples[c].e2e.add(*lat.e2e_s);
    if (lat.tpot_s) {
      tpot.add(*lat.tpot_s);
      class_samples[c].tpot.add(*lat.tpot_s);
    }
    if (meets_slo(r, lat, scenario.slo_classes[c].slo)) {
      ++m.num_slo_met;
      ++cm.num_slo_met;
    }
  }
  // Without a warm-up the window starts at 0; with one, at the first kept arrival (or at the
  // end when nothing is kept).
  if (excludes_warmup(spec)) {
    window_start_ns = std::min(window_start_ns, result.end_ns);
    m.warmup.window_start_s = seconds(window_start_ns);
    m.duration_s = seconds(result.end_ns - window_start_ns);
  } else {
    m.duration_s = seconds(result.end_ns);
  }
  m.ttft = ttft.summarize();
  m.tpot = tpot.summarize();
  m.e2e = e2e.summarize();
  m.queue_delay = queue_delay.summarize();
  m.itl = result.itl.summarize();
  const double duration = m.duration_s > 0 ? m.duration_s : 1.0;
  m.request_throughput_rps = static_cast<double>(m.num_finished) / duration;
  m.input_tokens_per_s = static_cast<double>(m.num_input_tokens) / duration;
  m.output_tokens_per_s = static_cast<double>(m.num_output_tokens) / duration;
  m.slo_attainment = share(m.num_slo_met, m.num_requests);
  m.finished_slo_share = optional_share(m.num_slo_met, m.num_finished);
  m.goodput_rps = static_cast<double>(m.num_slo_met) / duration;
  for (size_t c = 0; c < m.classes.size(); ++c) {
    ClassMetrics& cm = m.classes[c];
    cm.slo_attainment = share(cm.num_slo_met, cm.num_requests);
    cm.finished_slo_share = optional_share(cm.num_slo_met, cm.num_finished);
    cm.goodput_rps = static_cast<double>(cm.num_slo_met) / duration;
    cm.ttft = class_samples[c].ttft.summarize();
    cm.tpot = class_samples[c].tpot.summarize();
    cm.e2e = class_samples[c].e2e.summarize();
  }
  m.rejections.assign(rejections.begin(), rejections.end());

  // Cost: the billing ledger's exact totals; utilization over the time replicas served.
  const fleet::BillingReport& bill = result.fleet.billing;
  int64_t busy_ns = 0;
  int64_t warm_ns = 0;
  WorkTotals fleet_work;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& spec = scenario.pools[p];
    PoolMetrics pm;
    pm.name = spec.name;
    pm.model = spec.model;
    pm.gpu = spec.gpu;
    pm.tp = spec.deployment.tp;
    pm.num_replicas = spec.num_replicas;
    pm.num_gpus = spec.num_gpus();
    pm.num_kv_blocks = spec.kv.num_gpu_blocks;
    pm.price_per_gpu_hour = spec.resolved_price_per_gpu_hour;
    pm.max_num_seqs = spec.scheduler.max_num_seqs;
    int64_t pool_busy_ns = 0;
    int64_t pool_warm_ns = 0;
    std::vector<const StepLoad*> loads;
    for (const ReplicaSummary& r : result.replicas) {
      if (r.pool != static_cast<int32_t>(p)) continue;
      pool_busy_ns += r.busy_ns;
      pool_warm_ns += r.warm_ns;
      pm.num_steps += r.num_steps;
      loads.push_back(&r.load);
      fleet_work.add(r.load, static_cast<double>(spec.deployment.num_gpus()));
    }
    add_pool_load(loads, pm);
    if (p < bill.by_pool.size()) {
      pm.gpu_hours = bill.by_pool[p].gpu_hours_billed;
      pm.dollars = fleet::to_dollars(bill.by_pool[p].total);
    }
    pm.utilization = share(pool_busy_ns, pool_warm_ns);
    busy_ns += pool_busy_ns;
    warm_ns += pool_warm_ns;
    m.pools.push_back(pm);
  }
  m.gpu_hours = bill.fleet.gpu_hours_billed;
  m.dollars = fleet::to_dollars(bill.fleet.total);
  if (scenario.report_energy) m.energy = compute_energy(scenario, result);
  // Owned pools add the electricity their rental price would have included.
  double owned_electricity = 0.0;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    if (!scenario.pools[p].owned) continue;
    PoolMetrics& pm = m.pools[p];
    pm.owned_amortization_dollars = pm.dollars;
    pm.owned_electricity_dollars = m.energy->pools[p].dollars.value();
    pm.dollars += *pm.owned_electricity_dollars;
    owned_electricity += *pm.owned_electricity_dollars;
  }
  m.dollars += owned_electricity;
  double egress_dollars = 0.0;
  if (result.egress) {
    m.egress = result.egress;
    for (size_t p = 0; p < m.pools.size(); ++p) {
      PoolMetrics& pm = m.pools[p];
      pm.egress_dollars = result.egress->by_pool[p].dollars();
      pm.dollars += *pm.egress_dollars;
      egress_dollars += *pm.egress_dollars;
    }
    m.dollars += egress_dollars;
  }
  m.utilization = share(busy_ns, warm_ns);
  m.mfu = ratio(fleet_work.flops, fleet_work.peak_flops_seconds);
  m.mbu = ratio(fleet_work.bytes, fleet_work.peak_bytes_seconds);
  m.dollars_per_1m_input_tokens = per_million(m.dollars, num_billed_input_tokens);
  m.dollars_per_1m_output_tokens = per_million(m.dollars, num_billed_output_tokens);
  m.dollars_per_1m_tokens =
      per_million(m.dollars, num_billed_input_tokens + num_billed_output_tokens);
  m.fleet = compute_fleet_metrics(scenario, result, num_billed_input_tokens,
                                  num_billed_output_tokens, owned_electricity + egress_dollars);
  return m;
}

}  // namespace tidal::sim
