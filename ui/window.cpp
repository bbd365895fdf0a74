#include "ui/window.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::ui {
namespace {

// DejaVu Sans (Debian's fonts-dejavu-core) reads better than ImGui's built-in bitmap font;
// without it the built-in font is used.
constexpr const char* kFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr float kFontSize = 15.0f;

std::string glfw_error_text() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description != nullptr ? description : "unknown error";
}

}  // namespace

DashWindow::DashWindow(int width, int height, const char* title, bool vsync) {
  if (glfwInit() != GLFW_TRUE) {
    throw InputError(
        fmt::format("tidal dash: cannot open a window ({}); headless screenshots "
                    "need a display, e.g. xvfb-run",
                    glfw_error_text()));
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  window_ = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (window_ == nullptr) {
    const std::string why = glfw_error_text();
    glfwTerminate();
    throw InputError(fmt::format("tidal dash: cannot create an OpenGL 3.3 window ({})", why));
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, &DashWindow::on_drop);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is fixed; window size lives in tidal's settings file
  if (std::filesystem::exists(kFontPath)) io.Fonts->AddFontFromFileTTF(kFontPath, kFontSize);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

DashWindow::~DashWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool DashWindow::should_close() const {
  return glfwWindowShouldClose(window_) == GLFW_TRUE;
}

void DashWindow::begin_frame(double max_wait_s) {
  if (max_wait_s > 0.0) {
    glfwWaitEventsTimeout(max_wait_s);
  } else {
    glfwPollEvents();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void DashWindow::end_frame(const std::optional<std::string>& png_path) {
  ImGui::Render();
  int width = 0;
  int height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  glViewport(0, 0, width, height);
  const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(background.x, background.y, background.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (png_path) write_framebuffer_png(*png_path, width, height);
  glfwSwapBuffers(window_);
}

std::vector<std::string> DashWindow::take_dropped_paths() {
  return std::exchange(dropped_, {});
}

void DashWindow::window_size(int& width, int& height) const {
  glfwGetWindowSize(window_, &width, &height);
}

void DashWindow::on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* self = static_cast<DashWindow*>(glfwGetWindowUserPointer(window));
  for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
}

void write_framebuffer_png(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height *
                                    3);  // [height, width, rgb]
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  std::vector<unsigned char> flipped(pixels.size());  // [height, width, rgb] top row first
  for (int y = 0; y < height; ++y) {
    std::copy_n(pixels.begin() + static_cast<ptrdiff_t>((height - 1 - y) * row_bytes), row_bytes,
                flipped.begin() + static_cast<ptrdiff_t>(y * row_bytes));
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (stbi_write_png(path.c_str(), width, height, 3, flipped.data(), static_cast<int>(row_bytes)) ==
      0) {
    throw InputError(fmt::format("{}: cannot write the screenshot PNG", path));
  }
}

}  // namespace tidal::ui
