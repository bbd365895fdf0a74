#include "ui/dash.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <thread>

#include <imgui.h>

#include <fmt/format.h>

#include "base/input_error.h"
#include "reports/run_data.h"
#include "ui/dash_frame.h"
#include "ui/dash_model.h"
#include "ui/script_runner.h"
#include "ui/settings.h"
#include "ui/theme.h"
#include "ui/window.h"

namespace tidal::ui {
namespace {

constexpr auto kFramePeriod = std::chrono::milliseconds(16);  // at most ~60 frames a second
constexpr double kIdleWait_s = 0.25;  // an idle interactive window wakes this often

void load_inputs(DashModel& model, const std::vector<std::string>& inputs) {
  size_t num_run_folders = 0;
  for (const std::string& path : inputs) {
    model.load(path);
    if (reports::is_run_folder(path)) ++num_run_folders;
  }
  if (num_run_folders >= 2) {
    model.select_run(0);
    model.pin_current();
    model.select_run(model.runs().size() - 1);
    model.request_view(View::compare);
  }
}

class FramePacer {
 public:
  void wait() {
    std::this_thread::sleep_until(last_ + kFramePeriod);
    last_ = std::chrono::steady_clock::now();
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Applies the theme when the model's setting changed (menu, script).
class ThemeKeeper {
 public:
  void sync(bool light) {
    if (applied_ && *applied_ == light) return;
    apply_theme(light);
    applied_ = light;
  }

 private:
  std::optional<bool> applied_;
};

int run_headless(DashModel& model, DashWindow& window, const DashOptions& options,
                 std::optional<ScriptRunner> runner) {
  FrameState state;
  ThemeKeeper theme;
  FramePacer pacer;
  int64_t frames_after_script = 0;
  while (true) {
    window.begin_frame(0.0);
    load_paths(model, window.take_dropped_paths());
    model.poll();
    std::optional<std::string> capture = runner ? runner->step(model) : std::nullopt;
    const bool script_done = !runner || runner->done();
    if (script_done) ++frames_after_script;
    const bool last_frame = script_done && frames_after_script >= options.num_frames;
    if (last_frame) capture = *options.screenshot;
    theme.sync(model.settings().light_theme);
    draw_dash_frame(model, state);
    window.end_frame(capture);
    if (last_frame) return 0;
    pacer.wait();
  }
}

int run_interactive(DashModel& model, DashWindow& window, const std::string& settings_file) {
  FrameState state;
  ThemeKeeper theme;
  FramePacer pacer;
  while (!window.should_close()) {
    window.begin_frame(model.running() ? 0.0 : kIdleWait_s);
    load_paths(model, window.take_dropped_paths());
    model.poll();
    theme.sync(model.settings().light_theme);
    draw_dash_frame(model, state);
    window.end_frame(std::nullopt);
    pacer.wait();
  }
  model.cancel_run();
  if (!settings_file.empty()) {
    window.window_size(model.settings().window_width, model.settings().window_height);
    try {
      write_settings(settings_file, model.settings());
    } catch (const InputError& e) {
      std::fprintf(stderr, "tidal dash: warning: %s\n", e.what());
    }
  }
  return 0;
}

}  // namespace

std::pair<int, int> parse_window_size(const std::string& text) {
  const size_t x = text.find('x');
  int width = 0;
  int height = 0;
  const auto parse = [](std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && out >= 200 &&
           out <= 16384;
  };
  if (x == std::string::npos || !parse(std::string_view(text).substr(0, x), width) ||
      !parse(std::string_view(text).substr(x + 1), height)) {
    throw InputError(fmt::format(
        "--size: expected WIDTHxHEIGHT with each in [200, 16384] (e.g. 1600x1000), got \"{}\"",
        text));
  }
  return {width, height};
}

int run_dash(const DashOptions& options) {
  if (options.num_frames < 1) {
    throw InputError(fmt::format("--frames: must be at least 1, got {}", options.num_frames));
  }
  if (options.script && !options.screenshot) {
    throw InputError("--script needs --screenshot (scripts drive the headless mode)");
  }
  std::optional<ScriptRunner> runner;
  if (options.script) runner.emplace(read_script(*options.script));

  DashModel model(options.out_dir);
  // Headless runs neither read nor write the settings file, so they look the same anywhere.
  const std::string settings_file = options.screenshot ? "" : settings_path();
  if (!settings_file.empty()) {
    try {
      model.settings() = read_settings(settings_file);
    } catch (const InputError& e) {
      model.banner() = {true, std::string(e.what()) + " (using the default settings)"};
    }
  }
  load_inputs(model, options.inputs);
  auto [width, height] =
      options.size ? parse_window_size(*options.size)
                   : std::pair{model.settings().window_width, model.settings().window_height};
  DashWindow window(width, height, "tidal dash", !options.screenshot);
  if (options.screenshot) return run_headless(model, window, options, std::move(runner));
  return run_interactive(model, window, settings_file);
}

}  // namespace tidal::ui
