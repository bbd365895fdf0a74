#include "traces/arrival_process.h"

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace tidal::traces {
namespace {

class PoissonProcess final : public ArrivalProcess {
 public:
  explicit PoissonProcess(double rate) : mean_gap_s_(1.0 / rate) {}
  double next(Rng& rng) override { return time_s_ += rng.exponential(mean_gap_s_); }

 private:
  double mean_gap_s_;
  double time_s_ = 0.0;
};

class GammaProcess final : public ArrivalProcess {
 public:
  GammaProcess(double rate, double cv) : shape_(1.0 / (cv * cv)), scale_(1.0 / (rate * shape_)) {}
  double next(Rng& rng) override { return time_s_ += rng.gamma(shape_, scale_); }

 private:
  double shape_;
  double scale_;
  double time_s_ = 0.0;
};

class BurstyProcess final : public ArrivalProcess {
 public:
  BurstyProcess(double rate, double peak_to_mean, double mean_burst_s, double block_s)
      : on_rate_(rate * peak_to_mean),
        peak_to_mean_(peak_to_mean),
        mean_on_s_(mean_burst_s),
        block_s_(block_s) {}

  double next(Rng& rng) override {
    while (true) {
      if (next_period_ == on_periods_.size()) plan_block(rng);
      const auto [start, end] = on_periods_[next_period_];
      time_s_ = std::max(time_s_, start);
      const double candidate = time_s_ + rng.exponential(1.0 / on_rate_);
      if (candidate < end) return time_s_ = candidate;
      // Exponential gaps are memoryless: restarting at the next on period is exact.
      time_s_ = end;
      ++next_period_;
    }
  }

 private:
  void plan_block(Rng& rng) {
    const double on_total_s = block_s_ / peak_to_mean_;
    std::vector<double> on_s;  // [num_periods]
    double sum_on_s = 0.0;
    while (sum_on_s < on_total_s) {
      on_s.push_back(rng.exponential(mean_on_s_));
      sum_on_s += on_s.back();
    }
    on_s.back() -= sum_on_s - on_total_s;    // the block holds exactly on_total_s of on time
    std::vector<double> off_s(on_s.size());  // [num_periods]
    double sum_off_s = 0.0;
    for (double& off : off_s) {
      off = rng.exponential(mean_on_s_ * (peak_to_mean_ - 1.0));
      sum_off_s += off;
    }
    const double off_scale = sum_off_s > 0.0 ? (block_s_ - on_total_s) / sum_off_s : 0.0;
    const bool starts_on = rng.uniform01() < 1.0 / peak_to_mean_;
    on_periods_.clear();
    next_period_ = 0;
    double clock_s = block_start_s_;
    for (size_t i = 0; i < on_s.size(); ++i) {
      if (!starts_on) clock_s += off_s[i] * off_scale;
      on_periods_.emplace_back(clock_s, clock_s + on_s[i]);
      clock_s += on_s[i];
      if (starts_on) clock_s += off_s[i] * off_scale;
    }
    block_start_s_ += block_s_;
  }

  double on_rate_;
  double peak_to_mean_;
  double mean_on_s_;
  double block_s_;
  double block_start_s_ = 0.0;
  std::vector<std::pair<double, double>> on_periods_;  // [num_periods] (start, end) this block
  size_t next_period_ = 0;
  double time_s_ = 0.0;
};

class DiurnalProcess final : public ArrivalProcess {
 public:
  explicit DiurnalProcess(const DiurnalParams& params) : params_(params) {}

  double next(Rng& rng) override {
    while (true) {
      if (time_s_ >= interval_end_s_) start_interval(rng);
      const double candidate = time_s_ + rng.exponential(1.0 / bound_rate_);
      if (candidate >= interval_end_s_) {
        time_s_ = interval_end_s_;
        continue;
      }
      time_s_ = candidate;
      // Thinning: keep with probability rate(t) / peak (the noise factor cancels).
      if (rng.uniform01() * params_.peak_rate < curve_rate(time_s_)) return time_s_;
    }
  }

 private:
  void start_interval(Rng& rng) {
    time_s_ = interval_end_s_;
    interval_end_s_ += params_.noise_interval_s;
    const double sigma = params_.noise_sigma;
    const double noise = std::exp(sigma * rng.standard_normal() - 0.5 * sigma * sigma);
    bound_rate_ = params_.peak_rate * noise;
  }

  double curve_rate(double time_s) const {
    const double phase = 2.0 * std::numbers::pi *
                         (time_s + params_.start_time_s - params_.peak_time_s) / params_.period_s;
    return params_.trough_rate +
           (params_.peak_rate - params_.trough_rate) * 0.5 * (1.0 + std::cos(phase));
  }

  DiurnalParams params_;
  double time_s_ = 0.0;
  double interval_end_s_ = 0.0;
  double bound_rate_ = 0.0;  // peak rate times this interval's noise factor
};

}  // namespace

std::unique_ptr<ArrivalProcess> make_poisson_process(double rate) {
  return std::make_unique<PoissonProcess>(rate);
}

std::unique_ptr<ArrivalProcess> make_gamma_process(double rate, double cv) {
  return std::make_unique<GammaProcess>(rate, cv);
}

std::unique_ptr<ArrivalProcess> make_bursty_process(double rate, double peak_to_mean,
                                                    double mean_burst_s, double block_s) {
  return std::make_unique<BurstyProcess>(rate, peak_to_mean, mean_burst_s, block_s);
}

std::unique_ptr<ArrivalProcess> make_diurnal_process(const DiurnalParams& params) {
  return std::make_unique<DiurnalProcess>(params);
}

}  // namespace tidal::traces
