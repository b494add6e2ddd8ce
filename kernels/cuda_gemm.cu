// GEMM on the CUDA backend, with the CPU's semantics (backend.h): inputs
// rounded to the compute format, exact products, FP32 accumulation, alpha and
// beta, the row bias added in FP32, one rounding to the output dtype.
//
// Small GEMMs run the CPU's summation order (cuda_fixed_order_gemm.cuh) and
// give its bits; large ones go to the tensor cores (CudaBackend::GemmRoute).
// Two routes to cuBLAS (cublasGemmEx, FP32 output):
//  * FP16 / BF16 compute: the operands are encoded into 16-bit scratch arrays
//    (the very RNE cast of scalar_cast.h) and multiplied on the tensor cores
//    with CUBLAS_COMPUTE_32F: exact products, FP32 accumulation.
//  * everything else: FP32 arrays holding the rounded values. TF32 and FP8
//    values (at most 11 significant bits) go to the TF32 tensor cores
//    (CUBLAS_COMPUTE_32F_FAST_TF32), which read them exactly and multiply
//    them exactly in FP32, the arithmetic of the hardware's TF32 path; plain
//    FP32 takes CUBLAS_COMPUTE_32F_PEDANTIC (no TF32, no reduced precision).
//    Native FP8 GEMMs (cuBLASLt with A/B scale pointers) are the next step.
// A Linear's forward (a bias and beta 0) goes through cuBLASLt with the bias
// in its epilogue (cuda_lt_gemm.cuh); otherwise the bias, and the rounding of
// a non-FP32 output, run in one small epilogue kernel after cublasGemmEx.
#include <cublas_v2.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"
#include "kernels/cuda_fixed_order_gemm.cuh"
#include "kernels/cuda_lt_gemm.cuh"

namespace plab {

using gpu::check_cublas;
using gpu::device_floats;

namespace {

struct Operand {
    const void* data;
    cudaDataType_t type;
};

bool is_power_of_two(float x) {
    int exponent = 0;
    return std::isfinite(x) && std::frexp(x, &exponent) == 0.5f;
}

bool is_16bit_compute(FormatId f) { return f == FormatId::fp16 || f == FormatId::bf16; }

// x's values encoded in `compute` (FP16 or BF16), 16 bits each.
Operand encode_16bit(const Tensor& x, FormatId compute, void* scratch, cudaStream_t stream) {
    const float* in = device_floats(x, "gemm");
    auto* out = static_cast<std::uint16_t*>(scratch);
    const FormatParams p = format_params(compute);
    gpu::for_each(x.size(), stream, "gemm operand",
                  [=] __device__(std::size_t i) { out[i] = static_cast<std::uint16_t>(encode(p, in[i])); });
    return {out, compute == FormatId::fp16 ? CUDA_R_16F : CUDA_R_16BF};
}

// x's values as the GEMM reads them, in FP32: times the input's scale and
// rounded (saturating) to its FP8 format, or rounded to `compute`; x's own
// storage where that changes nothing.
Operand fp32_operand(const Tensor& x, const std::optional<GemmSpec::ScaledInput>& scaled, FormatId compute,
                     void* scratch, cudaStream_t stream) {
    const float* in = device_floats(x, "gemm");
    if (!scaled && (compute == FormatId::fp32 || x.dtype() == compute)) return {in, CUDA_R_32F};
    auto* out = static_cast<float*>(scratch);
    const FormatParams p = format_params(scaled ? scaled->format : compute);
    const float scale = scaled ? scaled->scale : 1.0f;
    if (scaled)
        gpu::for_each(x.size(), stream, "gemm operand",
                      [=] __device__(std::size_t i) { out[i] = gpu::round_value(p, in[i] * scale); });
    else
        gpu::for_each(x.size(), stream, "gemm operand",
                      [=] __device__(std::size_t i) { out[i] = gpu::round_value(p, in[i]); });
    return {out, CUDA_R_32F};
}

float input_scale(const std::optional<GemmSpec::ScaledInput>& scaled) { return scaled ? scaled->scale : 1.0f; }

// FP16 / BF16 operands: the tensor cores' 16-bit path. FP32 arrays holding
// TF32 or FP8 values (at most 10 significant bits after the leading one):
// the TF32 tensor cores, which read exactly these values, and their products
// are exact in FP32. Plain FP32 alone needs the pedantic (non-tensor-core) path.
cublasComputeType_t tensor_core_compute(const GemmSpec& spec, bool native_16bit) {
    if (native_16bit) return CUBLAS_COMPUTE_32F;
    if (spec.compute == FormatId::fp32 && !spec.a_input && !spec.b_input) return CUBLAS_COMPUTE_32F_PEDANTIC;
    return CUBLAS_COMPUTE_32F_FAST_TF32;
}

// Up to this many multiply-adds (a 256 x 512 x 256 product) the fixed-order
// kernel is about as fast as the tensor cores' launch and setup; beyond, it
// falls far behind them. The grid's y dimension holds at most 65535 tiles of rows.
constexpr double kFixedOrderWork = 1u << 25;
constexpr int kFixedOrderMaxRows = 65535 * 16;

}  // namespace

bool CudaBackend::runs_fixed_order(int m, int n, int k) const {
    switch (gemm_route_) {
        case GemmRoute::fixed_order: return m <= kFixedOrderMaxRows;
        case GemmRoute::tensor_cores: return false;
        case GemmRoute::automatic: break;
    }
    return m <= kFixedOrderMaxRows && static_cast<double>(m) * n * k <= kFixedOrderWork;
}

void CudaBackend::fixed_order_gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) {
    const int m = c.rows(), n = c.cols();
    const int k = spec.trans_a ? a.rows() : a.cols();
    const Operand pa = fp32_operand(a, spec.a_input, spec.compute, scratch(gpu::kGemmA, a.size() * sizeof(float)), stream_);
    const Operand pb = fp32_operand(b, spec.b_input, spec.compute, scratch(gpu::kGemmB, b.size() * sizeof(float)), stream_);
    gpu::FixedOrderGemm g;
    g.m = m, g.n = n, g.k = k;
    g.a = static_cast<const float*>(pa.data);
    g.a_row = spec.trans_a ? 1 : k, g.a_step = spec.trans_a ? m : 1;
    g.b = static_cast<const float*>(pb.data);
    g.b_row = spec.trans_b ? 1 : n, g.b_step = spec.trans_b ? k : 1;
    // The CPU's alpha, the same float division (cpu_backend.cpp).
    g.alpha = spec.alpha / (input_scale(spec.a_input) * input_scale(spec.b_input));
    g.beta = spec.beta;
    g.bias = spec.row_bias ? device_floats(*spec.row_bias, "gemm") : nullptr;
    g.c = device_floats(c, "gemm");
    g.c_format = format_params(c.dtype());
    gpu::launch_fixed_order_gemm(g, stream_);
}

void CudaBackend::gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) {
    const int m = spec.trans_a ? a.cols() : a.rows();
    const int k = spec.trans_a ? a.rows() : a.cols();
    const int kb = spec.trans_b ? b.cols() : b.rows();
    const int n = spec.trans_b ? b.rows() : b.cols();
    gpu::require(k == kb && c.rows() == m && c.cols() == n, [&] {
        return "gemm: shapes do not chain: " + shape_text(a.shape()) + (spec.trans_a ? "^T" : "") + " x " +
               shape_text(b.shape()) + (spec.trans_b ? "^T" : "") + " -> " + shape_text(c.shape());
    });
    const Tensor* bias = spec.row_bias;
    gpu::require(!bias || (bias->rows() == 1 && bias->cols() == n), [&] {
        return "gemm: bias " + shape_text(bias->shape()) + " does not fit the output " + shape_text(c.shape());
    });
    if (c.size() == 0) return;
    if (runs_fixed_order(m, n, k)) return fixed_order_gemm(a, b, c, spec);
    float* out = device_floats(c, "gemm");
    const float* bias_values = bias ? device_floats(*bias, "gemm") : nullptr;  // null once fused

    bool bias_fused = false;
    if (k > 0) {
        const bool native_16bit = !spec.a_input && !spec.b_input && is_16bit_compute(spec.compute);
        const std::size_t element = native_16bit ? sizeof(std::uint16_t) : sizeof(float);
        void* scratch_a = scratch(gpu::kGemmA, a.size() * element);
        void* scratch_b = scratch(gpu::kGemmB, b.size() * element);
        const Operand pa = native_16bit ? encode_16bit(a, spec.compute, scratch_a, stream_)
                                        : fp32_operand(a, spec.a_input, spec.compute, scratch_a, stream_);
        const Operand pb = native_16bit ? encode_16bit(b, spec.compute, scratch_b, stream_)
                                        : fp32_operand(b, spec.b_input, spec.compute, scratch_b, stream_);
        // Unscaling folds into alpha: a power of two times the FP32 sum is exact.
        const float alpha = spec.alpha / (input_scale(spec.a_input) * input_scale(spec.b_input));
        const float beta = spec.beta;
        // Row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T, and a
        // row-major array read column-major is its transpose: b goes first.
        const cublasOperation_t op_a = spec.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t op_b = spec.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasComputeType_t compute = tensor_core_compute(spec, native_16bit);
        // A Linear's forward (a bias, beta 0): cuBLASLt adds the bias in its
        // epilogue; c^T's rows are c's columns, the bias's length.
        // Only for alpha a power of two (1, or the FP8 scales' unscale), where
        // alpha * sum is exact and a fused multiply-add of the bias rounds
        // once, as the CPU's add does.
        if (bias && spec.beta == 0.0f && is_power_of_two(alpha)) {
            gpu::LtBiasProblem lt{.trans_a = op_b, .trans_b = op_a, .rows = n, .cols = m, .k = k,
                                  .a = pb.data, .lda = b.cols(), .a_type = pb.type,
                                  .b = pa.data, .ldb = a.cols(), .b_type = pa.type,
                                  .bias = bias_values, .d = out, .alpha = alpha, .compute = compute};
            bias_fused = lt_->run(lt, scratch(gpu::kGemmWorkspace, gpu::kGemmWorkspaceBytes), gpu::kGemmWorkspaceBytes,
                                  stream_);
        }
        if (!bias_fused)
          check_cublas(cublasGemmEx(blas_, spec.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  spec.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, pb.data, pb.type,
                                  b.cols(), pa.data, pa.type, a.cols(), &beta, out, CUDA_R_32F, c.cols(),
                                  compute, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
    }

    // Epilogue: an empty sum leaves beta * c (BLAS: beta == 0 writes zeros),
    // then the bias in FP32 and the one rounding to c's dtype.
    if (bias_fused) bias_values = nullptr;  // added already
    if (k > 0 && !bias_values && c.dtype() == FormatId::fp32) return;
    const FormatParams p = format_params(c.dtype());
    const int cols = c.cols();
    const bool empty_sum = k == 0;
    const float beta = spec.beta;
    gpu::for_each(c.size(), stream_, "gemm epilogue", [=] __device__(std::size_t i) {
        float v = out[i];
        if (empty_sum) v = beta == 0.0f ? 0.0f : beta * v;
        if (bias_values) v += bias_values[i % static_cast<std::size_t>(cols)];
        out[i] = gpu::round_value(p, v);
    });
}

}  // namespace plab
