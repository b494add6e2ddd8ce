#include "engine/amp/scaler_replay.h"

#include <cmath>

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

FlushShares scaled_flush_shares(const Log2Histogram& h, double scale, double nonzero_at, double normal_at) {
    FlushShares out;
    std::int64_t flush = 0, subnormal = 0;
    for (int i = 0; i < Log2Histogram::kBins; ++i) {
        const std::uint32_t n = h.bins[static_cast<std::size_t>(i)];
        if (n == 0) continue;
        out.values += n;
        const double middle = scale * std::exp2(Log2Histogram::bin_low_log2(i) + 0.5 / Log2Histogram::kBinsPerBinade);
        if (middle < nonzero_at)
            flush += n;
        else if (middle < normal_at)
            subnormal += n;
    }
    if (out.values > 0) {
        out.flush = static_cast<double>(flush) / static_cast<double>(out.values);
        out.subnormal = static_cast<double>(subnormal) / static_cast<double>(out.values);
    }
    return out;
}

}  // namespace plab
