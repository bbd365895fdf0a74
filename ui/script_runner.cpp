#include "ui/script_runner.h"

#include <fmt/format.h>

#include "base/input_error.h"
#include "ui/json_path.h"

namespace tidal::ui {
namespace {

// Frames drawn after `screenshot` before the capture, so a view switched just before has laid
// out (ImGui tabs switch one frame late; windows size themselves on their first frame).
constexpr int64_t kFramesBeforeCapture = 3;

}  // namespace

bool ScriptRunner::done() const {
  return next_ >= script_.commands.size() && !waiting_run_ && !waiting_cancel_ && frames_left_ == 0;
}

std::optional<std::string> ScriptRunner::step(DashModel& model) {
  if (waiting_run_ || waiting_cancel_) {
    if (model.running()) return std::nullopt;
    if (waiting_run_) finish_run(model);
    waiting_cancel_ = false;
  }
  if (frames_left_ > 0) {
    if (--frames_left_ > 0) return std::nullopt;
    if (capture_) return std::exchange(capture_, std::nullopt);
  }
  while (next_ < script_.commands.size()) {
    const ScriptCommand& command = script_.commands[next_++];
    try {
      if (!perform(model, command)) break;
    } catch (const InputError& e) {
      throw InputError(script_error(script_, command, e.what()));
    }
  }
  return std::nullopt;
}

void ScriptRunner::finish_run(DashModel& model) {
  const ScriptCommand& command = script_.commands[*waiting_run_];
  waiting_run_.reset();
  const std::optional<RunOutcome>& outcome = model.last_outcome();
  if (!outcome || outcome->status == RunOutcome::Status::cancelled) {
    throw InputError(script_error(script_, command, "the run was cancelled"));
  }
  if (outcome->status == RunOutcome::Status::failed) {
    throw InputError(script_error(script_, command, "the run failed: " + outcome->message));
  }
  if (command.op == ScriptOp::rerun && model.pinned() != nullptr) {
    model.request_view(View::compare);
  }
}

bool ScriptRunner::perform(DashModel& model, const ScriptCommand& command) {
  switch (command.op) {
    case ScriptOp::load:
      model.load(command.argument);
      return true;
    case ScriptOp::set:
      model.scenario().set(command.argument, parse_loose_value(command.value));
      return true;
    case ScriptOp::run:
    case ScriptOp::rerun:
      model.start_run();
      waiting_run_ = next_ - 1;
      return false;
    case ScriptOp::start:
      model.start_run();
      return true;
    case ScriptOp::cancel:
      model.cancel_run();
      waiting_cancel_ = model.running();
      return !waiting_cancel_;
    case ScriptOp::pin:
      model.pin_current();
      return true;
    case ScriptOp::view:
      model.request_view(*parse_view(command.argument));
      return true;
    case ScriptOp::theme:
      model.settings().light_theme = command.argument == "light";
      return true;
    case ScriptOp::screenshot:
      capture_ = command.argument;
      frames_left_ = kFramesBeforeCapture;
      return false;
    case ScriptOp::wait_frames:
      frames_left_ = command.num_frames;
      return false;
    case ScriptOp::export_report:
      model.export_report(command.argument);
      return true;
  }
  return true;
}

}  // namespace tidal::ui
