// `tidal trace stats|convert|gen`: wiring of the traces/ library to the command line.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "cli/commands.h"
#include "traces/convert.h"
#include "traces/generators.h"
#include "traces/reader.h"
#include "traces/stats.h"
#include "traces/writer.h"

namespace tidal::cli {
namespace {

struct TraceArgs {
  std::string input;
  std::string output;
  std::string format;
  std::string json_output;
  std::string spec_path;
  std::string kind;
  uint64_t seed = 0;
  bool skip_bad = false;
};

traces::ReadOptions read_options(const TraceArgs& args) {
  traces::ReadOptions options;
  if (!args.format.empty()) options.format = traces::parse_format_name(args.format);
  options.skip_bad = args.skip_bad;
  return options;
}

void print_skipped(const traces::ReadReport& report) {
  for (const std::string& message : report.skipped) {
    std::fprintf(stderr, "tidal: skipped %s\n", message.c_str());
  }
}

// Once per file: a lengths-only trace puts every request at t = 0 (docs/traces.md).
void print_no_arrival_times(const traces::ReadReport& report, const std::string& path) {
  if (!report.no_arrival_times) return;
  std::fprintf(stderr,
               "tidal: note: %s has no arrival times (lengths only): every request arrives at "
               "t = 0\n",
               path.c_str());
}

void add_format_options(CLI::App& command, TraceArgs& args) {
  command.add_option("--format", args.format,
                     "input format (azure, mooncake, burstgpt, vidur, tidal_jsonl, tidal_csv); "
                     "default: detected from the first line");
  command.add_flag("--skip-bad", args.skip_bad, "skip bad rows, listing each on stderr");
}

void add_stats(CLI::App& trace) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* stats = trace.add_subcommand("stats", "Print statistics of a trace file");
  stats->add_option("file", args->input, "trace file")->required();
  add_format_options(*stats, *args);
  stats->add_option("--json", args->json_output, "also write the statistics as JSON ('-': stdout)");
  stats->callback([args] {
    traces::ReadReport report;
    const std::vector<Request> requests =
        traces::read_trace(args->input, read_options(*args), &report);
    print_skipped(report);
    print_no_arrival_times(report, args->input);
    const traces::TraceStats stats = [&] {
      try {
        return traces::compute_stats(requests);
      } catch (const InputError& e) {  // the DAG's errors name requests, not the file
        throw InputError(args->input + ": " + e.what());
      }
    }();
    if (args->json_output != "-") std::cout << traces::format_stats(stats) << std::flush;
    if (!args->json_output.empty()) {
      if (args->json_output != "-") base::check_output_is_not_input(args->json_output, args->input);
      traces::write_text_file(args->json_output, traces::stats_to_json(stats).dump(2) + "\n");
    }
  });
}

void add_convert(CLI::App& trace) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* convert =
      trace.add_subcommand("convert", "Convert a trace to tidal JSONL or CSV (by OUT's extension)");
  convert->add_option("in", args->input, "input trace file")->required();
  convert->add_option("out", args->output, "output file: .jsonl or .csv ('-': JSONL on stdout)")
      ->required();
  add_format_options(*convert, *args);
  convert->callback([args] {
    const traces::ReadReport report =
        traces::convert_trace(args->input, args->output, read_options(*args));
    print_skipped(report);
    print_no_arrival_times(report, args->input);
    std::fprintf(stderr, "tidal: wrote %lld requests to %s (%lld rows skipped)\n",
                 static_cast<long long>(report.num_rows), args->output.c_str(),
                 static_cast<long long>(report.num_skipped));
  });
}

// One line per generator kind (docs/generators.md has the keys); a kind added to
// traces::generator_kinds() without a line here still shows, pointing at the docs.
std::string generator_kinds_help() {
  static const std::vector<std::pair<std::string_view, std::string_view>> kLines = {
      {"poisson", "open loop, exponential gaps: rate (req/s)"},
      {"gamma", "open loop, gamma gaps: rate, cv (> 1 burstier than Poisson)"},
      {"bursty", "open loop, on/off bursts: rate, peak_to_mean, mean_burst_s"},
      {"diurnal", "open loop, daily cosine curve with noise: peak_rate, trough_rate"},
      {"batch", "num_requests at once or in waves: num_waves, wave_interval_s, spread_s"},
      {"closed_loop", "concurrency clients, each sending when its last request finished"},
      {"sessions", "multi-turn conversations, each turn's prompt the whole history"},
      {"agent", "jobs as DAGs of LLM calls: planner, fan-out workers, fan-in"},
      {"mix", "several workloads (any kinds) merged by arrival time"},
      {"file", "a trace file as a workload, with time, rate and length scales"},
  };
  std::string text = "Generator kinds (keys: docs/generators.md):\n";
  for (const std::string_view kind : traces::generator_kinds()) {
    std::string_view line = "see docs/generators.md";
    for (const auto& [k, l] : kLines) {
      if (k == kind) line = l;
    }
    text += "  " + std::string(kind) + std::string(kind.size() < 13 ? 13 - kind.size() : 1, ' ') +
            std::string(line) + "\n";
  }
  text += "Example: tidal trace gen poisson rate=5 duration_s=600 --seed 7 --out trace.jsonl";
  return text;
}

void add_gen(CLI::App& trace) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* gen = trace.add_subcommand(
      "gen",
      "Generate a synthetic trace: --spec FILE, or KIND followed by key=value / --key value "
      "parameters (docs/generators.md)");
  gen->allow_extras();
  gen->footer(generator_kinds_help());
  gen->add_option("--spec", args->spec_path, "generator spec (JSON)");
  gen->add_option("kind", args->kind, "generator kind, when no --spec is given");
  gen->add_option("--seed", args->seed, "random seed")->capture_default_str();
  gen->add_option("--out", args->output, "output file: .jsonl or .csv ('-': JSONL on stdout)")
      ->required();
  gen->callback([args, gen] {
    const std::vector<std::string> extras = gen->remaining();
    nlohmann::json spec;
    std::string base_dir;
    if (!args->spec_path.empty()) {
      if (!args->kind.empty() || !extras.empty()) {
        throw InputError("trace gen: give either --spec FILE or KIND [parameters], not both");
      }
      spec = traces::read_spec_file(args->spec_path);
      base_dir = std::filesystem::path(args->spec_path).parent_path().string();
    } else if (!args->kind.empty()) {
      spec = traces::spec_from_args(args->kind, extras);
    } else {
      std::string kinds;
      for (const std::string_view kind : traces::generator_kinds()) {
        kinds += kinds.empty() ? "" : ", ";
        kinds += kind;
      }
      throw InputError("trace gen: give --spec FILE or a generator KIND (" + kinds + ")");
    }
    const std::vector<Request> requests = traces::generate(spec, args->seed, "generator", base_dir);
    if (!args->spec_path.empty() && args->output != "-") {
      base::check_output_is_not_input(args->output, args->spec_path);
    }
    traces::write_trace(args->output, requests);
    std::fprintf(stderr, "tidal: wrote %zu generated requests to %s\n", requests.size(),
                 args->output.c_str());
  });
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Inspect, convert and generate request traces");
  trace->require_subcommand(1);
  add_stats(*trace);
  add_convert(*trace);
  add_gen(*trace);
}

}  // namespace tidal::cli
