#include "ui/script.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::ui {
namespace {

struct OpName {
  std::string_view name;
  ScriptOp op;
};

constexpr OpName kOps[] = {
    {"load", ScriptOp::load},
    {"set", ScriptOp::set},
    {"run", ScriptOp::run},
    {"start", ScriptOp::start},
    {"cancel", ScriptOp::cancel},
    {"pin", ScriptOp::pin},
    {"rerun", ScriptOp::rerun},
    {"view", ScriptOp::view},
    {"theme", ScriptOp::theme},
    {"screenshot", ScriptOp::screenshot},
    {"wait-frames", ScriptOp::wait_frames},
    {"export-report", ScriptOp::export_report},
};

std::string_view trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// Splits "word rest of line" into its first word and the trimmed rest.
std::pair<std::string_view, std::string_view> split_word(std::string_view s) {
  const size_t space = s.find_first_of(" \t");
  if (space == std::string_view::npos) return {s, {}};
  return {s.substr(0, space), trim(s.substr(space))};
}

ScriptCommand parse_line(std::string_view text, int line, const std::string& file) {
  const auto fail = [&](std::string_view what) {
    throw InputError(fmt::format("{}:{}: {}", file, line, what));
  };
  const auto [word, rest] = split_word(text);
  ScriptCommand cmd;
  cmd.line = line;
  bool known = false;
  for (const OpName& op : kOps) {
    if (op.name == word) {
      cmd.op = op.op;
      known = true;
    }
  }
  if (!known) {
    fail(
        fmt::format("unknown command \"{}\" (known: load, set, run, start, cancel, pin, rerun, "
                    "view, theme, screenshot, wait-frames, export-report)",
                    word));
  }
  switch (cmd.op) {
    case ScriptOp::run:
    case ScriptOp::start:
    case ScriptOp::cancel:
    case ScriptOp::pin:
    case ScriptOp::rerun:
      if (!rest.empty()) fail(fmt::format("{} takes no argument, got \"{}\"", word, rest));
      break;
    case ScriptOp::load:
    case ScriptOp::screenshot:
    case ScriptOp::export_report:
      if (rest.empty()) fail(fmt::format("{} needs a path", word));
      cmd.argument = rest;
      break;
    case ScriptOp::set: {
      const auto [path, value] = split_word(rest);
      if (path.empty() || value.empty()) fail("set needs a JSON path and a value");
      cmd.argument = path;
      cmd.value = value;
      break;
    }
    case ScriptOp::view:
      if (!parse_view(rest)) {
        fail(
            fmt::format("unknown view \"{}\" (known: workload, queue, fleet, latency, cdf, kv, "
                        "cost, tenants, compare)",
                        rest));
      }
      cmd.argument = rest;
      break;
    case ScriptOp::theme:
      if (rest != "dark" && rest != "light") {
        fail(fmt::format("theme must be dark or light, got \"{}\"", rest));
      }
      cmd.argument = rest;
      break;
    case ScriptOp::wait_frames: {
      const auto [ptr, ec] =
          std::from_chars(rest.data(), rest.data() + rest.size(), cmd.num_frames);
      if (rest.empty() || ec != std::errc() || ptr != rest.data() + rest.size() ||
          cmd.num_frames < 1) {
        fail(fmt::format("wait-frames needs a positive integer, got \"{}\"", rest));
      }
      break;
    }
  }
  return cmd;
}

}  // namespace

Script parse_script(std::string_view text, const std::string& file) {
  Script script;
  script.file = file;
  int line = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    ++line;
    const std::string_view content = trim(text.substr(pos, end - pos));
    if (!content.empty() && content.front() != '#') {
      script.commands.push_back(parse_line(content, line, file));
    }
    pos = end + 1;
  }
  return script;
}

Script read_script(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open script file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_script(text.str(), path);
}

std::string script_error(const Script& script, const ScriptCommand& command,
                         std::string_view what) {
  return fmt::format("{}:{}: {}", script.file, command.line, what);
}

}  // namespace tidal::ui
