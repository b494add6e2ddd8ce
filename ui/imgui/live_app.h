#pragma once
// The live view's shell: one session, the panels in a fixed layout of one
// window, the keys (ui/present/live_keys), the status line and the projector
// toggle. It builds one ImGui frame per call of frame(); the window around it
// (GlWindow) draws and shows it.
#include <memory>
#include <string>
#include <vector>

#include "engine/train/session.h"
#include "ui/imgui/bits_panel.h"
#include "ui/imgui/controls_panel.h"
#include "ui/imgui/divergence_panel.h"
#include "ui/imgui/histogram_panel.h"
#include "ui/imgui/loss_panel.h"
#include "ui/imgui/nan_panel.h"
#include "ui/imgui/samples_panel.h"
#include "ui/imgui/scale_panel.h"
#include "ui/present/play_pace.h"
#include "ui/records/opened_record.h"

namespace plab::imgui {

class LiveApp {
public:
    // `preset` names the run in the status line; throws plab::Error on a bad config.
    LiveApp(std::string preset, const RunConfig& config, const Fonts& fonts);

    Session& session() { return *session_; }
    // Shows a run record in place of the session (plab::Error naming the line
    // and field of a bad record, nothing changed). Scaler edits then replay
    // the record's scaler (the what-if, drawn as the fork); R clears it; a
    // recipe chosen afterwards trains again.
    void open_record(const std::string& file);
    const OpenedRecord* record() const { return record_.get(); }  // null while a preset trains
    // The record's what-if under these scaler edits (plab::Error on a bad one).
    void set_what_if(std::vector<std::string> edits);
    // What the panels show: the session's latest snapshot, or the record's.
    std::shared_ptr<const SessionSnapshot> snapshot() const;
    void frame();  // between ImGui::NewFrame and ImGui::Render
    // Whether a run trains (playing, a step(n), or a paced play between its frames).
    bool busy() const { return paced_.active() || session_->snapshot()->playing; }

    bool projector() const { return look_.projector; }
    void set_projector(bool on);
    void show_help(bool on) { help_ = on; }

private:
    void handle_keys(const SessionSnapshot& snapshot);
    void perform(const LiveAction& action);
    void carry_out(const SessionRequest& request);
    void play();        // at the chosen pace
    void pace_frame();  // a paced play's steps for this frame
    void restart(const RunConfig& config, const std::string& what);
    void fork(std::int64_t at, const std::vector<std::string>& changes);
    void say(std::string message, bool error = false);
    void status_line(const SessionSnapshot& snapshot);
    void layout(const SessionSnapshot& snapshot);
    void edit(const std::string& assignment);
    bool carry_out_on_record(const SessionRequest& request);

    std::string preset_;
    RunConfig base_config_;
    std::unique_ptr<Session> session_;
    std::shared_ptr<const SessionSnapshot> shown_;
    Fonts fonts_;
    Look look_;
    ImGuiStyle base_style_;  // ImGui's style before any scaling
    bool base_saved_ = false;
    bool style_set_ = false;
    bool help_ = false;
    bool diagnosis_was_due_ = false;  // projector mode: the NaN tab came forward for this diagnosis
    std::string message_;
    bool message_error_ = false;
    double message_time_ = -1e9;
    std::uint64_t errors_seen_ = 0;
    LiveContext context_;
    std::unique_ptr<OpenedRecord> record_;  // shown in place of the session when set
    std::vector<std::string> what_if_;
    std::shared_ptr<const SessionSnapshot> record_snapshot_;
    std::size_t pace_choice_ = default_pace_choice();
    PacedPlay paced_;  // Play at a pace below max: each frame queues the steps it owes

    HistogramPanel histograms_;
    BitsPanel bits_;
    ScalePanel scale_;
    LossPanel loss_;
    DivergencePanel divergence_;
    NanPanel nan_;
    SamplesPanel samples_;
    ControlsPanel controls_;
};

}  // namespace plab::imgui
