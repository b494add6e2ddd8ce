// MSE and LayerNorm on the CPU backend. (Stub: being written.)
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"

namespace plab {
float CpuBackend::mse_loss(const Tensor&, const Tensor&) { throw Error("mse_loss: not implemented yet"); }
void CpuBackend::mse_loss_backward(const Tensor&, const Tensor&, float, Tensor&) {
    throw Error("mse_loss_backward: not implemented yet");
}
void CpuBackend::layer_norm_forward(const Tensor&, const Tensor&, const Tensor&, float, Tensor&, Tensor&, Tensor&) {
    throw Error("layer_norm_forward: not implemented yet");
}
void CpuBackend::layer_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, Tensor&,
                                     Tensor&, Tensor&) {
    throw Error("layer_norm_backward: not implemented yet");
}
}  // namespace plab
