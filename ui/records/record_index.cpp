#include "ui/records/record_index.h"

#include <cmath>
#include <limits>

namespace plab {

std::string record_index_path(const std::string& record) { return record + ".index"; }

float unscaled_gradient_amax(const StepRecord& r) {
    if (r.layers.empty()) return std::numeric_limits<float>::quiet_NaN();
    float amax = 0;
    for (const LayerRecord& l : r.layers)
        for (const float v : {l.grad_unscaled.amax, l.act_grad_unscaled.amax})
            if (std::isfinite(v) && v > amax) amax = v;
    return amax;
}

}  // namespace plab
