#include "traces/writer.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "base/csv_text.h"
#include "base/input_error.h"

namespace tidal::traces {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

template <typename T>
void append_number(std::string& out, T value) {
  char digits[32];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);  // shortest round trip
  out.append(digits, result.ptr);
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

template <typename T>
void append_json_array(std::string& out, const std::vector<T>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    append_number(out, values[i]);
  }
  out += ']';
}

void append_json_key(std::string& out, std::string_view key) {
  out += ",\"";
  out += key;
  out += "\":";
}

void append_csv_string(std::string& out, std::string_view text, std::string_view column) {
  if (text.find_first_of("\r\n") != std::string_view::npos) {
    throw InputError(std::string(column) + ": " + fmt::format("'{}'", text) +
                     " holds a line break, which tidal CSV cannot store; write JSONL instead");
  }
  const bool needs_quotes = text.find_first_of(",\"") != std::string_view::npos ||
                            (!text.empty() && (text.front() == ' ' || text.front() == '\t'));
  if (!needs_quotes) {
    out += text;
    return;
  }
  base::append_quoted_csv(out, text);
}

template <typename T>
void append_csv_list(std::string& out, const std::vector<T>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    append_number(out, values[i]);
  }
}

}  // namespace

void append_jsonl_row(const Request& request, std::string& out) {
  out += "{\"id\":";
  append_number(out, request.id);
  append_json_key(out, "arrival_s");
  append_number(out, request.arrival_s);
  append_json_key(out, "prompt_tokens");
  append_number(out, request.prompt_tokens);
  append_json_key(out, "output_tokens");
  append_number(out, request.output_tokens);
  if (!request.session_id.empty()) {
    append_json_key(out, "session_id");
    append_json_string(out, request.session_id);
  }
  if (request.turn != -1) {
    append_json_key(out, "turn");
    append_number(out, request.turn);
  }
  const std::pair<std::string_view, const base::Name*> strings[] = {
      {"tenant", &request.tenant}, {"slo_class", &request.slo_class}, {"region", &request.region}};
  for (const auto& [key, value] : strings) {
    if (value->empty()) continue;
    append_json_key(out, key);
    append_json_string(out, *value);
  }
  if (request.prefix_block_tokens != 0 || !request.prefix_blocks.empty()) {
    append_json_key(out, "prefix_block_tokens");
    append_number(out, request.prefix_block_tokens);
    append_json_key(out, "prefix_blocks");
    append_json_array(out, request.prefix_blocks);
  }
  if (!request.deps.empty()) {
    append_json_key(out, "deps");
    append_json_array(out, request.deps);
  }
  if (request.think_time_s != 0.0) {
    append_json_key(out, "think_time_s");
    append_number(out, request.think_time_s);
  }
  if (request.failed) out += ",\"failed\":true";
  if (request.priority) {
    append_json_key(out, "priority");
    append_number(out, *request.priority);
  }
  if (!request.model.empty()) {
    append_json_key(out, "model");
    append_json_string(out, request.model);
  }
  if (request.complexity) {
    append_json_key(out, "complexity");
    append_number(out, *request.complexity);
  }
  if (request.is_private) out += ",\"private\":true";
  if (request.request_bytes >= 0) {
    append_json_key(out, "request_bytes");
    append_number(out, request.request_bytes);
  }
  if (request.response_bytes >= 0) {
    append_json_key(out, "response_bytes");
    append_number(out, request.response_bytes);
  }
  if (!request.adapter.empty()) {
    append_json_key(out, "adapter");
    append_json_string(out, request.adapter);
  }
  out += '}';
}

std::string_view csv_header() {
  return "id,arrival_s,prompt_tokens,output_tokens,session_id,turn,tenant,slo_class,region,"
         "prefix_block_tokens,prefix_blocks,deps,think_time_s,failed,priority,model,complexity,"
         "private,request_bytes,response_bytes,adapter";
}

void append_csv_row(const Request& request, std::string& out) {
  append_number(out, request.id);
  out += ',';
  append_number(out, request.arrival_s);
  out += ',';
  append_number(out, request.prompt_tokens);
  out += ',';
  append_number(out, request.output_tokens);
  out += ',';
  append_csv_string(out, request.session_id, "session_id");
  out += ',';
  append_number(out, request.turn);
  out += ',';
  append_csv_string(out, request.tenant, "tenant");
  out += ',';
  append_csv_string(out, request.slo_class, "slo_class");
  out += ',';
  append_csv_string(out, request.region, "region");
  out += ',';
  append_number(out, request.prefix_block_tokens);
  out += ',';
  append_csv_list(out, request.prefix_blocks);
  out += ',';
  append_csv_list(out, request.deps);
  out += ',';
  append_number(out, request.think_time_s);
  out += request.failed ? ",1" : ",0";
  out += ',';
  if (request.priority) append_number(out, *request.priority);
  out += ',';
  append_csv_string(out, request.model, "model");
  out += ',';
  if (request.complexity) append_number(out, *request.complexity);
  out += request.is_private ? ",1" : ",0";
  out += ',';
  if (request.request_bytes >= 0) append_number(out, request.request_bytes);
  out += ',';
  if (request.response_bytes >= 0) append_number(out, request.response_bytes);
  out += ',';
  append_csv_string(out, request.adapter, "adapter");
}

void write_jsonl(const std::vector<Request>& requests, std::ostream& out) {
  std::string buffer;
  for (const Request& request : requests) {
    append_jsonl_row(request, buffer);
    buffer += '\n';
    if (buffer.size() >= kFlushBytes) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void write_csv(const std::vector<Request>& requests, std::ostream& out) {
  std::string buffer(csv_header());
  buffer += '\n';
  for (const Request& request : requests) {
    append_csv_row(request, buffer);
    buffer += '\n';
    if (buffer.size() >= kFlushBytes) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

TraceFormat output_format_for_path(const std::string& path) {
  if (path == "-") return TraceFormat::tidal_jsonl;
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".jsonl") return TraceFormat::tidal_jsonl;
  if (extension == ".csv") return TraceFormat::tidal_csv;
  throw InputError(path + ": cannot tell the output format from the extension '" + extension +
                   "' (use .jsonl or .csv)");
}

TraceWriter::TraceWriter(const std::string& path)
    : path_(path), format_(output_format_for_path(path)) {
  if (path != "-") file_.emplace(path);
  if (format_ == TraceFormat::tidal_csv) {
    buffer_ = csv_header();
    buffer_ += '\n';
  }
}

TraceWriter::~TraceWriter() = default;  // an unclosed file_ removes its temporary

void TraceWriter::write(const Request& request) {
  if (closed_) throw InputError(path_ + ": write after close");
  if (format_ == TraceFormat::tidal_csv) {
    append_csv_row(request, buffer_);
  } else {
    append_jsonl_row(request, buffer_);
  }
  buffer_ += '\n';
  if (buffer_.size() >= kFlushBytes) flush_buffer();
}

void TraceWriter::flush_buffer() {
  if (file_) {
    file_->stream().write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (!file_->stream()) throw InputError(path_ + ": write failed");
  } else if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
    throw InputError(path_ + ": write failed: " + std::strerror(errno));
  }
  buffer_.clear();
}

void TraceWriter::close() {
  if (closed_) return;
  closed_ = true;
  flush_buffer();
  if (file_) {
    file_->commit();
  } else if (std::fflush(stdout) != 0) {
    throw InputError(path_ + ": write failed: " + std::strerror(errno));
  }
}

void write_trace(const std::string& path, const std::vector<Request>& requests) {
  TraceWriter writer(path);
  for (const Request& request : requests) writer.write(request);
  writer.close();
}

void write_text_file(const std::string& path, std::string_view text) {
  if (path != "-") {
    base::write_output_text(path, text);
    return;
  }
  const bool wrote = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (!wrote || std::fflush(stdout) != 0) {
    throw InputError(path + ": write failed: " + std::strerror(errno));
  }
}

}  // namespace tidal::traces
