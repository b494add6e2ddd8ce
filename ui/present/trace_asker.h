#pragma once
// When a diagnosis view asks the session for a trace of the first
// non-finite step (Session::trace): once when the step first wants one, and
// again after a pause while it still does (a reset may have dropped the
// trace, and the session ignores a repeat of the step it traced last), never
// on every frame. Shared by both GUIs' NaN panels.
#include <chrono>
#include <cstdint>

#include "ui/present/nan_diagnosis.h"

namespace plab {

class TraceAsker {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kRetry{1000};

    // True when the view should call Session::trace(d.step) now.
    bool should_ask(const NanDiagnosis& d, Clock::time_point now);

private:
    std::int64_t step_ = -1;  // the step last asked for
    Clock::time_point at_{};
};

}  // namespace plab
