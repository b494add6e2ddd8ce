#include "engine/sweep/cell_summary.h"

#include <algorithm>
#include <functional>

namespace plab {

namespace {

// The measure over the runs that have it; the mean sums in run order, so a
// cell's figures do not depend on which thread finished first.
std::optional<Spread> spread_of(const std::vector<RunMeasures>& runs,
                                const std::function<std::optional<double>(const RunMeasures&)>& measure) {
    Spread s;
    double sum = 0;
    for (const RunMeasures& r : runs) {
        const std::optional<double> x = measure(r);
        if (!x) continue;
        s.min = s.runs == 0 ? *x : std::min(s.min, *x);
        s.max = s.runs == 0 ? *x : std::max(s.max, *x);
        sum += *x;
        ++s.runs;
    }
    if (s.runs == 0) return std::nullopt;
    s.mean = sum / s.runs;
    return s;
}

template <typename T>
std::optional<double> widened(const std::optional<T>& x) {
    return x ? std::optional<double>(static_cast<double>(*x)) : std::nullopt;
}

Spread always(const std::vector<RunMeasures>& runs, const std::function<double(const RunMeasures&)>& measure) {
    return spread_of(runs, [&](const RunMeasures& r) { return std::optional<double>(measure(r)); }).value_or(Spread{});
}

}  // namespace

CellSummary summarise_cell(const std::vector<RunMeasures>& runs) {
    CellSummary c;
    c.runs = static_cast<int>(runs.size());
    c.skipped = always(runs, [](const RunMeasures& r) { return static_cast<double>(r.skipped); });
    c.floor_steps = always(runs, [](const RunMeasures& r) { return static_cast<double>(r.floor_steps); });
    c.ceiling_steps = always(runs, [](const RunMeasures& r) { return static_cast<double>(r.ceiling_steps); });
    c.grad_zero_share = always(runs, [](const RunMeasures& r) { return r.grad_zero_share; });
    c.final_loss = always(runs, [](const RunMeasures& r) { return static_cast<double>(r.final_loss); });
    c.acc = spread_of(runs, [](const RunMeasures& r) { return widened(r.acc); });
    c.acc_gap = spread_of(runs, [](const RunMeasures& r) { return widened(r.acc_gap()); });
    c.test_loss = spread_of(runs, [](const RunMeasures& r) { return widened(r.test_loss); });
    c.first_growth_step = spread_of(runs, [](const RunMeasures& r) { return widened(r.first_growth_step); });
    c.twin_flush_share = spread_of(runs, [](const RunMeasures& r) { return r.twin_flush_share; });
    return c;
}

}  // namespace plab
