// Shared helpers of the engine tests: tiny random models, synthetic requests, a deterministic
// clock and a loop that runs an engine until every request finished.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/prompt_tokens.h"
#include "kernels/sampling.h"
#include "models/config.h"
#include "models/presets.h"
#include "models/random_weights.h"
#include "models/reference_forward.h"
#include "traces/request.h"

namespace tidal::engine::testing {

// Advances 1 us per reading and jumps on sleep: plans depend on nothing but the inputs.
class FakeClock final : public Clock {
 public:
  int64_t now_ns() override { return now_ += 1000; }
  void sleep_until(int64_t deadline_ns) override { now_ = std::max(now_, deadline_ns); }

 private:
  int64_t now_ = 0;
};

inline models::ModelConfig tiny_config() {
  return *models::find_preset("tiny");
}

// Four kv heads, so tensor parallelism up to 4 divides everything.
inline models::ModelConfig tp4_config() {
  models::ModelConfig c = tiny_config();
  c.num_heads = 4;
  c.num_kv_heads = 4;
  c.intermediate_size = 128;
  return c;
}

inline Request make_request(int64_t id, int64_t prompt_tokens, int64_t output_tokens) {
  Request r;
  r.id = id;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = output_tokens;
  return r;
}

// The same, arriving at `arrival_s` (traces replayed by run_engine).
inline Request make_request(int64_t id, double arrival_s, int64_t prompt_tokens,
                            int64_t output_tokens) {
  Request r = make_request(id, prompt_tokens, output_tokens);
  r.arrival_s = arrival_s;
  return r;
}

// Adds every request now and steps until all finished; returns output tokens by id.
inline std::map<int64_t, std::vector<int32_t>> run_to_completion(
    Engine& engine, const std::vector<Request>& requests, FakeClock& clock,
    uint64_t prompt_seed = 7, std::vector<StepRecord>* steps = nullptr) {
  for (const Request& r : requests) {
    const sched::RejectReason reason = engine.add_request(
        r, synthesize_prompt(r, engine.model_config().vocab_size, prompt_seed), clock.now_ns());
    EXPECT_EQ(reason, sched::RejectReason::none) << "request " << r.id;
  }
  StepRecord record;
  int64_t num_steps = 0;
  while (engine.has_unfinished()) {
    if (!engine.step(clock, record)) {  // static batching waits for a full batch or its timeout
      EXPECT_NE(engine.next_wakeup_ns(), sched::Scheduler::kNoWakeup) << "stalled";
      if (engine.next_wakeup_ns() == sched::Scheduler::kNoWakeup) break;
      clock.sleep_until(engine.next_wakeup_ns());
      continue;
    }
    if (steps) steps->push_back(record);
    if (++num_steps > 100000) {
      ADD_FAILURE() << "engine did not finish";
      break;
    }
  }
  std::map<int64_t, std::vector<int32_t>> outputs;
  for (const Request& r : requests) {
    const std::span<const int32_t> out = engine.output_tokens(r.id);
    outputs[r.id].assign(out.begin(), out.end());
  }
  return outputs;
}

inline std::map<int64_t, std::vector<int32_t>> run_to_completion(
    Engine& engine, const std::vector<Request>& requests, uint64_t prompt_seed = 7,
    std::vector<StepRecord>* steps = nullptr) {
  FakeClock clock;
  return run_to_completion(engine, requests, clock, prompt_seed, steps);
}

// A small engine config: f32 KV (the reference forward's precision) and a small arena.
inline EngineConfig small_config() {
  EngineConfig config;
  config.kv_dtype = kernels::KvDType::f32;
  config.num_gpu_blocks = 128;
  return config;
}

// Greedy decoding with the reference forward: `num_output_tokens` tokens after `prompt`.
inline std::vector<int32_t> reference_greedy(const models::ModelWeights& weights,
                                             const std::vector<int32_t>& prompt,
                                             int64_t num_output_tokens) {
  models::ReferenceForward reference(weights);
  const int64_t vocab = weights.config.vocab_size;
  std::vector<float> logits = reference.run(prompt);  // [prompt, vocab]
  std::vector<int32_t> out;
  int32_t token =
      kernels::argmax(logits.data() + (static_cast<int64_t>(prompt.size()) - 1) * vocab, vocab);
  out.push_back(token);
  while (static_cast<int64_t>(out.size()) < num_output_tokens) {
    logits = reference.step(token);
    token = kernels::argmax(logits.data(), vocab);
    out.push_back(token);
  }
  return out;
}

}  // namespace tidal::engine::testing
