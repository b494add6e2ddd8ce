#include "engine/sweep/run_measures.h"

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
    for (const LayerRecord& layer : r.layers) {
        grad_zeros_ += static_cast<double>(layer.grad.zeros);
        grad_values_ += static_cast<double>(layer.grad.count);
    }
    m_.final_loss = r.loss;
    if (r.acc) m_.acc = r.acc;
    if (r.acc_ref) m_.acc_ref = r.acc_ref;
    if (r.test_loss) m_.test_loss = r.test_loss;
    if (r.test_loss_ref) m_.test_loss_ref = r.test_loss_ref;
    if (r.growth && !m_.first_growth_step) m_.first_growth_step = r.step;
}

RunMeasures RunMeter::result() const {
    RunMeasures m = m_;
    m.grad_zero_share = grad_values_ > 0 ? grad_zeros_ / grad_values_ : 0.0;
    return m;
}

}  // namespace plab
