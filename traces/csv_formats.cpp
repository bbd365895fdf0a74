// Readers of the foreign CSV formats: Azure LLM inference, BurstGPT, Vidur/Splitwise.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/csv_split.h"
#include "base/field_parse.h"
#include "base/row_error.h"
#include "traces/arrival_clock.h"
#include "traces/civil_time.h"
#include "traces/row_parser.h"

namespace tidal::traces {
namespace {

// The part every CSV format shares: header columns and a row split into fields.
class CsvRowParser : public RowParser {
 public:
  bool has_header() const override { return true; }

 protected:
  // RowError for a column named twice: which of the two holds the data would be a guess.
  void read_header(std::string_view line) {
    columns_.read_header(line);
    std::unordered_set<std::string_view> names;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (!names.insert(columns_.name(i)).second) {
        throw base::RowError(columns_.name(i), "column appears twice in the header");
      }
    }
  }
  void split(std::string_view line) {
    base::split_csv(line, fields_, scratch_);
    columns_.check_row_width(fields_);
  }
  std::string_view field(int column) const { return fields_[static_cast<size_t>(column)]; }

  base::CsvColumns columns_;

 private:
  std::vector<std::string_view> fields_;  // [num_columns] views into the line or scratch_
  std::string scratch_;
};

// Azure LLM inference traces 2023/2024: TIMESTAMP,ContextTokens,GeneratedTokens.
class AzureParser final : public CsvRowParser {
 public:
  void parse_header(std::string_view line) override {
    read_header(line);
    time_column_ = columns_.require("TIMESTAMP");
    prompt_column_ = columns_.require("ContextTokens");
    output_column_ = columns_.require("GeneratedTokens");
  }

  bool parse_row(std::string_view line, Request& out) override {
    split(line);
    const int64_t time_ns = parse_civil_time_ns(field(time_column_), "TIMESTAMP");
    const int64_t prompt_tokens = base::parse_token_count(field(prompt_column_), "ContextTokens");
    const int64_t output_tokens = base::parse_token_count(field(output_column_), "GeneratedTokens");
    const double arrival_s = clock_.arrival_s(time_ns);
    reset_request(out);
    out.arrival_s = arrival_s;
    out.prompt_tokens = prompt_tokens;
    out.output_tokens = output_tokens;
    return false;
  }

 private:
  int time_column_ = -1;
  int prompt_column_ = -1;
  int output_column_ = -1;
  ArrivalClock<int64_t> clock_{"TIMESTAMP", 1e9, /*sorted=*/true};
};

// BurstGPT: Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type.
class BurstGptParser final : public CsvRowParser {
 public:
  void parse_header(std::string_view line) override {
    read_header(line);
    time_column_ = columns_.require("Timestamp");
    model_column_ = columns_.require("Model");
    prompt_column_ = columns_.require("Request tokens");
    output_column_ = columns_.require("Response tokens");
    log_type_column_ = columns_.require("Log Type");
  }

  bool parse_row(std::string_view line, Request& out) override {
    split(line);
    const double time_s = base::parse_finite_double(field(time_column_), "Timestamp");
    if (time_s < 0.0) throw base::RowError("Timestamp", "must be >= 0");
    const int64_t prompt_tokens = base::parse_token_count(field(prompt_column_), "Request tokens");
    const int64_t output_tokens = base::parse_token_count(field(output_column_), "Response tokens");
    const double arrival_s = clock_.arrival_s(time_s);
    reset_request(out);
    out.arrival_s = arrival_s;
    out.prompt_tokens = prompt_tokens;
    out.output_tokens = output_tokens;
    out.tenant = base::Name(base::trim_blanks(field(model_column_)));
    out.slo_class = base::Name(base::trim_blanks(field(log_type_column_)));
    out.failed = output_tokens == 0;
    return false;
  }

 private:
  int time_column_ = -1;
  int model_column_ = -1;
  int prompt_column_ = -1;
  int output_column_ = -1;
  int log_type_column_ = -1;
  ArrivalClock<double> clock_{"Timestamp", 1.0, /*sorted=*/false};
};

// Vidur processed traces: arrived_at,num_prefill_tokens,num_decode_tokens. Length-only files
// (no arrived_at column) read with every arrival at 0.
class VidurParser final : public CsvRowParser {
 public:
  void parse_header(std::string_view line) override {
    read_header(line);
    time_column_ = columns_.find("arrived_at");
    prompt_column_ = columns_.require("num_prefill_tokens");
    output_column_ = columns_.require("num_decode_tokens");
  }
  bool has_arrival_times() const override { return time_column_ >= 0; }

  bool parse_row(std::string_view line, Request& out) override {
    split(line);
    double time_s = 0.0;
    if (time_column_ >= 0) {
      time_s = base::parse_finite_double(field(time_column_), "arrived_at");
      if (time_s < 0.0) throw base::RowError("arrived_at", "must be >= 0");
    }
    const int64_t prompt_tokens =
        base::parse_token_count(field(prompt_column_), "num_prefill_tokens");
    const int64_t output_tokens =
        base::parse_token_count(field(output_column_), "num_decode_tokens");
    const double arrival_s = time_column_ >= 0 ? clock_.arrival_s(time_s) : 0.0;
    reset_request(out);
    out.arrival_s = arrival_s;
    out.prompt_tokens = prompt_tokens;
    out.output_tokens = output_tokens;
    return false;
  }

 private:
  int time_column_ = -1;
  int prompt_column_ = -1;
  int output_column_ = -1;
  ArrivalClock<double> clock_{"arrived_at", 1.0, /*sorted=*/true};
};

}  // namespace

std::unique_ptr<RowParser> make_azure_parser() {
  return std::make_unique<AzureParser>();
}
std::unique_ptr<RowParser> make_burstgpt_parser() {
  return std::make_unique<BurstGptParser>();
}
std::unique_ptr<RowParser> make_vidur_parser() {
  return std::make_unique<VidurParser>();
}

}  // namespace tidal::traces
