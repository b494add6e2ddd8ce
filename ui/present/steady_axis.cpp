#include "ui/present/steady_axis.h"

#include <algorithm>
#include <cmath>

#include "ui/present/axis_ticks.h"

namespace plab {

namespace {

bool holds(const AxisSpan& shown, const AxisSpan& fit, const SteadyRule& rule) {
    const bool lo_ok = rule.lo_free ? shown.lo <= fit.lo : shown.lo == fit.lo;
    const bool hi_ok = rule.hi_free ? shown.hi >= fit.hi : shown.hi == fit.hi;
    return lo_ok && hi_ok && fit.hi - fit.lo >= rule.min_fill * (shown.hi - shown.lo);
}

}  // namespace

AxisSpan steady_span(const AxisSpan& fit, const std::optional<AxisSpan>& shown, const SteadyRule& rule) {
    const double span = fit.hi - fit.lo;
    if (!(span > 0) || !(rule.headroom > 0)) return fit;
    if (shown && holds(*shown, fit, rule)) return *shown;
    const double room = rule.headroom * span;
    const double grain = rung_at_or_below(room).value();
    // A bound that is a multiple of the grain but for rounding (0.055 / 0.005 = 11.000000000000002) stays one.
    constexpr double kSlack = 1e-9;
    AxisSpan out = fit;
    if (rule.lo_free) out.lo = std::floor((fit.lo - room) / grain + kSlack) * grain;
    if (rule.hi_free) out.hi = std::ceil((fit.hi + room) / grain - kSlack) * grain;
    return out;
}

AxisSpan SteadyAxis::next(const AxisSpan& fit) {
    recent_.push_back(fit);
    while (recent_.size() > static_cast<std::size_t>(std::max(0, rule_.patience)) + 1) recent_.pop_front();
    AxisSpan envelope = fit;
    for (const AxisSpan& r : recent_) {
        if (rule_.lo_free) envelope.lo = std::min(envelope.lo, r.lo);
        if (rule_.hi_free) envelope.hi = std::max(envelope.hi, r.hi);
    }
    shown_ = steady_span(envelope, shown_, rule_);
    return *shown_;
}

void SteadyAxis::reset() {
    shown_.reset();
    recent_.clear();
}

AxisSpan SteadyAxis::follow(const AxisSpan& fit, bool moving) {
    if (moving) return next(fit);
    reset();
    return fit;
}

}  // namespace plab
