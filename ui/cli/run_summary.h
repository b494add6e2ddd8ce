#pragma once
// What a finished run comes to, in the few lines `plab run` prints after
// training and `plab summary` prints for a record: the final loss (and the
// twin's), the test accuracy, the loss scale and how often it overflowed,
// skipped, backed off and grew.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/train/step_record.h"

namespace plab {

// The counts the run summary prints, added up record by record as the CLI
// reads or writes them (engine/train/run_log.h's RunTotals is the log's own).
struct SummaryTotals {
    std::int64_t overflows = 0, skipped = 0, backoffs = 0, growths = 0;
    StepRecord last;
    std::optional<float> acc, acc_ref;

    void add(const StepRecord& r);
};

// `headline`: the first line after the run's name ("600 steps in 0.4 s
// (1500 steps/s) on CPU (exact emulation)"); `records`: where they are;
// `more`: lines to add before that one, each ending in a newline.
std::string run_summary(const std::string& name, bool twin, const SummaryTotals& t, const std::string& headline,
                        const std::string& records, const std::string& more = "");

}  // namespace plab
