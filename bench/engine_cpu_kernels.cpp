// CPU kernel benchmark: prints one JSON object per figure.
//   memory_read: GB/s streaming 64 MiB slices of a 512 MiB buffer (the bandwidth figure);
//   memory_copy: memcpy of the whole buffer, read + write bytes
//   gemv: a 4096x4096 weight times one token, weight bytes / time, and its share of memory_read
//   gemm: the same weight times 64 and 256 tokens, GFLOP/s
//   paged_attention_decode: 32 sequences x 1024 cached tokens, GB/s of KV read
// Weights cycle through enough copies (> 4x a 32 MiB L3) that every GEMV streams from memory.
//   engine_cpu_kernels [--threads N] (default: all hardware threads)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/option_pairs.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/paged_attention.h"
#include "kernels/cpu/vector_ops.h"
#include "kernels/linear_weight.h"

namespace {

using tidal::kernels::LinearView;
using tidal::kernels::LinearWeight;
using tidal::kernels::ThreadPool;
using tidal::kernels::cpu::GemmPath;

constexpr int64_t kRows = 4096;
constexpr int64_t kCols = 4096;
constexpr size_t kStreamBytes = size_t{512} << 20;  // well beyond any cache
constexpr size_t kMinCycledBytes = size_t{256} << 20;

// Best seconds per call of fn over repeated calls for about `budget` seconds.
double best_seconds(const std::function<void()>& fn, double budget = 1.0) {
  fn();  // warm up
  double best = 1e30;
  const auto start = std::chrono::steady_clock::now();
  int calls = 0;
  while (calls < 3 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ++calls;
  }
  return best;
}

std::vector<float> random_floats(std::mt19937_64& rng, size_t count) {
  std::vector<float> values(count);
  for (float& v : values)
    v = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0);
  return values;
}

// Best GB/s reading one 64 MiB slice (the size of the fp32 GEMV weight) of a 512 MiB buffer,
// cycling through the slices: timed like the GEMV, so the two figures compare.
double measure_read_bandwidth(ThreadPool& pool, const std::vector<float>& buffer) {
  const int64_t slice = kRows * kCols;
  const int64_t num_slices = static_cast<int64_t>(buffer.size()) / slice;
  std::vector<double> partial(pool.num_threads());
  int64_t next = 0;
  const double seconds = best_seconds([&] {
    const float* data = buffer.data() + (next++ % num_slices) * slice;
    const int64_t per_range = (slice + pool.num_threads() - 1) / pool.num_threads();
    pool.parallel_for(slice, per_range, [&](int64_t begin, int64_t end) {
      // The kernels' own vector loop (multiversioned), so the figure is what they can stream.
      partial[begin / per_range] = tidal::kernels::cpu::sum_squares(data + begin, end - begin);
    });
  });
  return static_cast<double>(slice * sizeof(float)) / seconds / 1e9;
}

double measure_copy_bandwidth(ThreadPool& pool, const std::vector<float>& src,
                              std::vector<float>& dst) {
  const double seconds = best_seconds([&] {
    const int64_t count = static_cast<int64_t>(src.size());
    pool.parallel_for(count, (count + pool.num_threads() - 1) / pool.num_threads(),
                      [&](int64_t begin, int64_t end) {
                        std::memcpy(dst.data() + begin, src.data() + begin,
                                    (end - begin) * sizeof(float));
                      });
  });
  return 2.0 * static_cast<double>(src.size() * sizeof(float)) / seconds / 1e9;  // read + write
}

struct WeightCase {
  std::string format;
  std::vector<LinearWeight> copies;  // cycled so each call streams from memory
};

WeightCase make_case(std::mt19937_64& rng, const std::string& format) {
  const std::vector<float> values = random_floats(rng, kRows * kCols);
  const LinearWeight prototype =
      format == "f32"         ? tidal::kernels::make_f32_linear(values, kRows, kCols)
      : format == "int8"      ? tidal::kernels::quantize_int8(values.data(), kRows, kCols, 0)
      : format == "int8:g128" ? tidal::kernels::quantize_int8(values.data(), kRows, kCols, 128)
                              : tidal::kernels::quantize_fp8_e4m3(values.data(), kRows, kCols);
  WeightCase c{format, {}};
  const size_t num_copies =
      std::max<size_t>(2, (kMinCycledBytes + prototype.bytes() - 1) / prototype.bytes());
  for (size_t i = 0; i < num_copies; ++i) c.copies.push_back(prototype);
  return c;
}

void bench_linear(ThreadPool& pool, const WeightCase& c, int64_t num_tokens, GemmPath path,
                  double read_gbps, std::mt19937_64& rng) {
  const std::vector<float> x = random_floats(rng, num_tokens * kCols);  // [num_tokens, cols]
  std::vector<float> y(num_tokens * kRows);                             // [num_tokens, rows]
  size_t next = 0;
  const double seconds = best_seconds([&] {
    const LinearView view = c.copies[next++ % c.copies.size()].view();
    tidal::kernels::cpu::linear(pool, x.data(), num_tokens, view, y.data(), path);
  });
  const double weight_bytes = static_cast<double>(c.copies[0].bytes());
  const double gflops = 2.0 * num_tokens * kRows * kCols / seconds / 1e9;
  if (num_tokens == 1) {
    const double gbps = weight_bytes / seconds / 1e9;
    std::printf(
        "{\"bench\": \"gemv\", \"format\": \"%s\", \"path\": \"%s\", \"rows\": %lld, \"cols\": "
        "%lld, \"threads\": %d, \"us\": %.1f, \"weight_gb_per_s\": %.2f, "
        "\"share_of_memory_read\": %.3f, \"gflop_per_s\": %.2f}\n",
        c.format.c_str(), tidal::kernels::cpu::gemm_path_name(path), static_cast<long long>(kRows),
        static_cast<long long>(kCols), pool.num_threads(), seconds * 1e6, gbps, gbps / read_gbps,
        gflops);
  } else {
    std::printf(
        "{\"bench\": \"gemm\", \"format\": \"%s\", \"path\": \"%s\", \"tokens\": %lld, \"rows\": "
        "%lld, \"cols\": %lld, \"threads\": %d, \"ms\": %.2f, \"gflop_per_s\": %.2f}\n",
        c.format.c_str(), tidal::kernels::cpu::gemm_path_name(path),
        static_cast<long long>(num_tokens), static_cast<long long>(kRows),
        static_cast<long long>(kCols), pool.num_threads(), seconds * 1e3, gflops);
  }
  std::fflush(stdout);
}

void bench_decode_attention(ThreadPool& pool, tidal::kernels::KvDType dtype, double read_gbps) {
  using namespace tidal::kernels;
  const int64_t num_seqs = 32, context = 1024, block_size = 16, num_heads = 32, num_kv_heads = 8,
                head_dim = 128;
  KvCacheSpec spec;
  spec.num_layers = 1;
  spec.num_blocks = num_seqs * context / block_size;
  spec.block_size = block_size;
  spec.num_kv_heads = num_kv_heads;
  spec.head_dim = head_dim;
  spec.dtype = dtype;
  KvArena arena(spec);
  std::mt19937_64 rng(3);
  // Fill the cache through the kernel (values in [-1, 1)).
  const int64_t num_slots = spec.num_blocks * block_size;
  const std::vector<float> kv_values = random_floats(rng, 4096 * num_kv_heads * head_dim);
  std::vector<int64_t> slots(4096);
  for (int64_t first = 0; first < num_slots; first += 4096) {
    std::iota(slots.begin(), slots.end(), first);
    cpu::write_kv(pool, arena.view(), 0, kv_values.data(), kv_values.data(), slots.data(), 4096);
  }
  std::vector<int32_t> block_tables(spec.num_blocks);  // [num_seqs, context / block_size]
  std::iota(block_tables.begin(), block_tables.end(), 0);
  std::shuffle(block_tables.begin(), block_tables.end(), rng);
  std::vector<int32_t> query_start_loc(num_seqs + 1), positions(num_seqs, context - 1);
  std::iota(query_start_loc.begin(), query_start_loc.end(), 0);
  std::vector<int64_t> slot_mapping(num_seqs, 0);
  AttentionBatch batch;
  batch.num_seqs = num_seqs;
  batch.num_tokens = num_seqs;
  batch.query_start_loc = query_start_loc.data();
  batch.positions = positions.data();
  batch.slot_mapping = slot_mapping.data();
  batch.block_tables = block_tables.data();
  batch.max_blocks_per_seq = context / block_size;
  batch.num_heads = num_heads;
  batch.num_kv_heads = num_kv_heads;
  batch.head_dim = head_dim;
  const std::vector<float> q = random_floats(rng, num_seqs * num_heads * head_dim);
  std::vector<float> out(q.size());
  const double seconds = best_seconds(
      [&] { cpu::paged_attention(pool, q.data(), arena.view(), 0, batch, 0.088f, out.data()); });
  const double kv_bytes = static_cast<double>(spec.data_bytes() + spec.scale_bytes());
  std::printf(
      "{\"bench\": \"paged_attention_decode\", \"kv_dtype\": \"%s\", \"seqs\": %lld, "
      "\"context\": %lld, \"heads\": %lld, \"kv_heads\": %lld, \"head_dim\": %lld, \"threads\": "
      "%d, \"ms\": %.3f, \"kv_gb_per_s\": %.2f, \"share_of_memory_read\": %.3f}\n",
      kv_dtype_name(dtype), static_cast<long long>(num_seqs), static_cast<long long>(context),
      static_cast<long long>(num_heads), static_cast<long long>(num_kv_heads),
      static_cast<long long>(head_dim), pool.num_threads(), seconds * 1e3, kv_bytes / seconds / 1e9,
      kv_bytes / seconds / 1e9 / read_gbps);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  constexpr std::string_view kUsage = "usage: engine_cpu_kernels [--threads N]";
  for (const auto& [key, value] : tidal::bench::option_pairs(argc, argv, {"--threads"}, kUsage)) {
    num_threads = tidal::bench::option_number(argv[0], key, value, 1, kUsage);
  }
  ThreadPool pool(num_threads);
  std::mt19937_64 rng(1);

  double read_gbps = 0.0;
  {
    const std::vector<float> src = random_floats(rng, kStreamBytes / sizeof(float));
    std::vector<float> dst(src.size());
    read_gbps = measure_read_bandwidth(pool, src);
    const double copy_gbps = measure_copy_bandwidth(pool, src, dst);
    std::printf(
        "{\"bench\": \"memory_read\", \"slice_bytes\": %lld, \"buffer_bytes\": %zu, "
        "\"threads\": %d, \"gb_per_s\": %.2f}\n",
        static_cast<long long>(kRows * kCols * sizeof(float)), kStreamBytes, pool.num_threads(),
        read_gbps);
    std::printf(
        "{\"bench\": \"memory_copy\", \"bytes\": %zu, \"threads\": %d, \"gb_per_s\": %.2f, "
        "\"counts\": \"read + write\"}\n",
        kStreamBytes, pool.num_threads(), copy_gbps);
    std::fflush(stdout);
  }
  for (const std::string format : {"f32", "int8", "int8:g128", "fp8"}) {
    const WeightCase c = make_case(rng, format);
    for (GemmPath path : {GemmPath::batch_invariant, GemmPath::eigen}) {
      for (int64_t num_tokens : {1, 64, 256}) {
        if (format == "fp8" && num_tokens == 256) continue;  // emulated; 64 tokens tell enough
        bench_linear(pool, c, num_tokens, path, read_gbps, rng);
      }
    }
  }
  for (tidal::kernels::KvDType dtype : {tidal::kernels::KvDType::f32, tidal::kernels::KvDType::bf16,
                                        tidal::kernels::KvDType::int8}) {
    bench_decode_attention(pool, dtype, read_gbps);
  }
  return 0;
}
