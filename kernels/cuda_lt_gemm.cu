#include "kernels/cuda_lt_gemm.cuh"

#include "kernels/cuda_common.cuh"

namespace plab::gpu {

namespace {

// The descriptors of one call, destroyed whichever way it ends.
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

void describe(const LtBiasProblem& p, std::size_t workspace_bytes, LtDescriptors& s) {
    check_cublas(cublasLtMatmulDescCreate(&s.op, p.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    set_op(s.op, CUBLASLT_MATMUL_DESC_TRANSA, p.trans_a);
    set_op(s.op, CUBLASLT_MATMUL_DESC_TRANSB, p.trans_b);
    set_op(s.op, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
    set_op(s.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias);
    set_op(s.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, CUDA_R_32F);
    make_layout(&s.a, p.a_type, p.trans_a, p.rows, p.k, p.lda);
    make_layout(&s.b, p.b_type, p.trans_b, p.k, p.cols, p.ldb);
    check_cublas(cublasLtMatrixLayoutCreate(&s.d, CUDA_R_32F, p.rows, p.cols, p.rows), "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatmulPreferenceCreate(&s.preference), "cublasLtMatmulPreferenceCreate");
    check_cublas(cublasLtMatmulPreferenceSetAttribute(s.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes, sizeof workspace_bytes),
                 "cublasLtMatmulPreferenceSetAttribute");
}

}  // namespace

LtBiasGemm::LtBiasGemm() { check_cublas(cublasLtCreate(&handle_), "cublasLtCreate"); }

LtBiasGemm::~LtBiasGemm() {
    if (handle_) cublasLtDestroy(handle_);
}

bool LtBiasGemm::run(const LtBiasProblem& p, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
    LtDescriptors s;
    describe(p, workspace_bytes, s);
    const Key key{p.trans_a, p.trans_b, p.rows, p.cols, p.k, p.lda, p.ldb, p.a_type, p.b_type, p.compute};
    auto found = algos_.find(key);
    if (found == algos_.end()) {
        cublasLtMatmulHeuristicResult_t result{};
        int count = 0;
        const cublasStatus_t status =
            cublasLtMatmulAlgoGetHeuristic(handle_, s.op, s.a, s.b, s.d, s.d, s.preference, 1, &result, &count);
        std::optional<cublasLtMatmulAlgo_t> algo;
        if (status == CUBLAS_STATUS_SUCCESS && count > 0) algo = result.algo;
        found = algos_.emplace(key, algo).first;
    }
    if (!found->second) return false;
    const float beta = 0.0f;
    check_cublas(cublasLtMatmul(handle_, s.op, &p.alpha, p.a, s.a, p.b, s.b, &beta, p.d, s.d, p.d, s.d,
                                &*found->second, workspace, workspace_bytes, stream),
                 "cublasLtMatmul");
    return true;
}

}  // namespace plab::gpu
