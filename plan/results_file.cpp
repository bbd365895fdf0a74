#include "plan/results_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

ojson optional_json(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

std::optional<double> optional_number(const ojson& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError(fmt::format("{}: {}: missing", where, key));
  const auto& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number())
    throw InputError(fmt::format("{}: {}: expected a number or null", where, key));
  return v.get<double>();
}

template <typename T>
T required(const ojson& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError(fmt::format("{}: {}: missing", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("{}: {}: wrong type ({})", where, key, j.at(key).dump()));
  }
}

ojson setup_json(const PoolSetup& s) {
  ojson j{{"gpu", s.gpu}, {"tp", s.tp}};
  if (s.pp != 1) j["pp"] = s.pp;  // left out at 1, as results before pipeline stages
  j["num_replicas"] = s.num_replicas;
  j["weight_dtype"] = s.weight_dtype;
  j["kv_dtype"] = s.kv_dtype;
  return j;
}

PoolSetup setup_from_json(const ojson& j, const std::string& where) {
  if (!j.is_object()) throw InputError(fmt::format("{}: expected an object", where));
  PoolSetup s;
  s.gpu = required<std::string>(j, "gpu", where);
  s.tp = required<int32_t>(j, "tp", where);
  s.pp = j.contains("pp") ? required<int32_t>(j, "pp", where) : 1;
  s.num_replicas = required<int32_t>(j, "num_replicas", where);
  s.weight_dtype = required<std::string>(j, "weight_dtype", where);
  s.kv_dtype = required<std::string>(j, "kv_dtype", where);
  return s;
}

// The prefill and decode setups: both objects, or both null (not a disaggregated layout).
std::optional<RoleSetups> roles_from_json(const ojson& j, const std::string& where) {
  for (const char* key : {"prefill", "decode"}) {
    if (!j.contains(key)) throw InputError(fmt::format("{}: {}: missing", where, key));
  }
  const ojson& prefill = j.at("prefill");
  const ojson& decode = j.at("decode");
  if (prefill.is_null() && decode.is_null()) return std::nullopt;
  return RoleSetups{setup_from_json(prefill, where + ": prefill"),
                    setup_from_json(decode, where + ": decode")};
}

// Length of the file's complete lines (up to and including the last newline).
uintmax_t complete_length(const std::string& text) {
  const size_t last_newline = text.rfind('\n');
  return last_newline == std::string::npos ? 0 : last_newline + 1;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ojson result_to_json(const CandidateResult& r, const std::string& fingerprint) {
  return ojson{{"fingerprint", fingerprint},
               {"id", r.id},
               {"index", r.index},
               {"config", r.config},
               {"name", r.name},
               {"status", r.status},
               {"reason", r.reason},
               {"gpu", r.setup.gpu},
               {"tp", r.setup.tp},
               {"num_replicas", r.setup.num_replicas},
               {"weight_dtype", r.setup.weight_dtype},
               {"kv_dtype", r.setup.kv_dtype},
               {"prefill", r.roles ? setup_json(r.roles->prefill) : ojson(nullptr)},
               {"decode", r.roles ? setup_json(r.roles->decode) : ojson(nullptr)},
               {"num_gpus", r.num_gpus ? ojson(*r.num_gpus) : ojson(nullptr)},
               {"dollars", optional_json(r.dollars)},
               {"dollars_per_hour", optional_json(r.dollars_per_hour)},
               {"dollars_per_day", optional_json(r.dollars_per_day)},
               {"dollars_per_1m_tokens", optional_json(r.dollars_per_1m_tokens)},
               {"dollars_per_1m_output_tokens", optional_json(r.dollars_per_1m_output_tokens)},
               {"p99_ttft_s", optional_json(r.p99_ttft_s)},
               {"p99_tpot_s", optional_json(r.p99_tpot_s)},
               {"p99_e2e_s", optional_json(r.p99_e2e_s)},
               {"slo_attainment", optional_json(r.slo_attainment)},
               {"goodput_rps", optional_json(r.goodput_rps)},
               {"rate_scale", optional_json(r.rate_scale)},
               {"num_simulations", r.num_simulations}};
}

CandidateResult result_from_json(const ojson& j, const std::string& where) {
  if (!j.is_object()) throw InputError(fmt::format("{}: expected a JSON object", where));
  CandidateResult r;
  r.id = required<std::string>(j, "id", where);
  r.index = required<int64_t>(j, "index", where);
  if (!j.contains("config") || !j.at("config").is_object()) {
    throw InputError(fmt::format("{}: config: expected an object", where));
  }
  r.config = j.at("config");
  r.name = required<std::string>(j, "name", where);
  r.status = required<std::string>(j, "status", where);
  if (r.status != "feasible" && r.status != "slo_missed" && r.status != "invalid") {
    throw InputError(fmt::format("{}: status: unknown \"{}\"", where, r.status));
  }
  r.reason = required<std::string>(j, "reason", where);
  r.setup.gpu = required<std::string>(j, "gpu", where);
  r.setup.tp = required<int32_t>(j, "tp", where);
  r.setup.num_replicas = required<int32_t>(j, "num_replicas", where);
  r.setup.weight_dtype = required<std::string>(j, "weight_dtype", where);
  r.setup.kv_dtype = required<std::string>(j, "kv_dtype", where);
  r.roles = roles_from_json(j, where);
  if (!j.contains("num_gpus")) throw InputError(fmt::format("{}: num_gpus: missing", where));
  if (!j.at("num_gpus").is_null()) r.num_gpus = required<int64_t>(j, "num_gpus", where);
  r.dollars = optional_number(j, "dollars", where);
  r.dollars_per_hour = optional_number(j, "dollars_per_hour", where);
  r.dollars_per_day = optional_number(j, "dollars_per_day", where);
  r.dollars_per_1m_tokens = optional_number(j, "dollars_per_1m_tokens", where);
  r.dollars_per_1m_output_tokens = optional_number(j, "dollars_per_1m_output_tokens", where);
  r.p99_ttft_s = optional_number(j, "p99_ttft_s", where);
  r.p99_tpot_s = optional_number(j, "p99_tpot_s", where);
  r.p99_e2e_s = optional_number(j, "p99_e2e_s", where);
  r.slo_attainment = optional_number(j, "slo_attainment", where);
  r.goodput_rps = optional_number(j, "goodput_rps", where);
  r.rate_scale = optional_number(j, "rate_scale", where);
  r.num_simulations = required<int64_t>(j, "num_simulations", where);
  return r;
}

std::map<std::string, CandidateResult> read_results(const std::string& path,
                                                    const std::string& fingerprint) {
  std::map<std::string, CandidateResult> results;
  const std::string text = read_all(path);
  const uintmax_t length = complete_length(text);
  size_t begin = 0;
  int64_t line_number = 0;
  while (begin < length) {
    const size_t end = text.find('\n', begin);
    ++line_number;
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, line_number);
    ojson j;
    try {
      j = ojson::parse(line);
    } catch (const nlohmann::json::parse_error&) {
      throw InputError(fmt::format("{}: not a JSON result line", where));
    }
    const std::string found =
        j.is_object() && j.contains("fingerprint") && j["fingerprint"].is_string()
            ? j["fingerprint"].get<std::string>()
            : std::string();
    if (found != fingerprint) {
      throw InputError(fmt::format(
          "{}: written by a different plan (fingerprint {} != {}): the scenario, search space, "
          "SLO or mode changed; use another --out folder or remove {}",
          where, found.empty() ? "missing" : found, fingerprint, path));
    }
    if (!j.contains("name")) {
      throw InputError(fmt::format(
          "{}: written by an older tidal (results without candidate names); use another --out "
          "folder or remove {}",
          where, path));
    }
    CandidateResult r = result_from_json(j, where);
    results.insert_or_assign(r.id, std::move(r));
  }
  return results;
}

ResultsWriter::ResultsWriter(const std::string& path, std::string fingerprint)
    : path_(path), fingerprint_(std::move(fingerprint)) {
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) {
    const std::string text = read_all(path_);
    const uintmax_t length = complete_length(text);
    if (length != text.size()) std::filesystem::resize_file(path_, length, ec);
    if (ec)
      throw InputError(
          fmt::format("{}: cannot cut the partial last line: {}", path_, ec.message()));
  }
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) throw InputError(fmt::format("{}: cannot open for appending", path_));
}

ResultsWriter::~ResultsWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void ResultsWriter::append(const CandidateResult& result) {
  const std::string line = result_to_json(result, fingerprint_).dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw InputError(fmt::format("{}: write failed", path_));
  }
}

}  // namespace tidal::plan
