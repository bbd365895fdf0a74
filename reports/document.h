// A report as data: sections of paragraphs, key figures, tables and charts. One document is
// rendered three ways (render.h) — HTML, Markdown and JSON — so the three files always carry
// the same figures.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::reports {

// One figure: the text the report prints and the raw value behind it (a number, a string or
// null), which report.json carries next to the text.
struct Cell {
  std::string text;
  nlohmann::ordered_json value;
};

Cell text_cell(const std::string& text);
Cell number_cell(double value, const std::string& text);

struct Paragraph {
  std::string text;
};

// A handful of headline figures shown large ("p99 TTFT: 119 ms").
struct KeyFigures {
  std::vector<std::pair<std::string, Cell>> items;  // label -> figure
};

struct Table {
  std::string id;
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;  // [num_rows][columns.size()]
};

struct Chart {
  std::string id;
  std::string title;
  std::string svg;              // the rendered <svg> element
  nlohmann::ordered_json data;  // what it plots: axes and series, for report.json
};

using Block = std::variant<Paragraph, KeyFigures, Table, Chart>;

struct Section {
  std::string id;  // HTML anchor, stable ("latency", "cost-2")
  std::string title;
  std::vector<Block> blocks;
};

struct Document {
  std::string title;
  std::vector<std::string> notes;  // lines under the title (inputs, generator)
  std::vector<Section> sections;
};

}  // namespace tidal::reports
