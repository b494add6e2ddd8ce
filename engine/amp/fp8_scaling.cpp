#include "engine/amp/fp8_scaling.h"

#include <algorithm>
#include <cmath>

#include "engine/common/enum_names.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

namespace {

constexpr EnumNames<Fp8ScalingKind, 2> kScalingNames({{{Fp8ScalingKind::none, "none"},
                                                       {Fp8ScalingKind::delayed, "delayed"}}});

constexpr std::size_t kTensorsPerLayer = std::size(kAllFp8Tensors);

double max_finite(FormatId format) {
    const FormatParams p = format_params(format);
    return decode(p, p.max_code());
}

}  // namespace

std::string_view fp8_scaling_name(Fp8ScalingKind k) { return kScalingNames.name(k); }
std::optional<Fp8ScalingKind> parse_fp8_scaling(std::string_view name) { return kScalingNames.parse(name); }
std::string fp8_scaling_choices() { return kScalingNames.choices(); }

void validate(const Fp8Config& c) {
    if (fp8_scaling_name(c.scaling) == "?")
        reject_field("precision.fp8_scaling", std::to_string(static_cast<int>(c.scaling)), fp8_scaling_choices());
    check_int_field("precision.fp8_history_len", c.history_len, kFp8HistoryMin, kFp8HistoryMax);
    check_int_field("precision.fp8_margin", c.margin, kFp8MarginMin, kFp8MarginMax);
}

int fp8_scale_exponent(FormatId format, float amax, int margin) {
    if (!(amax > 0.0f) || !std::isfinite(amax))
        throw Error("fp8_scale_exponent: amax " + shortest_number(amax) + " is not a positive finite number");
    // floor(log2(max / amax)) without rounding a quotient or a logarithm: an
    // estimate from the binades, then exact power-of-two steps (ldexp on a
    // double holding an FP32 value is exact here).
    const double max = max_finite(format);
    const double a = amax;
    int e = std::ilogb(max) - std::ilogb(a);
    while (std::ldexp(a, e) > max) --e;
    while (std::ldexp(a, e + 1) <= max) ++e;
    return std::clamp(e - margin, -kFp8ScaleExponentLimit, kFp8ScaleExponentLimit);
}

float fp8_scale(FormatId format, float amax, int margin) {
    return std::ldexp(1.0f, fp8_scale_exponent(format, amax, margin));
}

void AmaxHistory::push(float amax) {
    values_.push_back(amax);
    while (values_.size() > static_cast<std::size_t>(length_)) values_.pop_front();
}

float AmaxHistory::max() const { return values_.empty() ? 0.0f : *std::max_element(values_.begin(), values_.end()); }

void AmaxHistory::resize(int length) {
    length_ = length;
    while (values_.size() > static_cast<std::size_t>(length_)) values_.pop_front();
}

Fp8Scaling::Fp8Scaling(const Fp8Config& config, int layers)
    : config_(config),
      tensors_(static_cast<std::size_t>(layers) * kTensorsPerLayer, TensorState{AmaxHistory(config.history_len), 0}),
      scales_(static_cast<std::size_t>(layers)) {
    validate(config);
}

std::size_t Fp8Scaling::index(int layer, Fp8Tensor tensor) {
    return static_cast<std::size_t>(layer) * kTensorsPerLayer + static_cast<std::size_t>(tensor);
}

const AmaxHistory& Fp8Scaling::history(int layer, Fp8Tensor tensor) const {
    return tensors_.at(index(layer, tensor)).history;
}

void Fp8Scaling::reconfigure(const Fp8Config& config) {
    validate(config);
    config_ = config;
    for (TensorState& t : tensors_) t.history.resize(config.history_len);
    update_scales();
}

void Fp8Scaling::observe(int layer, Fp8Tensor tensor, float amax) {
    float& step_amax = tensors_.at(index(layer, tensor)).step_amax;
    step_amax = std::max(step_amax, amax);
}

void Fp8Scaling::end_step() {
    for (TensorState& t : tensors_) {
        t.history.push(t.step_amax);
        t.step_amax = 0;
    }
    update_scales();
}

// A tensor whose history holds no non-zero amax keeps its scale (1 at the
// start), as Transformer Engine does: there is nothing to scale for.
void Fp8Scaling::update_scales() {
    for (std::size_t layer = 0; layer < scales_.size(); ++layer) {
        for (Fp8Tensor t : kAllFp8Tensors) {
            float& scale = scales_[layer].of(t);
            const float amax = history(static_cast<int>(layer), t).max();
            if (config_.scaling == Fp8ScalingKind::none)
                scale = 1.0f;
            else if (amax > 0.0f)
                scale = fp8_scale(fp8_format(t), amax, config_.margin);
        }
    }
}

}  // namespace plab
