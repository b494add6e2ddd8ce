#pragma once
// The Backend interface: every numerical operation of a training step, each
// one call over whole tensors (never per element), so that a GPU backend can
// run each as one kernel launch. The CPU backend (backend/cpu) is the exact
// emulation and the reference the GPU is tested against.
//
// Rounding contract (DESIGN.md, "Mixed precision semantics"): an op computes
// in FP32 from its inputs and rounds its output to the output tensor's dtype;
// a GEMM first rounds its inputs to the compute format, multiplies them
// exactly, accumulates in FP32, then rounds to the output dtype.
#include <string>

#include "engine/tensor/tensor.h"

namespace plab {

struct GemmSpec {
    FormatId compute = FormatId::fp32;  // inputs are rounded to this before the multiply
    bool trans_a = false;
    bool trans_b = false;
    float alpha = 1.0f;
    float beta = 0.0f;  // c = alpha * op(a) op(b) + beta * c (+ bias)
    // 1 x n, added to every row in FP32 before the single rounding of c
    // (as a cuBLASLt bias epilogue does).
    const Tensor* row_bias = nullptr;
};

enum class Activation : std::uint8_t { identity, relu, tanh, gelu };
std::string_view activation_name(Activation a);
std::optional<Activation> parse_activation(std::string_view name);
std::string activation_choices();  // "identity|relu|tanh|gelu"

class Backend {
public:
    virtual ~Backend() = default;
    virtual Device device() const = 0;
    virtual std::string name() const = 0;  // "CPU (exact emulation)", a GPU's name

    // A zero-filled tensor on this backend.
    virtual Tensor allocate(Shape shape, FormatId dtype) = 0;
    // Host FP32 values into t, rounded to t.dtype(); and back out (exact).
    virtual void upload(const float* host, Tensor& t) = 0;
    virtual void download(const Tensor& t, float* host) = 0;
    // dst = src rounded to dst.dtype() (shapes must match).
    virtual void convert(const Tensor& src, Tensor& dst) = 0;

    virtual void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) = 0;
    // sums[0, j] = sum over i of x[i, j], accumulated in FP32 in row order
    virtual void column_sums(const Tensor& x, Tensor& sums) = 0;
    virtual void activation_forward(Activation a, const Tensor& x, Tensor& y) = 0;
    // dx = dy * f'(x)
    virtual void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

    // Softmax cross-entropy in FP32 (it is on every autocast FP32 list):
    // probs = softmax(logits) row by row, and the mean over rows of
    // -log probs[i, label_i] is returned. `labels` is rows x 1 of class indices.
    virtual float softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs) = 0;
    // dlogits = (probs - onehot(labels)) * scale / rows: the loss gradient,
    // multiplied by the loss scale, rounded to dlogits' dtype.
    virtual void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                Tensor& dlogits) = 0;
};

}  // namespace plab
