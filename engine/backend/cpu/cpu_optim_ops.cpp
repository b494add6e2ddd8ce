// Optimizer-side ops on the CPU backend: gradient accumulation, the fused
// unscale + finite check, the pieces of norm clipping, and the SGD / AdamW
// updates (whose arithmetic is engine/optim/update_math.h, shared with the
// GPU). Every op computes in FP32 and rounds its output to its dtype.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"
#include "engine/backend/cpu/subnormal_arithmetic.h"
#include "engine/numeric/cast_array.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/soft_fp32.h"
#include "engine/optim/update_math.h"

namespace plab {

using cpu::require;
using cpu::require_same_shape;
using cpu::round_to_dtype;

namespace {

using checks::require_fp32;

// Updates run in chunks small enough for the stack: the FP32 results of a
// chunk are kept beside their rounded form so that lost updates can be told
// from non-zero ones without a second copy of the tensor.
constexpr std::size_t kChunk = 256;

// w[i] = fresh[i] rounded to `dtype`; counts the elements the update moved
// (fresh != old) and, of those, the ones whose stored value did not change.
void store_update(FormatId dtype, const float* fresh, float* w, std::size_t n, UpdateCount& count) {
    float rounded[kChunk];
    const float* stored = fresh;
    if (dtype != FormatId::fp32) {
        round_array(dtype, fresh, rounded, n);
        stored = rounded;
    }
    std::int64_t nonzero = 0;
    std::int64_t lost = 0;
    for (std::size_t i = 0; i < n; ++i) {  // branch-free, so that it vectorises
        const bool moved = fresh[i] != w[i];
        nonzero += moved;
        lost += moved & (stored[i] == w[i]);
        w[i] = stored[i];
    }
    count.nonzero += nonzero;
    count.lost += lost;
}

// Runs `rule(offset, n, fresh)` over w chunk by chunk; the rule writes the n
// new FP32 values from element `offset` on (and updates its own state).
template <typename Rule>
UpdateCount update_in_chunks(Tensor& w, Rule rule) {
    float fresh[kChunk];
    UpdateCount count;
    float* values = w.host();
    for (std::size_t offset = 0; offset < w.size(); offset += kChunk) {
        const std::size_t n = std::min(kChunk, w.size() - offset);
        rule(offset, n, fresh);
        store_update(w.dtype(), fresh, values + offset, n, count);
    }
    return count;
}

// Elements near FP32's subnormal range take the update through SoftFp32:
// the same bits without the FPU's slow subnormal path. A moment of a unit
// that stopped learning decays into that range and stays there, so a long
// run would otherwise do a growing share of its updates through it. The
// tests are on the bits, so that they touch no subnormal themselves.
// Below 2^-56 (zero excepted) a weight, gradient, first moment or momentum
// buffer may meet a subnormal within one update (g * g * (1 - beta2), a
// decayed moment); the second moment, a square, only below 2^-100.
constexpr std::uint32_t kNearSubnormalBelow = 127 - 56;  // biased exponents
constexpr std::uint32_t kSquareNearSubnormalBelow = 127 - 100;

bool below_exponent(float x, std::uint32_t biased) {
    const std::uint32_t magnitude = float_bits(x) & 0x7fffffffu;
    return magnitude != 0 && (magnitude >> 23) < biased;
}
bool near_subnormal(float x) { return below_exponent(x, kNearSubnormalBelow); }

// The lanes of a chunk that need SoftFp32, by index (none unless `wanted`:
// subnormal_arithmetic.h chooses per core). Most chunks have none:
// one branch-free pass (it vectorises) says so before any index is taken.
struct ExactLanes {
    std::size_t count = 0;
    std::uint16_t index[kChunk];

    template <typename NeedsExact>
    ExactLanes(std::size_t n, bool wanted, NeedsExact needs_exact) {
        if (!wanted) return;  // the hardware's way
        bool any = false;
        for (std::size_t i = 0; i < n; ++i) any |= needs_exact(i);
        if (!any) return;
        for (std::size_t i = 0; i < n; ++i) {
            index[count] = static_cast<std::uint16_t>(i);
            count += needs_exact(i);
        }
    }
    // An input of the chunk: its lanes packed, and a copy for the fast loop
    // with these lanes set to 1 (their results are replaced afterwards).
    void take_input(const float* x, float* packed, float* safe, std::size_t n) const {
        std::copy(x, x + n, safe);
        take_state(safe, packed);
    }
    // State updated in place: its lanes packed, then set to 1 there.
    void take_state(float* x, float* packed) const {
        for (std::size_t j = 0; j < count; ++j) {
            packed[j] = x[index[j]];
            x[index[j]] = 1.0f;
        }
    }
    void unpack(const float* packed, float* x) const {
        for (std::size_t j = 0; j < count; ++j) x[index[j]] = packed[j];
    }
};

// The update rules over one chunk. The arrays never overlap, and saying so
// (__restrict) is what lets the compiler vectorise the loops.
void sgd_chunk(const float* __restrict w, const float* __restrict g, float* __restrict fresh, std::size_t n,
               const SgdStep& step) {
    for (std::size_t i = 0; i < n; ++i) fresh[i] = sgd_apply(w[i], sgd_decayed_grad(w[i], g[i], step.weight_decay), step.lr);
}

// T = float: the fast loop; T = SoftFp32: the packed exact lanes.
template <typename T>
void sgd_momentum_lanes(const float* __restrict w, const float* __restrict g, float* __restrict velocity,
                        float* __restrict fresh, std::size_t n, const SgdStep& step) {
    for (std::size_t i = 0; i < n; ++i) {
        const T vi = sgd_velocity<T>(velocity[i], sgd_decayed_grad<T>(w[i], g[i], step.weight_decay), step.momentum);
        fresh[i] = fp32_of(sgd_apply<T>(w[i], vi, step.lr));
        velocity[i] = fp32_of(vi);
    }
}

template <typename T>
void adamw_lanes(const float* __restrict w, const float* __restrict g, float* __restrict m, float* __restrict v,
                 float* __restrict fresh, std::size_t n, const AdamWScalars& k) {
    for (std::size_t i = 0; i < n; ++i) {
        T mi = m[i], vi = v[i];
        fresh[i] = fp32_of(adamw_element<T>(w[i], g[i], mi, vi, k));
        m[i] = fp32_of(mi);
        v[i] = fp32_of(vi);
    }
}

void sgd_momentum_chunk(const float* w, const float* g, float* velocity, float* fresh, std::size_t n,
                        const SgdStep& step, bool exact_lanes) {
    const ExactLanes exact(n, exact_lanes, [&](std::size_t i) {
        return near_subnormal(w[i]) | near_subnormal(g[i]) | near_subnormal(velocity[i]);
    });
    if (exact.count == 0) {
        sgd_momentum_lanes<float>(w, g, velocity, fresh, n, step);
        return;
    }
    float pw[kChunk], pg[kChunk], pv[kChunk], pf[kChunk], sw[kChunk], sg[kChunk];
    exact.take_input(w, pw, sw, n);
    exact.take_input(g, pg, sg, n);
    exact.take_state(velocity, pv);
    sgd_momentum_lanes<float>(sw, sg, velocity, fresh, n, step);
    sgd_momentum_lanes<SoftFp32>(pw, pg, pv, pf, exact.count, step);
    exact.unpack(pf, fresh);
    exact.unpack(pv, velocity);
}

void adamw_chunk(const float* w, const float* g, float* m, float* v, float* fresh, std::size_t n,
                 const AdamWScalars& k, bool exact_lanes) {
    const ExactLanes exact(n, exact_lanes, [&](std::size_t i) {
        return near_subnormal(w[i]) | near_subnormal(g[i]) | near_subnormal(m[i]) |
               below_exponent(v[i], kSquareNearSubnormalBelow);
    });
    if (exact.count == 0) {
        adamw_lanes<float>(w, g, m, v, fresh, n, k);
        return;
    }
    float pw[kChunk], pg[kChunk], pm[kChunk], pv[kChunk], pf[kChunk], sw[kChunk], sg[kChunk];
    exact.take_input(w, pw, sw, n);
    exact.take_input(g, pg, sg, n);
    exact.take_state(m, pm);
    exact.take_state(v, pv);
    adamw_lanes<float>(sw, sg, m, v, fresh, n, k);
    adamw_lanes<SoftFp32>(pw, pg, pm, pv, pf, exact.count, k);
    exact.unpack(pf, fresh);
    exact.unpack(pm, m);
    exact.unpack(pv, v);
}

}  // namespace

void CpuBackend::accumulate(const Tensor& src, Tensor& dst, bool overwrite) {
    require_same_shape(src, dst, "accumulate");
    const float* in = src.host();
    float* out = dst.host();
    if (overwrite)
        std::copy(in, in + src.size(), out);
    else
        for (std::size_t i = 0; i < src.size(); ++i) out[i] += in[i];
    round_to_dtype(dst);
}

bool CpuBackend::unscale_and_check(const Tensor& src, float inv_scale, Tensor& dst) {
    require_same_shape(src, dst, "unscale_and_check");
    require_fp32(dst, "unscale_and_check", "the unscaled gradient");
    const float* in = src.host();
    float* out = dst.host();
    // Every element is checked (no early exit): the whole gradient is written
    // either way, and a branch-free loop vectorises.
    // |x| <= FLT_MAX is false exactly for NaN and +-Inf.
    int non_finite = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
        out[i] = in[i] * inv_scale;
        non_finite |= !(std::fabs(out[i]) <= std::numeric_limits<float>::max());
    }
    return non_finite != 0;
}

float CpuBackend::sum_of_squares(const Tensor& x) {
    const float* v = x.host();
    float sum = 0.0f;
    for (std::size_t i = 0; i < x.size(); ++i) sum += v[i] * v[i];
    return sum;
}

void CpuBackend::scale_in_place(Tensor& x, float factor) {
    float* v = x.host();
    for (std::size_t i = 0; i < x.size(); ++i) v[i] *= factor;
    round_to_dtype(x);
}

UpdateCount CpuBackend::sgd_update(Tensor& w, const Tensor& g, Tensor& velocity, const SgdStep& step) {
    require_same_shape(w, g, "sgd_update");
    require_fp32(g, "sgd_update", "the gradient");
    const float* pw = w.host();
    const float* pg = g.host();
    if (step.momentum == 0.0f) {  // no buffer is read or written, as in PyTorch
        return update_in_chunks(w, [&](std::size_t offset, std::size_t n, float* fresh) {
            sgd_chunk(pw + offset, pg + offset, fresh, n, step);
        });
    }
    require_same_shape(w, velocity, "sgd_update");
    require_fp32(velocity, "sgd_update", "the momentum buffer");
    float* pv = velocity.host();
    const bool exact_lanes = cpu::subnormal_arithmetic() == cpu::SubnormalArithmetic::exact_lanes;
    return update_in_chunks(w, [&](std::size_t offset, std::size_t n, float* fresh) {
        sgd_momentum_chunk(pw + offset, pg + offset, pv + offset, fresh, n, step, exact_lanes);
    });
}

UpdateCount CpuBackend::adamw_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step) {
    require_same_shape(w, g, "adamw_update");
    require_same_shape(w, m, "adamw_update");
    require_same_shape(w, v, "adamw_update");
    require_fp32(g, "adamw_update", "the gradient");
    require_fp32(m, "adamw_update", "the first moment");
    require_fp32(v, "adamw_update", "the second moment");
    require(step.step >= 1, [&] { return "adamw_update: step " + std::to_string(step.step) + " must be >= 1"; });
    const AdamWScalars k = adamw_scalars(step);
    const float* pw = w.host();
    const float* pg = g.host();
    float* pm = m.host();
    float* pv = v.host();
    const bool exact_lanes = cpu::subnormal_arithmetic() == cpu::SubnormalArithmetic::exact_lanes;
    return update_in_chunks(w, [&](std::size_t offset, std::size_t n, float* fresh) {
        adamw_chunk(pw + offset, pg + offset, pm + offset, pv + offset, fresh, n, k, exact_lanes);
    });
}

}  // namespace plab
