#include "engine/sweep/run_measures.h"

#include <algorithm>

#include "engine/amp/scaler_bounds.h"

namespace plab {

std::optional<float> RunMeasures::acc_gap() const {
    if (!acc || !acc_ref) return std::nullopt;
    return *acc_ref - *acc;
}

void RunMeter::add(const StepRecord& r) {
    ++m_.steps;
    m_.skipped += r.skipped;
    m_.floor_steps += scale_at_floor(scaler_, r.scale);
    m_.ceiling_steps += scale_at_ceiling(scaler_, r.scale);
    for (std::size_t i = 0; i < matmul_count(r.layers.size()); ++i) {
        grad_zeros_ += static_cast<double>(r.layers[i].grad.zeros);
        grad_values_ += static_cast<double>(r.layers[i].grad.count);
    }
    if (r.twin_view) add_twin_flushes(*r.twin_view);
    m_.final_loss = r.loss;
    if (r.acc) m_.acc = r.acc;
    if (r.acc_ref) m_.acc_ref = r.acc_ref;
    if (r.test_loss) m_.test_loss = r.test_loss;
    if (r.test_loss_ref) m_.test_loss_ref = r.test_loss_ref;
    if (r.growth && !m_.first_growth_step) m_.first_growth_step = r.step;
}

// A flushed share is a fraction of the layer's count (TensorStats): times
// the count, the values it stands for.
void RunMeter::add_twin_flushes(const TwinView& twin) {
    for (std::size_t i = 0; i < matmul_count(twin.layers.size()); ++i) {
        const TensorStats& g = twin.layers[i].grad;  // times the scale: what the run would hold, exactly
        const FormatId f = gradient_formats_[i];
        const auto* slot = std::find(kRangeFormats.begin(), kRangeFormats.end(), f);
        if (slot != kRangeFormats.end())
            twin_flushed_ += static_cast<double>(g.ranges[static_cast<std::size_t>(slot - kRangeFormats.begin())].underflow) *
                             static_cast<double>(g.count);
        twin_values_ += static_cast<double>(g.count);
    }
}

RunMeasures RunMeter::result() const {
    RunMeasures m = m_;
    m.grad_zero_share = grad_values_ > 0 ? grad_zeros_ / grad_values_ : 0.0;
    if (twin_values_ > 0) m.twin_flush_share = twin_flushed_ / twin_values_;
    return m;
}

}  // namespace plab
