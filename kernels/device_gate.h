#pragma once
// Several CudaBackends may train at once from different host threads on the
// one device (a sweep: one run per stream). A thread capturing a step graph
// (cuda_step_graph.cu) and another thread's call that may synchronize the
// device (cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, a stream's or a
// cuBLAS handle's creation and destruction, a graph's instantiation) do not
// mix: the call may fail with a stream-capture error and invalidate the
// capture, in relaxed capture mode too (the mode only lifts the up-front
// refusal of such calls). The capture then falls back to op-by-op steps
// (the same bits, slower), but the failed call's error stays behind as the
// thread's last error and would be reported by its next launch check, which
// fails a run that did nothing wrong. The gate keeps the two apart: a capture,
// from its beginning to its instantiation, and every such call hold it. A
// thread inside a scope passes further scopes at once (a capture allocates
// its result slots; a backend's constructor its scratch). Plain C++.
#include <mutex>

namespace plab::gpu {

class DeviceGateScope {
public:
    DeviceGateScope();
    ~DeviceGateScope();
    DeviceGateScope(const DeviceGateScope&) = delete;
    DeviceGateScope& operator=(const DeviceGateScope&) = delete;

private:
    std::unique_lock<std::mutex> lock_;  // empty when this thread held the gate already
};

}  // namespace plab::gpu
