#pragma once
// Layer normalisation over each row with a learned gain and shift. On
// autocast's FP32 list the backend computes it in FP32 whatever its inputs;
// off it, in the compute format the policy gives (its statistics too), and
// the policy decides the format its output is stored in.
#include <functional>
#include <string>

#include "engine/backend/backend.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/parameter.h"

namespace plab {

class LayerNorm {
public:
    static constexpr float kEps = 1e-5f;  // PyTorch's default

    LayerNorm(Backend& backend, std::string name, int features, FormatId weight_format, bool master_weights);

    const std::string& name() const { return name_; }
    // y = normalised x computed in `compute`, rounded to y's dtype; keeps the
    // row statistics for backward.
    void forward(Backend& backend, const Tensor& x, FormatId compute, Tensor& y);
    // In `compute`; dx rounded to its dtype; gamma.grad and beta.grad in `grad_format`.
    void backward(Backend& backend, const Tensor& x, const Tensor& dy, FormatId compute, Tensor& dx,
                  FormatId grad_format);

    Parameter gamma;  // 1 x features, initialised to 1
    Parameter beta;   // 1 x features, initialised to 0

    // Of the last forward: each row's 1 / sqrt(var + eps) (rows x 1, FP32
    // tensor); null before the first. 0 marks a row whose variance was Inf.
    const Tensor* last_rstd() const {
        const RowStats* s = stats_.current();
        return s ? &s->rstd : nullptr;
    }

    // f(tensor) for the row statistics kept for each batch size.
    void for_each_row_stat(const std::function<void(const Tensor&)>& f) const {
        stats_.for_each([&](int, const RowStats& s) {
            f(s.mean);
            f(s.rstd);
        });
    }

private:
    struct RowStats {
        Tensor mean, rstd;  // rows x 1, FP32 tensors
    };
    std::string name_;
    BufferSets<int, RowStats> stats_;  // per batch rows; the current one is the last forward's
};

}  // namespace plab
