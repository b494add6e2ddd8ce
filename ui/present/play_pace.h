#pragma once
// A play at a teaching pace: steps a second rather than as fast as the CPU
// goes, so that a class sees a preset's story unfold (a 600-step sawtooth
// in 20 s at 30 steps/s). The front ends ask steps_due() once a frame and
// queue that many (Session::play(at_most)); a frame that comes late owes
// more steps, a stall owes at most a quarter second's worth.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "engine/train/session.h"

namespace plab {

struct PaceChoice {
    const char* label;  // "30 steps/s", "max"
    double steps_per_second;  // 0 for max: as fast as the CPU goes
};

// The chooser's entries, slowest first, "max" last.
std::span<const PaceChoice> pace_choices();
// The entry a fresh install starts on: 30 steps/s.
std::size_t default_pace_choice();
// The entry labelled `label`, if any (a remembered setting read back).
std::optional<std::size_t> find_pace_choice(const std::string& label);

class PlayPace {
public:
    static constexpr double kMostOwedSeconds = 0.25;

    // Play pressed at time `now` (seconds): nothing is owed yet.
    void start(double now);
    // Whole steps owed at `now` for `steps_per_second` (> 0) since start or
    // the last call (at most kMostOwedSeconds' worth); the fraction is
    // carried over to the next call.
    std::int64_t steps_due(double now, double steps_per_second);

private:
    double last_ = 0;
    double carry_ = 0;  // steps owed but not yet whole
};

// Play as both front ends do it: flat out (Session::play) at a rate of 0,
// else a paced play whose frames queue the steps owed (Session::play(n)).
class PacedPlay {
public:
    // Play pressed at `now` (seconds) with the chosen rate.
    void play(Session& session, double steps_per_second, double now);
    // Once a frame: the steps owed, queued once the last frame's are done.
    // The paced play ends when no live run is short of its planned steps;
    // a rate switched to max hands over to a plain play.
    void frame(Session& session, double steps_per_second, double now);
    // Pause, step, reset, a new run: the frames queue nothing more.
    void stop() { active_ = false; }
    // Playing at a pace (between its frames too, when the session is idle).
    bool active() const { return active_; }

private:
    PlayPace pace_;
    bool active_ = false;
};

}  // namespace plab
