// CPU engine benchmark: prints one JSON object per figure.
//   memory_read     GB/s of a multi-threaded stream read of 1 GiB (the bandwidth figure)
//   decode          one decode step of `batch` sequences with `context` cached tokens each:
//                   step time, weight bytes read per step / time (GB/s), and that rate's share
//                   of memory_read (target: >= 0.6 at batch 1)
//   prefill         one step prefilling `batch` sequences of `prompt` tokens: step time and
//                   GFLOP/s (2 x linear weights x tokens + attention score and value products)
// The model is small-100m (100M parameters, tied embeddings) with random weights, run through
// the engine's tensor-parallel executor (tp 1) exactly as `tidal engine run` does.
//   engine_cpu [--threads N] [--quant none|int8|fp8] [--context C] [--prompt P]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "bench/option_pairs.h"
#include "engine/tensor_parallel_executor.h"
#include "kernels/thread_pool.h"
#include "models/presets.h"
#include "models/quantize_weights.h"
#include "models/random_weights.h"

namespace {

using tidal::engine::ExecutorConfig;
using tidal::engine::TensorParallelExecutor;
namespace models = tidal::models;

// Median seconds per call of fn over `repeats` calls after one warm-up call.
double median_seconds(const std::function<void()>& fn, int repeats) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double measure_read_bandwidth(int num_threads) {
  tidal::kernels::ThreadPool pool(num_threads);
  std::vector<float> buffer((size_t{1} << 30) / sizeof(float), 1.0f);  // [1 GiB / 4]
  std::vector<double> partial(static_cast<size_t>(num_threads));
  const auto count = static_cast<int64_t>(buffer.size());
  const int64_t per_range = (count + num_threads - 1) / num_threads;
  const double seconds = median_seconds(
      [&] {
        pool.parallel_for(count, per_range, [&](int64_t begin, int64_t end) {
          float lanes[16] = {};
          for (int64_t i = begin; i + 16 <= end; i += 16) {
            for (int l = 0; l < 16; ++l) lanes[l] += buffer[static_cast<size_t>(i + l)];
          }
          partial[static_cast<size_t>(begin / per_range)] = std::accumulate(lanes, lanes + 16, 0.0);
        });
      },
      5);
  return static_cast<double>(buffer.size() * sizeof(float)) / seconds / 1e9;
}

// Bytes a forward reads from the linear layers (the LM head included; for a tied f32 head that
// is the embedding table). Embedding lookups and norms are negligible.
double linear_weight_bytes(const models::ModelWeights& w) {
  double bytes = 0.0;
  models::visit_linears(w, [&](const std::string&, const tidal::kernels::LinearWeight& l) {
    bytes += static_cast<double>(l.bytes());
  });
  if (!w.lm_head) bytes += static_cast<double>(w.embed_tokens.size() * sizeof(float));
  return bytes;
}

double linear_parameters(const models::ModelWeights& w) {
  double params = 0.0;
  models::visit_linears(w, [&](const std::string&, const tidal::kernels::LinearWeight& l) {
    params += static_cast<double>(l.rows * l.cols);
  });
  if (!w.lm_head) params += static_cast<double>(w.embed_tokens.size());
  return params;
}

// `batch` sequences; sequence s owns blocks [s * blocks_per_seq, (s + 1) * blocks_per_seq).
models::ForwardBatch make_batch(int64_t batch, int64_t first_position, int64_t num_new_tokens,
                                int64_t blocks_per_seq, int64_t block_size) {
  models::ForwardBatch fb;
  for (int64_t s = 0; s < batch; ++s) {
    models::SequenceInput seq;
    for (int64_t b = 0; b < blocks_per_seq; ++b) {
      seq.block_table.push_back(static_cast<int32_t>(s * blocks_per_seq + b));
    }
    for (int64_t p = first_position; p < first_position + num_new_tokens; ++p) {
      seq.token_ids.push_back(static_cast<int32_t>((p * 7919 + s * 104729) % 32000));
      seq.positions.push_back(static_cast<int32_t>(p));
      seq.slot_mapping.push_back(seq.block_table[static_cast<size_t>(p / block_size)] * block_size +
                                 p % block_size);
    }
    fb.sequences.push_back(std::move(seq));
  }
  return fb;
}

void print(const nlohmann::ordered_json& j) {
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string quant = "none";
  int64_t context = 128;
  int64_t prompt = 128;
  constexpr std::string_view kUsage =
      "usage: engine_cpu [--threads N] [--quant none|int8|fp8] [--context C] [--prompt P]";
  for (const auto& [key, value] : tidal::bench::option_pairs(
           argc, argv, {"--threads", "--quant", "--context", "--prompt"}, kUsage)) {
    if (key == "--threads")
      num_threads = tidal::bench::option_number(argv[0], key, value, 1, kUsage);
    if (key == "--quant") quant = value;
    if (key == "--context") {
      context = tidal::bench::option_number(argv[0], key, value, int64_t{1}, kUsage);
    }
    if (key == "--prompt") {
      prompt = tidal::bench::option_number(argv[0], key, value, int64_t{1}, kUsage);
    }
  }
  models::QuantSpec quant_spec;
  try {
    quant_spec = models::parse_quant_spec(quant, "--quant");
  } catch (const tidal::InputError& e) {
    std::fprintf(stderr, "%s: %s\n%.*s\n", argv[0], e.what(), static_cast<int>(kUsage.size()),
                 kUsage.data());
    return 2;
  }
  const double bandwidth = measure_read_bandwidth(num_threads);
  print({{"bench", "engine_cpu"},
         {"figure", "memory_read"},
         {"threads", num_threads},
         {"gb_per_s", bandwidth}});

  const models::ModelConfig config = *models::find_preset("small-100m");
  constexpr int64_t kBlockSize = 16;
  const int64_t max_tokens = std::max(context + 1, prompt);
  const int64_t blocks_per_seq = (max_tokens + kBlockSize - 1) / kBlockSize;
  ExecutorConfig ec;
  ec.num_threads = num_threads;
  ec.quant = quant_spec;
  ec.kv_dtype = tidal::kernels::KvDType::bf16;
  ec.block_size = kBlockSize;
  ec.num_gpu_blocks = 32 * blocks_per_seq;
  TensorParallelExecutor executor(models::random_weights(config, 1), ec);
  const models::ModelWeights& weights = executor.rank_weights(0);
  const double weight_bytes = linear_weight_bytes(weights);
  const double params = linear_parameters(weights);
  const double attention_flops_per_pair =  // q.k and p.v per (query, key) pair, every layer
      4.0 * static_cast<double>(config.num_layers * config.num_heads * config.head_dim);

  for (int64_t batch : {1, 8, 32}) {
    // Fill the cache with `context` tokens per sequence, then time one decode token each.
    executor.forward(make_batch(batch, 0, context, blocks_per_seq, kBlockSize));
    const models::ForwardBatch decode = make_batch(batch, context, 1, blocks_per_seq, kBlockSize);
    const double seconds = median_seconds([&] { executor.forward(decode); }, batch == 32 ? 3 : 7);
    const double gb_per_s = weight_bytes / seconds / 1e9;
    print({{"bench", "engine_cpu"},
           {"figure", "decode"},
           {"model", "small-100m"},
           {"quant", quant},
           {"threads", num_threads},
           {"batch", batch},
           {"context", context},
           {"step_ms", seconds * 1e3},
           {"tokens_per_s", static_cast<double>(batch) / seconds},
           {"weight_bytes", weight_bytes},
           {"weight_gb_per_s", gb_per_s},
           {"share_of_memory_read", gb_per_s / bandwidth}});
  }
  for (int64_t batch : {1, 8, 32}) {
    const models::ForwardBatch fill = make_batch(batch, 0, prompt, blocks_per_seq, kBlockSize);
    const double seconds = median_seconds([&] { executor.forward(fill); }, batch == 32 ? 1 : 3);
    const double tokens = static_cast<double>(batch * prompt);
    const double pairs = static_cast<double>(batch) * static_cast<double>(prompt) *
                         static_cast<double>(prompt + 1) / 2.0;
    const double flops = 2.0 * params * tokens + attention_flops_per_pair * pairs;
    print({{"bench", "engine_cpu"},
           {"figure", "prefill"},
           {"model", "small-100m"},
           {"quant", quant},
           {"threads", num_threads},
           {"batch", batch},
           {"prompt", prompt},
           {"step_ms", seconds * 1e3},
           {"tokens_per_s", tokens / seconds},
           {"gflop_per_s", flops / seconds / 1e9}});
  }
  return 0;
}
