// The dashboard's window: GLFW with an OpenGL 3 context, Dear ImGui on top, files dropped on
// the window collected for the next frame, and the frame read back into a PNG.
#pragma once

#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace tidal::ui {

class DashWindow {
 public:
  // InputError when there is no display or no OpenGL 3 context (e.g. run without X: use
  // xvfb-run for headless screenshots).
  // `vsync` false lets headless frames go as fast as they render.
  DashWindow(int width, int height, const char* title, bool vsync);
  ~DashWindow();
  DashWindow(const DashWindow&) = delete;
  DashWindow& operator=(const DashWindow&) = delete;

  bool should_close() const;
  // Takes input events (waiting up to `max_wait_s` for one, so an idle window costs no CPU)
  // and starts an ImGui frame.
  void begin_frame(double max_wait_s);
  // Renders the ImGui frame; with `png_path`, reads the rendered frame back and writes it as a
  // PNG (InputError when the file cannot be written); then shows it.
  void end_frame(const std::optional<std::string>& png_path);

  std::vector<std::string> take_dropped_paths();
  void window_size(int& width, int& height) const;

 private:
  static void on_drop(GLFWwindow* window, int count, const char** paths);

  GLFWwindow* window_ = nullptr;
  std::vector<std::string> dropped_;
};

// Reads the current framebuffer (RGB, bottom-up in OpenGL) and writes a top-down PNG.
void write_framebuffer_png(const std::string& path, int width, int height);

}  // namespace tidal::ui
