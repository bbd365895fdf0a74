// A Gated DeltaNet linear-attention layer's FLOPs and bytes on one GPU (the recurrent core and
// its short convolution; its projections are GEMMs priced with the others). Decode updates each
// value head's key_head_dim x value_head_dim state once per token: a read and a write of the
// state, whatever the context. A prefill chunk runs the chunked form the engines' Triton
// kernels use (vLLM and SGLang both run the flash-linear-attention chunk_gated_delta_rule):
// within chunks of kChunkTokens tokens attention-like products, between chunks the state,
// materialized once per chunk.
#pragma once

#include <span>

#include "perf/model_spec.h"
#include "perf/roofline_attention.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// What one GPU holds of one linear layer.
struct LinearAttentionShape {
  double num_key_heads = 0;    // on this GPU
  double num_value_heads = 0;  // on this GPU
  double key_head_dim = 0;
  double value_head_dim = 0;
  double conv_kernel = 0;
  double state_bytes = 4;  // per state element (fp32)
};

// Tokens per chunk of the chunked prefill (flash-linear-attention's block size).
inline constexpr double kChunkTokens = 64.0;

LinearAttentionShape linear_attention_shape(const ModelSpec& model, int32_t tp);

// prefill: prefill chunks (the chunked form); decode: decodes and speculative verifications
// (decode_rows tokens through the recurrent update over one read of the state).
AttentionWork linear_attention_work(const LinearAttentionShape& shape,
                                    std::span<const SeqWork> batch);

}  // namespace tidal::perf
