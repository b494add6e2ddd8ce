#include "engine/backend/cpu/fixed_order_gemm.h"

#include <algorithm>
#include <cmath>

#include "engine/backend/cpu/parallel_slices.h"
#include "engine/numeric/cast_array.h"

namespace plab::cpu {

namespace {
// Multiply-adds a slice must hold before a GEMM is split (about 0.1 ms).
constexpr std::size_t kGemmSliceWork = std::size_t{1} << 17;
// Partial sums the FP16-accumulating kernel rounds per array cast: a few KiB, in L1.
constexpr int kFp16SumsBlock = 512;
}  // namespace

namespace detail {

void gemm_kernel_portable(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                          const float* b, float* acc) {
    for (int i = 0; i < m; ++i) {
        float* out = acc + static_cast<std::ptrdiff_t>(i) * n;
        for (int j = 0; j < n; ++j) out[j] = 0.0f;
        for (int p = 0; p < k; ++p) {
            const float aip = a[i * a_row + p * a_step];
            const float* bp = b + static_cast<std::ptrdiff_t>(p) * n;
            for (int j = 0; j < n; ++j) out[j] = std::fma(aip, bp[j], out[j]);
        }
    }
}

void gemm_kernel_fp16_sums(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                           const float* b, float* acc) {
    // A block of rows is contiguous in acc, so one array cast rounds the
    // partial sums of all its outputs after each k: the calls stay few while
    // each output still takes its products one at a time in k order.
    const int block = std::max(1, kFp16SumsBlock / std::max(n, 1));
    for (int i0 = 0; i0 < m; i0 += block) {
        const int rows = std::min(block, m - i0);
        float* out = acc + static_cast<std::ptrdiff_t>(i0) * n;
        const auto values = static_cast<std::size_t>(rows) * static_cast<std::size_t>(n);
        std::fill(out, out + values, 0.0f);
        for (int p = 0; p < k; ++p) {
            const float* bp = b + static_cast<std::ptrdiff_t>(p) * n;
            for (int r = 0; r < rows; ++r) {
                const float aip = a[(i0 + r) * a_row + p * a_step];
                float* row = out + static_cast<std::ptrdiff_t>(r) * n;
                // FP16 times FP16 is exact in FP32: the add is the one
                // rounding, with or without contraction into an FMA.
                for (int j = 0; j < n; ++j) row[j] = aip * bp[j] + row[j];
            }
            round_array(FormatId::fp16, out, out, values);
        }
    }
}

namespace {
bool g_force_portable = false;

bool has_avx2_fma() {
#if defined(__x86_64__)
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return yes;
#else
    return false;
#endif
}
}  // namespace

void force_portable_gemm(bool on) { g_force_portable = on; }

GemmKernel chosen_kernel() {
#if defined(__x86_64__)
    if (!g_force_portable && has_avx2_fma()) return gemm_kernel_avx2_fma;
#endif
    return gemm_kernel_portable;
}

}  // namespace detail

const char* fixed_order_gemm_path() {
    return detail::chosen_kernel() == detail::gemm_kernel_portable ? "portable" : "avx2-fma";
}

void fixed_order_gemm(const GemmShape& s, float alpha, const float* a, const float* b, float beta, float* c,
                      std::vector<float>& scratch) {
    const std::size_t mn = static_cast<std::size_t>(s.m) * s.n;
    if (mn == 0) return;
    // b as k x n rows, so the kernel reads each row of products contiguously.
    const float* rows_b = b;
    std::size_t used = 0;
    if (s.trans_b) {
        used = static_cast<std::size_t>(s.k) * s.n;
        scratch.resize(used + (beta != 0.0f ? mn : 0));
        for (int p = 0; p < s.k; ++p)
            for (int j = 0; j < s.n; ++j) scratch[static_cast<std::size_t>(p) * s.n + j] = b[static_cast<std::size_t>(j) * s.k + p];
        rows_b = scratch.data();
    } else if (beta != 0.0f) {
        scratch.resize(mn);
    }
    // With beta == 0, c is never read: the sums go straight into it.
    float* acc = beta != 0.0f ? scratch.data() + used : c;
    const std::ptrdiff_t a_row = s.trans_a ? 1 : s.k, a_step = s.trans_a ? s.m : 1;
    // Rows of c are independent: a slice of them per core once there is enough to do.
    const detail::GemmKernel kernel = s.fp16_sums ? detail::gemm_kernel_fp16_sums : detail::chosen_kernel();
    const auto rows = static_cast<std::size_t>(s.m);
    const std::size_t row_work = static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.k);
    parallel_slices(rows, std::max<std::size_t>(1, kGemmSliceWork / std::max<std::size_t>(row_work, 1)),
                    [&](std::size_t begin, std::size_t end) {
                        const auto i = static_cast<std::ptrdiff_t>(begin);
                        kernel(static_cast<int>(end - begin), s.n, s.k, a + i * a_row, a_row, a_step, rows_b,
                               acc + i * s.n);
                    });
    if (beta != 0.0f) {
        for (std::size_t i = 0; i < mn; ++i) {
            const float product = alpha * acc[i];
            const float kept = beta * c[i];
            c[i] = product + kept;
        }
    } else if (alpha != 1.0f) {
        for (std::size_t i = 0; i < mn; ++i) c[i] = alpha * c[i];
    }
}

}  // namespace plab::cpu
