#pragma once
// The scenario checks, one declaration a line (each defined in its own
// engine/scenario/<preset_name>.cpp); scenario_registry.cpp lists them.
#include "engine/scenario/scenario.h"

namespace plab {

ScenarioReport check_underflow_no_scaling(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_bf16_no_scaling(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_pure_fp16_lost_updates(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_overflow_nan(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_scaler_sawtooth(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_grad_accumulation(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_fp8_delayed_scaling(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_gradient_census(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_attention_softmax_overflow(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_growth_interval_tradeoff(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_growth_every_step(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_power_of_two_scaling(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tf32_drift(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_loss_off_fp32_list(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_batch_norm_fp16(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_fp16_accumulate(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_bf16_precision_cost(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_clip_before_unscale(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tiny_gpt_attention_overflow(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tiny_gpt_fp8_delayed_scaling(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tiny_gpt_loss_spike(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tiny_gpt_layer_norm_fp16(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_tiny_gpt_embedding_underflow(Backend& backend, const ScenarioProgress& progress);
ScenarioReport check_memory_ledger(Backend& backend, const ScenarioProgress& progress);

}  // namespace plab
