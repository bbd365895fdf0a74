#include "perf/step_costs.h"

#include <cassert>

namespace tidal::perf {

int64_t layers_running(const ModelSpec& model, OpClass op) {
  switch (op) {
    case OpClass::mlp_up_gate:
    case OpClass::mlp_act:
    case OpClass::mlp_down:
      return model.is_moe() ? model.num_dense_layers : model.num_layers;
    case OpClass::moe_router:
    case OpClass::moe_experts:
      return model.num_moe_layers();
    default:
      return model.num_layers;
  }
}

BatchCounts count_batch(std::span<const SeqWork> batch) {
  BatchCounts counts;
  for (const SeqWork& seq : batch) {
    assert(seq.num_new_tokens >= 0 && seq.num_context_tokens >= 0);
    counts.num_tokens += seq.num_new_tokens;
    if (seq.num_new_tokens > 0) {
      ++counts.num_seqs;
      counts.num_logit_rows += seq.num_logit_rows;
    }
  }
  return counts;
}

TabulatedStepModel::TabulatedStepModel(std::unique_ptr<StepCosts> costs,
                                       int64_t max_precomputed_tokens, int64_t max_precomputed_seqs)
    : costs_(std::move(costs)),
      token_totals_(static_cast<std::size_t>(max_precomputed_tokens + 1), 0.0),
      row_totals_(static_cast<std::size_t>(max_precomputed_seqs + 1), 0.0),
      seq_totals_(static_cast<std::size_t>(max_precomputed_seqs + 1), 0.0) {
  // Index 0 stays 0: a step with no tokens costs nothing.
  for (std::size_t n = 1; n < token_totals_.size(); ++n) {
    for (OpClass op : kTokenOpClasses) {
      token_totals_[n] += costs_->token_seconds(op, static_cast<int64_t>(n));
    }
  }
  for (std::size_t n = 1; n < seq_totals_.size(); ++n) {
    for (OpClass op : kRowOpClasses)
      row_totals_[n] += costs_->seq_seconds(op, static_cast<int64_t>(n));
    for (OpClass op : kSeqOpClasses)
      seq_totals_[n] += costs_->seq_seconds(op, static_cast<int64_t>(n));
  }
}

double TabulatedStepModel::token_total(int64_t num_tokens) const {
  if (static_cast<std::size_t>(num_tokens) < token_totals_.size()) {
    return token_totals_[static_cast<std::size_t>(num_tokens)];
  }
  double total = 0.0;
  for (OpClass op : kTokenOpClasses) total += costs_->token_seconds(op, num_tokens);
  return total;
}

namespace {

// The precomputed sum over `ops` at `count`, or the sum computed now beyond the table.
double precomputed_or_summed(const std::vector<double>& table, std::span<const OpClass> ops,
                             int64_t count, const StepCosts& costs) {
  if (static_cast<std::size_t>(count) < table.size()) return table[static_cast<std::size_t>(count)];
  double sum = 0.0;
  for (OpClass op : ops) sum += costs.seq_seconds(op, count);
  return sum;
}

}  // namespace

double TabulatedStepModel::row_total(int64_t num_logit_rows) const {
  return precomputed_or_summed(row_totals_, kRowOpClasses, num_logit_rows, *costs_);
}

double TabulatedStepModel::seq_total(int64_t num_seqs) const {
  return precomputed_or_summed(seq_totals_, kSeqOpClasses, num_seqs, *costs_);
}

double TabulatedStepModel::step_seconds(std::span<const SeqWork> batch) const {
  const BatchCounts counts = count_batch(batch);
  if (counts.num_seqs == 0) return 0.0;
  const AttentionSeconds attention = costs_->attention_seconds(batch);
  const double operators = token_total(counts.num_tokens) + row_total(counts.num_logit_rows) +
                           attention.prefill + attention.decode;
  return operators * (1.0 + costs_->operator_share()) + seq_total(counts.num_seqs);
}

double TabulatedStepModel::swap_seconds(int64_t num_blocks) const {
  return num_blocks > 0 ? costs_->swap_seconds(num_blocks) : 0.0;
}

StepBreakdown TabulatedStepModel::breakdown(std::span<const SeqWork> batch) const {
  StepBreakdown out;
  const BatchCounts counts = count_batch(batch);
  if (counts.num_seqs == 0) return out;
  for (OpClass op : kTokenOpClasses) out[op] = costs_->token_seconds(op, counts.num_tokens);
  for (OpClass op : kRowOpClasses) out[op] = costs_->seq_seconds(op, counts.num_logit_rows);
  const AttentionSeconds attention = costs_->attention_seconds(batch);
  out[OpClass::attention_prefill] = attention.prefill;
  out[OpClass::attention_decode] = attention.decode;
  const double operators = out.total_seconds();  // every class but the sequence classes so far
  for (OpClass op : kSeqOpClasses) out[op] = costs_->seq_seconds(op, counts.num_seqs);
  out[OpClass::cpu_overhead] += costs_->operator_share() * operators;
  return out;
}

}  // namespace tidal::perf
