#include <fmt/format.h>

#include "reports/render.h"
#include "reports/svg_chart.h"

namespace tidal::reports {
namespace {

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; color: #1d1d1f; margin: 0 auto; max-width: 1240px;
       padding: 16px 20px 40px; background: #fafafa; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 0 0 10px; padding-bottom: 4px; border-bottom: 2px solid #1f5fa8; }
h3 { font-size: 14px; margin: 14px 0 6px; }
p { margin: 6px 0; line-height: 1.4; }
p.note { color: #555555; font-size: 12px; margin: 2px 0; }
nav { margin: 10px 0 16px; font-size: 13px; }
nav a { margin-right: 14px; color: #1f5fa8; text-decoration: none; }
section { background: #ffffff; border: 1px solid #dddddd; border-radius: 6px;
          padding: 14px 18px; margin: 14px 0; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.figure { border: 1px solid #dddddd; border-radius: 5px; padding: 8px 12px; min-width: 130px; }
.figure .label { font-size: 11px; color: #555555; }
.figure .value { font-size: 18px; font-weight: bold; margin-top: 2px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; margin: 10px 0; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 12px; }
th, td { border: 1px solid #d4d4d4; padding: 4px 8px; }
th { background: #eef2f7; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
)css";

void append_text_paragraph(std::string& html, const std::string& text, const char* css_class) {
  html += css_class ? fmt::format("<p class=\"{}\">", css_class) : std::string("<p>");
  html += xml_escape(text);
  html += "</p>\n";
}

bool is_numeric(const Cell& cell) {
  return cell.value.is_number();
}

void append_table(std::string& html, const Table& table) {
  if (!table.title.empty()) html += "<h3>" + xml_escape(table.title) + "</h3>\n";
  html += fmt::format("<table id=\"{}\"><thead><tr>", xml_escape(table.id));
  for (const std::string& c : table.columns) html += "<th>" + xml_escape(c) + "</th>";
  html += "</tr></thead><tbody>\n";
  for (const auto& row : table.rows) {
    html += "<tr>";
    for (const Cell& cell : row) {
      html += is_numeric(cell) ? "<td class=\"num\">" : "<td>";
      html += xml_escape(cell.text) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "</tbody></table>\n";
}

void append_figures(std::string& html, const KeyFigures& figures) {
  html += "<div class=\"figures\">";
  for (const auto& [label, cell] : figures.items) {
    html += fmt::format(
        "<div class=\"figure\"><div class=\"label\">{}</div><div class=\"value\">{}</div></div>",
        xml_escape(label), xml_escape(cell.text));
  }
  html += "</div>\n";
}

void append_section(std::string& html, const Section& section) {
  html += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", xml_escape(section.id),
                      xml_escape(section.title));
  bool in_charts = false;  // consecutive charts share one wrapping row
  for (const Block& block : section.blocks) {
    const Chart* chart = std::get_if<Chart>(&block);
    if (chart == nullptr && in_charts) {
      html += "</div>\n";
      in_charts = false;
    }
    if (chart != nullptr) {
      if (!in_charts) html += "<div class=\"charts\">\n";
      in_charts = true;
      html += fmt::format("<figure id=\"{}\" style=\"margin:0\">{}</figure>\n",
                          xml_escape(chart->id), chart->svg);
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      append_text_paragraph(html, p->text, nullptr);
    } else if (const auto* f = std::get_if<KeyFigures>(&block)) {
      append_figures(html, *f);
    } else if (const auto* t = std::get_if<Table>(&block)) {
      append_table(html, *t);
    }
  }
  if (in_charts) html += "</div>\n";
  html += "</section>\n";
}

}  // namespace

std::string render_html(const Document& doc) {
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  html += "<title>" + xml_escape(doc.title) + "</title>\n";
  html += std::string("<style>") + kStyle + "</style>\n</head>\n<body>\n";
  html += "<header>\n<h1>" + xml_escape(doc.title) + "</h1>\n";
  for (const std::string& note : doc.notes) append_text_paragraph(html, note, "note");
  html += "<nav>";
  for (const Section& s : doc.sections) {
    html += fmt::format("<a href=\"#{}\">{}</a>", xml_escape(s.id), xml_escape(s.title));
  }
  html += "</nav>\n</header>\n<main>\n";
  for (const Section& s : doc.sections) append_section(html, s);
  html += "</main>\n</body>\n</html>\n";
  return html;
}

}  // namespace tidal::reports
