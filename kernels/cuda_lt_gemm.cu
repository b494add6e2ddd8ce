#include "kernels/cuda_lt_gemm.cuh"

#include "kernels/cuda_common.cuh"

namespace plab::gpu {

namespace {

template <typename T>
void set_op(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
    check_cublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value), "cublasLtMatmulDescSetAttribute");
}

// The stored (before op) shape of an operand whose op gives rows x cols.
void make_layout(cublasLtMatrixLayout_t* layout, cudaDataType_t type, cublasOperation_t op, int rows, int cols,
                 int ld) {
    const bool transposed = op != CUBLAS_OP_N;
    check_cublas(cublasLtMatrixLayoutCreate(layout, type, transposed ? cols : rows, transposed ? rows : cols, ld),
                 "cublasLtMatrixLayoutCreate");
}

// The largest power of two (up to 256) dividing the address: what the
// heuristic's choice of vector loads depends on.
std::uint32_t alignment(const void* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t low_bit = address & (~address + 1);
    return address == 0 || low_bit > 256 ? 256u : static_cast<std::uint32_t>(low_bit);
}

// T must be the attribute's own type (uint64_t for sizes, uint32_t for alignments).
template <typename T>
void set_preference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute,
                    const T& value) {
    check_cublas(cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof value),
                 "cublasLtMatmulPreferenceSetAttribute");
}

// Everything but the bias pointer, which is set at each call.
void describe(const LtBiasProblem& p, std::size_t workspace_bytes, LtDescriptors& s) {
    check_cublas(cublasLtMatmulDescCreate(&s.op, p.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    set_op(s.op, CUBLASLT_MATMUL_DESC_TRANSA, p.trans_a);
    set_op(s.op, CUBLASLT_MATMUL_DESC_TRANSB, p.trans_b);
    set_op(s.op, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
    set_op(s.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, p.bias_type);
    make_layout(&s.a, p.a_type, p.trans_a, p.rows, p.k, p.lda);
    make_layout(&s.b, p.b_type, p.trans_b, p.k, p.cols, p.ldb);
    check_cublas(cublasLtMatrixLayoutCreate(&s.d, p.d_type, p.rows, p.cols, p.rows), "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatmulPreferenceCreate(&s.preference), "cublasLtMatmulPreferenceCreate");
    set_preference(s.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t{workspace_bytes});
    set_preference(s.preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment(p.a));
    set_preference(s.preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment(p.b));
    set_preference(s.preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment(p.d));
    set_preference(s.preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment(p.d));
}

}  // namespace

LtBiasGemm::LtBiasGemm() { check_cublas(cublasLtCreate(&handle_), "cublasLtCreate"); }

LtBiasGemm::~LtBiasGemm() {
    if (handle_) cublasLtDestroy(handle_);
}

LtBiasGemm::Key LtBiasGemm::key_of(const LtBiasProblem& p, std::size_t workspace_bytes) {
    return {p.trans_a, p.trans_b, p.rows, p.cols, p.k, p.lda, p.ldb, p.a_type, p.b_type, p.bias_type, p.d_type,
            p.compute, alignment(p.a), alignment(p.b), alignment(p.bias), alignment(p.d), workspace_bytes};
}

bool LtBiasGemm::run(const LtBiasProblem& p, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
    const Key key = key_of(p, workspace_bytes);
    auto found = plans_.find(key);
    if (found == plans_.end()) {
        auto plan = std::make_unique<Plan>();
        describe(p, workspace_bytes, plan->descriptors);
        const LtDescriptors& s = plan->descriptors;
        cublasLtMatmulHeuristicResult_t result{};
        int count = 0;
        const cublasStatus_t status =
            cublasLtMatmulAlgoGetHeuristic(handle_, s.op, s.a, s.b, s.d, s.d, s.preference, 1, &result, &count);
        if (status == CUBLAS_STATUS_SUCCESS && count > 0) {
            plan->algo = result.algo;
            plan->usable = true;
        } else {
            refusal_ = std::string("cublasLtMatmulAlgoGetHeuristic: ") + cublasGetStatusString(status) + ", " +
                       std::to_string(count) + " algorithms";
        }
        found = plans_.emplace(key, std::move(plan)).first;
    }
    Plan& plan = *found->second;
    if (!plan.usable) return false;
    const LtDescriptors& s = plan.descriptors;
    set_op(s.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias);
    const float beta = 0.0f;
    const cublasStatus_t status = cublasLtMatmul(handle_, s.op, &p.alpha, p.a, s.a, p.b, s.b, &beta, p.d, s.d, p.d,
                                                 s.d, &plan.algo, workspace, workspace_bytes, stream);
    if (status == CUBLAS_STATUS_SUCCESS) return true;
    refusal_ = std::string("cublasLtMatmul: ") + cublasGetStatusString(status);
    // A launch cuBLASLt refuses leaves the output untouched: the caller takes
    // cublasGemmEx instead, this time and from now on for this key.
    plan.usable = false;
    return false;
}

}  // namespace plab::gpu
