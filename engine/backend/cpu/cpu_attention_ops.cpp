// The attention ops of the CPU backend (model/attention.h): per-row token
// matmuls and the scaled softmax. Every sum is FP32 in index order; each
// output is rounded once to its dtype, except that the scaled softmax rounds
// its scaled input to the compute format first (where FP16 overflows).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"
#include "engine/backend/cpu/parallel_slices.h"
#include "engine/numeric/portable_exp_array.h"
#include "engine/numeric/portable_math.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

using cpu::require;
using cpu::require_same_shape;
using cpu::round_to_dtype;

namespace {

using checks::require_groups;
using checks::require_pairs;
using checks::token_shape;
using checks::TokenShape;

// Whether each of x's `t` rows of `width` values is all finite.
void finite_rows(const float* x, std::size_t t, std::size_t width, std::vector<char>& finite) {
    finite.resize(t);
    for (std::size_t j = 0; j < t; ++j)
        finite[j] = std::all_of(x + j * width, x + (j + 1) * width, [](float v) { return std::isfinite(v); });
}

// out[i, :] = sum_j w[i, j] * x[j, :] over one row's tokens; `w_transposed`
// reads w[j, i] instead. Each output's sum starts from zero and adds its
// terms in j order; running j outside c keeps that order for every output
// while the loop over c reads x's rows contiguously and vectorises.
// A term with a zero weight and a finite row adds a signed zero to a sum
// that is never -0 (it starts at +0, and RNE gives +0 for +0 + -0), which
// leaves it unchanged: such terms (the causal mask's half of the weights)
// are skipped. A zero weight on a row holding Inf or NaN still adds its NaN.
void mix_tokens(const float* w, const float* x, const TokenShape& s, bool w_transposed, float* out) {
    const auto t = static_cast<std::size_t>(s.tokens);
    const auto width = static_cast<std::size_t>(s.width);
    thread_local std::vector<char> finite;
    finite_rows(x, t, width, finite);
    for (std::size_t i = 0; i < t; ++i) {
        float* o = out + i * width;
        std::fill_n(o, width, 0.0f);
        for (std::size_t j = 0; j < t; ++j) {
            const float weight = w_transposed ? w[j * t + i] : w[i * t + j];
            if (weight == 0.0f && finite[j]) continue;
            const float* row = x + j * width;
            for (std::size_t c = 0; c < width; ++c) o[c] += weight * row[c];
        }
    }
}

// pairs[i, j] = sum_c a[i, c] * b[j, c] over one row's tokens. Each sum adds
// its terms in c order from zero; running c outside j, over b transposed,
// keeps that order for every pair while the loop over j vectorises.
void pair_dots(const float* a, const float* b, const TokenShape& s, float* pairs) {
    const auto t = static_cast<std::size_t>(s.tokens);
    const auto width = static_cast<std::size_t>(s.width);
    thread_local std::vector<float> bt;
    bt.resize(t * width);
    for (std::size_t j = 0; j < t; ++j)
        for (std::size_t c = 0; c < width; ++c) bt[c * t + j] = b[j * width + c];
    for (std::size_t i = 0; i < t; ++i) {
        float* o = pairs + i * t;
        std::fill_n(o, t, 0.0f);
        for (std::size_t c = 0; c < width; ++c) {
            const float ai = a[i * width + c];
            const float* column = bt.data() + c * t;
            for (std::size_t j = 0; j < t; ++j) o[j] += ai * column[j];
        }
    }
}

// body(row) for each of the shape's rows (sequence x head), a slice of rows per core.
template <typename Body>
void for_each_sequence(const TokenShape& s, Body&& body) {
    constexpr std::size_t kRowsPerSlice = 4;
    cpu::parallel_slices(static_cast<std::size_t>(s.rows), kRowsPerSlice, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) body(u);
    });
}

constexpr std::size_t kSoftmaxGroupsPerSlice = 256;

// The softmax of groups [begin, end) of x (scaled_softmax's rows).
void softmax_groups(const Tensor& x, float scale, std::size_t g, FormatId compute, bool causal, Tensor& probs,
                    std::size_t begin, std::size_t end) {
    std::vector<float> z(g);
    for (std::size_t first = begin * g, run = begin; run < end; first += g, ++run) {
        const float* in = x.host() + first;
        float* p = probs.host() + first;
        const std::size_t kept = causal ? run % g + 1 : g;  // keys up to the query's own position
        for (std::size_t j = 0; j < kept; ++j) z[j] = round_to(compute, in[j] * scale);
        // An Inf z makes the max Inf and Inf - Inf NaN: the row is lost, as on hardware.
        const float top = *std::max_element(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(kept));
        for (std::size_t j = 0; j < kept; ++j) z[j] -= top;
        portable_exp_array(z.data(), z.data(), kept);
        float sum = 0.0f;
        for (std::size_t j = 0; j < kept; ++j) sum += z[j];
        for (std::size_t j = 0; j < kept; ++j) p[j] = z[j] / sum;
        for (std::size_t j = kept; j < g; ++j) p[j] = 0.0f;
    }
}

}  // namespace

void CpuBackend::token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) {
    const TokenShape s = token_shape(q, tokens, "token_scores");
    require_same_shape(q, k, "token_scores");
    require_pairs(scores, s, "token_scores");
    for_each_sequence(s, [&](std::size_t u) {
        pair_dots(q.host() + u * s.row_values(), k.host() + u * s.row_values(), s,
                  scores.host() + u * s.row_pairs());
    });
    round_to_dtype(scores);
}

void CpuBackend::token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens, Tensor& dq,
                                       Tensor& dk) {
    const TokenShape s = token_shape(q, tokens, "token_scores_backward");
    require_same_shape(q, k, "token_scores_backward");
    require_same_shape(q, dq, "token_scores_backward");
    require_same_shape(q, dk, "token_scores_backward");
    require_pairs(dscores, s, "token_scores_backward");
    for_each_sequence(s, [&](std::size_t u) {
        const float* ds = dscores.host() + u * s.row_pairs();
        mix_tokens(ds, k.host() + u * s.row_values(), s, false, dq.host() + u * s.row_values());
        mix_tokens(ds, q.host() + u * s.row_values(), s, true, dk.host() + u * s.row_values());
    });
    round_to_dtype(dq);
    round_to_dtype(dk);
}

void CpuBackend::token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) {
    const TokenShape s = token_shape(v, tokens, "token_mix");
    require_same_shape(v, out, "token_mix");
    require_pairs(probs, s, "token_mix");
    for_each_sequence(s, [&](std::size_t u) {
        mix_tokens(probs.host() + u * s.row_pairs(), v.host() + u * s.row_values(), s, false,
                   out.host() + u * s.row_values());
    });
    round_to_dtype(out);
}

void CpuBackend::token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens,
                                    Tensor& dprobs, Tensor& dv) {
    const TokenShape s = token_shape(v, tokens, "token_mix_backward");
    require_same_shape(v, dout, "token_mix_backward");
    require_same_shape(v, dv, "token_mix_backward");
    require_pairs(probs, s, "token_mix_backward");
    require_pairs(dprobs, s, "token_mix_backward");
    for_each_sequence(s, [&](std::size_t u) {
        const float* d = dout.host() + u * s.row_values();
        pair_dots(d, v.host() + u * s.row_values(), s, dprobs.host() + u * s.row_pairs());
        mix_tokens(probs.host() + u * s.row_pairs(), d, s, true, dv.host() + u * s.row_values());
    });
    round_to_dtype(dprobs);
    round_to_dtype(dv);
}

void CpuBackend::scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                                Tensor& probs) {
    require_same_shape(x, probs, "scaled_softmax");
    if (causal)
        checks::require_causal_blocks(x, group, "scaled_softmax");
    else
        require_groups(x, group, "scaled_softmax");
    const auto g = static_cast<std::size_t>(group);
    cpu::parallel_slices(x.size() / g, kSoftmaxGroupsPerSlice, [&](std::size_t begin, std::size_t end) {
        softmax_groups(x, scale, g, compute, causal, probs, begin, end);
    });
    round_to_dtype(probs);
}

void CpuBackend::scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                         Tensor& dx) {
    require_same_shape(probs, dprobs, "scaled_softmax_backward");
    require_same_shape(probs, dx, "scaled_softmax_backward");
    require_groups(probs, group, "scaled_softmax_backward");
    const auto g = static_cast<std::size_t>(group);
    for (std::size_t first = 0; first < probs.size(); first += g) {
        const float* p = probs.host() + first;
        const float* dp = dprobs.host() + first;
        float dot = 0.0f;
        for (std::size_t j = 0; j < g; ++j) dot += p[j] * dp[j];
        for (std::size_t j = 0; j < g; ++j) dx.host()[first + j] = scale * (p[j] * (dp[j] - dot));
    }
    round_to_dtype(dx);
}

namespace {

// Moves every value between the token-major and the head-major layout
// (math_ops.h, split_heads); `to_heads` picks the direction. `from` and `to`
// hold the same values, so only the dtype rounds.
void move_heads(const Tensor& from, Tensor& to, const checks::HeadShape& s, bool to_heads) {
    const auto width = static_cast<std::size_t>(s.width);
    const float* in = from.host();
    float* out = to.host();
    for (std::size_t seq = 0; seq < static_cast<std::size_t>(s.sequences); ++seq)
        for (std::size_t t = 0; t < static_cast<std::size_t>(s.context); ++t)
            for (std::size_t h = 0; h < static_cast<std::size_t>(s.heads); ++h) {
                const std::size_t token_at = ((seq * s.context + t) * s.heads + h) * width;
                const std::size_t head_at = ((seq * s.heads + h) * s.context + t) * width;
                if (to_heads)
                    std::copy_n(in + token_at, width, out + head_at);
                else
                    std::copy_n(in + head_at, width, out + token_at);
            }
    round_to_dtype(to);
}

}  // namespace

void CpuBackend::split_heads(const Tensor& x, int context, int heads, Tensor& out) {
    move_heads(x, out, checks::head_shape(x, context, heads, out, "split_heads"), true);
}

void CpuBackend::merge_heads(const Tensor& x, int context, int heads, Tensor& out) {
    move_heads(x, out, checks::head_shape(out, context, heads, x, "merge_heads"), false);
}

}  // namespace plab
