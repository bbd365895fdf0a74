// The one error type for input the user can get wrong: a bad file, row, key or configuration.
// Its message is complete ("file:line: field: what is wrong"); the CLI prints it and exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace tidal {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tidal
