#pragma once
// The live view's keyboard: which key does what, in one table so
// that the key handling and the help overlay cannot disagree, and what each
// command asks of the Session given the snapshot on screen. Toolkit-free: the
// ImGui shell maps its key codes to LiveKey and carries out the requests.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/run_config.h"
#include "engine/train/session.h"

namespace plab {

// One digit per recipe, in kAllRecipes' order.
enum class LiveKey {
    space, s, r, f, digit1, digit2, digit3, digit4, digit5, digit6, digit7, up, down, g, b, u, l, p, h
};
inline constexpr LiveKey kAllLiveKeys[] = {
    LiveKey::space,  LiveKey::s,      LiveKey::r,      LiveKey::f,      LiveKey::digit1, LiveKey::digit2,
    LiveKey::digit3, LiveKey::digit4, LiveKey::digit5, LiveKey::digit6, LiveKey::digit7, LiveKey::up,
    LiveKey::down,   LiveKey::g,      LiveKey::b,      LiveKey::u,      LiveKey::l,      LiveKey::p,
    LiveKey::h};

std::string_view live_key_name(LiveKey key);  // "Space", "S", "1", "Up", ...

enum class LiveCommand {
    play_pause,            // Session: play, or pause while playing
    step,                  // Session: one step
    reset,                 // Session: back to step 0
    fork,                  // Session: a fork at the current step, trained alongside
    recipe,                // a new run from step 0 with another recipe (LiveAction::recipe)
    scale_up,              // the live loss scale x2
    scale_down,            // the live loss scale / 2
    growth_interval_up,    // scaler.growth_interval x2
    growth_interval_down,  // scaler.growth_interval / 2 (at least 1)
    toggle_unscaled,       // view: histograms scaled / unscaled
    next_layer,            // view: the histogram's next layer
    projector,             // view: projector mode (large fonts, thick lines)
    help,                  // view: the help overlay
};

struct LiveAction {
    LiveCommand command = LiveCommand::help;
    Recipe recipe = Recipe::fp32;  // for LiveCommand::recipe
};

// What `key` does.
LiveAction live_action(LiveKey key);

// The help overlay's lines, in order; together they name every key once.
struct KeyHelp {
    std::vector<LiveKey> keys;
    std::string keys_text;  // "Up / Down", "1-7"
    std::string what;       // "loss scale x2 / /2"
};
std::vector<KeyHelp> live_key_help();

// What a command asks of the session. View commands ask nothing (nullopt).
struct SessionRequest {
    enum class Kind { play, pause, step, reset, fork, set, restart, notice };
    Kind kind = Kind::notice;
    std::int64_t at = 0;     // step: how many steps; fork: the step it branches at
    std::string assignment;  // set: the live edit
    Recipe recipe = Recipe::fp32;  // restart
    // One line for the status bar: what was asked ("loss scale 2^16 -> 2^17"),
    // or, for a notice, why nothing was asked.
    std::string said;
};
std::optional<SessionRequest> session_request(const LiveAction& action, const SessionSnapshot& snapshot);

// The loss scale the main run's next step will use: a live "scaler.scale"
// edit made since the latest record, else that record's scale_after, else
// (before the first step) the config's init_scale; 1 with scaler.kind none.
float live_loss_scale(const RunView& run);

// `base` with another recipe, and the scaler that recipe runs with by default
// (dynamic for the FP16 recipes, none for the rest).
RunConfig recipe_config(const RunConfig& base, Recipe recipe);

}  // namespace plab
