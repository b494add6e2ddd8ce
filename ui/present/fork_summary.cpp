#include "ui/present/fork_summary.h"

#include "engine/common/number_text.h"
#include "ui/present/loss_curves.h"

namespace plab {

std::string fork_summary(const SessionSnapshot& s) {
    if (!s.fork) return {};
    std::string t = "A fork from step " + std::to_string(s.fork->forked_at) + " trains alongside the run";
    const StepRecord* main = s.main.log.latest();
    const StepRecord* fork = s.fork->log.latest();
    if (!main || !fork) return t + ".";
    return t + ": at step " + std::to_string(fork->step) + " its loss is " + loss_text(fork->loss, 4) +
           " against the run's " + loss_text(main->loss, 4) + ", " +
           std::to_string(s.fork->log.totals.overflows) + " overflows against " +
           std::to_string(s.main.log.totals.overflows) + ".";
}

}  // namespace plab
