#pragma once
// The numbers a training step reads on the backend rather than holding them
// fixed: the scaler's rule, then the mixed side's and the twin's optimizer
// settings, as views of one block. Their host words are filled before each
// step and go up in one copy in the step's order, so a recorded step reads
// the current values at each replay: a live edit of them needs no new
// recording.
#include <array>
#include <cstddef>

#include "engine/amp/scaler_rule.h"
#include "engine/backend/backend.h"
#include "engine/optim/optimizer.h"

namespace plab {

class StepSettings {
public:
    enum Side : std::size_t { mixed = 0, twin = 1 };

    StepSettings() = default;
    // The slots point into this object's words: it stays where it was made.
    StepSettings(const StepSettings&) = delete;
    StepSettings& operator=(const StepSettings&) = delete;

    bool allocated() const { return !block_.empty(); }
    // The block on `backend`, once, before the first step.
    void allocate(Backend& backend);

    // The scaler rule's words on the host (store_scaler_rule fills them) and
    // on the backend (update_scaler reads them).
    float* scaler_rule_words() { return words_.data(); }
    const Tensor& scaler_rule() const { return scaler_rule_; }
    // A side's optimizer settings, for Optimizer::prepare.
    const OptimizerSettingsSlot* optimizer(Side side) const { return &optimizer_[side]; }

    // The host words to the backend, in the step's order (a GPU: without a sync).
    void queue_upload(Backend& backend) { backend.queue_upload(words_.data(), block_); }

private:
    static constexpr int kWords = kScalerRuleWords + 2 * kOptimizerSettingsWords;
    Tensor block_, scaler_rule_;
    std::array<float, kWords> words_{};
    std::array<OptimizerSettingsSlot, 2> optimizer_;
};

}  // namespace plab
