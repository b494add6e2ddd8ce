#include "engine/train/step_settings.h"

namespace plab {

void StepSettings::allocate(Backend& backend) {
    block_ = backend.allocate({1, kWords}, FormatId::fp32);
    scaler_rule_ = block_.view(0, {1, kScalerRuleWords});
    for (std::size_t side = 0; side < optimizer_.size(); ++side) {
        const std::size_t first = kScalerRuleWords + side * kOptimizerSettingsWords;
        optimizer_[side] = {words_.data() + first, block_.view(first, {1, kOptimizerSettingsWords})};
    }
}

}  // namespace plab
