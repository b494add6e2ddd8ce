#pragma once
// Checkpoints of a Session's main run, and rebuilding the run as it was at a
// past step from them (forks).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/train/run.h"
#include "engine/train/run_log.h"

namespace plab {

// Clones of the main run taken every `every` steps, at most `max_count` of
// them. Past the limit the clone whose removal leaves the smallest gap
// relative to how long ago that gap starts goes, so recent clones stay dense
// and old ones thin out (roughly logarithmic spacing); the newest always stays.
class CheckpointStore {
public:
    CheckpointStore(int every, int max_count);  // throws plab::Error: every >= 1, max_count >= 0

    struct Checkpoint {
        std::int64_t step;
        // How many of the main run's logged edits the clone already carries:
        // replays resume at this index, whichever side of the edits made at
        // `step` the clone was taken.
        std::size_t edits_held;
        std::unique_ptr<Run> run;
    };

    // After each step of the main run; `edits_held` = its log's edit count then.
    void after_step(const Run& run, std::size_t edits_held);
    void clear() { kept_.clear(); }
    const Checkpoint* at_or_before(std::int64_t step) const;  // nullptr: none
    std::vector<std::int64_t> steps() const;                   // oldest first

private:
    void thin();

    int every_;
    std::size_t max_count_;
    std::vector<Checkpoint> kept_;  // steps increase
};

// The main run as it was at `at_step` with every edit logged at steps <=
// at_step applied: the nearest checkpoint at or before it (or a fresh run
// from `factory`) stepped forward with the edits it does not hold yet
// replayed at their steps.
// Returns nullptr when `cancelled()` turns true between steps.
std::unique_ptr<Run> restore_run(const CheckpointStore& checkpoints, const RunFactory& factory,
                                 const RunConfig& config, const EditList& edits, std::int64_t at_step,
                                 const std::function<bool()>& cancelled);

}  // namespace plab
