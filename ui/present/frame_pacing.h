#pragma once
// When the live view may sleep between frames: while nothing trains and no
// input came for a few frames, it waits for the next event (or a short
// timeout, so a command finished on the worker still shows) instead of
// drawing flat out. The frames just after an input run at full rate: ImGui
// settles a click or a key (a popup's first frame, a release) a frame later.
namespace plab {

class FramePacing {
public:
    static constexpr int kAwakeFrames = 6;          // full-rate frames after the last input
    static constexpr double kIdleWaitSeconds = 0.25;  // longest sleep while idle

    // Called once a frame, after the events were read: `input` whether any
    // arrived since the last call, `busy` whether a run is training.
    void note_frame(bool input, bool busy) {
        quiet_frames_ = input || busy ? 0 : quiet_frames_ + 1;
    }
    // Whether the next frame should wait for an event rather than poll.
    bool may_wait() const { return quiet_frames_ >= kAwakeFrames; }

private:
    int quiet_frames_ = 0;
};

}  // namespace plab
