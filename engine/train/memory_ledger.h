#pragma once
// What a run holds on its device, tensor by tensor class and format: the
// lab's own layout (parameter.h, mlp.h, optimizer.h), computed from the run's
// configuration alone, so it can be shown for a model far too large to train
// here. Bytes count each tensor at its format's width (FP32 and TF32 4, FP16
// and BF16 2, FP8 1): what native storage holds, and what the CUDA backend
// holds for every format but FP8 (kept in FP32 words there). The CPU
// emulation keeps every tensor in FP32 words (stored_bytes).
//
// Not counted: the batch and test-set inputs, the backends' scratch (GEMM
// operands, reduction partials, telemetry), and a few scalars per optimizer.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/numeric/format.h"
#include "engine/train/run_config.h"

namespace plab {

enum class TensorClass : std::uint8_t { weights, master_copies, gradients, activations, optimizer_state };
inline constexpr TensorClass kTensorClasses[] = {TensorClass::weights, TensorClass::master_copies,
                                                 TensorClass::gradients, TensorClass::activations,
                                                 TensorClass::optimizer_state};
std::string_view tensor_class_name(TensorClass c);  // "weights", "master copies", ...

struct LedgerLine {
    TensorClass tensor_class;
    FormatId format;
    bool twin = false;        // the FP32 twin's
    std::string what;         // "fc2.weight and biases' values", "AdamW moments", ...
    std::int64_t elements = 0;
    std::int64_t bytes() const { return elements * storage_bytes(format); }  // numeric/format.h
    std::int64_t stored_bytes() const { return elements * 4; }  // as the CPU emulation holds it
};

struct MemoryLedger {
    std::vector<int> widths;        // the model's: inputs, hidden..., outputs
    std::vector<LedgerLine> lines;  // merged: one per (class, format, twin, what)
    std::int64_t bytes(TensorClass c, bool with_twin = true) const;
    std::int64_t total_bytes(bool with_twin = true) const;
    std::int64_t total_stored_bytes(bool with_twin = true) const;

private:
    // bytes_of(line) over the lines keep(line) accepts (the twin's only with_twin).
    template <typename Keep, typename Bytes>
    std::int64_t sum(bool with_twin, Keep keep, Bytes bytes_of) const;
};

// The ledger of `config`'s run for inputs of `inputs` features, `outputs`
// outputs and a test set of `test_rows` rows (its evaluation pass keeps
// buffers of its own). Throws plab::Error for a model with an attention
// block, whose tensors it does not count.
MemoryLedger memory_ledger(const RunConfig& config, int inputs, int outputs, int test_rows);

// The same, the data set's shape taken from generating it.
MemoryLedger memory_ledger(const RunConfig& config);

}  // namespace plab
