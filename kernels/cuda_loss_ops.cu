// Losses on the CUDA backend: softmax cross-entropy and MSE, FP32 throughout
// (autocast's FP32 list), with the CPU's formulas (cpu_backend.cpp,
// cpu_loss_ops.cpp). One thread per row for the softmax, so each row's sums
// run in index order as on the CPU; exp and log come from CUDA's math library
// (within 2 ULPs of glibc's). The per-row losses and the MSE sum go through
// the deterministic reduction (not the CPU's order); the gradients are
// elementwise and match the CPU's bit for bit given the same probabilities.
#include <climits>
#include <string>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;

namespace {

// The class index a label holds, or -1 when it is not an integer in 0..classes-1.
__device__ __forceinline__ int label_index(float v, int classes) {
    return v >= 0.0f && v < static_cast<float>(classes) && truncf(v) == v ? static_cast<int>(v) : -1;
}

// The softmax rows' losses, summed, and the first row whose label is bad.
struct RowLosses {
    float total;
    int bad_row;  // INT_MAX: none
};

}  // namespace

float CudaBackend::softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs) {
    constexpr const char* op = "softmax_cross_entropy";
    gpu::require_same_shape(logits, probs, op);
    gpu::require(labels.rows() == logits.rows() && labels.cols() == 1, [&] {
        return "softmax_cross_entropy: labels " + shape_text(labels.shape()) + " for logits " +
               shape_text(logits.shape());
    });
    const float* z_all = device_floats(logits, op);
    const float* label_values = device_floats(labels, op);
    float* p_all = device_floats(probs, op);
    const int classes = logits.cols();
    const FormatParams p = format_params(probs.dtype());
    const RowLosses sum = gpu::reduce<RowLosses>(
        static_cast<std::size_t>(logits.rows()), RowLosses{0.0f, INT_MAX}, stream_,
        scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t row) {
            const float* z = z_all + row * classes;
            float* out = p_all + row * classes;
            // Subtract the row max so exp cannot overflow (FP32 throughout);
            // std::max's comparison, so that a NaN logit propagates as on the CPU.
            float top = z[0];
            for (int j = 1; j < classes; ++j) top = top < z[j] ? z[j] : top;
            float s = 0.0f;
            for (int j = 0; j < classes; ++j) s += expf(z[j] - top);
            const float log_sum = logf(s);
            for (int j = 0; j < classes; ++j) out[j] = gpu::round_value(p, expf(z[j] - top - log_sum));
            const int label = label_index(label_values[row], classes);
            if (label < 0) return RowLosses{0.0f, static_cast<int>(row)};
            return RowLosses{log_sum - (z[label] - top), INT_MAX};
        },
        [] __device__(const RowLosses& a, const RowLosses& b) {
            return RowLosses{a.total + b.total, a.bad_row < b.bad_row ? a.bad_row : b.bad_row};
        });
    if (sum.bad_row != INT_MAX) {
        float v = 0;
        gpu::check_cuda(cudaMemcpy(&v, label_values + sum.bad_row, sizeof v, cudaMemcpyDeviceToHost), op);
        throw Error("softmax_cross_entropy: label " + std::to_string(v) + " in row " + std::to_string(sum.bad_row) +
                    " is not a class index 0.." + std::to_string(classes - 1));
    }
    return logits.rows() ? sum.total / static_cast<float>(logits.rows()) : 0.0f;
}

void CudaBackend::softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                 Tensor& dlogits) {
    constexpr const char* op = "softmax_cross_entropy_backward";
    gpu::require_same_shape(probs, dlogits, op);
    gpu::require(labels.rows() == probs.rows() && labels.cols() == 1, [&] {
        return std::string(op) + ": labels " + shape_text(labels.shape()) + " for probs " + shape_text(probs.shape());
    });
    const float* pr = device_floats(probs, op);
    const float* label_values = device_floats(labels, op);
    float* d = device_floats(dlogits, op);
    const int classes = probs.cols();
    const float factor = scale / static_cast<float>(probs.rows());
    const FormatParams p = format_params(dlogits.dtype());
    // The forward checked the labels; a bad one here only means no 1 is subtracted.
    gpu::for_each(probs.size(), stream_, op, [=] __device__(std::size_t i) {
        const int j = static_cast<int>(i % classes);
        const int label = label_index(label_values[i / classes], classes);
        d[i] = gpu::round_value(p, (pr[i] - (j == label ? 1.0f : 0.0f)) * factor);
    });
}

float CudaBackend::mse_loss(const Tensor& pred, const Tensor& target) {
    constexpr const char* op = "mse_loss";
    gpu::require_same_shape(pred, target, op);
    const float* pp = device_floats(pred, op);
    const float* pt = device_floats(target, op);
    const float sum = gpu::reduce<float>(
        pred.size(), 0.0f, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            const float d = pp[i] - pt[i];
            return d * d;
        },
        gpu::Add{});
    return pred.size() ? sum / static_cast<float>(pred.size()) : 0.0f;
}

void CudaBackend::mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) {
    constexpr const char* op = "mse_loss_backward";
    gpu::require_same_shape(pred, target, op);
    gpu::require_same_shape(pred, dpred, op);
    if (pred.size() == 0) return;
    // The CPU's factor, formed the same way (2 / size rounded once, then times the scale).
    const float factor = static_cast<float>(2.0 / static_cast<double>(pred.size())) * scale;
    const float* pp = device_floats(pred, op);
    const float* pt = device_floats(target, op);
    float* d = device_floats(dpred, op);
    const FormatParams p = format_params(dpred.dtype());
    gpu::for_each(pred.size(), stream_, op,
                  [=] __device__(std::size_t i) { d[i] = gpu::round_value(p, (pp[i] - pt[i]) * factor); });
}

}  // namespace plab
