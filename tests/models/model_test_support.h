// Helpers shared by the model tests: paged batches over random block tables, error measures,
// and a threaded all-reduce for running tensor-parallel ranks side by side.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "models/communicator.h"
#include "models/paged_forward.h"

namespace tidal::models::testing {

// The presets the parameterised model suites run on, and a test name for each ('-' -> '_').
inline auto preset_params() {
  return ::testing::Values("tiny", "tiny-llama3", "tiny-moe");
}
inline std::string preset_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Sequences growing over several steps, each with blocks taken from a shuffled free list (so
// block tables are random), like a block manager would hand out.
class PagedSequences {
 public:
  PagedSequences(int64_t num_blocks, int64_t block_size, uint64_t seed) : block_size_(block_size) {
    free_blocks_.resize(num_blocks);
    std::iota(free_blocks_.begin(), free_blocks_.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(free_blocks_.begin(), free_blocks_.end(), rng);
  }

  int add_sequence() {
    tables_.emplace_back();
    num_computed_.push_back(0);
    return static_cast<int>(tables_.size()) - 1;
  }

  // The next step of sequence `seq`: its new tokens at the following positions.
  SequenceInput step(int seq, const std::vector<int32_t>& new_tokens) {
    SequenceInput input;
    input.token_ids = new_tokens;
    for (int32_t token_index = 0; token_index < static_cast<int32_t>(new_tokens.size());
         ++token_index) {
      const int64_t pos = num_computed_[seq]++;
      if (pos / block_size_ >= static_cast<int64_t>(tables_[seq].size())) {
        tables_[seq].push_back(free_blocks_.back());
        free_blocks_.pop_back();
      }
      input.positions.push_back(static_cast<int32_t>(pos));
      input.slot_mapping.push_back(
          static_cast<int64_t>(tables_[seq][pos / block_size_]) * block_size_ + pos % block_size_);
    }
    input.block_table = tables_[seq];
    return input;
  }

 private:
  int64_t block_size_;
  std::vector<int32_t> free_blocks_;
  std::vector<std::vector<int32_t>> tables_;
  std::vector<int64_t> num_computed_;
};

inline std::vector<int32_t> random_tokens(std::mt19937_64& rng, int64_t count, int64_t vocab) {
  std::vector<int32_t> tokens(count);
  for (int32_t& t : tokens) t = static_cast<int32_t>(rng() % static_cast<uint64_t>(vocab));
  return tokens;
}

// max |a - b| / max |b|
inline double relative_error(const float* actual, const float* expected, size_t count) {
  double max_diff = 0.0, max_expected = 0.0;
  for (size_t i = 0; i < count; ++i) {
    max_diff = std::max(max_diff, std::fabs(static_cast<double>(actual[i]) - expected[i]));
    max_expected = std::max(max_expected, std::fabs(static_cast<double>(expected[i])));
  }
  return max_diff / std::max(max_expected, 1e-30);
}

inline double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
  return relative_error(actual.data(), expected.data(), expected.size());
}

// Shared memory for world_size ranks running in their own threads; every rank sums the buffers
// in rank order, so all ranks get the same bytes.
class ThreadedTestGroup {
 public:
  explicit ThreadedTestGroup(int world_size)
      : world_size_(world_size), buffers_(world_size), barrier_(world_size) {}

  class Rank final : public Communicator {
   public:
    Rank(ThreadedTestGroup& group, int rank) : group_(group), rank_(rank) {}
    int rank() const override { return rank_; }
    int world_size() const override { return group_.world_size_; }
    void all_reduce_sum(float* buf, size_t count) override {
      group_.buffers_[rank_] = buf;
      group_.barrier_.arrive_and_wait();    // every rank's partial sums are posted
      std::vector<float> sum(count, 0.0f);  // [count]
      for (int r = 0; r < group_.world_size_; ++r) {
        for (size_t i = 0; i < count; ++i) sum[i] += group_.buffers_[r][i];
      }
      group_.barrier_.arrive_and_wait();  // every rank has read every buffer
      std::copy(sum.begin(), sum.end(), buf);
    }

   private:
    ThreadedTestGroup& group_;
    int rank_;
  };

 private:
  int world_size_;
  std::vector<float*> buffers_;
  std::barrier<> barrier_;
};

}  // namespace tidal::models::testing
