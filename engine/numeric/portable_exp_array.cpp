#include "engine/numeric/portable_exp_array.h"

#include "engine/numeric/cast_path.h"
#include "engine/numeric/portable_math.h"

namespace plab {

bool cpu_supports(ExpPath path) {
    switch (path) {
        case ExpPath::portable: return true;
        case ExpPath::avx2:
#if defined(__x86_64__)
            return cpu_supports(CastPath::avx2);
#else
            return false;
#endif
    }
    return false;
}

ExpPath best_exp_path() {
    static const ExpPath best = cpu_supports(ExpPath::avx2) ? ExpPath::avx2 : ExpPath::portable;
    return best;
}

void portable_exp_array(ExpPath path, const float* x, float* y, std::size_t n) {
#if defined(__x86_64__)
    if (path == ExpPath::avx2) {
        detail::portable_exp_avx2(x, y, n);
        return;
    }
#endif
    for (std::size_t i = 0; i < n; ++i) y[i] = portable_exp(x[i]);
}

void portable_exp_array(const float* x, float* y, std::size_t n) { portable_exp_array(best_exp_path(), x, y, n); }

}  // namespace plab
