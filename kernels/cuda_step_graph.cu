// Capturing a training step into a CUDA graph, and replaying it.
//
// The capture swaps in a fresh telemetry queue, so that everything the step
// queues (scans, readbacks, label checks, staged uploads) lands in memory the
// graph owns; the copies of its result slots to the host are captured too.
// Any error while capturing (an op that waits or allocates, a CUDA call that
// capture does not allow) ends the capture and becomes CaptureRefused: the
// trainer then runs the step op by op, and whatever the error was shows there.
#include <cuda_runtime.h>

#include <cstring>

#include "kernels/cuda_common.cuh"
#include "kernels/cuda_step_graph.h"
#include "kernels/device_gate.h"

namespace plab {

using gpu::check_cuda;

CudaStepGraph::~CudaStepGraph() {
    try {
        // A graph is dropped between steps; a replay still in flight (a step
        // that threw) must not have its memory freed under it.
        if (backend_.replayed_ == this) {
            backend_.replayed_ = nullptr;
            gpu::wait_for_stream(backend_.stream_, "drop a captured step");
        }
    } catch (...) {  // a destructor: the stream's own error shows on its next use
    }
    const gpu::DeviceGateScope gate;
    if (exec) cudaGraphExecDestroy(reinterpret_cast<cudaGraphExec_t>(exec));
    release_pinned(queue);
}

namespace {

// Ends a capture that failed and clears the error it left.
void abandon_capture(cudaStream_t stream) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(stream, &broken);
    if (broken) cudaGraphDestroy(broken);
    (void)cudaGetLastError();
}

}  // namespace

std::unique_ptr<StepGraph> CudaBackend::capture(const std::function<void()>& launches) {
    gpu::require(capture_uploads_ == nullptr, [] { return std::string("capture: already capturing a step"); });
    auto graph = std::make_unique<CudaStepGraph>(*this);
    std::swap(telemetry_, graph->queue);
    capture_uploads_ = &graph->uploads;
    cudaGraph_t captured = nullptr;
    // Relaxed mode lets concurrent captures on other threads' streams proceed;
    // the gate keeps other threads' allocations and frees out of this one.
    const gpu::DeviceGateScope gate;
    try {
        // Relaxed: the queue's pinned chunks and result slots are made during the capture.
        check_cuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed), "capture: begin");
        try {
            launches();
            copy_results_to_host(telemetry_);
        } catch (...) {
            abandon_capture(stream_);
            throw;
        }
        check_cuda(cudaStreamEndCapture(stream_, &captured), "capture: end");
        cudaGraphExec_t exec = nullptr;
        check_cuda(cudaGraphInstantiate(&exec, captured, 0), "capture: instantiate");
        graph->exec = reinterpret_cast<CUgraphExec_st*>(exec);
        cudaGraphDestroy(captured);
    } catch (const std::exception& e) {
        if (captured) cudaGraphDestroy(captured);
        std::swap(telemetry_, graph->queue);
        capture_uploads_ = nullptr;
        throw CaptureRefused(std::string("CUDA graph capture: ") + e.what());
    }
    std::swap(telemetry_, graph->queue);
    capture_uploads_ = nullptr;
    return graph;
}

void CudaBackend::replay_graph(CudaStepGraph& graph) {
    gpu::require(replayed_ == nullptr, [] {
        return std::string("replay: the previous captured step has not landed (wait_for_queued)");
    });
    // The last replay's copies out of this staging are done: its finish waited for them.
    for (const QueuedUpload& u : graph.uploads) u.copy();
    check_cuda(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(graph.exec), stream_), "replay");
    replayed_ = &graph;
}

}  // namespace plab
