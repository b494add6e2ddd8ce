// GEMM on the CUDA backend, with the CPU's semantics (backend.h): inputs
// rounded to the compute format, exact products, FP32 accumulation, alpha and
// beta, the row bias added in FP32, one rounding to the output dtype.
//
// Small GEMMs run the CPU's summation order (cuda_fixed_order_gemm.cuh) and
// give its bits; large ones go to the tensor cores (CudaBackend::GemmRoute).
// A GEMM accumulating in FP16 takes the fixed order at any size: its sums
// are defined by their order, which cuBLAS's FP16 accumulation does not keep.
// Two routes to cuBLAS (cublasGemmEx):
//  * FP16 / BF16 compute: operands in native 16-bit storage of that format
//    are read where they are; others are encoded into 16-bit scratch arrays
//    (the very RNE cast of scalar_cast.h). The tensor cores multiply them
//    with CUBLAS_COMPUTE_32F: exact products, FP32 accumulation.
//  * everything else: FP32 arrays holding the rounded values. TF32 and FP8
//    values (at most 11 significant bits) go to the TF32 tensor cores
//    (CUBLAS_COMPUTE_32F_FAST_TF32), which read them exactly and multiply
//    them exactly in FP32, the arithmetic of the hardware's TF32 path; plain
//    FP32 takes CUBLAS_COMPUTE_32F_PEDANTIC (no TF32, no reduced precision).
//    Native FP8 GEMMs (cuBLASLt with A/B scale pointers) are the next step.
// An output in native 16-bit storage is written by cuBLAS(Lt) in its own
// type: alpha times the FP32 sum (plus beta c, plus the bias in the Lt
// epilogue) rounded once to nearest even, the CPU's single rounding.
// A Linear's forward (a bias and beta 0) goes through cuBLASLt with the bias
// in its epilogue (cuda_lt_gemm.cuh); otherwise the bias, and the rounding of
// an output kept in FP32 words, run in one small epilogue kernel after
// cublasGemmEx (a 16-bit output then takes the FP32 sum from scratch).
#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <functional>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"
#include "kernels/cuda_fixed_order_gemm.cuh"
#include "kernels/cuda_lt_gemm.cuh"

namespace plab {

using gpu::check_cublas;
using gpu::device_values;
using gpu::Values;

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

cudaDataType_t type_16bit(FormatId f) { return f == FormatId::fp16 ? CUDA_R_16F : CUDA_R_16BF; }

// Whether t's storage holds f's own 16-bit codes: cuBLAS reads and writes it as is.
bool holds_codes_of(const Tensor& t, FormatId f) {
    return t.element_bytes() == sizeof(std::uint16_t) && t.dtype() == f;
}

// x's values encoded in `compute` (FP16 or BF16), 16 bits each: x's own
// storage when it holds them, else a copy in the scratch `slot` gives.
// Device scratch of at least the given bytes (CudaBackend::scratch of one slot).
using Scratch = std::function<void*(std::size_t)>;

Operand encode_16bit(const Tensor& x, FormatId compute, const Scratch& slot, cudaStream_t stream) {
    const Values in = device_values(x, "gemm");
    if (holds_codes_of(x, compute)) return {in.data, type_16bit(compute)};
    auto* out = static_cast<std::uint16_t*>(slot(x.size() * sizeof(std::uint16_t)));
    const FormatParams p = format_params(compute);
    gpu::for_each(x.size(), stream, "gemm operand",
                  [=] __device__(std::size_t i) { out[i] = gpu::encode_16bit(p, in[i]); });
    return {out, type_16bit(compute)};
}

// x's values as the GEMM reads them: times the input's scale and rounded
// (saturating) to its FP8 format, or rounded to `compute`; x's own storage
// where that changes nothing, else FP32 words in the scratch `slot` gives.
Values gemm_operand(const Tensor& x, const std::optional<GemmSpec::ScaledInput>& scaled, FormatId compute,
                    const Scratch& slot, cudaStream_t stream) {
    const Values in = device_values(x, "gemm");
    if (!scaled && (compute == FormatId::fp32 || x.dtype() == compute)) return in;
    auto* out = static_cast<float*>(slot(x.size() * sizeof(float)));
    const FormatParams p = format_params(scaled ? scaled->format : compute);
    const float scale = scaled ? scaled->scale : 1.0f;
    if (scaled)
        gpu::for_each(x.size(), stream, "gemm operand",
                      [=] __device__(std::size_t i) { out[i] = gpu::round_value(p, in[i] * scale); });
    else
        gpu::for_each(x.size(), stream, "gemm operand",
                      [=] __device__(std::size_t i) { out[i] = gpu::round_value(p, in[i]); });
    return {out, format_params(FormatId::fp32), false};
}

// gemm_operand as an FP32 array (cuBLAS's FP32 and TF32 routes): widened
// into scratch when x is in 16-bit storage.
Operand fp32_operand(const Tensor& x, const std::optional<GemmSpec::ScaledInput>& scaled, FormatId compute,
                     const Scratch& slot, cudaStream_t stream) {
    const Values v = gemm_operand(x, scaled, compute, slot, stream);
    if (!v.bits16) return {v.data, CUDA_R_32F};
    auto* out = static_cast<float*>(slot(x.size() * sizeof(float)));
    gpu::for_each(x.size(), stream, "gemm operand", [=] __device__(std::size_t i) { out[i] = v[i]; });
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

std::string CudaBackend::lt_refusal() const { return lt_->last_refusal(); }

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
    gpu::FixedOrderGemm g;
    g.m = m, g.n = n, g.k = k;
    g.a = gemm_operand(a, spec.a_input, spec.compute, [&](std::size_t bytes) { return scratch(gpu::kGemmA, bytes); },
                       stream_);
    g.a_row = spec.trans_a ? 1 : k, g.a_step = spec.trans_a ? m : 1;
    g.b = gemm_operand(b, spec.b_input, spec.compute, [&](std::size_t bytes) { return scratch(gpu::kGemmB, bytes); },
                       stream_);
    g.b_row = spec.trans_b ? 1 : n, g.b_step = spec.trans_b ? k : 1;
    // The CPU's alpha, the same float division (cpu_backend.cpp).
    g.alpha = spec.alpha / (input_scale(spec.a_input) * input_scale(spec.b_input));
    g.beta = spec.beta;
    g.fp16_sums = spec.accumulate == FormatId::fp16;
    if (spec.row_bias) g.bias = device_values(*spec.row_bias, "gemm");
    g.c = device_values(c, "gemm");
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
    checks::require_gemm_accumulation(spec);
    if (c.size() == 0) return;
    // FP16 sums have one order, the CPU's: cuBLAS's FP16 accumulation has its own.
    if (spec.accumulate == FormatId::fp16) {
        gpu::require(m <= kFixedOrderMaxRows, [&] {
            return "gemm: FP16 accumulation runs the fixed-order kernel, which takes at most " +
                   std::to_string(kFixedOrderMaxRows) + " rows, not " + std::to_string(m);
        });
        return fixed_order_gemm(a, b, c, spec);
    }
    if (runs_fixed_order(m, n, k)) return fixed_order_gemm(a, b, c, spec);
    const Values out = device_values(c, "gemm");
    const Values bias_values = bias ? device_values(*bias, "gemm") : Values{};
    // Where cuBLAS left an FP32 result (c's own FP32 words, or scratch) for
    // the epilogue; null when nothing ran.
    const float* result = nullptr;
    bool finished = false;  // cuBLAS(Lt) wrote c's 16-bit codes as they end
    bool bias_added = false;
    bool beta_added = false;  // beta * c is in the result (cuBLAS added it)

    if (k > 0) {
        const bool native_16bit = !spec.a_input && !spec.b_input && is_16bit_compute(spec.compute);
        const auto slot_a = [&](std::size_t bytes) { return scratch(gpu::kGemmA, bytes); };
        const auto slot_b = [&](std::size_t bytes) { return scratch(gpu::kGemmB, bytes); };
        const Operand pa = native_16bit ? encode_16bit(a, spec.compute, slot_a, stream_)
                                        : fp32_operand(a, spec.a_input, spec.compute, slot_a, stream_);
        const Operand pb = native_16bit ? encode_16bit(b, spec.compute, slot_b, stream_)
                                        : fp32_operand(b, spec.b_input, spec.compute, slot_b, stream_);
        // Unscaling folds into alpha: a power of two times the FP32 sum is exact.
        const float alpha = spec.alpha / (input_scale(spec.a_input) * input_scale(spec.b_input));
        // Row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T, and a
        // row-major array read column-major is its transpose: b goes first.
        const cublasOperation_t op_a = spec.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t op_b = spec.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasComputeType_t compute = tensor_core_compute(spec, native_16bit);
        // cuBLAS writes c itself when c is FP32 words or 16-bit codes it can
        // round to (FP16, BF16); an FP32 result is finished by the epilogue.
        const cudaDataType_t c_type = out.bits16 ? type_16bit(c.dtype()) : CUDA_R_32F;
        // A Linear's forward (a bias, beta 0): cuBLASLt adds the bias in its
        // epilogue; c^T's rows are c's columns, the bias's length.
        // Only for alpha a power of two (1, or the FP8 scales' unscale), where
        // alpha * sum is exact and a fused multiply-add of the bias rounds
        // once, as the CPU's add does.
        if (bias && spec.beta == 0.0f && is_power_of_two(alpha)) {
            const cudaDataType_t bias_type = bias_values.bits16 ? type_16bit(bias->dtype()) : CUDA_R_32F;
            gpu::LtBiasProblem lt{.trans_a = op_b, .trans_b = op_a, .rows = n, .cols = m, .k = k,
                                  .a = pb.data, .lda = b.cols(), .a_type = pb.type,
                                  .b = pa.data, .ldb = a.cols(), .b_type = pa.type,
                                  .bias = bias_values.data, .bias_type = bias_type, .d = out.data, .d_type = c_type,
                                  .alpha = alpha, .compute = compute};
            // cuBLASLt reads a bias of c's type (or FP32, where it allows that).
            const bool readable = bias_type == CUDA_R_32F || bias_type == c_type;
            bias_added = readable && lt_->run(lt, scratch(gpu::kGemmWorkspace, gpu::kGemmWorkspaceBytes),
                                              gpu::kGemmWorkspaceBytes, stream_);
            beta_added = bias_added;
            if (bias_added && out.bits16) finished = true;
            if (bias_added && !out.bits16) result = static_cast<const float*>(out.data);
        }
        if (!bias_added) {
            // Straight into c unless a bias must still be added before c's rounding.
            const bool into_c = !out.bits16 || !bias;
            void* d = into_c ? out.data : scratch(gpu::kGemmOut, c.size() * sizeof(float));
            const cudaDataType_t d_type = into_c ? c_type : CUDA_R_32F;
            const float beta = into_c ? spec.beta : 0.0f;
            check_cublas(cublasGemmEx(blas_, op_b, op_a, n, m, k, &alpha, pb.data, pb.type, b.cols(), pa.data, pa.type,
                                      a.cols(), &beta, d, d_type, c.cols(), compute, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
            beta_added = into_c;
            if (d_type == CUDA_R_32F) result = static_cast<const float*>(d);
            else finished = true;
        }
    }
    if (finished) return;

    // Epilogue: an empty sum leaves beta * c (BLAS: beta == 0 writes zeros),
    // then the bias in FP32 and the one rounding to c's dtype.
    const bool empty_sum = k == 0;
    const bool add_bias = bias && !bias_added;
    const bool in_place = result == out.data;  // c's own FP32 words
    if (!empty_sum && in_place && !add_bias && c.dtype() == FormatId::fp32) return;
    const int cols = c.cols();
    const float beta = spec.beta;
    const bool add_beta = !empty_sum && !beta_added && beta != 0.0f;
    gpu::for_each(c.size(), stream_, "gemm epilogue", [=] __device__(std::size_t i) {
        float v = empty_sum ? (beta == 0.0f ? 0.0f : beta * out[i]) : result[i];
        if (add_beta) v = v + beta * out[i];
        if (add_bias) v += bias_values[i % static_cast<std::size_t>(cols)];
        out.store(i, v);
    });
}

}  // namespace plab
