// Reductions on the CUDA backend: column sums, the fused unscale + finite
// check, sum of squares, the NaN tracer's scans and the twin comparison.
//
// column_sums keeps the CPU's order (one thread per column, rows in order):
// bit for bit the CPU's result. The whole-tensor reductions use the
// deterministic tree of cuda_common.cuh: the same result on every run, but a
// floating-point sum in another order than the CPU's index order (within the
// usual bound n * eps * sum |x| of it). Counts, flags and maxima are exact.
#include <cfloat>
#include <climits>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;

namespace {

// |x| <= FLT_MAX is false exactly for NaN and +-Inf.
__device__ __forceinline__ bool is_finite_value(float x) { return fabsf(x) <= FLT_MAX; }

// The twin's comparison sums (TensorComparison), trivially copyable for the reduction.
struct ComparisonSums {
    double diff_sq, a_sq, b_sq, dot;
};

}  // namespace

void CudaBackend::column_sums(const Tensor& x, Tensor& sums) {
    constexpr const char* op = "column_sums";
    gpu::require(sums.rows() == 1 && sums.cols() == x.cols(), [&] {
        return "column_sums: output " + shape_text(sums.shape()) + " does not fit " + shape_text(x.shape());
    });
    const float* in = device_floats(x, op);
    float* out = device_floats(sums, op);
    const int rows = x.rows();
    const auto cols = static_cast<std::size_t>(x.cols());
    const FormatParams p = format_params(sums.dtype());
    gpu::for_each(cols, stream_, op, [=] __device__(std::size_t j) {
        float s = 0.0f;
        for (int i = 0; i < rows; ++i) s += in[static_cast<std::size_t>(i) * cols + j];
        out[j] = gpu::round_value(p, s);
    });
}

bool CudaBackend::unscale_and_check(const Tensor& src, float inv_scale, Tensor& dst) {
    constexpr const char* op = "unscale_and_check";
    gpu::require_same_shape(src, dst, op);
    gpu::require(dst.dtype() == FormatId::fp32, [&] {
        return std::string(op) + ": the unscaled gradient must be FP32, not " +
               std::string(format_display_name(dst.dtype()));
    });
    const float* in = device_floats(src, op);
    float* out = device_floats(dst, op);
    // One pass writes the FP32 gradient and ORs the check over all of it (no early exit).
    const int non_finite = gpu::reduce<int>(
        src.size(), 0, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            out[i] = in[i] * inv_scale;
            return is_finite_value(out[i]) ? 0 : 1;
        },
        gpu::Or{});
    return non_finite != 0;
}

float CudaBackend::sum_of_squares(const Tensor& x) {
    constexpr const char* op = "sum_of_squares";
    const float* v = device_floats(x, op);
    return gpu::reduce<float>(
        x.size(), 0.0f, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) { return v[i] * v[i]; }, gpu::Add{});
}

std::int64_t CudaBackend::count_non_finite(const Tensor& x) {
    constexpr const char* op = "count_non_finite";
    const float* v = device_floats(x, op);
    return gpu::reduce<long long>(
        x.size(), 0LL, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) { return is_finite_value(v[i]) ? 0LL : 1LL; }, gpu::Add{});
}

float CudaBackend::finite_amax(const Tensor& x) {
    constexpr const char* op = "finite_amax";
    const float* v = device_floats(x, op);
    return gpu::reduce<float>(
        x.size(), 0.0f, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) { return is_finite_value(v[i]) ? fabsf(v[i]) : 0.0f; },
        [] __device__(float a, float b) { return fmaxf(a, b); });
}

TensorComparison CudaBackend::compare(const Tensor& a, const Tensor& b) {
    constexpr const char* op = "compare";
    gpu::require_same_shape(a, b, op);
    const float* pa = device_floats(a, op);
    const float* pb = device_floats(b, op);
    const ComparisonSums s = gpu::reduce<ComparisonSums>(
        a.size(), ComparisonSums{0, 0, 0, 0}, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            const double x = pa[i], y = pb[i];
            return ComparisonSums{(x - y) * (x - y), x * x, y * y, x * y};
        },
        [] __device__(const ComparisonSums& l, const ComparisonSums& r) {
            return ComparisonSums{l.diff_sq + r.diff_sq, l.a_sq + r.a_sq, l.b_sq + r.b_sq, l.dot + r.dot};
        });
    return {s.diff_sq, s.a_sq, s.b_sq, s.dot};
}

}  // namespace plab
