// Telemetry on the CUDA backend, v1: the tensor is copied to the host and the
// CPU backend's statistics code runs on the copy. That code is the reference
// (FP64 views of x / divisor, exact range fractions, the log2 histogram);
// reusing it keeps one implementation and gives the CPU's numbers exactly.
// The cost is a device-to-host copy per request and the scan on the CPU;
// device-side statistics and histograms on a side stream, overlapping the
// step, are the next step.
#include <cuda_runtime.h>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

Tensor CudaBackend::host_copy(const Tensor& x) {
    Tensor copy = host_.allocate(x.shape(), x.dtype());
    if (x.size() == 0) return copy;
    // The values are already exact in x's dtype: copied as they are, no rounding.
    const float* p = gpu::device_floats(x, "telemetry");
    gpu::check_cuda(cudaMemcpyAsync(copy.host(), p, x.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_),
                    "telemetry copy");
    gpu::check_cuda(cudaStreamSynchronize(stream_), "telemetry copy");
    return copy;
}

void CudaBackend::queue_telemetry(const TelemetryRequest& request) {
    telemetry_copies_.push_back(host_copy(*request.x));
    TelemetryRequest on_host = request;
    on_host.x = &telemetry_copies_.back();
    host_.queue_telemetry(on_host);
}

void CudaBackend::finish_telemetry() {
    host_.finish_telemetry();
    telemetry_copies_.clear();
}

TensorStats CudaBackend::tensor_stats(const Tensor& x, double divisor) {
    return host_.tensor_stats(host_copy(x), divisor);
}

TensorStatsPair CudaBackend::tensor_stats_pair(const Tensor& x, double divisor) {
    return host_.tensor_stats_pair(host_copy(x), divisor);
}

void CudaBackend::add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist) {
    host_.add_to_histogram(host_copy(x), divisor, hist);
}

void CudaBackend::add_to_histogram_pair(const Tensor& x, double divisor, Log2Histogram& held,
                                        Log2Histogram& divided) {
    host_.add_to_histogram_pair(host_copy(x), divisor, held, divided);
}

}  // namespace plab
