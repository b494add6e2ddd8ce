#include "kernels/cuda_backend_factory.h"

#include "kernels/cuda_backend.h"

namespace plab {

CudaBackendFactory cuda_backend_factory() {
    return {&make_cuda_backend, &cuda_device_present, &cuda_peak_tensor_bytes, &cuda_reset_peak_tensor_bytes,
            &cuda_host_waits};
}

}  // namespace plab
