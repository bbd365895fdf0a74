// Markdown and JSON renderings.
#include <fmt/format.h>

#include "reports/render.h"

namespace tidal::reports {
namespace {

using ojson = nlohmann::ordered_json;

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out.push_back(c);
  }
  return out;
}

void append_md_table(std::string& md, const Table& table) {
  if (!table.title.empty()) md += fmt::format("### {}\n\n", table.title);
  md += "|";
  for (const std::string& c : table.columns) md += fmt::format(" {} |", md_cell(c));
  md += "\n|";
  for (size_t i = 0; i < table.columns.size(); ++i) md += " --- |";
  md += "\n";
  for (const auto& row : table.rows) {
    md += "|";
    for (const Cell& cell : row) md += fmt::format(" {} |", md_cell(cell.text));
    md += "\n";
  }
  md += "\n";
}

ojson cell_json(const Cell& cell) {
  return ojson{{"text", cell.text}, {"value", cell.value}};
}

ojson block_json(const Block& block) {
  if (const auto* p = std::get_if<Paragraph>(&block)) {
    return ojson{{"type", "paragraph"}, {"text", p->text}};
  }
  if (const auto* f = std::get_if<KeyFigures>(&block)) {
    ojson items = ojson::array();
    for (const auto& [label, cell] : f->items) {
      items.push_back(ojson{{"label", label}, {"text", cell.text}, {"value", cell.value}});
    }
    return ojson{{"type", "figures"}, {"items", items}};
  }
  if (const auto* t = std::get_if<Table>(&block)) {
    ojson rows = ojson::array();
    for (const auto& row : t->rows) {
      ojson r = ojson::array();
      for (const Cell& cell : row) r.push_back(cell_json(cell));
      rows.push_back(r);
    }
    return ojson{{"type", "table"},
                 {"id", t->id},
                 {"title", t->title},
                 {"columns", t->columns},
                 {"rows", rows}};
  }
  const Chart& c = std::get<Chart>(block);
  return ojson{{"type", "chart"}, {"id", c.id}, {"title", c.title}, {"data", c.data}};
}

}  // namespace

std::string render_markdown(const Document& doc) {
  std::string md = "# " + doc.title + "\n\n";
  for (const std::string& note : doc.notes) md += note + "  \n";
  if (!doc.notes.empty()) md += "\n";
  for (const Section& s : doc.sections) {
    md += fmt::format("## {}\n\n", s.title);
    for (const Block& block : s.blocks) {
      if (const auto* p = std::get_if<Paragraph>(&block)) {
        md += p->text + "\n\n";
      } else if (const auto* f = std::get_if<KeyFigures>(&block)) {
        for (const auto& [label, cell] : f->items) md += "- **" + label + "**: " + cell.text + "\n";
        md += "\n";
      } else if (const auto* t = std::get_if<Table>(&block)) {
        append_md_table(md, *t);
      } else {
        md += "*Chart: " + std::get<Chart>(block).title +
              "* (drawn in report.html; its data is in report.json)\n\n";
      }
    }
  }
  return md;
}

ojson render_json(const Document& doc) {
  ojson sections = ojson::array();
  for (const Section& s : doc.sections) {
    ojson blocks = ojson::array();
    for (const Block& block : s.blocks) blocks.push_back(block_json(block));
    sections.push_back(ojson{{"id", s.id}, {"title", s.title}, {"blocks", blocks}});
  }
  return ojson{{"title", doc.title}, {"notes", doc.notes}, {"sections", sections}};
}

}  // namespace tidal::reports
