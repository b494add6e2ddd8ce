#include "ui/present/live_keys.h"

#include <cmath>
#include <limits>

#include "engine/common/number_text.h"
#include "engine/train/trainer.h"

namespace plab {

namespace {

struct Binding {
    LiveKey key;
    LiveAction action;
};

constexpr Binding kBindings[] = {
    {LiveKey::space, {LiveCommand::play_pause}},
    {LiveKey::s, {LiveCommand::step}},
    {LiveKey::r, {LiveCommand::reset}},
    {LiveKey::f, {LiveCommand::fork}},
    {LiveKey::digit1, {LiveCommand::recipe, kAllRecipes[0]}},
    {LiveKey::digit2, {LiveCommand::recipe, kAllRecipes[1]}},
    {LiveKey::digit3, {LiveCommand::recipe, kAllRecipes[2]}},
    {LiveKey::digit4, {LiveCommand::recipe, kAllRecipes[3]}},
    {LiveKey::digit5, {LiveCommand::recipe, kAllRecipes[4]}},
    {LiveKey::digit6, {LiveCommand::recipe, kAllRecipes[5]}},
    {LiveKey::digit7, {LiveCommand::recipe, kAllRecipes[6]}},
    {LiveKey::up, {LiveCommand::scale_up}},
    {LiveKey::down, {LiveCommand::scale_down}},
    {LiveKey::g, {LiveCommand::growth_interval_up}},
    {LiveKey::b, {LiveCommand::growth_interval_down}},
    {LiveKey::u, {LiveCommand::toggle_unscaled}},
    {LiveKey::l, {LiveCommand::next_layer}},
    {LiveKey::p, {LiveCommand::projector}},
    {LiveKey::h, {LiveCommand::help}},
};
static_assert(std::size(kBindings) == std::size(kAllLiveKeys));

SessionRequest notice(std::string why) {
    SessionRequest r;
    r.kind = SessionRequest::Kind::notice;
    r.said = std::move(why);
    return r;
}

SessionRequest simple(SessionRequest::Kind kind, std::int64_t at, std::string said) {
    SessionRequest r;
    r.kind = kind;
    r.at = at;
    r.said = std::move(said);
    return r;
}

SessionRequest edit(std::string assignment, std::string said) {
    SessionRequest r;
    r.kind = SessionRequest::Kind::set;
    r.assignment = std::move(assignment);
    r.said = std::move(said);
    return r;
}

std::optional<SessionRequest> play_pause(const SessionSnapshot& s) {
    if (s.playing) return simple(SessionRequest::Kind::pause, 0, "paused");
    const std::int64_t steps = s.main.config ? s.main.config->steps : 0;
    if (s.step >= steps)
        return notice("the run is at its last step (" + std::to_string(steps) + "): R resets it, S steps past it");
    return simple(SessionRequest::Kind::play, 0, "playing to step " + std::to_string(steps));
}

std::optional<SessionRequest> scale_key(const SessionSnapshot& s, bool up) {
    if (!s.main.config) return std::nullopt;
    if (s.main.config->scaler.kind == ScalerKind::none)
        return notice("no loss scaling in this run (scaler.kind none): pick a scaler kind first");
    const float now = live_loss_scale(s.main);
    const float next = up ? now * 2.0f : now / 2.0f;
    if (!std::isfinite(next) || next <= 0.0f)
        return notice("loss scale " + power_of_two_text(now) + (up ? " is the largest" : " is the smallest") +
                      " a float holds");
    return edit(std::string(kLiveScaleSetting) + "=" + shortest_text(next),
                "loss scale " + power_of_two_text(now) + " -> " + power_of_two_text(next));
}

std::optional<SessionRequest> growth_key(const SessionSnapshot& s, bool up) {
    if (!s.main.config) return std::nullopt;
    const int now = s.main.config->scaler.growth_interval;
    const int next = up ? (now > std::numeric_limits<int>::max() / 2 ? now : now * 2) : std::max(1, now / 2);
    if (next == now) return notice("growth_interval stays " + std::to_string(now));
    return edit("scaler.growth_interval=" + std::to_string(next),
                "growth_interval " + std::to_string(now) + " -> " + std::to_string(next));
}

}  // namespace

std::string_view live_key_name(LiveKey key) {
    switch (key) {
        case LiveKey::space: return "Space";
        case LiveKey::s: return "S";
        case LiveKey::r: return "R";
        case LiveKey::f: return "F";
        case LiveKey::digit1: return "1";
        case LiveKey::digit2: return "2";
        case LiveKey::digit3: return "3";
        case LiveKey::digit4: return "4";
        case LiveKey::digit5: return "5";
        case LiveKey::digit6: return "6";
        case LiveKey::digit7: return "7";
        case LiveKey::up: return "Up";
        case LiveKey::down: return "Down";
        case LiveKey::g: return "G";
        case LiveKey::b: return "B";
        case LiveKey::u: return "U";
        case LiveKey::l: return "L";
        case LiveKey::p: return "P";
        case LiveKey::h: return "H";
    }
    return "?";
}

LiveAction live_action(LiveKey key) {
    for (const Binding& b : kBindings)
        if (b.key == key) return b.action;
    return {};
}

std::vector<KeyHelp> live_key_help() {
    std::string recipes;
    for (std::size_t i = 0; i < std::size(kAllRecipes); ++i)
        recipes += (i ? "  " : "") + std::to_string(i + 1) + " " + std::string(recipe_name(kAllRecipes[i]));
    using K = LiveKey;
    return {
        {{K::space}, "Space", "play / pause"},
        {{K::s}, "S", "one step"},
        {{K::r}, "R", "reset: back to step 0"},
        {{K::f}, "F", "fork here: a second run trained alongside"},
        {{K::digit1, K::digit2, K::digit3, K::digit4, K::digit5, K::digit6, K::digit7},
         "1-" + std::to_string(std::size(kAllRecipes)),
         "new run with recipe: " + recipes},
        {{K::up, K::down}, "Up / Down", "loss scale x2 / /2 (live)"},
        {{K::g, K::b}, "G / B", "growth_interval x2 / /2 (live)"},
        {{K::u}, "U", "histograms: scaled (as held) / unscaled (true values)"},
        {{K::l}, "L", "histograms: next layer"},
        {{K::p}, "P", "projector: large fonts, thick lines"},
        {{K::h}, "H", "this help"},
    };
}

std::optional<SessionRequest> session_request(const LiveAction& action, const SessionSnapshot& s) {
    using Kind = SessionRequest::Kind;
    switch (action.command) {
        case LiveCommand::play_pause: return play_pause(s);
        case LiveCommand::step: return simple(Kind::step, 1, "step " + std::to_string(s.step + 1));
        case LiveCommand::reset: return simple(Kind::reset, 0, "reset to step 0");
        case LiveCommand::fork:
            return simple(Kind::fork, s.step, "forked at step " + std::to_string(s.step) + ": both runs train side by side");
        case LiveCommand::recipe: {
            SessionRequest r = simple(Kind::restart, 0, "new run with recipe " + std::string(recipe_name(action.recipe)));
            r.recipe = action.recipe;
            return r;
        }
        case LiveCommand::scale_up: return scale_key(s, true);
        case LiveCommand::scale_down: return scale_key(s, false);
        case LiveCommand::growth_interval_up: return growth_key(s, true);
        case LiveCommand::growth_interval_down: return growth_key(s, false);
        case LiveCommand::toggle_unscaled:
        case LiveCommand::next_layer:
        case LiveCommand::projector:
        case LiveCommand::help: return std::nullopt;
    }
    return std::nullopt;
}

float live_loss_scale(const RunView& run) {
    if (!run.config || run.config->scaler.kind == ScalerKind::none) return 1.0f;
    const StepRecord* last = run.log.latest();
    const std::int64_t since = last ? last->step : 0;
    // The newest scale edit made at or after the latest record's step sets the next step's scale.
    const std::string prefix = std::string(kLiveScaleSetting) + "=";
    for (std::size_t i = run.log.edits.size(); i-- > 0;) {
        const LiveEdit& e = run.log.edits[i];
        if (e.step < since) break;
        if (e.assignment.starts_with(prefix)) return std::stof(e.assignment.substr(prefix.size()));
    }
    return last ? last->scale_after : run.config->scaler.init_scale;
}

RunConfig recipe_config(const RunConfig& base, Recipe recipe) {
    RunConfig c = base;
    c.precision.recipe = recipe;
    c.scaler.kind = recipe_default_scaler(recipe);
    return c;
}

}  // namespace plab
