#pragma once
// A synthetic run history for the plotting benchmarks: `steps` records from a
// real loss scaler fed rare overflows (so the scale saws up and down), a
// decaying noisy loss, an evaluation every 100 steps and a scaler edit every
// 10000, in a RunLog with default limits.
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "engine/amp/loss_scaler.h"
#include "engine/train/run_log.h"

namespace plab::bench {

inline std::unique_ptr<RunLog> synthetic_log(std::int64_t steps) {
    auto log = std::make_unique<RunLog>();
    LossScaler scaler(ScalerConfig{});
    std::mt19937 rng(1);
    std::bernoulli_distribution overflow(0.002);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    for (std::int64_t s = 1; s <= steps; ++s) {
        const ScalerEvent ev = scaler.update(overflow(rng));
        StepRecord r;
        r.step = s;
        const float trend = 2.0f * std::exp(-static_cast<float>(s) / 20000.0f) + 0.01f;
        r.loss = trend * (1.0f + noise(rng));
        r.loss_ref = trend * (1.0f + noise(rng));
        r.scale = ev.scale_before;
        record_scaler_event(r, ev);
        if (s % 100 == 0) {
            r.acc = 1.0f - trend / 2.1f;
            r.acc_ref = 1.0f - trend / 2.2f;
            r.test_loss = trend;
            r.test_loss_ref = trend * 0.95f;
        }
        log->append(std::move(r));
        if (s % 10000 == 0) log->add_edit(s, "scaler.growth_interval=" + std::to_string(1000 + s / 10000));
    }
    return log;
}

// One log per length, made on first use.
inline const RunLog& synthetic_log_of(std::int64_t steps) {
    static std::map<std::int64_t, std::unique_ptr<RunLog>> logs;
    auto& log = logs[steps];
    if (!log) log = synthetic_log(steps);
    return *log;
}

}  // namespace plab::bench
