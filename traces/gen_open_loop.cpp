// Open-loop generators: poisson, gamma, bursty and diurnal arrivals, and batch jobs. Each
// request's lengths are drawn independently from the prompt and output distributions.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "traces/arrival_process.h"
#include "traces/generator_kinds.h"
#include "traces/limits.h"

namespace tidal::traces {
namespace {

const nlohmann::json kDefaultPrompt = {{"dist", "lognormal"}, {"median", 1024}, {"sigma", 1.0}};
const nlohmann::json kDefaultOutput = {{"dist", "lognormal"}, {"median", 256}, {"sigma", 0.8}};

// The largest number of on/off periods a bursty block may plan.
constexpr double kMaxBurstPeriods = 1e7;

struct OpenLoopProcess {
  // Builds the process once the horizon is known to be valid.
  std::function<std::unique_ptr<ArrivalProcess>()> make;
  double mean_rate = 0.0;  // long-run requests/s in process time
};

OpenLoopProcess parse_process(SpecObject& spec, const std::string& kind,
                              const CommonSettings& settings) {
  const double inf = SpecObject::kInfinity;
  OpenLoopProcess result;
  if (kind == "diurnal") {
    DiurnalParams params;
    const double peak_rate = spec.required_number("peak_rate", 0.0, inf, true);
    params.peak_rate = peak_rate * settings.rate_scale;
    params.trough_rate = spec.required_number("trough_rate", 0.0, peak_rate) * settings.rate_scale;
    params.period_s = spec.number("period_s", params.period_s, 0.0, base::kMaxArrivalS, true);
    params.peak_time_s = spec.number("peak_time_s", params.peak_time_s, 0.0, base::kMaxArrivalS);
    params.start_time_s = spec.number("start_time_s", params.start_time_s, 0.0, base::kMaxArrivalS);
    params.noise_sigma = spec.number("noise_sigma", params.noise_sigma, 0.0, 3.0);
    params.noise_interval_s =
        spec.number("noise_interval_s", params.noise_interval_s, 1e-3, base::kMaxArrivalS);
    result.mean_rate = 0.5 * (params.peak_rate + params.trough_rate);
    result.make = [params] { return make_diurnal_process(params); };
    return result;
  }
  const double rate = spec.required_number("rate", 0.0, inf, true) * settings.rate_scale;
  result.mean_rate = rate;
  if (kind == "poisson") {
    result.make = [rate] { return make_poisson_process(rate); };
  } else if (kind == "gamma") {
    const double cv = spec.required_number("cv", 0.01, 100.0);
    result.make = [rate, cv] { return make_gamma_process(rate, cv); };
  } else {
    const double peak_to_mean = spec.required_number("peak_to_mean", 1.0, 1e4);
    const double mean_burst_s = spec.number("mean_burst_s", 60.0, 1e-3, base::kMaxArrivalS);
    result.make = [&spec, &settings, rate, peak_to_mean, mean_burst_s] {
      // One calibrated block spans the whole horizon, or the time num_requests should take.
      const double block_s = settings.duration_s
                                 ? settings.process_horizon_s()
                                 : static_cast<double>(*settings.num_requests) / rate;
      if (block_s / (mean_burst_s * peak_to_mean) > kMaxBurstPeriods) {
        spec.fail("mean_burst_s", fmt::format("too short for this horizon: more than {:.0g} bursts",
                                              kMaxBurstPeriods));
      }
      return make_bursty_process(rate, peak_to_mean, mean_burst_s, block_s);
    };
  }
  return result;
}

}  // namespace

std::vector<Request> generate_open_loop(SpecObject& spec, const std::string& kind,
                                        const CommonSettings& settings) {
  OpenLoopProcess process = parse_process(spec, kind, settings);
  const LengthDistributions lengths = parse_lengths(spec, settings, kDefaultPrompt, kDefaultOutput);
  finish_parsing(spec, settings);
  const double horizon_s = settings.process_horizon_s();
  check_request_budget(spec, settings.duration_s ? process.mean_rate * horizon_s
                                                 : static_cast<double>(*settings.num_requests));
  const std::unique_ptr<ArrivalProcess> arrivals = process.make();
  Rng arrival_rng(stream_seed(settings.seed, Stream::arrivals));
  Rng prompt_rng(stream_seed(settings.seed, Stream::prompts));
  Rng output_rng(stream_seed(settings.seed, Stream::outputs));
  // [num_requests]. Room for the expected count and some (a Poisson count rarely passes its
  // mean by 5 standard deviations), so that the requests are not moved as the vector grows;
  // pages never written are never touched. The budget above bounds the expected count.
  const double expected = settings.duration_s ? process.mean_rate * horizon_s
                                              : static_cast<double>(*settings.num_requests);
  double room = expected + 5.0 * std::sqrt(expected) + 16.0;
  if (settings.num_requests) room = std::min(room, static_cast<double>(*settings.num_requests));
  std::vector<Request> requests;
  requests.reserve(static_cast<size_t>(room));
  while (true) {
    if (settings.num_requests && static_cast<int64_t>(requests.size()) == *settings.num_requests) {
      break;
    }
    const double arrival_s = arrivals->next(arrival_rng);
    if (arrival_s >= horizon_s) break;
    check_request_budget(spec, static_cast<double>(requests.size()));
    Request& request = requests.emplace_back();
    request.arrival_s = arrival_s;
    request.prompt_tokens = lengths.prompt.sample_integer(prompt_rng);
    request.output_tokens = lengths.output.sample_integer(output_rng);
  }
  return requests;
}

std::vector<Request> generate_batch(SpecObject& spec, const CommonSettings& settings) {
  const int64_t num_waves = spec.integer("num_waves", 1, 1, kMaxGeneratedRequests);
  const double wave_interval_s = spec.number("wave_interval_s", 60.0, 0.0, base::kMaxArrivalS);
  const double spread_s = spec.number("spread_s", 0.0, 0.0, base::kMaxArrivalS);
  const LengthDistributions lengths = parse_lengths(spec, settings, kDefaultPrompt, kDefaultOutput);
  finish_parsing(spec, settings, /*is_batch=*/true);
  const int64_t num_requests = *settings.num_requests;
  Rng arrival_rng(stream_seed(settings.seed, Stream::arrivals));
  Rng prompt_rng(stream_seed(settings.seed, Stream::prompts));
  Rng output_rng(stream_seed(settings.seed, Stream::outputs));
  std::vector<Request> requests;  // [num_requests]
  requests.reserve(static_cast<size_t>(num_requests));
  for (int64_t wave = 0; wave < num_waves; ++wave) {
    // The first num_requests % num_waves waves take one request more.
    const int64_t wave_size = num_requests / num_waves + (wave < num_requests % num_waves ? 1 : 0);
    const double wave_start_s = static_cast<double>(wave) * wave_interval_s;
    const size_t first = requests.size();
    for (int64_t i = 0; i < wave_size; ++i) {
      Request& request = requests.emplace_back();
      request.arrival_s =
          wave_start_s + (spread_s > 0.0 ? arrival_rng.uniform(0.0, spread_s) : 0.0);
      request.prompt_tokens = lengths.prompt.sample_integer(prompt_rng);
      request.output_tokens = lengths.output.sample_integer(output_rng);
    }
    std::stable_sort(requests.begin() + static_cast<std::ptrdiff_t>(first), requests.end(),
                     [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  }
  return requests;
}

}  // namespace tidal::traces
