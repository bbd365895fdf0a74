#include "traces/distribution.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"
#include "traces/limits.h"
#include "traces/reader.h"
#include "traces/spec_object.h"

namespace tidal::traces {
namespace {

constexpr double kDefaultMaxInteger = 1 << 20;
constexpr int64_t kMaxZipfSupport = 10'000'000;

}  // namespace

Distribution Distribution::parse(const nlohmann::json& json, const std::string& path,
                                 const DistributionContext& context) {
  Distribution dist;
  dist.integral_ = context.quantity != Quantity::seconds;
  dist.scale_ = context.scale;
  const double lowest = 0.0;
  const double highest = dist.integral_ ? static_cast<double>(base::kMaxTokens) : 1e9;
  if (json.is_number()) {
    return parse(nlohmann::json{{"dist", "fixed"}, {"value", json}}, path, context);
  }
  SpecObject spec(json, path);
  const std::string kind = spec.string("dist", "");
  const double default_min = context.quantity == Quantity::seconds ? 0.0 : 1.0;
  const double default_max = dist.integral_ ? kDefaultMaxInteger : SpecObject::kInfinity;
  if (kind == "fixed") {
    dist.kind_ = Kind::fixed;
    dist.a_ = spec.required_number("value", lowest, highest);
  } else if (kind == "uniform") {
    // The range is its own clamp.
    dist.kind_ = Kind::uniform;
    if (dist.integral_) {
      const std::optional<int64_t> low = spec.optional_integer("min", 0, base::kMaxTokens);
      if (!low) spec.fail("min", "missing (required)");
      const std::optional<int64_t> high = spec.optional_integer("max", *low, base::kMaxTokens);
      if (!high) spec.fail("max", "missing (required)");
      dist.a_ = static_cast<double>(*low);
      dist.b_ = static_cast<double>(*high);
    } else {
      dist.a_ = spec.required_number("min", lowest, highest);
      dist.b_ = spec.required_number("max", dist.a_, highest);
    }
    dist.min_ = dist.a_;
    dist.max_ = dist.b_;
    spec.reject_unknown_keys();
    return dist;
  } else if (kind == "exponential") {
    dist.kind_ = Kind::exponential;
    dist.a_ = spec.required_number("mean", 0.0, highest, true);
  } else if (kind == "lognormal") {
    dist.kind_ = Kind::lognormal;
    const auto median = spec.optional_number("median", 0.0, highest, true);
    const auto sigma = spec.optional_number("sigma", 0.0, 10.0);
    const auto mean = spec.optional_number("mean", 0.0, highest, true);
    const auto cv = spec.optional_number("cv", 0.0, 100.0);
    if (median && sigma && !mean && !cv) {
      dist.a_ = std::log(*median);
      dist.b_ = *sigma;
    } else if (mean && cv && !median && !sigma) {
      dist.b_ = std::sqrt(std::log1p(*cv * *cv));
      dist.a_ = std::log(*mean) - 0.5 * dist.b_ * dist.b_;
    } else {
      spec.fail("dist", "lognormal needs either median and sigma, or mean and cv");
    }
  } else if (kind == "zipf") {
    dist.kind_ = Kind::zipf;
    const int64_t low = spec.integer("min", 1, 1, base::kMaxTokens);
    const std::optional<int64_t> max_rank = spec.optional_integer("max", low, base::kMaxTokens);
    if (!max_rank) spec.fail("max", "missing (required)");
    const int64_t high = *max_rank;
    if (high - low + 1 > kMaxZipfSupport) {
      spec.fail("max",
                fmt::format("zipf supports at most {} values (max - min + 1)", kMaxZipfSupport));
    }
    const double exponent = spec.number("exponent", 1.0, 0.0, 10.0, true);
    auto cumulative = std::make_shared<std::vector<double>>();  // [max - min + 1]
    cumulative->reserve(static_cast<size_t>(high - low + 1));
    double total = 0.0;
    for (int64_t rank = 1; rank <= high - low + 1; ++rank) {
      total += std::pow(static_cast<double>(rank), -exponent);
      cumulative->push_back(total);
    }
    dist.table_ = std::move(cumulative);
    dist.a_ = static_cast<double>(low);
    dist.min_ = static_cast<double>(low);
    dist.max_ = static_cast<double>(high);
    spec.reject_unknown_keys();
    return dist;
  } else if (kind == "empirical") {
    dist.kind_ = Kind::empirical;
    const std::optional<std::string> file = spec.optional_string("file");
    if (!file) spec.fail("file", "missing (required)");
    ReadOptions options;
    if (const auto format = spec.optional_string("format")) {
      try {
        options.format = parse_format_name(*format);
      } catch (const InputError& error) {
        spec.fail("format", error.what());
      }
    }
    const std::string field = spec.string("field", context.empirical_field);
    if (field != "prompt" && field != "output") {
      spec.fail("field", "must be \"prompt\" or \"output\", got \"" + field + "\"");
    }
    std::vector<Request> requests;  // [num_rows] of the trace file
    try {
      requests = read_trace(resolve_spec_path(*file, context.base_dir), options);
    } catch (const InputError& error) {
      spec.fail("file", error.what());
    }
    if (requests.empty()) spec.fail("file", "the trace holds no requests");
    auto values = std::make_shared<std::vector<double>>();  // [num_rows]
    values->reserve(requests.size());
    for (const Request& request : requests) {
      values->push_back(
          static_cast<double>(field == "prompt" ? request.prompt_tokens : request.output_tokens));
    }
    dist.table_ = std::move(values);
  } else if (kind.empty()) {
    spec.fail("dist", "missing (one of fixed, uniform, exponential, lognormal, zipf, empirical)");
  } else {
    spec.fail("dist", "unknown distribution \"" + kind +
                          "\" (one of fixed, uniform, exponential, lognormal, zipf, empirical)");
  }
  dist.min_ = spec.number("min", default_min, 0.0, highest);
  dist.max_ = spec.number("max", std::max(default_max, dist.min_), dist.min_, highest);
  spec.reject_unknown_keys();
  return dist;
}

double Distribution::sample(Rng& rng) const {
  double value = 0.0;
  switch (kind_) {
    case Kind::fixed:
      value = a_;
      break;
    case Kind::uniform:
      value = integral_ ? static_cast<double>(
                              rng.uniform_int(static_cast<int64_t>(a_), static_cast<int64_t>(b_)))
                        : rng.uniform(a_, b_);
      break;
    case Kind::exponential:
      value = rng.exponential(a_);
      break;
    case Kind::lognormal:
      value = rng.lognormal(a_, b_);
      break;
    case Kind::zipf: {
      const double target = rng.uniform01() * table_->back();
      const auto it = std::upper_bound(table_->begin(), table_->end(), target);
      const auto rank =
          std::min<size_t>(static_cast<size_t>(it - table_->begin()), table_->size() - 1);
      value = a_ + static_cast<double>(rank);
      break;
    }
    case Kind::empirical:
      value = (*table_)[static_cast<size_t>(
          rng.uniform_int(0, static_cast<int64_t>(table_->size()) - 1))];
      break;
  }
  value = std::clamp(value, min_, max_) * scale_;
  if (!integral_) return value;
  // Scaling never takes a length that must be >= 1 down to 0.
  return std::clamp(std::round(value), std::min(min_, 1.0), static_cast<double>(base::kMaxTokens));
}

}  // namespace tidal::traces
