#include "ui/cli/run_summary.h"

#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string percent(float x) { return significant_text(100.0 * x, 4) + "%"; }

}  // namespace

void SummaryTotals::add(const StepRecord& r) {
    overflows += r.found_inf;
    skipped += r.skipped;
    backoffs += r.backoff;
    growths += r.growth;
    if (r.acc) acc = r.acc;
    if (r.acc_ref) acc_ref = r.acc_ref;
    last = r;
}

std::string run_summary(const std::string& name, bool twin, const SummaryTotals& t, const std::string& headline,
                        const std::string& records, const std::string& more) {
    std::string s = name + ": " + headline + "\n";
    s += "  loss " + significant_text(t.last.loss, 4);
    if (twin) s += " (FP32 twin " + significant_text(t.last.loss_ref, 4) + ")";
    if (t.acc) s += ", test accuracy " + percent(*t.acc);
    if (t.acc_ref) s += " (twin " + percent(*t.acc_ref) + ")";
    s += "\n  loss scale " + power_of_two_text(t.last.scale_after) + ", " + std::to_string(t.overflows) +
         " overflows, " + std::to_string(t.skipped) + " skipped steps, " + std::to_string(t.backoffs) +
         " backoffs, " + std::to_string(t.growths) + " growths\n";
    s += more + "  records: " + records + "\n";
    return s;
}

}  // namespace plab
