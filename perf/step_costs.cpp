#include "perf/step_costs.h"

#include <algorithm>
#include <cassert>

#include "perf/roofline_costs.h"

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
    case OpClass::rope:  // linear-attention layers have no rotary embedding
      return model.num_attention_layers();
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
                                       int64_t max_precomputed_tokens, int64_t max_precomputed_seqs,
                                       int32_t attention_dp)
    : costs_(std::move(costs)),
      attention_dp_(attention_dp),
      token_totals_(static_cast<std::size_t>(max_precomputed_tokens + 1), 0.0),
      row_totals_(static_cast<std::size_t>(max_precomputed_seqs + 1), 0.0),
      seq_totals_(static_cast<std::size_t>(max_precomputed_seqs + 1), 0.0) {
  if (const auto* roofline = dynamic_cast<const RooflineCosts*>(costs_.get());
      roofline != nullptr && roofline->prices_by_sums() && attention_dp_ <= 1) {
    roofline_ = roofline;
  }
  // Index 0 stays 0: a step with no tokens costs nothing.
  for (std::size_t n = 1; n < token_totals_.size(); ++n) {
    for (OpClass op : kTokenOpClasses) {
      token_totals_[n] += costs_->token_seconds(op, static_cast<int64_t>(n));
    }
  }
  if (attention_dp_ > 1) {
    shared_totals_.assign(token_totals_.size(), 0.0);
    for (std::size_t n = 1; n < shared_totals_.size(); ++n) {
      for (OpClass op : kSharedTokenOpClasses) {
        shared_totals_[n] += costs_->shared_token_seconds(op, static_cast<int64_t>(n));
      }
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

double TabulatedStepModel::shared_total(int64_t num_tokens) const {
  if (static_cast<std::size_t>(num_tokens) < shared_totals_.size()) {
    return shared_totals_[static_cast<std::size_t>(num_tokens)];
  }
  double total = 0.0;
  for (OpClass op : kSharedTokenOpClasses) total += costs_->shared_token_seconds(op, num_tokens);
  return total;
}

TabulatedStepModel::RankWork TabulatedStepModel::rank_work(std::span<const SeqWork> rank) const {
  RankWork work;
  work.counts = count_batch(rank);
  if (work.counts.num_seqs == 0) return work;
  work.attention = costs_->attention_seconds(rank);
  work.operators = token_total(work.counts.num_tokens) + row_total(work.counts.num_logit_rows) +
                   work.attention.prefill + work.attention.decode;
  return work;
}

TabulatedStepModel::SlowestRank TabulatedStepModel::slowest_rank(const RankSplit& split) const {
  SlowestRank slowest;
  for (int32_t r = 0; r < split.num_ranks(); ++r) {
    const RankWork work = rank_work(split.rank(r));
    slowest.num_tokens += work.counts.num_tokens;
    slowest.most_seqs = std::max(slowest.most_seqs, work.counts.num_seqs);
    if (r == 0 || work.operators > slowest.work.operators) {
      slowest.rank = r;
      slowest.work = work;
    }
  }
  return slowest;
}

namespace {

// The split of the step being priced: one per thread, its buffers reused from step to step.
RankSplit& thread_split() {
  thread_local RankSplit split;
  return split;
}

}  // namespace

double TabulatedStepModel::data_parallel_step_seconds(std::span<const SeqWork> batch) const {
  RankSplit& split = thread_split();
  split.split(batch, attention_dp_);
  const SlowestRank slowest = slowest_rank(split);
  if (slowest.most_seqs == 0) return 0.0;
  const double operators = slowest.work.operators + shared_total(slowest.num_tokens);
  return operators * (1.0 + costs_->operator_share()) + seq_total(slowest.most_seqs);
}

StepBreakdown TabulatedStepModel::data_parallel_breakdown(std::span<const SeqWork> batch) const {
  StepBreakdown out;
  RankSplit& split = thread_split();
  split.split(batch, attention_dp_);
  const SlowestRank slowest = slowest_rank(split);
  if (slowest.most_seqs == 0) return out;
  const BatchCounts& counts = slowest.work.counts;
  for (OpClass op : kTokenOpClasses) out[op] = costs_->token_seconds(op, counts.num_tokens);
  for (OpClass op : kSharedTokenOpClasses) {
    out[op] += costs_->shared_token_seconds(op, slowest.num_tokens);
  }
  for (OpClass op : kRowOpClasses) out[op] = costs_->seq_seconds(op, counts.num_logit_rows);
  out[OpClass::attention_prefill] = slowest.work.attention.prefill;
  out[OpClass::attention_decode] = slowest.work.attention.decode;
  const double operators = out.total_seconds();
  for (OpClass op : kSeqOpClasses) out[op] = costs_->seq_seconds(op, slowest.most_seqs);
  out[OpClass::cpu_overhead] += costs_->operator_share() * operators;
  return out;
}

double TabulatedStepModel::step_seconds(std::span<const SeqWork> batch) const {
  if (attention_dp_ > 1) return data_parallel_step_seconds(batch);
  const BatchCounts counts = count_batch(batch);
  if (counts.num_seqs == 0) return 0.0;
  return one_rank_seconds(counts, costs_->attention_seconds(batch));
}

double TabulatedStepModel::summed_step_seconds(const RankSums& sums) const {
  assert(roofline_ != nullptr);
  // step_seconds of the batch, its attention from the sums.
  if (sums.counts.num_seqs == 0) return 0.0;
  return one_rank_seconds(sums.counts, roofline_->attention_seconds(sums));
}

double TabulatedStepModel::one_rank_seconds(const BatchCounts& counts,
                                            const AttentionSeconds& attention) const {
  const double operators = token_total(counts.num_tokens) + row_total(counts.num_logit_rows) +
                           attention.prefill + attention.decode;
  return operators * (1.0 + costs_->operator_share()) + seq_total(counts.num_seqs);
}

double TabulatedStepModel::swap_seconds(int64_t num_blocks) const {
  return num_blocks > 0 ? costs_->swap_seconds(num_blocks) : 0.0;
}

StepBreakdown TabulatedStepModel::breakdown(std::span<const SeqWork> batch) const {
  if (attention_dp_ > 1) return data_parallel_breakdown(batch);
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
