// Readers of JSON Lines formats: Mooncake traces and tidal's own JSONL.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/field_parse.h"
#include "base/json_cursor.h"
#include "base/row_error.h"
#include "traces/arrival_clock.h"
#include "traces/row_parser.h"

namespace tidal::traces {
namespace {

constexpr int32_t kMooncakeBlockTokens = 512;

// Mooncake (FAST'25): {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}.
// Keys this reader does not know are skipped (later Mooncake releases add some).
class MooncakeParser final : public RowParser {
 public:
  bool has_header() const override { return false; }
  void parse_header(std::string_view /*line*/) override {}

  bool parse_row(std::string_view line, Request& out) override {
    base::JsonCursor cursor(line);
    cursor.begin_object();
    int64_t timestamp_ms = -1;
    int64_t prompt_tokens = -1;
    int64_t output_tokens = -1;
    bool has_hash_ids = false;
    reset_request(out);
    std::string_view key;
    while (cursor.next_key(key, key_scratch_)) {
      if (key == "timestamp") {
        timestamp_ms = read_once(cursor, key, timestamp_ms);
        if (timestamp_ms < 0) throw base::RowError("timestamp", "must be >= 0");
      } else if (key == "input_length") {
        prompt_tokens = read_tokens_once(cursor, key, prompt_tokens);
      } else if (key == "output_length") {
        output_tokens = read_tokens_once(cursor, key, output_tokens);
      } else if (key == "hash_ids") {
        if (has_hash_ids) throw base::RowError(key, "appears twice");
        cursor.read_uint64_array(out.prefix_blocks, "hash_ids");
        has_hash_ids = true;
      } else {
        cursor.skip_value(key);
      }
    }
    cursor.expect_end();
    if (timestamp_ms < 0) throw base::RowError("timestamp", "missing field");
    if (prompt_tokens < 0) throw base::RowError("input_length", "missing field");
    if (output_tokens < 0) throw base::RowError("output_length", "missing field");
    if (!has_hash_ids) throw base::RowError("hash_ids", "missing field");
    const int64_t num_blocks = (prompt_tokens + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens;
    if (static_cast<int64_t>(out.prefix_blocks.size()) != num_blocks) {
      throw base::RowError(
          "hash_ids",
          fmt::format("{} blocks, but input_length {} needs ceil({}/512) = {}",
                      out.prefix_blocks.size(), prompt_tokens, prompt_tokens, num_blocks));
    }
    out.arrival_s = clock_.arrival_s(timestamp_ms);
    out.prompt_tokens = prompt_tokens;
    out.output_tokens = output_tokens;
    out.prefix_block_tokens = kMooncakeBlockTokens;
    return false;
  }

 private:
  static int64_t read_once(base::JsonCursor& cursor, std::string_view key, int64_t previous) {
    if (previous >= 0) throw base::RowError(key, "appears twice");
    return cursor.read_int64(key);
  }
  static int64_t read_tokens_once(base::JsonCursor& cursor, std::string_view key,
                                  int64_t previous) {
    if (previous >= 0) throw base::RowError(key, "appears twice");
    return cursor.read_token_count(key);
  }

  std::string key_scratch_;
  ArrivalClock<int64_t> clock_{"timestamp", 1e3, /*sorted=*/true};
};

// tidal JSONL: one object per request with the keys of Request (docs/traces.md). Defaults
// apply to absent optional keys; unknown keys are errors.
class TidalJsonlParser final : public RowParser {
 public:
  bool has_header() const override { return false; }
  void parse_header(std::string_view /*line*/) override {}

  bool parse_row(std::string_view line, Request& out) override {
    base::JsonCursor cursor(line);
    cursor.begin_object();
    reset_request(out);
    uint32_t seen = 0;  // one bit per key, to catch repeats and missing required keys
    std::string_view key;
    while (cursor.next_key(key, key_scratch_)) {
      const uint32_t bit = key_bit(key);
      if (bit == 0) throw base::RowError(key, "unknown field");
      if ((seen & bit) != 0) throw base::RowError(key, "appears twice");
      seen |= bit;
      read_value(cursor, key, out);
    }
    cursor.expect_end();
    for (const char* required : {"arrival_s", "prompt_tokens", "output_tokens"}) {
      if ((seen & key_bit(required)) == 0) throw base::RowError(required, "missing field");
    }
    check_tidal_request(out);
    return (seen & key_bit("id")) != 0;
  }

 private:
  static constexpr std::string_view kKeys[] = {"id",
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

  static uint32_t key_bit(std::string_view key) {
    for (size_t i = 0; i < std::size(kKeys); ++i) {
      if (kKeys[i] == key) return uint32_t{1} << i;
    }
    return 0;
  }

  static int32_t read_int32(base::JsonCursor& cursor, std::string_view key) {
    const int64_t value = cursor.read_int64(key);
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      throw base::RowError(key, fmt::format("out of range: {}", value));
    }
    return static_cast<int32_t>(value);
  }

  void read_value(base::JsonCursor& cursor, std::string_view key, Request& out) {
    if (key == "id") {
      out.id = cursor.read_int64(key);
    } else if (key == "arrival_s") {
      out.arrival_s = cursor.read_double(key);
    } else if (key == "prompt_tokens") {
      out.prompt_tokens = cursor.read_token_count(key);
    } else if (key == "output_tokens") {
      out.output_tokens = cursor.read_token_count(key);
    } else if (key == "session_id") {
      read_name(cursor, key, out.session_id);
    } else if (key == "turn") {
      out.turn = read_int32(cursor, key);
    } else if (key == "tenant") {
      read_name(cursor, key, out.tenant);
    } else if (key == "slo_class") {
      read_name(cursor, key, out.slo_class);
    } else if (key == "region") {
      read_name(cursor, key, out.region);
    } else if (key == "prefix_block_tokens") {
      out.prefix_block_tokens = read_int32(cursor, key);
    } else if (key == "prefix_blocks") {
      cursor.read_uint64_array(out.prefix_blocks, key);
    } else if (key == "deps") {
      cursor.read_int64_array(out.deps, key);
    } else if (key == "think_time_s") {
      out.think_time_s = cursor.read_double(key);
    } else if (key == "priority") {
      out.priority = read_int32(cursor, key);
    } else if (key == "model") {
      read_name(cursor, key, out.model);
    } else if (key == "complexity") {
      out.complexity = cursor.read_double(key);
    } else if (key == "private") {
      out.is_private = cursor.read_bool(key);
    } else if (key == "request_bytes") {
      out.request_bytes = checked_wire_bytes(cursor.read_int64(key), key);
    } else if (key == "response_bytes") {
      out.response_bytes = checked_wire_bytes(cursor.read_int64(key), key);
    } else if (key == "adapter") {
      read_name(cursor, key, out.adapter);
    } else {
      out.failed = cursor.read_bool(key);
    }
  }

  // A string value as a name; the text is read into text_scratch_ first.
  void read_name(base::JsonCursor& cursor, std::string_view key, base::Name& out) {
    cursor.read_string(text_scratch_, key);
    out = base::Name(text_scratch_);
  }

  std::string key_scratch_;
  std::string text_scratch_;
};

}  // namespace

std::unique_ptr<RowParser> make_mooncake_parser() {
  return std::make_unique<MooncakeParser>();
}
std::unique_ptr<RowParser> make_tidal_jsonl_parser() {
  return std::make_unique<TidalJsonlParser>();
}

}  // namespace tidal::traces
