#include "ui/present/trace_asker.h"

namespace plab {

bool TraceAsker::should_ask(const NanDiagnosis& d, Clock::time_point now) {
    if (!d.trace_wanted) return false;
    if (d.step == step_ && now - at_ < kRetry) return false;
    step_ = d.step;
    at_ = now;
    return true;
}

}  // namespace plab
