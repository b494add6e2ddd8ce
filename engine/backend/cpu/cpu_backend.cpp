#include "engine/backend/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <type_traits>

#include "engine/backend/activation_math.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"
#include "engine/backend/op_checks.h"
#include "engine/backend/cpu/fixed_order_gemm.h"
#include "engine/backend/cpu/parallel_slices.h"
#include "engine/backend/loss_math.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/numeric/cast_array.h"
#include "engine/numeric/portable_exp_array.h"
#include "engine/numeric/portable_math.h"

namespace plab {

using cpu::require;
using cpu::require_same_shape;
using cpu::round_to_dtype;

namespace {

// Zero-filled host memory; OutOfMemory (not std::bad_alloc, which nothing
// reports) when the machine cannot give it.
std::vector<float> zeros_or_throw(std::size_t n) {
    try {
        return std::vector<float>(n, 0.0f);
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("cannot allocate " + mib_text(n * sizeof(float)) + " MiB of host memory");
    }
}

class HostBuffer final : public Buffer {
public:
    explicit HostBuffer(std::size_t n) : values_(zeros_or_throw(n)) {}
    Device device() const override { return Device::cpu; }
    void* data() override { return values_.data(); }

private:
    std::vector<float> values_;
};

void add_row_bias(Tensor& x, const Tensor& bias) {
    require(bias.rows() == 1 && bias.cols() == x.cols(), [&] { return "gemm: bias " + shape_text(bias.shape()) + " does not fit the output " + shape_text(x.shape()); });
    float* v = x.host();
    const float* b = bias.host();
    for (int i = 0; i < x.rows(); ++i)
        for (int j = 0; j < x.cols(); ++j) v[static_cast<std::size_t>(i) * x.cols() + j] += b[j];
}

// Calls body(std::integral_constant<Activation, a>): the switch runs once per
// tensor, and each loop is compiled for one activation (ReLU vectorises).
template <typename Body>
void with_activation(Activation a, Body&& body) {
    switch (a) {
        case Activation::identity: return body(std::integral_constant<Activation, Activation::identity>{});
        case Activation::relu: return body(std::integral_constant<Activation, Activation::relu>{});
        case Activation::tanh: return body(std::integral_constant<Activation, Activation::tanh>{});
        case Activation::gelu: return body(std::integral_constant<Activation, Activation::gelu>{});
    }
}

// The values of t rounded to `compute`, without copying when nothing changes.
const float* gemm_operand(const Tensor& t, FormatId compute, std::vector<float>& scratch) {
    if (compute == FormatId::fp32 || t.dtype() == compute) return t.host();
    scratch.resize(t.size());
    round_array(compute, t.host(), scratch.data(), t.size());
    return scratch.data();
}

// The values of t times the input's scale, rounded to its format: what an FP8
// GEMM reads. Overflow saturates to the format's largest finite value (the
// training choice; E4M3 has no infinity).
const float* scaled_gemm_operand(const Tensor& t, const GemmSpec::ScaledInput& input, std::vector<float>& scratch) {
    scratch.resize(t.size());
    const float* v = t.host();
    for (std::size_t i = 0; i < t.size(); ++i) scratch[i] = v[i] * input.scale;
    round_array(input.format, scratch.data(), scratch.data(), t.size(), Overflow::saturate);
    return scratch.data();
}

const float* gemm_input(const Tensor& t, const std::optional<GemmSpec::ScaledInput>& scaled, FormatId compute,
                        std::vector<float>& scratch) {
    return scaled ? scaled_gemm_operand(t, *scaled, scratch) : gemm_operand(t, compute, scratch);
}

float input_scale(const std::optional<GemmSpec::ScaledInput>& scaled) { return scaled ? scaled->scale : 1.0f; }

}  // namespace

CpuBackend::CpuBackend() : Backend(Device::cpu, "CPU (exact emulation)") {}
CpuBackend::~CpuBackend() = default;

Tensor CpuBackend::allocate(Shape shape, FormatId dtype) {
    require(shape.rows >= 0 && shape.cols >= 0, [&] { return "allocate: negative shape " + shape_text(shape); });
    ++allocations_;
    return Tensor(shape, dtype, std::make_shared<HostBuffer>(shape.size()));
}

void CpuBackend::upload(const float* host, Tensor& t) {
    std::memcpy(t.host(), host, t.size() * sizeof(float));
    round_to_dtype(t);
}

void CpuBackend::download(const Tensor& t, float* host) { std::memcpy(host, t.host(), t.size() * sizeof(float)); }

void CpuBackend::convert(const Tensor& src, Tensor& dst) {
    require_same_shape(src, dst, "convert");
    if (src.raw() != dst.raw()) std::memcpy(dst.host(), src.host(), src.size() * sizeof(float));
    round_to_dtype(dst);
}

void CpuBackend::gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) {
    const int m = spec.trans_a ? a.cols() : a.rows();
    const int k = spec.trans_a ? a.rows() : a.cols();
    const int kb = spec.trans_b ? b.cols() : b.rows();
    const int n = spec.trans_b ? b.rows() : b.cols();
    require(k == kb && c.rows() == m && c.cols() == n, [&] { return "gemm: shapes do not chain: " + shape_text(a.shape()) + (spec.trans_a ? "^T" : "") + " x " +
                shape_text(b.shape()) + (spec.trans_b ? "^T" : "") + " -> " + shape_text(c.shape()); });
    checks::require_gemm_accumulation(spec);
    if (c.size() == 0) return;
    const float* pa = gemm_input(a, spec.a_input, spec.compute, scratch_a_);
    const float* pb = gemm_input(b, spec.b_input, spec.compute, scratch_b_);
    // Unscaling folds into alpha: a power of two times the FP32 sum is exact.
    const float alpha = spec.alpha / (input_scale(spec.a_input) * input_scale(spec.b_input));
    const bool fp16_sums = spec.accumulate == FormatId::fp16;
    cpu::fixed_order_gemm({m, n, k, spec.trans_a, spec.trans_b, fp16_sums}, alpha, pa, pb, spec.beta, c.host(),
                          scratch_pack_);
    if (spec.row_bias) add_row_bias(c, *spec.row_bias);
    round_to_dtype(c);
}

void CpuBackend::column_sums(const Tensor& x, Tensor& sums) {
    require(sums.rows() == 1 && sums.cols() == x.cols(), [&] { return "column_sums: output " + shape_text(sums.shape()) + " does not fit " + shape_text(x.shape()); });
    float* s = sums.host();
    std::fill(s, s + sums.cols(), 0.0f);
    const float* v = x.host();
    for (int i = 0; i < x.rows(); ++i)
        for (int j = 0; j < x.cols(); ++j) s[j] += v[static_cast<std::size_t>(i) * x.cols() + j];
    round_to_dtype(sums);
}

namespace {
// Elements an activation slice must hold before the op is split over cores.
constexpr std::size_t kElementSlice = 16384;

// activation_grad(gelu, ...) with the exps taken a block at a time by the
// array path: the same bits, several times faster than one exp per call.
void gelu_backward(const float* x, const float* dy, float* dx, std::size_t n) {
    constexpr std::size_t kBlock = 256;
    float e[kBlock];
    for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t m = std::min(kBlock, n - first);
        for (std::size_t i = 0; i < m; ++i) e[i] = gelu_exp_argument(x[first + i]);
        portable_exp_array(e, e, m);
        for (std::size_t i = 0; i < m; ++i) dx[first + i] = dy[first + i] * gelu_slope(x[first + i], e[i]);
    }
}
}  // namespace

void CpuBackend::activation_forward(Activation a, const Tensor& x, Tensor& y) {
    require_same_shape(x, y, "activation_forward");
    const float* in = x.host();
    float* out = y.host();
    with_activation(a, [&](auto kind) {
        cpu::parallel_slices(x.size(), kElementSlice, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) out[i] = activate(kind, in[i]);
        });
    });
    round_to_dtype(y);
}

void CpuBackend::activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) {
    require_same_shape(x, dy, "activation_backward");
    require_same_shape(x, dx, "activation_backward");
    const float* in = x.host();
    const float* g = dy.host();
    float* out = dx.host();
    cpu::parallel_slices(x.size(), kElementSlice, [&](std::size_t begin, std::size_t end) {
        if (a == Activation::gelu) {
            gelu_backward(in + begin, g + begin, out + begin, end - begin);
            return;
        }
        with_activation(a, [&](auto kind) {
            for (std::size_t i = begin; i < end; ++i) out[i] = activation_grad(kind, in[i], g[i]);
        });
    });
    round_to_dtype(dx);
}

namespace {
int label_at(const Tensor& labels, int row, int classes) {
    const float v = labels.host()[row];
    const int label = static_cast<int>(v);
    require(static_cast<float>(label) == v && label >= 0 && label < classes, [&] { return "softmax_cross_entropy: label " + std::to_string(v) + " in row " + std::to_string(row) +
                " is not a class index 0.." + std::to_string(classes - 1); });
    return label;
}
}  // namespace

namespace {

// One row's softmax into p and its loss, every step rounded to the compute
// format (loss_math.h); p holds the shifted logits until the last loop.
float cross_entropy_row(ComputeArithmetic r, const float* z, float* p, int classes, int label) {
    float top = z[0];
    for (int j = 1; j < classes; ++j) top = std::max(top, z[j]);
    float sum = 0.0f;
    for (int j = 0; j < classes; ++j) {
        p[j] = softmax_shifted(r, z[j], top);
        sum = loss_add(r, sum, softmax_exp(r, p[j]));
    }
    const float log_sum = softmax_log_sum(r, sum);
    const float term = cross_entropy_term(r, log_sum, p[label]);
    for (int j = 0; j < classes; ++j) p[j] = softmax_prob(r, p[j], log_sum);
    return term;
}

}  // namespace

float CpuBackend::softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                        FormatId compute) {
    require_same_shape(logits, probs, "softmax_cross_entropy");
    require(labels.rows() == logits.rows() && labels.cols() == 1, [&] { return "softmax_cross_entropy: labels " + shape_text(labels.shape()) + " for logits " +
                shape_text(logits.shape()); });
    const int classes = logits.cols();
    if (compute != FormatId::fp32) {
        const ComputeArithmetic r{compute};
        float total = 0.0f;
        for (int i = 0; i < logits.rows(); ++i) {
            const auto at = static_cast<std::size_t>(i) * classes;
            const int label = label_at(labels, i, classes);
            total = loss_add(r, total, cross_entropy_row(r, logits.host() + at, probs.host() + at, classes, label));
        }
        round_to_dtype(probs);
        return loss_mean(r, total, static_cast<float>(logits.rows()));
    }
    float total = 0.0f;
    for (int i = 0; i < logits.rows(); ++i) {
        const float* z = logits.host() + static_cast<std::size_t>(i) * classes;
        float* p = probs.host() + static_cast<std::size_t>(i) * classes;
        // Subtract the row max so exp cannot overflow (FP32 throughout).
        float top = z[0];
        for (int j = 1; j < classes; ++j) top = std::max(top, z[j]);
        // p holds the exps' arguments, then the exps (the array path: one call a row).
        const auto n = static_cast<std::size_t>(classes);
        for (std::size_t j = 0; j < n; ++j) p[j] = z[j] - top;
        portable_exp_array(p, p, n);
        float sum = 0.0f;
        for (std::size_t j = 0; j < n; ++j) sum += p[j];
        const float log_sum = portable_log(sum);
        for (std::size_t j = 0; j < n; ++j) p[j] = z[j] - top - log_sum;
        portable_exp_array(p, p, n);
        total += log_sum - (z[label_at(labels, i, classes)] - top);
    }
    round_to_dtype(probs);
    return logits.rows() ? total / static_cast<float>(logits.rows()) : 0.0f;
}

void CpuBackend::softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute,
                                            Tensor& probs, Tensor& loss) {
    checks::require_scalar(loss, "softmax_cross_entropy_into", "the loss");
    const float value = softmax_cross_entropy(logits, labels, probs, compute);
    upload(&value, loss);
}

void CpuBackend::softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                Tensor& dlogits) {
    require_same_shape(probs, dlogits, "softmax_cross_entropy_backward");
    const int classes = probs.cols();
    const float factor = scale / static_cast<float>(probs.rows());
    for (int i = 0; i < probs.rows(); ++i) {
        const float* p = probs.host() + static_cast<std::size_t>(i) * classes;
        float* d = dlogits.host() + static_cast<std::size_t>(i) * classes;
        const int label = label_at(labels, i, classes);
        for (int j = 0; j < classes; ++j) d[j] = (p[j] - (j == label ? 1.0f : 0.0f)) * factor;
    }
    round_to_dtype(dlogits);
}

}  // namespace plab
