// What paged attention needs to know about a batch of sequences (flat arrays, vLLM style).
// Query rows of sequence s are query_start_loc[s] .. query_start_loc[s+1]-1 of q/out.
// Query token t sits at positions[t] and attends to every cached key of its sequence at
// positions 0..positions[t] (so the cached prefix plus causal within the new chunk); its own
// K/V must already be written. Key at position p of sequence s lives in slot
// block_tables[s * max_blocks_per_seq + p / block_size] * block_size + p % block_size.
// Rows whose slot_mapping entry is -1 are padding: their output is zero.
#pragma once

#include <cstdint>

namespace tidal::kernels {

struct AttentionBatch {
  int64_t num_seqs = 0;
  int64_t num_tokens = 0;
  const int32_t* query_start_loc = nullptr;  // [num_seqs + 1]
  const int32_t* positions = nullptr;        // [num_tokens]
  const int64_t* slot_mapping = nullptr;     // [num_tokens]; -1 = padding
  const int32_t* block_tables = nullptr;     // [num_seqs, max_blocks_per_seq]
  int64_t max_blocks_per_seq = 0;
  int64_t num_heads = 0;     // query heads (per rank)
  int64_t num_kv_heads = 0;  // kv heads (per rank); num_heads % num_kv_heads == 0 (GQA)
  int64_t head_dim = 0;
};

}  // namespace tidal::kernels
