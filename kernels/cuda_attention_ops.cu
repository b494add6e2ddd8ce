// The attention ops on the CUDA backend (model/attention.h), with the CPU's
// definitions (cpu_attention_ops.cpp): one thread per output value for the
// token mixes, one warp per output for the token dot products and per group
// for the scaled softmax (coalesced reads), each sum in the CPU's index order
// with no FMA and the CPU's exp (numeric/portable_math.h),
// so every op here is the CPU's bit for bit. Outputs must not alias inputs.
#include <string>

#include "engine/numeric/portable_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_values;
using gpu::require;
using gpu::Values;

namespace {

using checks::require_groups;
using checks::require_pairs;
using checks::token_shape;
using checks::TokenShape;

// One value of mix_tokens (cpu_attention_ops.cpp) for row r: out[r, i, c] =
// sum_j w[r, i, j] x[r, j, c], reading w[r, j, i] when `w_transposed`.
__device__ float mixed_value(const Values& w, const Values& x, const TokenShape& s, bool w_transposed, std::size_t r,
                             std::size_t i, std::size_t c) {
    const auto t = static_cast<std::size_t>(s.tokens);
    const auto width = static_cast<std::size_t>(s.width);
    const std::size_t wr = r * s.row_pairs();
    const std::size_t xr = r * s.row_values();
    float sum = 0.0f;
    for (std::size_t j = 0; j < t; ++j)
        sum += (w_transposed ? w[wr + j * t + i] : w[wr + i * t + j]) * x[xr + j * width + c];
    return sum;
}

// One value of pair_dots for row r: pairs[r, i, j] = sum_c a[r, i, c] b[r, j, c],
// by the whole warp (both rows read coalesced), in the CPU's order of c.
__device__ float pair_dot(const Values& a, const Values& b, const TokenShape& s, std::size_t r, std::size_t i,
                          std::size_t j) {
    const auto width = static_cast<std::size_t>(s.width);
    const std::size_t ai = r * s.row_values() + i * width;
    const std::size_t bj = r * s.row_values() + j * width;
    return gpu::ordered_warp_sum(s.width, [=](int c) { return a[ai + c] * b[bj + c]; });
}

}  // namespace

void CudaBackend::token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) {
    constexpr const char* op = "token_scores";
    const TokenShape s = token_shape(q, tokens, op);
    gpu::require_same_shape(q, k, op);
    require_pairs(scores, s, op);
    const Values pq = device_values(q, op);
    const Values pk = device_values(k, op);
    const Values out = device_values(scores, op);
    gpu::for_each_warp(scores.size(), stream_, op, [=] __device__(std::size_t at, int lane) {
        const std::size_t r = at / s.row_pairs(), pair = at % s.row_pairs();
        const auto t = static_cast<std::size_t>(s.tokens);
        const float dot = pair_dot(pq, pk, s, r, pair / t, pair % t);
        if (lane == 0) out.store(at, dot);
    });
}

void CudaBackend::token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens,
                                        Tensor& dq, Tensor& dk) {
    constexpr const char* op = "token_scores_backward";
    const TokenShape s = token_shape(q, tokens, op);
    gpu::require_same_shape(q, k, op);
    gpu::require_same_shape(q, dq, op);
    gpu::require_same_shape(q, dk, op);
    require_pairs(dscores, s, op);
    const Values pq = device_values(q, op);
    const Values pk = device_values(k, op);
    const Values ds = device_values(dscores, op);
    const Values out_q = device_values(dq, op);
    const Values out_k = device_values(dk, op);
    gpu::for_each(q.size(), stream_, op, [=] __device__(std::size_t at) {
        const std::size_t r = at / s.row_values(), within = at % s.row_values();
        const auto width = static_cast<std::size_t>(s.width);
        const std::size_t i = within / width, c = within % width;
        out_q.store(at, mixed_value(ds, pk, s, false, r, i, c));
        out_k.store(at, mixed_value(ds, pq, s, true, r, i, c));
    });
}

void CudaBackend::token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) {
    constexpr const char* op = "token_mix";
    const TokenShape s = token_shape(v, tokens, op);
    gpu::require_same_shape(v, out, op);
    require_pairs(probs, s, op);
    const Values pp = device_values(probs, op);
    const Values pv = device_values(v, op);
    const Values po = device_values(out, op);
    gpu::for_each(v.size(), stream_, op, [=] __device__(std::size_t at) {
        const std::size_t r = at / s.row_values(), within = at % s.row_values();
        const auto width = static_cast<std::size_t>(s.width);
        po.store(at, mixed_value(pp, pv, s, false, r, within / width, within % width));
    });
}

void CudaBackend::token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens,
                                     Tensor& dprobs, Tensor& dv) {
    constexpr const char* op = "token_mix_backward";
    const TokenShape s = token_shape(v, tokens, op);
    gpu::require_same_shape(v, dout, op);
    gpu::require_same_shape(v, dv, op);
    require_pairs(probs, s, op);
    require_pairs(dprobs, s, op);
    const Values pp = device_values(probs, op);
    const Values pv = device_values(v, op);
    const Values pd = device_values(dout, op);
    const Values out_p = device_values(dprobs, op);
    const Values out_v = device_values(dv, op);
    gpu::for_each_warp(dprobs.size(), stream_, op, [=] __device__(std::size_t at, int lane) {
        const std::size_t r = at / s.row_pairs(), pair = at % s.row_pairs();
        const auto t = static_cast<std::size_t>(s.tokens);
        const float dot = pair_dot(pd, pv, s, r, pair / t, pair % t);
        if (lane == 0) out_p.store(at, dot);
    });
    gpu::for_each(dv.size(), stream_, op, [=] __device__(std::size_t at) {
        const std::size_t r = at / s.row_values(), within = at % s.row_values();
        const auto width = static_cast<std::size_t>(s.width);
        out_v.store(at, mixed_value(pp, pd, s, true, r, within / width, within % width));
    });
}

void CudaBackend::scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                                 Tensor& probs) {
    constexpr const char* op = "scaled_softmax";
    gpu::require_same_shape(x, probs, op);
    if (causal)
        checks::require_causal_blocks(x, group, op);
    else
        require_groups(x, group, op);
    const Values in = device_values(x, op);
    const Values out = device_values(probs, op);
    const auto g = static_cast<std::size_t>(group);
    const FormatParams pz = format_params(compute);
    gpu::for_each_warp(x.size() / g, stream_, op, [=] __device__(std::size_t k, int lane) {
        const std::size_t first = k * g;
        // Causal: keys up to the query's own position, as on the CPU.
        const int kept = causal ? static_cast<int>(k % g) + 1 : static_cast<int>(g);
        // z = x * scale rounded to `compute`, recomputed on each pass (the
        // same value each time). The max is std::max_element's: an Inf z
        // makes it Inf and Inf - Inf NaN, the row is lost, as on hardware.
        auto z = [=](int j) { return gpu::round_value(pz, in[first + j] * scale); };
        const float top = gpu::ordered_warp_fold(1, kept, z(0), z, [](float t, float v) { return t < v ? v : t; });
        const float sum = gpu::ordered_warp_sum(kept, [=](int j) { return portable_exp(z(j) - top); });
        for (int j = lane; j < static_cast<int>(g); j += gpu::kWarp)
            out.store(first + j, j < kept ? portable_exp(z(j) - top) / sum : 0.0f);
    });
}

void CudaBackend::scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                          Tensor& dx) {
    constexpr const char* op = "scaled_softmax_backward";
    gpu::require_same_shape(probs, dprobs, op);
    gpu::require_same_shape(probs, dx, op);
    require_groups(probs, group, op);
    const Values pp = device_values(probs, op);
    const Values pd = device_values(dprobs, op);
    const Values out = device_values(dx, op);
    const auto g = static_cast<std::size_t>(group);
    gpu::for_each(probs.size() / g, stream_, op, [=] __device__(std::size_t k) {
        const std::size_t first = k * g;
        float dot = 0.0f;
        for (std::size_t j = first; j < first + g; ++j) dot += pp[j] * pd[j];
        for (std::size_t j = first; j < first + g; ++j) out.store(j, scale * (pp[j] * (pd[j] - dot)));
    });
}

void CudaBackend::split_heads(const Tensor& x, int context, int heads, Tensor& out) {
    constexpr const char* op = "split_heads";
    const checks::HeadShape s = checks::head_shape(x, context, heads, out, op);
    const Values in = device_values(x, op);
    const Values po = device_values(out, op);
    // One thread per output value, reading its token-major source (CPU: cpu_attention_ops.cpp).
    gpu::for_each(s.values(), stream_, op, [=] __device__(std::size_t at) {
        const auto width = static_cast<std::size_t>(s.width);
        const std::size_t c = at % width, row = at / width;  // row = (seq * heads + h) * context + t
        const std::size_t t = row % s.context, sh = row / s.context;
        const std::size_t h = sh % s.heads, seq = sh / s.heads;
        po.store(at, in[((seq * s.context + t) * s.heads + h) * width + c]);
    });
}

void CudaBackend::merge_heads(const Tensor& x, int context, int heads, Tensor& out) {
    constexpr const char* op = "merge_heads";
    const checks::HeadShape s = checks::head_shape(out, context, heads, x, op);
    const Values in = device_values(x, op);
    const Values po = device_values(out, op);
    gpu::for_each(s.values(), stream_, op, [=] __device__(std::size_t at) {
        const auto width = static_cast<std::size_t>(s.width);
        const std::size_t c = at % width, row = at / width;  // row = (seq * context + t) * heads + h
        const std::size_t h = row % s.heads, st = row / s.heads;
        const std::size_t t = st % s.context, seq = st / s.context;
        po.store(at, in[((seq * s.heads + h) * s.context + t) * width + c]);
    });
}

}  // namespace plab
