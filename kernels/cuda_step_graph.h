#pragma once
// A training step captured from the CUDA backend's stream into a CUDA graph
// (step_graph.h's semantics): each replay is one cudaGraphLaunch. What the
// step queued while it was captured (telemetry scans and their result slots,
// readbacks, label checks, the pinned staging its uploads and readbacks go
// through) is the graph's own, so eager work between replays cannot disturb
// it; the finish after each replay lands it again. Plain C++: no CUDA headers.
#include <vector>

#include "kernels/cuda_backend.h"

struct CUgraphExec_st;

namespace plab {

class CudaStepGraph final : public StepGraph {
public:
    explicit CudaStepGraph(CudaBackend& backend) : backend_(backend) {}
    ~CudaStepGraph() override;
    CudaStepGraph(const CudaStepGraph&) = delete;
    CudaStepGraph& operator=(const CudaStepGraph&) = delete;

    void replay() override { backend_.replay_graph(*this); }

    CudaBackend& backend_;
    CUgraphExec_st* exec = nullptr;  // cudaGraphExec_t
    TelemetryQueue queue;
    // Each replay first copies these host buffers to the staging the graph's uploads read.
    std::vector<QueuedUpload> uploads;
};

}  // namespace plab
