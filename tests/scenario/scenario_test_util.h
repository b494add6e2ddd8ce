#pragma once
// Shared by the scenario tests: every verdict of a check must hold, and the
// tests re-measure the key numbers from records of their own runs (made here
// with a plain Trainer), so a wrong verdict function cannot hide a scenario
// that stopped demonstrating its point.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/scenario/scenario.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab::scenario_test {

inline void expect_all_hold(const ScenarioReport& report, const std::string& name) {
    EXPECT_EQ(report.name, name);
    ASSERT_FALSE(report.verdicts.empty());
    for (const Verdict& v : report.verdicts) {
        std::printf("[ verdict  ] %s %s\n", v.holds ? "holds:" : "FAILS:", v.text.c_str());
        EXPECT_TRUE(v.holds) << v.text;
    }
    EXPECT_TRUE(report.holds());
}

// A preset with edits, trained to its end by a plain Trainer; every record.
inline std::vector<StepRecord> train_records(const std::string& preset, const std::vector<std::string>& settings,
                                             TrainerOptions options = {}) {
    RunConfig config = load_preset(preset);
    apply_settings(config, settings);
    CpuBackend backend;
    Trainer trainer(backend, config, options);
    std::vector<StepRecord> records;
    for (int i = 0; i < config.steps; ++i) records.push_back(trainer.step());
    return records;
}

// Counts, element by element, the non-zero finite values of downloaded
// tensors and those a format flushes to zero: |x| <= half its smallest
// subnormal (2^-25 for FP16, 2^-134 for BF16; the tie rounds to even, zero).
struct FlushTally {
    float limit = std::ldexp(1.0f, -25);
    double flushed = 0, nonzero = 0, values = 0;
    void add(Backend& backend, const Tensor& t) {
        std::vector<float> host(t.size());
        backend.download(t, host.data());
        for (float x : host) {
            values += 1;
            if (x == 0.0f || !std::isfinite(x)) continue;
            nonzero += 1;
            flushed += std::fabs(x) <= limit;
        }
    }
    double share() const { return nonzero > 0 ? flushed / nonzero : 0.0; }
    // Of all values: exact zeros, and those FP16 flushes.
    double zero_share() const { return values > 0 ? (values - nonzero) / values : 0.0; }
    double flushed_of_all() const { return values > 0 ? flushed / values : 0.0; }
};

}  // namespace plab::scenario_test
