#pragma once
// A deterministic stand-in for the Trainer behind the Run interface. Its
// state is a few numbers that every step mixes with the config, so any
// difference in history (a missed or misplaced edit, one step too many)
// changes every later record. found_inf falls on the steps a script names;
// a script can also make one step throw.
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/train/run.h"

namespace plab::test {

struct FakeScript {
    std::set<std::int64_t> found_inf_steps;
    std::int64_t fail_at = -1;  // step() throws when asked for this step
    int layers = 2;
};

class FakeRun : public Run {
public:
    FakeRun(const RunConfig& config, std::shared_ptr<const FakeScript> script)
        : config_(config), script_(std::move(script)), scale_(config.scaler.init_scale) {}

    StepRecord step() override {
        if (steps_ + 1 == script_->fail_at) throw Error("fake: step " + std::to_string(steps_ + 1) + " failed");
        ++steps_;
        StepRecord r;
        r.step = steps_;
        r.scale = scale_;
        r.lr = config_.optimizer.lr;
        r.found_inf = script_->found_inf_steps.count(steps_) > 0;
        r.skipped = r.found_inf;
        if (r.found_inf) {
            scale_ *= config_.scaler.backoff_factor;
            tracker_ = 0;
            r.backoff = true;
        } else {
            x_ = 0.75 * x_ + config_.optimizer.lr * std::sin(static_cast<double>(steps_ + config_.seed)) + 1e-3;
            if (++tracker_ == config_.scaler.growth_interval) {
                scale_ *= config_.scaler.growth_factor;
                tracker_ = 0;
                r.growth = true;
            }
        }
        r.loss = static_cast<float>(x_);
        r.loss_ref = static_cast<float>(x_ * 0.5);
        r.scale_after = scale_;
        r.growth_tracker = tracker_;
        r.grad_norm = static_cast<float>(std::fabs(x_) * scale_);
        if (steps_ % config_.eval_every == 0) r.acc = static_cast<float>(1.0 / (1.0 + std::fabs(x_)));
        for (int i = 0; i < script_->layers; ++i) {
            LayerRecord layer;
            layer.weight.count = steps_ + i;
            layer.weight.amax = static_cast<float>(x_ * (i + 1));
            layer.grad_rel_dist = static_cast<float>(tracker_ + i);
            r.layers.push_back(layer);
        }
        return r;
    }

    std::int64_t steps_done() const override { return steps_; }
    const RunConfig& config() const override { return config_; }

    // Understands "optimizer.lr=F" (> 0), "scaler.growth_interval=N" (>= 1)
    // and "steps=N" (>= the steps already done).
    void apply(std::string_view assignment) override {
        const std::size_t eq = assignment.find('=');
        const std::string key(assignment.substr(0, eq));
        const std::string value(eq == std::string_view::npos ? "" : assignment.substr(eq + 1));
        if (key == "optimizer.lr") {
            const float lr = std::stof(value);
            check_number_field(key, lr, lr > 0, "> 0");
            config_.optimizer.lr = lr;
        } else if (key == "scaler.growth_interval") {
            const int n = std::stoi(value);
            check_int_field(key, n, 1, 1 << 30);
            config_.scaler.growth_interval = n;
        } else if (key == "steps") {
            const int n = std::stoi(value);
            check_int_field(key, n, steps_, 1 << 30);
            config_.steps = n;
        } else {
            reject_field("set", std::string(assignment), "optimizer.lr=F, scaler.growth_interval=N, steps=N");
        }
    }

    std::unique_ptr<Run> clone() const override { return std::make_unique<FakeRun>(*this); }

private:
    RunConfig config_;
    std::shared_ptr<const FakeScript> script_;
    std::int64_t steps_ = 0;
    double x_ = 1.0;
    float scale_;
    int tracker_ = 0;
};

inline RunFactory fake_factory(FakeScript script = {}) {
    auto shared = std::make_shared<const FakeScript>(std::move(script));
    return [shared](const RunConfig& config) -> std::unique_ptr<Run> { return std::make_unique<FakeRun>(config, shared); };
}

}  // namespace plab::test
