#include "engine/optim/adamw_table.h"

#include <algorithm>
#include <limits>

#include "engine/optim/update_math.h"

namespace plab {

namespace {

constexpr int kFirstRows = 1024;

// The row of step t, as adamw_scalars computes it for an update the host launches.
void row_of(const AdamWStep& settings, int t, float* row) {
    AdamWStep s = settings;
    s.step = t;
    store_adamw_row(adamw_scalars(s), row);
}

}  // namespace

bool AdamWTable::same_settings(const AdamWStep& step) const {
    return !host_.empty() && step.lr == lr_ && step.beta1 == beta1_ && step.beta2 == beta2_;
}

// Rows up to `rows`, stopping early at the limit: the row of the largest t,
// where 1 - beta^t is as near 1 as it gets. The values move monotonically
// towards it (step_size down to lr, the correction up to 1), and FP32
// rounding keeps that order, so once a row equals the limit every later one
// does.
void AdamWTable::extend(const AdamWStep& step, int rows) {
    float limit[kAdamWTableWords];
    row_of(step, std::numeric_limits<int>::max(), limit);
    for (int t = this->rows() + 1; t <= rows && !complete_; ++t) {
        float row[kAdamWTableWords];
        row_of(step, t, row);
        host_.insert(host_.end(), row, row + kAdamWTableWords);
        complete_ = std::equal(row, row + kAdamWTableWords, limit);
    }
}

// The new settings' rows, as many as there were.
void AdamWTable::restart(const AdamWStep& step) {
    const int kept = rows();
    host_.clear();
    complete_ = false;
    uploaded_ = false;
    lr_ = step.lr;
    beta1_ = step.beta1;
    beta2_ = step.beta2;
    if (kept == 0) return;
    extend(step, kept);
    const std::vector<float> limit(host_.end() - kAdamWTableWords, host_.end());
    while (rows() < kept) host_.insert(host_.end(), limit.begin(), limit.end());
}

const Tensor& AdamWTable::cover(Backend& backend, const AdamWStep& step, int max_step) {
    if (!same_settings(step)) restart(step);
    if (!complete_ && rows() < std::max(max_step, 1)) {
        extend(step, std::max({max_step, 2 * rows(), kFirstRows}));
        uploaded_ = false;
    }
    if (!uploaded_) {
        if (device_.empty() || device_.rows() != rows())
            device_ = backend.allocate({rows(), kAdamWTableWords}, FormatId::fp32);
        backend.upload(host_.data(), device_);
        uploaded_ = true;
    }
    return device_;
}

}  // namespace plab
