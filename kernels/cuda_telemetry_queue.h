#pragma once
// The CUDA backend's queued telemetry (cuda_telemetry_ops.cu): requests
// whose scans have been launched, and where their raw results land; with the
// other work that lands at wait_for_queued() (readbacks, label checks). Plain
// C++ (no CUDA headers): cuda_backend.h holds one.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "engine/backend/telemetry_ops.h"
#include "engine/telemetry/tensor_stats_kernels.h"

struct CUevent_st;

namespace plab {

// One queued request and what its finishing needs: the plans its kernels
// counted with, and its slot in the result arena.
struct PendingTelemetry {
    TelemetryRequest request;
    std::size_t n = 0;
    detail::ScanPlan plan;  // the stats kernel's thresholds (views: 1 or 2)
    double view_divisor[2] = {1.0, 1.0};
    TensorStats* view_stats[2] = {nullptr, nullptr};
    Log2Histogram* view_hist[2] = {nullptr, nullptr};
    std::size_t slot = 0;
};

// A queue_download (or an update's counts): the device bytes were copied to
// pinned staging when queued, and go on to the host target at the finish.
struct PendingReadback {
    void* host = nullptr;
    const void* staged = nullptr;
    std::size_t bytes = 0;                // of `staged`
    FormatId codes = FormatId::fp32;      // FP16 / BF16: `staged` holds codes, decoded into host floats
};

// Pinned host memory for readbacks and queued uploads: chunks that never
// move (queued copies use them), filled from the first again after each
// finish, when every copy that used them is done.
struct PinnedStaging {
    struct Chunk {
        void* memory = nullptr;  // cudaMallocHost, freed by the backend
        std::size_t capacity = 0;
    };
    std::vector<Chunk> chunks;
    std::size_t chunk = 0;  // the one being filled
    std::size_t used = 0;   // bytes of it taken
};

// softmax_cross_entropy_into's label check, made at the finish from
// what its reduction left: the first bad row (INT_MAX: none) and its label.
struct PendingLabelCheck {
    struct Landed {
        float total = 0;
        int bad_row = 0;
        float bad_label = 0;
    } landed;
    int classes = 0;
};
// softmax_cross_entropy's error for a label that is not a class index
// (cuda_loss_ops.cu), the CPU's words.
std::string bad_label_message(float label, int row, int classes);

// A queue_upload recorded into a CUDA graph: the graph copies from `staged`,
// which each replay first fills from `host` (cuda_step_graph.cu).
struct QueuedUpload {
    const void* host = nullptr;
    void* staged = nullptr;
    std::size_t bytes = 0;  // of `staged`
    // fp32: `host`'s bytes as they are; FP16 or BF16: host floats encoded
    // into that format's 16-bit codes (a tensor in native 16-bit storage).
    FormatId codes = FormatId::fp32;
    void copy() const;  // fills `staged` from `host`
};

// A 16-bit format's codes from host floats and back, by the shared cast
// (numeric/scalar_cast.h): uploads and downloads of native 16-bit tensors.
void encode_codes(FormatId f, const float* in, std::size_t n, std::uint16_t* codes);
void decode_codes(FormatId f, const std::uint16_t* codes, std::size_t n, float* out);

struct TelemetryQueue {
    std::vector<PendingTelemetry> pending;
    std::vector<PendingReadback> readbacks;
    std::deque<PendingLabelCheck> label_checks;  // a deque: queued copies write into them, so they never move
    PinnedStaging staging;
    // Result slots, in chunks that never move (queued kernels write into
    // them): device memory and the pinned host memory they are copied to.
    std::vector<Tensor> device_chunks;
    std::vector<void*> host_chunks;  // cudaMallocHost, freed by the backend
    CUevent_st* copied = nullptr;    // cudaEvent_t: the copies to host are done
};
// Frees q's pinned memory and event (its device chunks free themselves).
void release_pinned(TelemetryQueue& q);

}  // namespace plab
