// Reader of tidal's own CSV: the Request fields as columns (docs/traces.md). Lists
// (prefix_blocks, deps) are space-separated integers inside one field.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/csv_split.h"
#include "base/field_parse.h"
#include "base/row_error.h"
#include "traces/row_parser.h"

namespace tidal::traces {
namespace {

enum class Column {
  id,
  arrival_s,
  prompt_tokens,
  output_tokens,
  session_id,
  turn,
  tenant,
  slo_class,
  region,
  prefix_block_tokens,
  prefix_blocks,
  deps,
  think_time_s,
  failed,
  priority,
  model,
  complexity,
  is_private,
  request_bytes,
  response_bytes,
  adapter
};

constexpr std::string_view kColumnNames[] = {"id",
                                             "arrival_s",
                                             "prompt_tokens",
                                             "output_tokens",
                                             "session_id",
                                             "turn",
                                             "tenant",
                                             "slo_class",
                                             "region",
                                             "prefix_block_tokens",
                                             "prefix_blocks",
                                             "deps",
                                             "think_time_s",
                                             "failed",
                                             "priority",
                                             "model",
                                             "complexity",
                                             "private",
                                             "request_bytes",
                                             "response_bytes",
                                             "adapter"};

int32_t parse_int32(std::string_view text, std::string_view field) {
  const int64_t value = base::parse_int64(text, field);
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    throw base::RowError(field, fmt::format("out of range: {}", value));
  }
  return static_cast<int32_t>(value);
}

template <typename T>
void parse_list(std::string_view text, std::string_view field, std::vector<T>& out) {
  out.clear();
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    const size_t end = std::min(text.find(' ', pos), text.size());
    if (end > pos) {
      const std::string_view item = text.substr(pos, end - pos);
      if constexpr (std::is_same_v<T, uint64_t>) {
        out.push_back(base::parse_uint64(item, field));
      } else {
        out.push_back(base::parse_int64(item, field));
      }
    }
    pos = end;
  }
}

class TidalCsvParser final : public RowParser {
 public:
  bool has_header() const override { return true; }

  void parse_header(std::string_view line) override {
    columns_.read_header(line);
    kinds_.clear();
    uint32_t seen = 0;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const std::string& name = columns_.name(i);
      size_t kind = 0;
      while (kind < std::size(kColumnNames) && kColumnNames[kind] != name) ++kind;
      if (kind == std::size(kColumnNames))
        throw base::RowError(name, "unknown column in the header");
      if ((seen & (1u << kind)) != 0)
        throw base::RowError(name, "column appears twice in the header");
      seen |= 1u << kind;
      kinds_.push_back(static_cast<Column>(kind));
    }
    for (const char* required : {"arrival_s", "prompt_tokens", "output_tokens"}) {
      columns_.require(required);
    }
    has_id_ = columns_.find("id") >= 0;
  }

  bool parse_row(std::string_view line, Request& out) override {
    base::split_csv(line, fields_, scratch_);
    columns_.check_row_width(fields_);
    reset_request(out);
    for (size_t i = 0; i < fields_.size(); ++i) read_field(kinds_[i], fields_[i], out);
    check_tidal_request(out);
    return has_id_;
  }

 private:
  static void read_field(Column kind, std::string_view text, Request& out) {
    const std::string_view name = kColumnNames[static_cast<size_t>(kind)];
    switch (kind) {
      case Column::id:
        out.id = base::parse_int64(text, name);
        break;
      case Column::arrival_s:
        out.arrival_s = base::parse_finite_double(text, name);
        break;
      case Column::prompt_tokens:
        out.prompt_tokens = base::parse_token_count(text, name);
        break;
      case Column::output_tokens:
        out.output_tokens = base::parse_token_count(text, name);
        break;
      case Column::session_id:
        out.session_id = base::Name(text);
        break;
      case Column::turn:
        out.turn = base::trim_blanks(text).empty() ? -1 : parse_int32(text, name);
        break;
      case Column::tenant:
        out.tenant = base::Name(text);
        break;
      case Column::slo_class:
        out.slo_class = base::Name(text);
        break;
      case Column::region:
        out.region = base::Name(text);
        break;
      case Column::prefix_block_tokens:
        out.prefix_block_tokens = base::trim_blanks(text).empty() ? 0 : parse_int32(text, name);
        break;
      case Column::prefix_blocks:
        parse_list(text, name, out.prefix_blocks);
        break;
      case Column::deps:
        parse_list(text, name, out.deps);
        break;
      case Column::think_time_s:
        out.think_time_s =
            base::trim_blanks(text).empty() ? 0.0 : base::parse_finite_double(text, name);
        break;
      case Column::failed:
        out.failed = !base::trim_blanks(text).empty() && base::parse_bool(text, name);
        break;
      case Column::priority:
        if (!base::trim_blanks(text).empty()) out.priority = parse_int32(text, name);
        break;
      case Column::model:
        out.model = base::Name(text);
        break;
      case Column::complexity:
        if (!base::trim_blanks(text).empty())
          out.complexity = base::parse_finite_double(text, name);
        break;
      case Column::is_private:
        out.is_private = !base::trim_blanks(text).empty() && base::parse_bool(text, name);
        break;
      case Column::request_bytes:
        if (!base::trim_blanks(text).empty()) {
          out.request_bytes = checked_wire_bytes(base::parse_int64(text, name), name);
        }
        break;
      case Column::response_bytes:
        if (!base::trim_blanks(text).empty()) {
          out.response_bytes = checked_wire_bytes(base::parse_int64(text, name), name);
        }
        break;
      case Column::adapter:
        out.adapter = base::Name(text);
        break;
    }
  }

  base::CsvColumns columns_;
  std::vector<Column> kinds_;             // [num_columns]
  std::vector<std::string_view> fields_;  // [num_columns]
  std::string scratch_;
  bool has_id_ = false;
};

}  // namespace

std::unique_ptr<RowParser> make_tidal_csv_parser() {
  return std::make_unique<TidalCsvParser>();
}

}  // namespace tidal::traces
