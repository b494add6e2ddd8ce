// The twin comparison on the CPU backend: one pass, FP64 sums in index order.
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"

namespace plab {

TensorComparison CpuBackend::compare(const Tensor& a, const Tensor& b) {
    cpu::require_same_shape(a, b, "compare");
    const float* pa = a.host();
    const float* pb = b.host();
    TensorComparison c;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double x = pa[i], y = pb[i];
        c.diff_sq += (x - y) * (x - y);
        c.a_sq += x * x;
        c.b_sq += y * y;
        c.dot += x * y;
    }
    return c;
}

}  // namespace plab
