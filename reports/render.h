// The three renderings of a Document: one self-contained HTML page (inline CSS and SVG, no
// scripts, fonts or network), GitHub-flavoured Markdown, and JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reports/document.h"

namespace tidal::reports {

std::string render_html(const Document& doc);
std::string render_markdown(const Document& doc);
nlohmann::ordered_json render_json(const Document& doc);

}  // namespace tidal::reports
