// The error a row parser throws: which field and what is wrong. The reader turns it into an
// InputError "file:line: field: what" (or records it when skipping bad rows).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace tidal::base {

class RowError : public std::runtime_error {
 public:
  RowError(std::string_view field, const std::string& what)
      : std::runtime_error(what), field_(field) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace tidal::base
