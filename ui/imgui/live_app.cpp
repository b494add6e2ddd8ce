#include "ui/imgui/live_app.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdio>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/trainer_factory.h"
#include "ui/imgui/help_overlay.h"
#include "ui/imgui/plot.h"
#include "ui/present/loss_curves.h"
#include "ui/present/nan_diagnosis.h"
#include "ui/present/record_notes.h"
#include "ui/present/run_progress.h"

namespace plab::imgui {

namespace {

// Each session gets its own backend: a replaced session's worker may still
// be finishing its step on its own.
std::unique_ptr<Session> make_session(const RunConfig& config) {
    return std::make_unique<Session>(config, trainer_factory(std::make_shared<CpuBackend>()));
}

// The GLFW key code of a key of the live view (the GLFW backend fills
// io.KeysDown by these codes in ImGui 1.86).
int glfw_key(LiveKey key) {
    switch (key) {
        case LiveKey::space: return GLFW_KEY_SPACE;
        case LiveKey::s: return GLFW_KEY_S;
        case LiveKey::r: return GLFW_KEY_R;
        case LiveKey::f: return GLFW_KEY_F;
        case LiveKey::digit1: return GLFW_KEY_1;
        case LiveKey::digit2: return GLFW_KEY_2;
        case LiveKey::digit3: return GLFW_KEY_3;
        case LiveKey::digit4: return GLFW_KEY_4;
        case LiveKey::digit5: return GLFW_KEY_5;
        case LiveKey::digit6: return GLFW_KEY_6;
        case LiveKey::digit7: return GLFW_KEY_7;
        case LiveKey::up: return GLFW_KEY_UP;
        case LiveKey::down: return GLFW_KEY_DOWN;
        case LiveKey::g: return GLFW_KEY_G;
        case LiveKey::b: return GLFW_KEY_B;
        case LiveKey::u: return GLFW_KEY_U;
        case LiveKey::l: return GLFW_KEY_L;
        case LiveKey::p: return GLFW_KEY_P;
        case LiveKey::h: return GLFW_KEY_H;
    }
    return GLFW_KEY_UNKNOWN;
}

constexpr double kMessageSeconds = 8.0;

// A diagnosis worth the divergence's place on a projector: a NaN or Inf the
// scaler did not cope with, not a dynamic scaler's routine backoff.
bool needs_diagnosis(const RunView& run) {
    if (!run.config || run.log.totals.first_nonfinite_step < 0) return false;
    const NanDiagnosis d = diagnose_first_nonfinite(run.log, *run.config, run.layer_names);
    return d.found && !d.handled;
}

// A language model writes text samples worth a panel; an MLP has none to show.
bool writes_text(const RunView& run) { return run.config && run.config->model.kind == ModelKind::gpt; }

}  // namespace

LiveApp::LiveApp(std::string preset, const RunConfig& config, const Fonts& fonts)
    : preset_(std::move(preset)), base_config_(config), session_(make_session(config)), fonts_(fonts) {
    context_.perform = [this](const LiveAction& a) { perform(a); };
    context_.set = [this](const std::string& assignment) { edit(assignment); };
    context_.fork = [this](std::int64_t at, const std::vector<std::string>& changes) { fork(at, changes); };
    context_.trace = [this](std::int64_t step) {
        if (!record_) session_->trace(step);  // a record's own nan line stands for the trace
    };
    context_.inspect = [this](float x) { bits_.set_value(x); };
    context_.pace = &pace_choice_;
    set_projector(false);
}

void LiveApp::set_projector(bool on) {
    look_.projector = on;
    look_.scale = on ? kProjectorScale : 1.0f;
    const FontSet& f = on ? fonts_.projector : fonts_.normal;
    look_.font = f.body;
    look_.heading = f.heading;
    look_.mono = f.mono;
    style_set_ = false;  // the style follows at the start of the next frame
}

void LiveApp::say(std::string message, bool error) {
    message_ = std::move(message);
    message_error_ = error;
    message_time_ = ImGui::GetCurrentContext() ? ImGui::GetTime() : 0.0;
}

void LiveApp::restart(const RunConfig& config, const std::string& what) {
    try {
        session_ = make_session(config);  // the first run validates the config (plab::Error)
        paced_.stop();
        base_config_ = config;
        record_.reset();
        record_snapshot_.reset();
        what_if_.clear();
        errors_seen_ = 0;
        say("new run: " + what);
    } catch (const Error& e) {
        say(e.what(), true);
    }
}

// A paced play is playing between the frames that queue its steps too, so
// that Space pauses it and the panels say "training".
std::shared_ptr<const SessionSnapshot> LiveApp::snapshot() const {
    if (record_) return record_snapshot_;
    std::shared_ptr<const SessionSnapshot> s = session_->snapshot();
    if (!paced_.active() || s->playing) return s;
    auto playing = std::make_shared<SessionSnapshot>(*s);
    playing->playing = true;
    return playing;
}

void LiveApp::play() { paced_.play(*session_, pace_choices()[pace_choice_].steps_per_second, ImGui::GetTime()); }

// Queues the steps the pace owes once the last frame's are done.
void LiveApp::pace_frame() {
    if (!record_) paced_.frame(*session_, pace_choices()[pace_choice_].steps_per_second, ImGui::GetTime());
}

void LiveApp::open_record(const std::string& file) {
    auto opened = std::make_unique<OpenedRecord>(plab::open_record(file));
    record_snapshot_ = record_snapshot(*opened);
    record_ = std::move(opened);
    what_if_.clear();
    session_->pause();
    say(record_->run.warnings.empty() ? "opened " + file + ": scaler edits replay its scaler (the what-if); R clears it"
                                      : record_->run.warnings.front());
}

void LiveApp::set_what_if(std::vector<std::string> edits) {
    if (!record_) return;
    record_snapshot_ = record_snapshot(*record_, edits);  // throws on a bad edit: nothing changes
    what_if_ = std::move(edits);
}

// A scaler edit: a live edit of the session, or on a record the what-if.
void LiveApp::edit(const std::string& assignment) {
    if (!record_) {
        session_->set(assignment);
        say(assignment);
        return;
    }
    try {
        set_what_if(what_if_with(what_if_, assignment));
        say("what-if: the record's scaler replayed with " + assignment + " (R clears it)");
    } catch (const Error& e) {
        say(e.what(), true);
    }
}

// What the keys ask of a recorded run: there is nothing to train or fork;
// R clears the what-if, a scaler edit makes one, a recipe trains again.
bool LiveApp::carry_out_on_record(const SessionRequest& r) {
    using Kind = SessionRequest::Kind;
    switch (r.kind) {
        case Kind::reset:
            set_what_if({});
            say("the recorded run alone again: the what-if is cleared");
            return true;
        case Kind::set: edit(r.assignment); return true;
        case Kind::restart: return false;
        default:
            say("a recorded run: nothing to train or fork here (choose a recipe, 1-7, to train again)");
            return true;
    }
}

void LiveApp::fork(std::int64_t at, const std::vector<std::string>& changes) {
    if (record_) {
        say(record_gap_text(RecordGap::remedies, *record_snapshot_->record));
        return;
    }
    session_->fork(at, changes);
    if (!busy()) play();  // a remedy's fork trains at once beside the run, as the message says
    std::string what = "forked at step " + std::to_string(at);
    for (std::size_t i = 0; i < changes.size(); ++i) what += (i ? ", " : " with ") + changes[i];
    say(what + ": both runs train side by side");
}

void LiveApp::carry_out(const SessionRequest& r) {
    if (record_ && carry_out_on_record(r)) return;
    using Kind = SessionRequest::Kind;
    // Anything but a live edit or a fork ends a paced play (pause, step, reset, a new run).
    if (r.kind != Kind::play && r.kind != Kind::notice && r.kind != Kind::set && r.kind != Kind::fork)
        paced_.stop();
    switch (r.kind) {
        case Kind::play: play(); break;
        case Kind::pause: session_->pause(); break;
        case Kind::step: session_->step(r.at); break;
        case Kind::reset: session_->reset(); break;
        case Kind::fork: session_->fork(r.at); break;
        case Kind::set: session_->set(r.assignment); break;
        case Kind::restart: restart(recipe_config(base_config_, r.recipe), std::string(recipe_name(r.recipe))); return;
        case Kind::notice: break;
    }
    say(r.said);
}

void LiveApp::perform(const LiveAction& action) {
    switch (action.command) {
        case LiveCommand::toggle_unscaled: histograms_.toggle_unscaled(); return;
        case LiveCommand::next_layer: histograms_.next_layer(); return;
        case LiveCommand::projector: set_projector(!look_.projector); return;
        case LiveCommand::help: help_ = !help_; return;
        default: break;
    }
    if (const auto request = session_request(action, *snapshot())) carry_out(*request);
}

void LiveApp::handle_keys(const SessionSnapshot& snapshot) {
    (void)snapshot;
    if (ImGui::GetIO().WantTextInput) return;  // typing into a field
    for (LiveKey key : kAllLiveKeys)
        if (ImGui::IsKeyPressed(glfw_key(key), key == LiveKey::s)) perform(live_action(key));
}

void LiveApp::status_line(const SessionSnapshot& s) {
    const RunView& run = s.main;
    const std::int64_t steps = run.config ? run.config->steps : 0;
    std::string text = preset_ + "  ·  " + std::string(recipe_name(base_config_.precision.recipe)) + "  ·  " +
                       run_progress_text(s.step, steps) + "  ·  " + (s.playing ? "training" : "paused");
    if (const StepRecord* last = run.log.latest()) {
        text += "  ·  loss " + loss_text(last->loss, 4);
        if (run.config && run.config->twin) text += " (twin " + loss_text(last->loss_ref, 4) + ")";
    }
    if (s.fork) text += "  ·  fork from step " + std::to_string(s.fork->forked_at);
    if (s.record) text = record_status_text(s);
    if (look_.heading) ImGui::PushFont(look_.heading);
    ImGui::TextUnformatted(text.c_str());
    if (look_.heading) ImGui::PopFont();
    // The key hint at the right end, when the line leaves room for it.
    const char* hint = "H help   P projector";
    const float hint_x = ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(hint).x;
    ImGui::SameLine();
    if (ImGui::GetCursorPosX() + ImGui::GetStyle().ItemSpacing.x < hint_x) {
        ImGui::SameLine(hint_x);
        ImGui::TextDisabled("%s", hint);
    } else {
        ImGui::NewLine();
    }
    if (s.errors != errors_seen_) {
        errors_seen_ = s.errors;
        say(s.last_error, true);
    }
    const bool fresh = ImGui::GetTime() - message_time_ < kMessageSeconds && !message_.empty();
    ImGui::PushStyleColor(ImGuiCol_Text, message_error_ ? colour::overflow : colour::edit);
    ImGui::TextUnformatted(fresh ? message_.c_str() : " ");
    ImGui::PopStyleColor();
}

void LiveApp::layout(const SessionSnapshot& s) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float h = avail.y;
    constexpr ImGuiWindowFlags column = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
    auto histograms = [&](float height) {
        if (begin_panel("##histograms", "Gradient histograms", {0, height}, look_)) histograms_.draw(s, look_, context_);
        end_panel();
    };
    auto scale = [&](float height) {
        if (begin_panel("##scale", "Loss scale", {0, height}, look_)) scale_.draw(s, look_);
        end_panel();
    };
    auto loss = [&](float height) {
        if (begin_panel("##loss", "AMP vs FP32 twin: loss", {0, height}, look_)) loss_.draw(s, look_);
        end_panel();
    };
    auto divergence = [&](float height) {
        if (begin_panel("##divergence", "Per-layer divergence from the twin", {0, height}, look_)) divergence_.draw(s, look_);
        end_panel();
    };
    auto nan = [&](float height) {
        if (begin_panel("##nan", "First NaN / overflow", {0, height}, look_)) nan_.draw(s, look_, context_);
        end_panel();
    };
    auto samples = [&](float height) {
        if (begin_panel("##samples", "Samples: AMP model vs FP32 twin", {0, height}, look_)) samples_.draw(s, look_);
        end_panel();
    };

    if (look_.projector) {
        // For a big screen seen from afar: four large panels, two by two. The
        // histograms, with their controls and counters, get the larger share;
        // the fourth place holds tabs, so that the divergence, the diagnosis
        // and the run and scaler controls all stay a click away. The
        // diagnosis comes forward once a run holds a NaN or Inf its scaler
        // did not cope with.
        const float left_w = (avail.x - gap) * 0.56f;
        ImGui::BeginChild("##left", {left_w, h}, false, column);
        histograms(h * 0.62f);
        loss(0);
        ImGui::EndChild();
        ImGui::SameLine(0, gap);
        ImGui::BeginChild("##right", {0, h}, false, column);
        scale(h * 0.5f);
        const bool due = needs_diagnosis(s.main);
        const ImGuiTabItemFlags bring_nan = due && !diagnosis_was_due_ ? ImGuiTabItemFlags_SetSelected : 0;
        diagnosis_was_due_ = due;
        if (ImGui::BeginTabBar("##projector-tabs")) {
            if (ImGui::BeginTabItem("Divergence")) {
                divergence(0);
                ImGui::EndTabItem();
            }
            if (ImGui::BeginTabItem("NaN / overflow", nullptr, bring_nan)) {
                nan(0);
                ImGui::EndTabItem();
            }
            if (ImGui::BeginTabItem("Run and scaler")) {
                if (begin_panel("##controls", "Run and scaler", {0, 0}, look_)) controls_.draw(s, look_, context_);
                end_panel();
                ImGui::EndTabItem();
            }
            ImGui::EndTabBar();
        }
        ImGui::EndChild();
        return;
    }

    const float left_w = avail.x * 0.40f, mid_w = avail.x * 0.37f;
    const float right_w = avail.x - left_w - mid_w - 2 * gap;
    ImGui::BeginChild("##left", {left_w, h}, false, column);
    histograms(h * 0.58f);
    if (begin_panel("##bits", "Bit layout", {0, 0}, look_)) bits_.draw(look_);
    end_panel();
    ImGui::EndChild();

    ImGui::SameLine(0, gap);
    ImGui::BeginChild("##middle", {mid_w, h}, false, column);
    scale(h * 0.36f);
    loss(h * 0.32f);
    divergence(0);
    ImGui::EndChild();

    ImGui::SameLine(0, gap);
    ImGui::BeginChild("##right", {right_w, h}, false, column);
    if (begin_panel("##controls", "Run and scaler", {0, h * 0.44f}, look_)) controls_.draw(s, look_, context_);
    end_panel();
    if (writes_text(s.main)) {
        nan(h * 0.24f);
        samples(0);
    } else {
        nan(0);
    }
    ImGui::EndChild();
}

void LiveApp::frame() {
    if (!style_set_) {
        if (!base_saved_) base_style_ = ImGui::GetStyle();
        base_saved_ = true;
        ImGui::GetStyle() = base_style_;
        ImGui::GetStyle().ScaleAllSizes(look_.scale);
        // The GL clear paints the background (GlWindow::render, the same
        // colour) once: the window and each nested child region filling it
        // again cost a software rasteriser a full-screen fill apiece.
        ImGui::GetStyle().Colors[ImGuiCol_WindowBg] = ImVec4(0, 0, 0, 0);
        ImGui::GetStyle().Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
        ImGui::GetStyle().Colors[ImGuiCol_PopupBg] = to_vec4(colour::popup_background);
        ImGui::GetStyle().Colors[ImGuiCol_ModalWindowDimBg] = ImVec4(0, 0, 0, 0.6f);
        style_set_ = true;
    }
    pace_frame();
    shown_ = snapshot();
    const SessionSnapshot& s = *shown_;
    if (look_.font) ImGui::PushFont(look_.font);
    handle_keys(s);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(vp->Size);
    constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                       ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::Begin("##live", nullptr, flags);
    status_line(s);
    layout(s);
    help_ = help_overlay(look_, help_);
    ImGui::End();
    if (look_.font) ImGui::PopFont();
}

}  // namespace plab::imgui
