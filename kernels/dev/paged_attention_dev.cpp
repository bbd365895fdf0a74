// Paged attention decode with a bf16 KV cache (Llama-3-8B heads: 32 query, 8 kv, head_dim 128):
// variant 1 = one block per (token, kv head) over the whole context, 2 = context split into
// partitions of >= 128 positions then reduced (the backend's choice), 3 = partitions >= 1024.
// Validates against the CPU backend where the batch is small enough, prints GB/s of KV read.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/kv_arena.h"
#include "kernels/dev/dev_support.h"
#include "kernels/numeric/bf16.h"

using namespace tidal::kernels;

namespace {

constexpr int64_t kHeads = 32, kKvHeads = 8, kHeadDim = 128, kBlockSize = 16;
constexpr int64_t kMaxValidatedTokens = 16384;  // batch * context checked on the CPU

cuda::AttentionSplit split_for_variant(int variant, const AttentionBatch& batch) {
  if (variant == 1) return cuda::AttentionSplit{1, batch.max_blocks_per_seq * kBlockSize};
  return cuda::choose_attention_split(batch, kBlockSize, variant == 2 ? 128 : 1024);
}

}  // namespace

int main(int argc, char** argv) {
  const int only_variant = argc > 1 ? std::atoi(argv[1]) : 0;
  if (cuda::device_count() == 0) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 1;
  }
  cuda::CudaBackend backend(0);
  cpu::CpuBackend reference(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::mt19937_64 rng(2);
  struct Shape {
    int64_t batch, context;
  };
  for (const Shape shape : {Shape{1, 1024}, Shape{1, 8192}, Shape{1, 32768}, Shape{8, 2048},
                            Shape{16, 8192}, Shape{64, 2048}, Shape{256, 1024}}) {
    const int64_t blocks_per_seq = shape.context / kBlockSize;
    const KvCacheSpec spec{
        1, shape.batch * blocks_per_seq, kBlockSize, kKvHeads, kHeadDim, KvDType::bf16};
    std::vector<uint16_t> kv_codes(spec.data_bytes() / sizeof(uint16_t));  // whole arena
    for (uint16_t& code : kv_codes) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      code = float_to_bf16(static_cast<float>(2.0 * u - 1.0));
    }
    cuda::CudaKvArena arena(spec);
    KvCacheView kv = arena.view();
    TIDAL_CUDA_CHECK(
        cudaMemcpy(kv.data, kv_codes.data(), spec.data_bytes(), cudaMemcpyHostToDevice));
    TIDAL_CUDA_CHECK(cudaDeviceSynchronize());  // the backend stream does not wait for it
    std::vector<int32_t> query_start_loc(shape.batch + 1);            // [batch + 1]
    std::vector<int32_t> positions(shape.batch);                      // [batch]
    std::vector<int64_t> slots(shape.batch);                          // [batch]
    std::vector<int32_t> block_tables(shape.batch * blocks_per_seq);  // [batch, blocks_per_seq]
    for (int64_t s = 0; s < shape.batch; ++s) {
      query_start_loc[s + 1] = static_cast<int32_t>(s + 1);
      positions[s] = static_cast<int32_t>(shape.context - 1);
      for (int64_t b = 0; b < blocks_per_seq; ++b) {
        block_tables[s * blocks_per_seq + b] = static_cast<int32_t>(s * blocks_per_seq + b);
      }
      slots[s] = (s * blocks_per_seq + blocks_per_seq - 1) * kBlockSize + kBlockSize - 1;
    }
    const auto q = dev::random_values(rng, shape.batch * kHeads * kHeadDim);
    AttentionBatch host_batch{shape.batch,      shape.batch,  query_start_loc.data(),
                              positions.data(), slots.data(), block_tables.data(),
                              blocks_per_seq,   kHeads,       kKvHeads,
                              kHeadDim};
    std::vector<float> expected;
    const bool validate = shape.batch * shape.context <= kMaxValidatedTokens;
    if (validate) {
      KvArena host_arena(spec);
      std::memcpy(host_arena.view().data, kv_codes.data(), spec.data_bytes());
      expected.resize(q.size());
      reference.paged_attention(q.data(), host_arena.view(), 0, host_batch, 0.0883883f,
                                expected.data());
    }
    cuda::DeviceBuffer<int32_t> d_qsl(query_start_loc);
    cuda::DeviceBuffer<int32_t> d_pos(positions);
    cuda::DeviceBuffer<int64_t> d_slots(slots);
    cuda::DeviceBuffer<int32_t> d_tables(block_tables);
    cuda::DeviceBuffer<float> d_q(q);
    cuda::DeviceBuffer<float> d_out(q.size());
    AttentionBatch batch = host_batch;
    batch.query_start_loc = d_qsl.data();
    batch.positions = d_pos.data();
    batch.slot_mapping = d_slots.data();
    batch.block_tables = d_tables.data();
    for (int variant = 1; variant <= 3; ++variant) {
      if (only_variant != 0 && variant != only_variant) continue;
      const cuda::AttentionSplit split = split_for_variant(variant, batch);
      cuda::DeviceBuffer<float> workspace(
          std::max<int64_t>(cuda::attention_workspace_floats(batch, split), 1));
      const auto run = [&] {
        cuda::launch_paged_attention(d_q.data(), kv, 0, batch, 0.0883883f, split, workspace.data(),
                                     d_out.data(), backend.stream());
      };
      run();
      backend.synchronize();
      const double error = validate ? dev::relative_error(d_out.to_host(), expected) : -1.0;
      const double ms = dev::time_ms(backend.stream(), 10, run);
      const double kv_bytes = static_cast<double>(spec.data_bytes());
      std::printf(
          "{\"kernel\": \"paged_attention_decode\", \"variant\": %d, \"batch\": %lld, "
          "\"context\": %lld, \"num_splits\": %lld, \"rel_error\": %.3g, \"valid\": %s, "
          "\"ms\": %.4f, \"kv_gb_per_s\": %.1f}\n",
          variant, static_cast<long long>(shape.batch), static_cast<long long>(shape.context),
          static_cast<long long>(split.num_splits), error,
          !validate ? "null" : (error < 1e-4 ? "true" : "false"), ms, kv_bytes / ms / 1e6);
    }
  }
  return 0;
}
