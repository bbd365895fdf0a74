#include "engine/sched/victim_rule.h"

#include <stdexcept>
#include <string>

namespace tidal::sched {

namespace {

class NewestVictim final : public VictimRule {
 public:
  int32_t rank(const Request& /*request*/) const override { return 0; }
};

class PriorityThenNewestVictim final : public VictimRule {
 public:
  int32_t rank(const Request& request) const override { return request.priority.value_or(0); }
};

}  // namespace

std::unique_ptr<VictimRule> make_victim_rule(std::string_view name) {
  if (name == "newest") return std::make_unique<NewestVictim>();
  if (name == "priority_then_newest") return std::make_unique<PriorityThenNewestVictim>();
  throw std::logic_error("sched: unknown victim rule '" + std::string(name) + "'");
}

}  // namespace tidal::sched
