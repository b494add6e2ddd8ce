// power-of-two-scaling: why loss scales are powers of two. Over every FP16
// value, scale-then-unscale by 2^10 gives the value back whenever the scaled
// value fits (only the exponent moved), while 1000 rounds most of them; two
// runs at different power-of-two scales compute the same unscaled gradients
// bit for bit, and a run at 1000 does not, yet trains as well: the cost of a
// non-power scale is exactness, not accuracy.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/amp/scaler_rule.h"
#include "engine/common/field_check.h"
#include "engine/common/number_text.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr float kPowerScale = 1024.0f, kOtherPower = 2048.0f;  // 2^10, 2^11
constexpr float kRoundScale = 1000.0f;
constexpr double kSameAtLeast = 0.99;    // of step 1's gradient values, power vs power
constexpr double kRoundSameAtMost = 0.5; // of them, 1000 vs a power
constexpr double kAccuracyNear = 0.005;  // test accuracy of 1000 vs 1024

struct RoundTrips {
    std::int64_t fitting = 0, exact = 0;  // finite non-zero FP16 values whose scaled value is finite and non-zero
};

// The scaler's path for one FP16 value: times the scale in FP32, stored in
// FP16 (IEEE: overflow is Inf), then times the FP32 inverse of the scale.
RoundTrips round_trips(float scale) {
    RoundTrips r;
    const float inverse = inverse_scale(scale);
    for (std::uint32_t code = 1; code < 0x7c00u; ++code) {  // positive finite FP16 values (signs are symmetric)
        const float x = decode(FormatId::fp16, code);
        const float scaled = round_to(FormatId::fp16, x * scale);
        if (scaled == 0.0f || scaled > 65504.0f) continue;
        ++r.fitting;
        r.exact += scaled * inverse == x;
    }
    return r;
}

Verdict exhaustive_round_trips() {
    const RoundTrips power = round_trips(kPowerScale), round = round_trips(kRoundScale);
    const bool holds = power.fitting > 0 && power.exact == power.fitting && round.exact * 2 < round.fitting;
    return make_verdict(holds, "over every positive finite FP16 value: scaled by 2^10 and back, " +
                                   std::to_string(power.exact) + " of the " + std::to_string(power.fitting) +
                                   " that fit come back exactly; by 1000, " + std::to_string(round.exact) + " of " +
                                   std::to_string(round.fitting) +
                                   " (needs all at 2^10, under half at 1000: 1000 rounds the significand)");
}

// Every layer's unscaled weight gradient after one step at a static scale.
std::vector<float> first_step_gradients(Backend& backend, float scale) {
    const std::string setting = "scaler.init_scale=" + shortest_number(scale);
    const RunConfig config = scenario_config("power-of-two-scaling", {"telemetry.hist_every=0", setting});
    Trainer trainer(backend, config);
    trainer.step();
    std::vector<float> all;
    for (int i = 0; i < trainer.network().layer_count(); ++i) {
        const Parameter& p = trainer.network().layer_weight(i);
        const Tensor& g = p.master_grad.empty() ? p.grad : p.master_grad;
        std::vector<float> host(g.size());
        backend.download(g, host.data());
        all.insert(all.end(), host.begin(), host.end());
    }
    return all;
}

std::int64_t same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(float)) == 0;
    return n;
}

Verdict same_gradients_at_powers_of_two(Backend& backend) {
    const std::vector<float> power = first_step_gradients(backend, kPowerScale);
    const std::vector<float> other = first_step_gradients(backend, kOtherPower);
    const std::vector<float> round = first_step_gradients(backend, kRoundScale);
    const auto n = static_cast<double>(other.size());
    const std::int64_t powers = same_bits(power, other), mixed = same_bits(round, other);
    return make_verdict(n > 0 && powers >= kSameAtLeast * n && mixed <= kRoundSameAtMost * n,
                        "step 1's unscaled weight gradients: at 2^10 and 2^11, " + std::to_string(powers) + " of " +
                            std::to_string(other.size()) + " values are the same bits; at 1000 and 2^11, " +
                            std::to_string(mixed) + " (needs >= " + percent_text(kSameAtLeast, 0) + " and <= " +
                            percent_text(kRoundSameAtMost, 0) + ")");
}

}  // namespace

ScenarioReport check_power_of_two_scaling(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("power-of-two-scaling", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(exhaustive_round_trips());
    report.verdicts.push_back(same_gradients_at_powers_of_two(backend));

    const RunResult round = run_to_end(backend, config, run_options(progress, 0, 0.5, "static scale 1000"));
    const RunResult power = run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0",
                                                                             "scaler.init_scale=1024"}),
                                       run_options(progress, 0.5, 1, "static scale 1024"));
    const FinalAccuracy a = final_accuracy(round.records), b = final_accuracy(power.records);
    const double apart = std::abs(static_cast<double>(a.acc) - static_cast<double>(b.acc));
    report.verdicts.push_back(make_verdict(apart <= kAccuracyNear, "test accuracy at scale 1000: " +
                                                                       percent_text(a.acc, 2) + ", at 1024: " +
                                                                       percent_text(b.acc, 2) + ", " +
                                                                       points_text(apart, 2) + " apart (needs <= " +
                                                                       points_text(kAccuracyNear, 1) + ")"));
    return report;
}

}  // namespace plab
