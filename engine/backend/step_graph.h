#pragma once
// A training step's backend ops recorded once and replayed: what a CUDA graph
// gives a GPU step (one launch instead of hundreds, no host work per op), and
// what StepRecorder (step_recorder.h) emulates on the host, so that the
// trainer's use of it runs and is tested on every machine.
//
// Replay semantics are a CUDA graph's: the recorded ops run again, in order,
// on the same tensors with the scalar arguments they were recorded with. Host
// memory given to queue_upload is read at the replay; the targets of
// queue_download, queue_telemetry and queue_compare are written by the
// wait_for_queued() after it. So whatever changes from step to step must
// reach the ops through tensors or those host buffers, and a graph is only
// reused for a step whose other arguments are the ones it was recorded with
// (the trainer keys its graphs by them).
//
// A graph names tensors by their storage: it stays valid while its backend
// has allocated nothing since it was recorded (Backend::allocations()); a
// tensor reallocated since then makes it stale.
#include "engine/common/error.h"

namespace plab {

class StepGraph {
public:
    virtual ~StepGraph() = default;
    // Runs the recorded ops again; their results land by the next
    // wait_for_queued(), which must come before the next replay.
    virtual void replay() = 0;
};

// Thrown by a backend op called while a step is being recorded when it cannot
// be part of a graph: it reads a value back to the host, waits for the
// device, or allocates. Its message names the op. Nothing has run: the
// caller runs the step op by op instead.
class CaptureRefused : public Error {
public:
    using Error::Error;
};

}  // namespace plab
