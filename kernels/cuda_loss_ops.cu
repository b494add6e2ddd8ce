// Losses on the CUDA backend: softmax cross-entropy and MSE, FP32 throughout
// on autocast's FP32 list, with the CPU's formulas (cpu_backend.cpp,
// cpu_loss_ops.cpp). One warp per row for the softmax, each row's sums
// folded in index order as on the CPU, with the CPU's exp and log
// (numeric/portable_math.h): the probabilities, and so the gradients, are the
// CPU's bit for bit. The per-row losses and the MSE sum go through the
// deterministic reduction (not the CPU's order): the loss values are within
// their summation bound of the CPU's. Off the list every step is rounded to
// the compute format (loss_math.h) in the CPU's order, one thread per row and
// one for each total: slow, and the CPU's values bit for bit.
#include <climits>
#include <string>

#include "engine/backend/loss_math.h"
#include "engine/numeric/portable_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;

namespace {

// The class index a label holds, or -1 when it is not an integer in 0..classes-1.
__device__ __forceinline__ int label_index(float v, int classes) {
    return v >= 0.0f && v < static_cast<float>(classes) && truncf(v) == v ? static_cast<int>(v) : -1;
}

// The softmax rows' losses, summed, and the first row whose label is bad
// with that label (kept with the row: the labels may change before a check
// at the finish reads it).
struct RowLosses {
    float total;
    int bad_row;  // INT_MAX: none
    float bad_label;
};

// What both softmax launches read and write, after the same shape checks:
// probabilities shaped as the logits, one label per row.
struct SoftmaxOperands {
    gpu::Values z_all, p_all;
    const float* label_values;
    int classes;
    RowLosses* terms;
    std::size_t rows;
};

SoftmaxOperands softmax_operands(void* row_terms, const Tensor& logits, const Tensor& labels, Tensor& probs,
                                 const char* op) {
    gpu::require_same_shape(logits, probs, op);
    gpu::require(labels.rows() == logits.rows() && labels.cols() == 1, [&] {
        return std::string(op) + ": labels " + shape_text(labels.shape()) + " for logits " + shape_text(logits.shape());
    });
    return {device_values(logits, op), device_values(probs, op), device_floats(labels, op), logits.cols(),
            static_cast<RowLosses*>(row_terms), static_cast<std::size_t>(logits.rows())};
}

// The rows' softmax into probs and their losses, summed on the device (in
// the scratch `partials`, until the next reduction there). One warp per row
// (coalesced reads, every fold in the CPU's index order) writes the row's
// loss term to `row_terms` (a RowLosses per row); the deterministic
// reduction then sums the terms.
RowLosses* launch_softmax_rows(cudaStream_t stream, void* row_terms, void* partials, const Tensor& logits,
                               const Tensor& labels, Tensor& probs, const char* op) {
    const auto [z_all, p_all, label_values, classes, terms, rows] =
        softmax_operands(row_terms, logits, labels, probs, op);
    gpu::for_each_warp(rows, stream, op, [=] __device__(std::size_t row, int lane) {
        const std::size_t first = row * classes;
        const auto z = [=](int j) { return z_all[first + j]; };
        // Subtract the row max so exp cannot overflow (FP32 throughout);
        // std::max's comparison from z[0] on, so that a NaN logit propagates
        // (or not) as on the CPU.
        const float top = gpu::ordered_warp_fold(1, classes, z(0), z, [](float t, float x) { return t < x ? x : t; });
        const float s = gpu::ordered_warp_sum(classes, [=](int j) { return portable_exp(z(j) - top); });
        const float log_sum = portable_log(s);
        for (int j = lane; j < classes; j += gpu::kWarp) p_all.store(first + j, portable_exp(z(j) - top - log_sum));
        if (lane != 0) return;
        const int label = label_index(label_values[row], classes);
        terms[row] = label < 0 ? RowLosses{0.0f, static_cast<int>(row), label_values[row]}
                               : RowLosses{log_sum - (z(label) - top), INT_MAX, 0.0f};
    });
    return gpu::launch_reduce<RowLosses>(
        rows, RowLosses{0.0f, INT_MAX, 0.0f}, stream, partials, op,
        [=] __device__(std::size_t row) { return terms[row]; },
        [] __device__(const RowLosses& a, const RowLosses& b) {
            const RowLosses& first_bad = a.bad_row <= b.bad_row ? a : b;
            return RowLosses{a.total + b.total, first_bad.bad_row, first_bad.bad_label};
        });
}

// out = total / count in FP32 (0 for no elements): the mean the CPU returns.
__global__ void mean_kernel(const float* total, std::size_t count, float* out) {
    *out = count ? *total / static_cast<float>(count) : 0.0f;
}

// Off the FP32 list: one thread per row walks it in the CPU's order with
// every step rounded to `compute` (loss_math.h), writing the probabilities
// and the row's term; then one thread sums the terms in row order, each
// partial sum rounded, finds the first bad label, and writes the mean to
// `loss`. Returns the summed terms (in the scratch `partials`).
RowLosses* launch_softmax_rows_in(cudaStream_t stream, void* row_terms, void* partials, const Tensor& logits,
                                  const Tensor& labels, FormatId compute, Tensor& probs, float* loss, const char* op) {
    const auto [z_all, p_all, label_values, classes, terms, rows] =
        softmax_operands(row_terms, logits, labels, probs, op);
    gpu::for_each(rows, stream, op, [=] __device__(std::size_t row) {
        const ComputeArithmetic r{compute};
        const std::size_t first = row * classes;
        float top = z_all[first];
        for (int j = 1; j < classes; ++j) top = top < z_all[first + j] ? z_all[first + j] : top;  // std::max's order
        float sum = 0.0f;
        for (int j = 0; j < classes; ++j) sum = loss_add(r, sum, softmax_exp(r, softmax_shifted(r, z_all[first + j], top)));
        const float log_sum = softmax_log_sum(r, sum);
        for (int j = 0; j < classes; ++j)
            p_all.store(first + j, softmax_prob(r, softmax_shifted(r, z_all[first + j], top), log_sum));
        const int label = label_index(label_values[row], classes);
        terms[row] = label < 0 ? RowLosses{0.0f, static_cast<int>(row), label_values[row]}
                               : RowLosses{cross_entropy_term(r, log_sum, softmax_shifted(r, z_all[first + label], top)),
                                           INT_MAX, 0.0f};
    });
    auto* total = static_cast<RowLosses*>(partials);
    gpu::for_each(1, stream, op, [=] __device__(std::size_t) {
        const ComputeArithmetic r{compute};
        RowLosses t{0.0f, INT_MAX, 0.0f};
        for (std::size_t i = 0; i < rows; ++i) {
            t.total = loss_add(r, t.total, terms[i].total);
            if (terms[i].bad_row < t.bad_row) t = RowLosses{t.total, terms[i].bad_row, terms[i].bad_label};
        }
        *total = t;
        *loss = loss_mean(r, t.total, static_cast<float>(rows));
    });
    return total;
}

}  // namespace

std::string bad_label_message(float label, int row, int classes) {
    return "softmax_cross_entropy: label " + std::to_string(label) + " in row " + std::to_string(row) +
           " is not a class index 0.." + std::to_string(classes - 1);
}

float CudaBackend::softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs) {
    constexpr const char* op = "softmax_cross_entropy";
    void* terms = scratch(gpu::kRowTerms, logits.rows() * sizeof(RowLosses));
    const RowLosses* on_device = launch_softmax_rows(
        stream_, terms, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), logits, labels, probs, op);
    RowLosses sum;
    gpu::check_cuda(cudaMemcpyAsync(&sum, on_device, sizeof sum, cudaMemcpyDeviceToHost, stream_), op);
    gpu::wait_for_stream(stream_, op);
    if (sum.bad_row != INT_MAX) throw Error(bad_label_message(sum.bad_label, sum.bad_row, logits.cols()));
    return logits.rows() ? sum.total / static_cast<float>(logits.rows()) : 0.0f;
}

// The loss stays on the device; the label check waits for the finish.
void CudaBackend::softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute,
                                             Tensor& probs, Tensor& loss) {
    constexpr const char* op = "softmax_cross_entropy_into";
    checks::require_scalar(loss, op, "the loss");
    void* terms = scratch(gpu::kRowTerms, logits.rows() * sizeof(RowLosses));
    void* partials = scratch(gpu::kReducePartials, gpu::kReduceScratchBytes);
    RowLosses* sum = nullptr;
    if (compute != FormatId::fp32) {
        sum = launch_softmax_rows_in(stream_, terms, partials, logits, labels, compute, probs, device_floats(loss, op), op);
    } else {
        sum = launch_softmax_rows(stream_, terms, partials, logits, labels, probs, op);
        mean_kernel<<<1, 1, 0, stream_>>>(&sum->total, static_cast<std::size_t>(logits.rows()), device_floats(loss, op));
        gpu::check_cuda(cudaGetLastError(), op);
    }
    PendingLabelCheck& check = telemetry_.label_checks.emplace_back();
    check.classes = logits.cols();
    static_assert(sizeof(RowLosses) == sizeof(PendingLabelCheck::Landed));
    stage_readback(sum, sizeof(RowLosses), &check.landed, op);
}

void CudaBackend::softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                 Tensor& dlogits) {
    constexpr const char* op = "softmax_cross_entropy_backward";
    gpu::require_same_shape(probs, dlogits, op);
    gpu::require(labels.rows() == probs.rows() && labels.cols() == 1, [&] {
        return std::string(op) + ": labels " + shape_text(labels.shape()) + " for probs " + shape_text(probs.shape());
    });
    const gpu::Values pr = device_values(probs, op);
    const float* label_values = device_floats(labels, op);
    const gpu::Values d = device_values(dlogits, op);
    const int classes = probs.cols();
    const float factor = scale / static_cast<float>(probs.rows());
    // The forward checked the labels; a bad one here only means no 1 is subtracted.
    gpu::for_each(probs.size(), stream_, op, [=] __device__(std::size_t i) {
        const int j = static_cast<int>(i % classes);
        const int label = label_index(label_values[i / classes], classes);
        d.store(i, (pr[i] - (j == label ? 1.0f : 0.0f)) * factor);
    });
}

namespace {

// The squared errors, summed on the device (in the scratch `partials`).
float* launch_squared_errors(cudaStream_t stream, void* partials, const Tensor& pred, const Tensor& target,
                             const char* op) {
    gpu::require_same_shape(pred, target, op);
    const gpu::Values pp = device_values(pred, op);
    const gpu::Values pt = device_values(target, op);
    return gpu::launch_reduce<float>(
        pred.size(), 0.0f, stream, partials, op,
        [=] __device__(std::size_t i) {
            const float d = pp[i] - pt[i];
            return d * d;
        },
        gpu::Add{});
}

}  // namespace

float CudaBackend::mse_loss(const Tensor& pred, const Tensor& target) {
    constexpr const char* op = "mse_loss";
    const float* on_device =
        launch_squared_errors(stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), pred, target, op);
    float sum = 0;
    gpu::check_cuda(cudaMemcpyAsync(&sum, on_device, sizeof sum, cudaMemcpyDeviceToHost, stream_), op);
    gpu::wait_for_stream(stream_, op);
    return pred.size() ? sum / static_cast<float>(pred.size()) : 0.0f;
}

void CudaBackend::mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) {
    constexpr const char* op = "mse_loss_into";
    checks::require_scalar(loss, op, "the loss");
    if (compute != FormatId::fp32) {  // one thread, the CPU's order, every step rounded (loss_math.h)
        gpu::require_same_shape(pred, target, op);
        const gpu::Values pp = device_values(pred, op);
        const gpu::Values pt = device_values(target, op);
        const std::size_t n = pred.size();
        float* out = device_floats(loss, op);
        gpu::for_each(1, stream_, op, [=] __device__(std::size_t) {
            const ComputeArithmetic r{compute};
            float total = 0.0f;
            for (std::size_t i = 0; i < n; ++i) total = loss_add(r, total, squared_error(r, pp[i], pt[i]));
            *out = loss_mean(r, total, static_cast<float>(n));
        });
        return;
    }
    const float* sum =
        launch_squared_errors(stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), pred, target, op);
    mean_kernel<<<1, 1, 0, stream_>>>(sum, pred.size(), device_floats(loss, op));
    gpu::check_cuda(cudaGetLastError(), op);
}

void CudaBackend::mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) {
    constexpr const char* op = "mse_loss_backward";
    gpu::require_same_shape(pred, target, op);
    gpu::require_same_shape(pred, dpred, op);
    if (pred.size() == 0) return;
    // The CPU's factor, formed the same way (2 / size rounded once, then times the scale).
    const float factor = static_cast<float>(2.0 / static_cast<double>(pred.size())) * scale;
    const gpu::Values pp = device_values(pred, op);
    const gpu::Values pt = device_values(target, op);
    const gpu::Values d = device_values(dpred, op);
    gpu::for_each(pred.size(), stream_, op, [=] __device__(std::size_t i) { d.store(i, (pp[i] - pt[i]) * factor); });
}

}  // namespace plab
