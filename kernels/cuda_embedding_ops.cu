// A language model's token and position embeddings on the CUDA backend, with
// the CPU's definitions (cpu_embedding_ops.cpp). The backward gives each
// table value one thread that walks the rows in order: the CPU's FP32 sums bit
// for bit, with no atomics (whose order would vary from run to run). The
// tables are small (a character vocabulary, one context), so the walk over
// every row is cheap beside the step's GEMMs.
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;
using gpu::Values;

namespace {

// The table row an id names, or -1 when it is not an integer in 0..vocabulary-1.
__device__ __forceinline__ int token_index(float id, int vocabulary) {
    return id >= 0.0f && id < static_cast<float>(vocabulary) && truncf(id) == id ? static_cast<int>(id) : -1;
}

}  // namespace

void CudaBackend::embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) {
    constexpr const char* op = "embedding_forward";
    const checks::EmbeddingShape s = checks::embedding_shape(ids, tokens, positions, out, op);
    const float* pid = device_floats(ids, op);
    const Values pt = device_values(tokens, op);
    const Values pp = device_values(positions, op);
    const Values po = device_values(out, op);
    gpu::for_each(out.size(), stream_, op, [=] __device__(std::size_t at) {
        const auto width = static_cast<std::size_t>(s.width);
        const std::size_t r = at / width, c = at % width;
        const int token = token_index(pid[r], s.vocabulary);
        // A bad id's row is NaN: loud in every statistic (math_ops.h).
        const float value = token < 0 ? __int_as_float(0x7fc00000)
                                      : pt[static_cast<std::size_t>(token) * width + c] +
                                            pp[(r % static_cast<std::size_t>(s.context)) * width + c];
        po.store(at, value);
    });
}

void CudaBackend::embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) {
    constexpr const char* op = "embedding_backward";
    const checks::EmbeddingShape s = checks::embedding_shape(ids, dtokens, dpositions, dout, op);
    const float* pid = device_floats(ids, op);
    const Values pd = device_values(dout, op);
    const Values out_t = device_values(dtokens, op);
    const Values out_p = device_values(dpositions, op);
    gpu::for_each(dtokens.size(), stream_, op, [=] __device__(std::size_t at) {
        const auto width = static_cast<std::size_t>(s.width);
        const int v = static_cast<int>(at / width);
        const std::size_t c = at % width;
        float sum = 0.0f;
        for (int r = 0; r < s.rows; ++r)
            if (token_index(pid[r], s.vocabulary) == v) sum += pd[static_cast<std::size_t>(r) * width + c];
        out_t.store(at, sum);
    });
    gpu::for_each(dpositions.size(), stream_, op, [=] __device__(std::size_t at) {
        const auto width = static_cast<std::size_t>(s.width);
        const int t = static_cast<int>(at / width);
        const std::size_t c = at % width;
        float sum = 0.0f;
        for (int r = t; r < s.rows; r += s.context) sum += pd[static_cast<std::size_t>(r) * width + c];
        out_p.store(at, sum);
    });
}

}  // namespace plab
