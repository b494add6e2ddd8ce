#include "engine/amp/scaler_replay.h"

namespace plab {

const char* overflow_kind_name(OverflowKind kind) {
    switch (kind) {
        case OverflowKind::none: return "none";
        case OverflowKind::scale: return "scale";
        case OverflowKind::unscaled: return "unscaled";
    }
    return "none";
}

namespace {

OverflowKind predicted_overflow(const RecordedScaleStep& r, float scale, double overflow_at, bool inclusive) {
    if (r.unexplained) return OverflowKind::unscaled;
    if (r.found_inf && r.scale <= scale) return OverflowKind::scale;
    // Exact in FP64: two 24-bit significands.
    const double scaled = static_cast<double>(r.grad_amax) * static_cast<double>(scale);
    if (inclusive ? scaled >= overflow_at : scaled > overflow_at) return OverflowKind::scale;
    return OverflowKind::none;
}

}  // namespace

std::vector<ReplayedStep> replay_scaler(const std::vector<RecordedScaleStep>& steps, const ScalerConfig& candidate,
                                        double overflow_at, bool inclusive) {
    LossScaler scaler(candidate);
    std::vector<ReplayedStep> out;
    out.reserve(steps.size());
    for (const RecordedScaleStep& r : steps) {
        ReplayedStep s;
        s.step = r.step;
        s.overflow = predicted_overflow(r, scaler.scale(), overflow_at, inclusive);
        s.event = scaler.update(s.overflow != OverflowKind::none);
        out.push_back(s);
    }
    return out;
}

}  // namespace plab
