#include "engine/train/session_checkpoints.h"

#include <limits>

#include "engine/common/field_check.h"

namespace plab {

CheckpointStore::CheckpointStore(int every, int max_count) : every_(every) {
    check_int_field("session.checkpoint_every", every, 1, std::numeric_limits<int>::max());
    check_int_field("session.max_checkpoints", max_count, 0, 1 << 20);
    max_count_ = static_cast<std::size_t>(max_count);
}

void CheckpointStore::after_step(const Run& run, std::size_t edits_held) {
    const std::int64_t step = run.steps_done();
    if (max_count_ == 0 || step % every_ != 0) return;
    kept_.push_back(Checkpoint{step, edits_held, run.clone()});
    thin();
}

void CheckpointStore::thin() {
    while (kept_.size() > max_count_) {
        const double now = static_cast<double>(kept_.back().step);
        std::size_t drop = 0;
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i + 1 < kept_.size(); ++i) {
            // Step 0 is always at hand (a fresh run), so it bounds the first gap.
            const double before = i == 0 ? 0.0 : static_cast<double>(kept_[i - 1].step);
            const double gap_if_dropped = static_cast<double>(kept_[i + 1].step) - before;
            const double ratio = gap_if_dropped / (now - before);
            if (ratio < best) {
                best = ratio;
                drop = i;
            }
        }
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(drop));
    }
}

const CheckpointStore::Checkpoint* CheckpointStore::at_or_before(std::int64_t step) const {
    for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
        if (it->step <= step) return &*it;
    }
    return nullptr;
}

std::vector<std::int64_t> CheckpointStore::steps() const {
    std::vector<std::int64_t> out;
    out.reserve(kept_.size());
    for (const Checkpoint& c : kept_) out.push_back(c.step);
    return out;
}

std::unique_ptr<Run> restore_run(const CheckpointStore& checkpoints, const RunFactory& factory,
                                 const RunConfig& config, const EditList& edits, std::int64_t at_step,
                                 const std::function<bool()>& cancelled) {
    const CheckpointStore::Checkpoint* base = checkpoints.at_or_before(at_step);
    std::unique_ptr<Run> run = base != nullptr ? base->run->clone() : factory(config);
    // By count, not by step: edits made at the checkpoint's own step may or
    // may not be in the clone, and only the count taken with it says which.
    std::size_t next = base != nullptr ? base->edits_held : 0;  // edits are in step order
    for (;;) {
        for (; next < edits.size() && edits[next].step == run->steps_done(); ++next) {
            run->apply(edits[next].assignment);
        }
        if (run->steps_done() >= at_step) return run;
        if (cancelled()) return nullptr;
        run->step();
    }
}

}  // namespace plab
