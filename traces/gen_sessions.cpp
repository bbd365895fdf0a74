// The sessions generator: users open conversations (Poisson), each turn's prompt is the whole
// history (system prompt, earlier prompts and replies) plus a new message, so consecutive
// turns share a prefix. Prompt blocks are hashed so equal leading content gets equal hashes.
// Open loop, turns arrive at generated times; closed loop, a turn waits for the previous
// answer and then its think time.
#include <functional>
#include <queue>

#include <fmt/format.h>

#include "traces/generator_kinds.h"
#include "traces/limits.h"
#include "traces/prompt_blocks.h"

namespace tidal::traces {
namespace {

const nlohmann::json kDefaultMessage = {{"dist", "lognormal"}, {"median", 200}, {"sigma", 1.0}};
const nlohmann::json kDefaultReply = {{"dist", "lognormal"}, {"median", 250}, {"sigma", 0.8}};
const nlohmann::json kDefaultTurns = {{"dist", "uniform"}, {"min", 1}, {"max", 8}};
const nlohmann::json kDefaultThinkTime = {{"dist", "exponential"}, {"mean", 30}};

struct SessionParams {
  double session_rate = 0.0;  // new sessions per second (after rate_scale)
  Distribution turns;
  Distribution think_time_s;
  LengthDistributions lengths;  // prompt: the new message of each turn; output: the reply
  int64_t system_prompt_tokens = 0;
  int64_t max_context_tokens = 0;
  int32_t block_tokens = 16;
  bool closed_loop = false;  // a turn depends on the previous one and waits its think time
};

SessionParams parse_params(SpecObject& spec, const CommonSettings& settings) {
  SessionParams params;
  params.session_rate =
      spec.required_number("session_rate", 0.0, SpecObject::kInfinity, true) * settings.rate_scale;
  params.turns = parse_count(spec, "turns", kDefaultTurns);
  DistributionContext seconds;
  seconds.quantity = Quantity::seconds;
  const nlohmann::json* think = spec.find("think_time_s");
  params.think_time_s = Distribution::parse(think != nullptr ? *think : kDefaultThinkTime,
                                            spec.key_path("think_time_s"), seconds);
  params.lengths = parse_lengths(spec, settings, kDefaultMessage, kDefaultReply);
  params.system_prompt_tokens = spec.integer("system_prompt_tokens", 0, 0, base::kMaxTokens);
  params.max_context_tokens = spec.integer("max_context_tokens", 131072, 1, base::kMaxTokens);
  params.block_tokens = static_cast<int32_t>(spec.integer("block_tokens", 16, 1, 1 << 20));
  params.closed_loop = spec.boolean("closed_loop", false);
  return params;
}

}  // namespace

std::vector<Request> generate_sessions(SpecObject& spec, const CommonSettings& settings) {
  const SessionParams params = parse_params(spec, settings);
  finish_parsing(spec, settings);
  const double horizon_s = settings.process_horizon_s();
  if (settings.duration_s) check_request_budget(spec, params.session_rate * horizon_s);
  Rng start_rng(stream_seed(settings.seed, Stream::arrivals));
  const uint64_t workload_key = stream_seed(settings.seed, Stream::blocks);
  std::vector<Request> requests;  // [num_requests] session by session
  // Arrivals not yet known to be among the first num_requests (count mode only): once that
  // many arrivals precede the next session's start, no later session can change the first ones.
  std::priority_queue<double, std::vector<double>, std::greater<>> pending_arrivals;
  int64_t num_settled = 0;
  double start_s = 0.0;
  for (uint64_t session = 0;; ++session) {
    start_s += start_rng.exponential(1.0 / params.session_rate);
    if (start_s >= horizon_s) break;
    if (settings.num_requests) {
      while (!pending_arrivals.empty() && pending_arrivals.top() < start_s) {
        pending_arrivals.pop();
        ++num_settled;
      }
      if (num_settled >= *settings.num_requests) break;
    }
    Rng turn_rng(stream_seed(settings.seed, Stream::structure, session));
    Rng prompt_rng(stream_seed(settings.seed, Stream::prompts, session));
    Rng output_rng(stream_seed(settings.seed, Stream::outputs, session));
    const uint64_t session_key = stream_seed(settings.seed, Stream::blocks, session + 1);
    const int64_t num_turns = params.turns.sample_integer(turn_rng);
    const PromptBlockOwners owners{params.block_tokens, params.system_prompt_tokens, workload_key,
                                   session_key};
    int64_t history_tokens = params.system_prompt_tokens;
    double arrival_s = start_s;
    for (int64_t turn = 0; turn < num_turns; ++turn) {
      const double think_s = turn > 0 ? params.think_time_s.sample(turn_rng) : 0.0;
      // Closed loop, every turn may arrive from the session start on: the simulator holds it
      // until the previous answer plus its think time. No turn time is known here to cut at.
      if (!params.closed_loop) arrival_s += think_s;
      if (arrival_s >= horizon_s) break;
      const int64_t message_tokens = params.lengths.prompt.sample_integer(prompt_rng);
      if (history_tokens + message_tokens > params.max_context_tokens) break;
      Request& request = requests.emplace_back();
      request.id = static_cast<int64_t>(requests.size()) - 1;
      request.arrival_s = arrival_s;
      request.prompt_tokens = history_tokens + message_tokens;
      request.output_tokens = params.lengths.output.sample_integer(output_rng);
      request.session_id = fmt::format("s{}", session);
      request.turn = static_cast<int32_t>(turn);
      if (params.closed_loop && turn > 0) {
        request.deps = {request.id - 1};
        request.think_time_s = think_s;
      }
      hash_prompt_blocks(owners, request);
      history_tokens = request.prompt_tokens + request.output_tokens;
      if (settings.num_requests) pending_arrivals.push(arrival_s);
    }
    check_request_budget(spec, static_cast<double>(requests.size()));
  }
  return requests;
}

}  // namespace tidal::traces
