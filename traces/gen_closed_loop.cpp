// The closed_loop generator: `concurrency` clients, each sending its next request once its
// previous one has finished and its think time has passed (how `vllm bench serve
// --max-concurrency`, genai-perf and aiperf load a server). Request j belongs to client
// j % concurrency and depends on request j - concurrency; every request may arrive from time 0
// on, so the simulator alone decides when it does.
#include <algorithm>

#include <fmt/format.h>

#include "traces/generator_kinds.h"
#include "traces/limits.h"
#include "traces/prompt_blocks.h"

namespace tidal::traces {
namespace {

const nlohmann::json kDefaultPrompt = {{"dist", "lognormal"}, {"median", 1024}, {"sigma", 1.0}};
const nlohmann::json kDefaultOutput = {{"dist", "lognormal"}, {"median", 256}, {"sigma", 0.8}};

struct ClosedLoopParams {
  int64_t concurrency = 1;
  Distribution think_time_s;
  LengthDistributions lengths;       // prompt: the tokens after the system prompt
  int64_t system_prompt_tokens = 0;  // shared leading tokens of every prompt
  int32_t block_tokens = 16;
  double start_spread_s = 0.0;  // client c's first request arrives at c / concurrency of this
};

ClosedLoopParams parse_params(SpecObject& spec, const CommonSettings& settings) {
  ClosedLoopParams params;
  if (!spec.has("concurrency")) spec.fail("concurrency", "missing (required)");
  params.concurrency = spec.integer("concurrency", 1, 1, kMaxGeneratedRequests);
  DistributionContext seconds;
  seconds.quantity = Quantity::seconds;
  const nlohmann::json* think = spec.find("think_time_s");
  params.think_time_s = Distribution::parse(think != nullptr ? *think : nlohmann::json(0),
                                            spec.key_path("think_time_s"), seconds);
  params.lengths = parse_lengths(spec, settings, kDefaultPrompt, kDefaultOutput);
  params.system_prompt_tokens = spec.integer("system_prompt_tokens", 0, 0, base::kMaxTokens);
  params.block_tokens = static_cast<int32_t>(spec.integer("block_tokens", 16, 1, 1 << 20));
  params.start_spread_s = spec.number("start_spread_s", 0.0, 0.0, 1e9);
  return params;
}

}  // namespace

std::vector<Request> generate_closed_loop(SpecObject& spec, const CommonSettings& settings) {
  const ClosedLoopParams params = parse_params(spec, settings);
  if (settings.duration_s) {
    spec.fail("duration_s",
              "closed_loop takes num_requests: when its requests arrive depends on how fast "
              "they are served, which only the simulation knows");
  }
  finish_parsing(spec, settings);
  const int64_t num_requests = *settings.num_requests;
  Rng think_rng(stream_seed(settings.seed, Stream::structure));
  Rng prompt_rng(stream_seed(settings.seed, Stream::prompts));
  Rng output_rng(stream_seed(settings.seed, Stream::outputs));
  const uint64_t workload_key = stream_seed(settings.seed, Stream::blocks);
  std::vector<Request> requests(static_cast<size_t>(num_requests));  // [num_requests]
  for (int64_t j = 0; j < num_requests; ++j) {
    Request& request = requests[static_cast<size_t>(j)];
    const int64_t client = j % params.concurrency;
    request.id = j;
    // All clients at once (vllm bench serve's burst) unless their starts are spread; a later
    // request's arrival_s is only its earliest time, its dep decides.
    request.arrival_s = j < params.concurrency
                            ? params.start_spread_s * static_cast<double>(client) /
                                  static_cast<double>(params.concurrency)
                            : 0.0;
    request.prompt_tokens =
        std::min(params.system_prompt_tokens + params.lengths.prompt.sample_integer(prompt_rng),
                 base::kMaxTokens);
    request.output_tokens = params.lengths.output.sample_integer(output_rng);
    request.session_id = fmt::format("c{}", client);
    request.turn = static_cast<int32_t>(j / params.concurrency);  // < kMaxGeneratedRequests
    if (j >= params.concurrency) {
      request.deps = {j - params.concurrency};
      request.think_time_s = params.think_time_s.sample(think_rng);
    }
    if (params.system_prompt_tokens > 0) {
      const uint64_t own_key =
          stream_seed(settings.seed, Stream::blocks, static_cast<uint64_t>(j) + 1);
      hash_prompt_blocks(PromptBlockOwners{params.block_tokens, params.system_prompt_tokens,
                                           workload_key, own_key},
                         request);
    }
  }
  return requests;
}

}  // namespace tidal::traces
