// Arrival-time processes of the open-loop generators (poisson, gamma, bursty, diurnal). Each
// yields successive arrival times in seconds; docs/generators.md defines them.
#pragma once

#include <memory>

#include "traces/random.h"

namespace tidal::traces {

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  // The next arrival time (non-decreasing), drawing from `rng`.
  virtual double next(Rng& rng) = 0;
};

// Exponential gaps with mean 1/rate.
std::unique_ptr<ArrivalProcess> make_poisson_process(double rate);
// Gamma gaps with mean 1/rate and coefficient of variation cv (shape 1/cv^2).
std::unique_ptr<ArrivalProcess> make_gamma_process(double rate, double cv);

// Markov-modulated on/off: Poisson at rate * peak_to_mean while on, nothing while off. On and
// off sojourns are exponential (means mean_burst_s and mean_burst_s * (peak_to_mean - 1)).
// The schedule is planned in blocks of block_s seconds; within each block the off sojourns
// are scaled by one common factor so that exactly 1/peak_to_mean of it is on, which makes the
// long-run rate `rate` and the on rate rate * peak_to_mean without sampling drift.
std::unique_ptr<ArrivalProcess> make_bursty_process(double rate, double peak_to_mean,
                                                    double mean_burst_s, double block_s);

struct DiurnalParams {
  double peak_rate = 0.0;         // requests/s at the peak of the daily curve
  double trough_rate = 0.0;       // requests/s at its trough
  double period_s = 86400.0;      // length of one cycle
  double peak_time_s = 50400.0;   // time of day of the peak
  double start_time_s = 0.0;      // time of day at time 0
  double noise_sigma = 0.1;       // sigma of the mean-1 lognormal factor on the rate
  double noise_interval_s = 300;  // each interval draws its own noise factor
};
// Inhomogeneous Poisson with rate trough + (peak - trough) * (1 + cos(phase)) / 2 times the
// interval's noise factor, sampled by thinning.
std::unique_ptr<ArrivalProcess> make_diurnal_process(const DiurnalParams& params);

}  // namespace tidal::traces
