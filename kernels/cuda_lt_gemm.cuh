#pragma once
// GEMM with the bias added in cuBLASLt's epilogue (CUBLASLT_EPILOGUE_BIAS):
// one call where cublasGemmEx needed a second kernel to add the bias. Used by
// cuda_gemm.cu for Linear layers' forward (beta 0, a bias); private to kernels/.
//
// The epilogue adds the bias to alpha times the FP32 accumulator in FP32,
// which is the CPU's order (backend.h): with alpha 1 the sum is rounded once
// whether or not it is fused, so the result is the same. D may be FP32 or a
// 16-bit type (then the sum is rounded once to it, as the CPU rounds c).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace plab::gpu {

// Column-major D (rows x cols, leading dimension rows) =
// alpha * op(A) op(B) + bias, the bias (rows values) added to every column.
// The bias is FP32 or D's own 16-bit type (cuBLASLt reads a bias of D's type).
struct LtBiasProblem {
    cublasOperation_t trans_a = CUBLAS_OP_N, trans_b = CUBLAS_OP_N;
    int rows = 0, cols = 0, k = 0;
    const void* a = nullptr;
    int lda = 0;
    cudaDataType_t a_type = CUDA_R_32F;
    const void* b = nullptr;
    int ldb = 0;
    cudaDataType_t b_type = CUDA_R_32F;
    const void* bias = nullptr;
    cudaDataType_t bias_type = CUDA_R_32F;
    void* d = nullptr;
    cudaDataType_t d_type = CUDA_R_32F;
    float alpha = 1.0f;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};

// The descriptors of one problem shape, destroyed with it.
struct LtDescriptors {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulPreference_t preference = nullptr;
    LtDescriptors() = default;
    LtDescriptors(const LtDescriptors&) = delete;
    LtDescriptors& operator=(const LtDescriptors&) = delete;
    ~LtDescriptors() {
        if (preference) cublasLtMatmulPreferenceDestroy(preference);
        if (d) cublasLtMatrixLayoutDestroy(d);
        if (b) cublasLtMatrixLayoutDestroy(b);
        if (a) cublasLtMatrixLayoutDestroy(a);
        if (op) cublasLtMatmulDescDestroy(op);
    }
};

class LtBiasGemm {
public:
    LtBiasGemm();  // throws plab::Error when cuBLASLt does not start
    ~LtBiasGemm();
    LtBiasGemm(const LtBiasGemm&) = delete;
    LtBiasGemm& operator=(const LtBiasGemm&) = delete;

    // Runs p on `stream`; false (nothing launched) when cuBLASLt has no
    // algorithm for it within the workspace or refuses the launch, and the
    // caller takes another route.
    bool run(const LtBiasProblem& p, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
    // Why the last refused problem was refused ("" when none was): cuBLASLt's status.
    const std::string& last_refusal() const { return refusal_; }

private:
    // What the heuristic's choice depends on (the shape, the types, the
    // operands' and bias's alignment, the workspace): the descriptors are
    // built and the heuristic asked once per key.
    using Key = std::tuple<int, int, int, int, int, int, int, int, int, int, int, int, std::uint32_t, std::uint32_t,
                           std::uint32_t, std::uint32_t, std::size_t>;
    struct Plan {
        LtDescriptors descriptors;
        cublasLtMatmulAlgo_t algo{};
        bool usable = false;  // false: no algorithm, take another route
    };
    static Key key_of(const LtBiasProblem& p, std::size_t workspace_bytes);
    cublasLtHandle_t handle_ = nullptr;
    std::map<Key, std::unique_ptr<Plan>> plans_;
    std::string refusal_;
};

}  // namespace plab::gpu
