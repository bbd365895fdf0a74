#include "reports/document.h"

namespace tidal::reports {

Cell text_cell(const std::string& text) {
  return Cell{text, text};
}

Cell number_cell(double value, const std::string& text) {
  return Cell{text, value};
}

}  // namespace tidal::reports
