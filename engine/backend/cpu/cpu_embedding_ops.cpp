// A language model's token and position embeddings on the CPU backend
// (math_ops.h): a gather and add forward, and a backward that sums each
// table row's gradient in FP32 in row order, so that the CUDA backend can
// give the same bits.
#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"

namespace plab {

using cpu::require;
using cpu::round_to_dtype;

namespace {

// The table row ids[r] names; an Error for anything but an integer in 0..vocabulary-1.
std::size_t token_row(const Tensor& ids, int r, int vocabulary, const char* op) {
    const float id = ids.host()[r];
    require(id >= 0.0f && id < static_cast<float>(vocabulary) && std::trunc(id) == id, [&] {
        return std::string(op) + ": id " + std::to_string(id) + " of row " + std::to_string(r) +
               " is not a token of the vocabulary 0.." + std::to_string(vocabulary - 1);
    });
    return static_cast<std::size_t>(id);
}

}  // namespace

void CpuBackend::embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) {
    const checks::EmbeddingShape s = checks::embedding_shape(ids, tokens, positions, out, "embedding_forward");
    const auto width = static_cast<std::size_t>(s.width);
    for (int r = 0; r < s.rows; ++r) {
        const float* token = tokens.host() + token_row(ids, r, s.vocabulary, "embedding_forward") * width;
        const float* position = positions.host() + static_cast<std::size_t>(r % s.context) * width;
        float* o = out.host() + static_cast<std::size_t>(r) * width;
        for (std::size_t c = 0; c < width; ++c) o[c] = token[c] + position[c];
    }
    round_to_dtype(out);
}

void CpuBackend::embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) {
    const checks::EmbeddingShape s = checks::embedding_shape(ids, dtokens, dpositions, dout, "embedding_backward");
    const auto width = static_cast<std::size_t>(s.width);
    std::fill_n(dtokens.host(), dtokens.size(), 0.0f);
    std::fill_n(dpositions.host(), dpositions.size(), 0.0f);
    for (int r = 0; r < s.rows; ++r) {
        float* token = dtokens.host() + token_row(ids, r, s.vocabulary, "embedding_backward") * width;
        float* position = dpositions.host() + static_cast<std::size_t>(r % s.context) * width;
        const float* d = dout.host() + static_cast<std::size_t>(r) * width;
        for (std::size_t c = 0; c < width; ++c) {
            token[c] += d[c];
            position[c] += d[c];
        }
    }
    round_to_dtype(dtokens);
    round_to_dtype(dpositions);
}

}  // namespace plab
