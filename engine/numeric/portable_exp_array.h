#pragma once
// portable_exp over an array: y[i] = portable_exp(x[i]), the same bits as the
// scalar function (portable_math.h), computed four lanes at a time where the
// CPU has AVX2. The softmaxes and GELU's backward spend most of their time
// in exp; the vector path does the scalar's double arithmetic in the same
// order (no fused multiply-add), so it cannot round differently.
#include <cstddef>

namespace plab {

enum class ExpPath { portable, avx2 };

// x and y may be the same array; otherwise they must not overlap.
void portable_exp_array(const float* x, float* y, std::size_t n);
void portable_exp_array(ExpPath path, const float* x, float* y, std::size_t n);  // a path this CPU runs
ExpPath best_exp_path();
bool cpu_supports(ExpPath path);

namespace detail {
void portable_exp_avx2(const float* x, float* y, std::size_t n);
}  // namespace detail

}  // namespace plab
