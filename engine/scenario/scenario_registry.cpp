// The scenario table, one line per scenario, in teaching order.
#include <algorithm>
#include <iterator>

#include "engine/scenario/scenario.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

const ScenarioEntry kScenarios[] = {
    {"underflow-no-scaling", check_underflow_no_scaling},
    {"bf16-no-scaling", check_bf16_no_scaling},
    {"pure-fp16-lost-updates", check_pure_fp16_lost_updates},
    {"overflow-nan", check_overflow_nan},
    {"attention-softmax-overflow", check_attention_softmax_overflow},
    {"loss-off-fp32-list", check_loss_off_fp32_list},
    {"batch-norm-fp16", check_batch_norm_fp16},
    {"scaler-sawtooth", check_scaler_sawtooth},
    {"growth-interval-tradeoff", check_growth_interval_tradeoff},
    {"growth-every-step", check_growth_every_step},
    {"power-of-two-scaling", check_power_of_two_scaling},
    {"tf32-drift", check_tf32_drift},
    {"bf16-precision-cost", check_bf16_precision_cost},
    {"fp16-accumulate", check_fp16_accumulate},
    {"clip-before-unscale", check_clip_before_unscale},
    {"grad-accumulation", check_grad_accumulation},
    {"fp8-delayed-scaling", check_fp8_delayed_scaling},
    {"gradient-census", check_gradient_census},
    {"tiny-gpt-attention-overflow", check_tiny_gpt_attention_overflow},
    {"tiny-gpt-fp8-delayed-scaling", check_tiny_gpt_fp8_delayed_scaling},
    {"tiny-gpt-loss-spike", check_tiny_gpt_loss_spike},
    {"tiny-gpt-layer-norm-fp16", check_tiny_gpt_layer_norm_fp16},
    {"tiny-gpt-embedding-underflow", check_tiny_gpt_embedding_underflow},
    {"memory-ledger", check_memory_ledger},
};

}  // namespace

bool ScenarioReport::holds() const {
    return !verdicts.empty() && std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.holds; });
}

std::span<const ScenarioEntry> scenario_checks() { return kScenarios; }

const ScenarioEntry* find_scenario_check(std::string_view preset) {
    const auto it = std::find_if(std::begin(kScenarios), std::end(kScenarios),
                                 [&](const ScenarioEntry& e) { return e.preset == preset; });
    return it == std::end(kScenarios) ? nullptr : &*it;
}

}  // namespace plab
