// Optimizer-side ops on the CPU backend. (Stub: being written.)
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"

namespace plab {
void CpuBackend::accumulate(const Tensor&, Tensor&, bool) { throw Error("accumulate: not implemented yet"); }
bool CpuBackend::unscale_and_check(const Tensor&, float, Tensor&) { throw Error("unscale: not implemented yet"); }
float CpuBackend::sum_of_squares(const Tensor&) { throw Error("sum_of_squares: not implemented yet"); }
void CpuBackend::scale_in_place(Tensor&, float) { throw Error("scale_in_place: not implemented yet"); }
UpdateCount CpuBackend::sgd_update(Tensor&, const Tensor&, Tensor&, const SgdStep&) {
    throw Error("sgd_update: not implemented yet");
}
UpdateCount CpuBackend::adamw_update(Tensor&, const Tensor&, Tensor&, Tensor&, const AdamWStep&) {
    throw Error("adamw_update: not implemented yet");
}
}  // namespace plab
