#include "ui/present/play_pace.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace plab {

namespace {

constexpr std::array<PaceChoice, 8> kChoices{{{"1 step/s", 1},
                                              {"3 steps/s", 3},
                                              {"10 steps/s", 10},
                                              {"30 steps/s", 30},
                                              {"100 steps/s", 100},
                                              {"300 steps/s", 300},
                                              {"1000 steps/s", 1000},
                                              {"max", 0}}};
constexpr std::size_t kDefault = 3;

}  // namespace

std::span<const PaceChoice> pace_choices() { return kChoices; }

std::size_t default_pace_choice() { return kDefault; }

std::optional<std::size_t> find_pace_choice(const std::string& label) {
    for (std::size_t i = 0; i < kChoices.size(); ++i)
        if (label == kChoices[i].label) return i;
    return std::nullopt;
}

void PlayPace::start(double now) {
    last_ = now;
    carry_ = 0;
}

void PacedPlay::play(Session& session, double steps_per_second, double now) {
    active_ = steps_per_second > 0;
    if (active_)
        pace_.start(now);
    else
        session.play();
}

void PacedPlay::frame(Session& session, double steps_per_second, double now) {
    if (!active_) return;
    const auto s = session.snapshot();
    if (s->playing) return;  // still working through the last frame's steps
    if (!s->play_has_steps()) {
        active_ = false;
        return;
    }
    if (steps_per_second == 0) {
        play(session, 0, now);
        return;
    }
    if (const std::int64_t due = pace_.steps_due(now, steps_per_second)) session.play(due);
}

std::int64_t PlayPace::steps_due(double now, double steps_per_second) {
    const double elapsed = std::clamp(now - last_, 0.0, kMostOwedSeconds);
    last_ = now;
    carry_ += elapsed * steps_per_second;
    const double whole = std::floor(carry_);
    carry_ -= whole;
    return static_cast<std::int64_t>(whole);
}

}  // namespace plab
