#pragma once
// Shared by the scenario tests: every verdict of a check must hold, and the
// tests re-measure the key numbers from records of their own runs (made here
// with a plain Trainer), so a wrong verdict function cannot hide a scenario
// that stopped demonstrating its point.
#include <gtest/gtest.h>

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

}  // namespace plab::scenario_test
