#include "kernels/cpu/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/vector_ops.h"

namespace tidal::kernels {

namespace {

int64_t slot_of(const AttentionBatch& batch, int64_t block_size, int64_t seq, int64_t position) {
  const int32_t block = batch.block_tables[seq * batch.max_blocks_per_seq + position / block_size];
  return static_cast<int64_t>(block) * block_size + position % block_size;
}

// Softmax of scores[0, count) in place, plain loops.
void plain_softmax(float* scores, int64_t count) {
  float max_score = scores[0];
  for (int64_t i = 1; i < count; ++i) max_score = std::max(max_score, scores[i]);
  float sum = 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    scores[i] = std::exp(scores[i] - max_score);
    sum += scores[i];
  }
  for (int64_t i = 0; i < count; ++i) scores[i] /= sum;
}

}  // namespace

namespace reference {

void paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                     const AttentionBatch& batch, float scale, float* out) {
  const int64_t d = batch.head_dim;
  const int64_t group = batch.num_heads / batch.num_kv_heads;
  std::vector<float> key(d);    // [head_dim]
  std::vector<float> value(d);  // [head_dim]
  for (int64_t s = 0; s < batch.num_seqs; ++s) {
    for (int64_t t = batch.query_start_loc[s]; t < batch.query_start_loc[s + 1]; ++t) {
      float* out_token = out + t * batch.num_heads * d;
      std::fill(out_token, out_token + batch.num_heads * d, 0.0f);
      if (batch.slot_mapping[t] < 0) continue;
      const int64_t num_keys = batch.positions[t] + 1;
      std::vector<float> scores(num_keys);  // [num_keys]
      for (int64_t h = 0; h < batch.num_heads; ++h) {
        const float* q_head = q + (t * batch.num_heads + h) * d;
        for (int64_t p = 0; p < num_keys; ++p) {
          read_kv_row(kv, layer, 0, slot_of(batch, kv.spec.block_size, s, p), h / group,
                      key.data());
          float score = 0.0f;
          for (int64_t i = 0; i < d; ++i) score += q_head[i] * key[i];
          scores[p] = score * scale;
        }
        plain_softmax(scores.data(), num_keys);
        for (int64_t p = 0; p < num_keys; ++p) {
          read_kv_row(kv, layer, 1, slot_of(batch, kv.spec.block_size, s, p), h / group,
                      value.data());
          for (int64_t i = 0; i < d; ++i) out_token[h * d + i] += scores[p] * value[i];
        }
      }
    }
  }
}

void contiguous_attention(const float* q, const float* k, const float* v, int64_t num_new,
                          int64_t context_len, int64_t num_heads, int64_t num_kv_heads,
                          int64_t head_dim, float scale, float* out) {
  const int64_t d = head_dim;
  const int64_t group = num_heads / num_kv_heads;
  for (int64_t t = 0; t < num_new; ++t) {
    const int64_t num_keys = context_len - num_new + t + 1;
    std::vector<float> scores(num_keys);  // [num_keys]
    for (int64_t h = 0; h < num_heads; ++h) {
      const float* q_head = q + (t * num_heads + h) * d;
      for (int64_t p = 0; p < num_keys; ++p) {
        const float* key = k + (p * num_kv_heads + h / group) * d;
        float score = 0.0f;
        for (int64_t i = 0; i < d; ++i) score += q_head[i] * key[i];
        scores[p] = score * scale;
      }
      plain_softmax(scores.data(), num_keys);
      float* out_head = out + (t * num_heads + h) * d;
      std::fill(out_head, out_head + d, 0.0f);
      for (int64_t p = 0; p < num_keys; ++p) {
        const float* value = v + (p * num_kv_heads + h / group) * d;
        for (int64_t i = 0; i < d; ++i) out_head[i] += scores[p] * value[i];
      }
    }
  }
}

}  // namespace reference

namespace cpu {

namespace {

constexpr int64_t kQueryTokensPerTask = 16;

// One unit of work: some query tokens of one sequence against one kv head (and its GQA group).
struct AttentionTask {
  int64_t seq;
  int64_t kv_head;
  int64_t first_token;
  int64_t end_token;
};

// One cached row (head_dim values) as fp32 into out.
void load_row(const KvCacheView& kv, int64_t layer, int64_t kv_index, int64_t slot, int64_t head,
              float* out) {
  const int64_t index = kv.row_index(layer, kv_index, slot, head);
  const int64_t d = kv.spec.head_dim;
  switch (kv.spec.dtype) {
    case KvDType::f32:
      std::memcpy(out, static_cast<const float*>(kv.data) + index, d * sizeof(float));
      return;
    case KvDType::bf16:
      bf16_to_float_row(static_cast<const uint16_t*>(kv.data) + index, d, out);
      return;
    case KvDType::int8:
      dequantize_int8(static_cast<const int8_t*>(kv.data) + index, kv.scales[index / d], d, out);
      return;
  }
}

// Keys (kv_index 0) or values (1) of positions [first, first + count) of one sequence and kv
// head, copied as fp32 rows into out: [count, head_dim]
void load_rows(const KvCacheView& kv, int64_t layer, int64_t kv_index, const AttentionBatch& batch,
               int64_t seq, int64_t kv_head, int64_t first, int64_t count, float* out) {
  for (int64_t j = 0; j < count; ++j) {
    load_row(kv, layer, kv_index, slot_of(batch, kv.spec.block_size, seq, first + j), kv_head,
             out + j * batch.head_dim);
  }
}

// Keys are scored and values summed one KV block at a time: the block's rows are gathered into
// contiguous fp32 first, then one vector kernel call covers the whole GQA group. Every score is
// a dot() and every output sums its values in position order, as the reference does.
void run_task(const AttentionTask& task, const float* q, const KvCacheView& kv, int64_t layer,
              const AttentionBatch& batch, float scale, float* out, std::vector<float>& scores,
              std::vector<float>& rows) {
  const int64_t d = batch.head_dim;
  const int64_t group = batch.num_heads / batch.num_kv_heads;
  const int64_t first_head = task.kv_head * group;
  const int64_t block_size = kv.spec.block_size;
  for (int64_t t = task.first_token; t < task.end_token; ++t) {
    float* out_group = out + (t * batch.num_heads + first_head) * d;  // [group, head_dim]
    std::fill(out_group, out_group + group * d, 0.0f);
    if (batch.slot_mapping[t] < 0) continue;
    const float* q_group = q + (t * batch.num_heads + first_head) * d;  // [group, head_dim]
    const int64_t num_keys = batch.positions[t] + 1;
    scores.resize(group * num_keys);  // [group, num_keys]
    for (int64_t first = 0; first < num_keys; first += block_size) {
      const int64_t count = std::min(block_size, num_keys - first);
      load_rows(kv, layer, 0, batch, task.seq, task.kv_head, first, count, rows.data());
      dot_tile_gemm(q_group, group, rows.data(), count, d, scores.data() + first, num_keys);
    }
    for (int64_t g = 0; g < group; ++g) {
      float* row = scores.data() + g * num_keys;
      for (int64_t p = 0; p < num_keys; ++p) row[p] *= scale;
      const float max_score = *std::max_element(row, row + num_keys);
      float sum = 0.0f;
      for (int64_t p = 0; p < num_keys; ++p) {
        row[p] = std::exp(row[p] - max_score);
        sum += row[p];
      }
      const float inv_sum = 1.0f / sum;
      for (int64_t p = 0; p < num_keys; ++p) row[p] *= inv_sum;
    }
    for (int64_t first = 0; first < num_keys; first += block_size) {
      const int64_t count = std::min(block_size, num_keys - first);
      load_rows(kv, layer, 1, batch, task.seq, task.kv_head, first, count, rows.data());
      weighted_row_sum(out_group, group, scores.data() + first, num_keys, rows.data(), count, d);
    }
  }
}

}  // namespace

void paged_attention(ThreadPool& pool, const float* q, const KvCacheView& kv, int64_t layer,
                     const AttentionBatch& batch, float scale, float* out) {
  std::vector<AttentionTask> tasks;
  for (int64_t s = 0; s < batch.num_seqs; ++s) {
    for (int64_t first = batch.query_start_loc[s]; first < batch.query_start_loc[s + 1];
         first += kQueryTokensPerTask) {
      const int64_t end =
          std::min<int64_t>(first + kQueryTokensPerTask, batch.query_start_loc[s + 1]);
      for (int64_t h = 0; h < batch.num_kv_heads; ++h) tasks.push_back({s, h, first, end});
    }
  }
  pool.parallel_for(static_cast<int64_t>(tasks.size()), 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scores;                                     // [group, num_keys]
    std::vector<float> rows(kv.spec.block_size * batch.head_dim);  // [block_size, head_dim]
    for (int64_t i = begin; i < end; ++i) {
      run_task(tasks[i], q, kv, layer, batch, scale, out, scores, rows);
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
