#pragma once
// The device core of a backend: where tensors live and how values and the
// step's order cross between the host and the device. Memory, transfers,
// the one host wait and graph capture; no arithmetic.
#include <cstdint>
#include <functional>
#include <memory>

#include "engine/backend/step_graph.h"
#include "engine/tensor/tensor.h"

namespace plab {

class DeviceCore {
public:
    // A zero-filled tensor on this backend.
    virtual Tensor allocate(Shape shape, FormatId dtype) = 0;
    // Tensors allocated so far: a recorded step (step_graph.h) stays valid
    // while this has not changed.
    virtual std::uint64_t allocations() const = 0;
    // Records the ops `launches` calls on this backend, without running them,
    // into a graph to replay (step_graph.h); CaptureRefused when an op of the
    // step cannot be recorded. A backend on the host runs each op at once and
    // records nothing (nullptr, without calling `launches`): the trainer
    // records its steps through a StepRecorder instead.
    virtual std::unique_ptr<StepGraph> capture(const std::function<void()>& launches) = 0;

    // Host FP32 values into t, rounded to t.dtype(); and back out (exact).
    virtual void upload(const float* host, Tensor& t) = 0;
    virtual void download(const Tensor& t, float* host) = 0;
    // dst = src rounded to dst.dtype() (shapes must match).
    virtual void convert(const Tensor& src, Tensor& dst) = 0;

    // host receives t's values as they are at this point of the step, by the
    // time wait_for_queued() returns (a GPU copies them with the telemetry's
    // results, without a sync; the CPU at once).
    virtual void queue_download(const Tensor& t, float* host) = 0;
    // upload, with `host` read at once but the copy landing later in the
    // step's order (a GPU: through pinned staging, without a sync; the
    // staging is reclaimed by wait_for_queued(); the CPU at once).
    virtual void queue_upload(const float* host, Tensor& t) = 0;
    // The step's one host wait: everything queued so far (telemetry, losses,
    // update counts, comparisons, downloads) has landed where it was asked
    // to when this returns, and a queued op's error (a bad label) is thrown
    // here. A backend that runs each op at once has nothing to wait for.
    virtual void wait_for_queued() = 0;

protected:
    ~DeviceCore() = default;  // owned and destroyed as a Backend
};

}  // namespace plab
