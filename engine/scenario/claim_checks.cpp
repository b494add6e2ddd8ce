#include "engine/scenario/claim_checks.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "engine/amp/precision_config.h"
#include "engine/common/number_text.h"
#include "engine/numeric/range_table.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/scenario/run_to_end.h"

namespace plab::claim_checks {

namespace {

std::string sig(double x) { return significant_text(x, 3); }
std::string fp16_text(float x) { return significant_text(round_to(FormatId::fp16, x), 4); }

}  // namespace

Verdict fp16_smallest_positive(Backend&, const ScenarioProgress&) {
    const FormatRange r = format_range(FormatId::fp16);
    const float small = 1e-6f;  // between the two: representable, though below the smallest normal
    const float stored = round_to(FormatId::fp16, small);
    const bool holds = r.min_subnormal == std::ldexp(1.0, -24) && r.min_normal == std::ldexp(1.0, -14) && stored > 0;
    return make_verdict(holds, "FP16's smallest positive value is " + sig(r.min_subnormal) + " (" +
                                   power_of_two_text(r.min_subnormal) + ", a subnormal); " + sig(r.min_normal) +
                                   " (" + power_of_two_text(r.min_normal) + ") is its smallest normal; 1e-06 is stored as " +
                                   significant_text(stored, 4) + ", not 0");
}

Verdict fp16_flush_threshold(Backend&, const ScenarioProgress&) {
    const float half_smallest = std::ldexp(1.0f, -25);
    const float just_above = std::nextafter(half_smallest, 1.0f);
    const float smallest = std::ldexp(1.0f, -24);
    const bool holds = round_to(FormatId::fp16, half_smallest) == 0.0f &&
                       round_to(FormatId::fp16, just_above) == smallest &&
                       round_to(FormatId::fp16, 5.9e-8f) == smallest;
    return make_verdict(holds, "in FP16 a value rounds to 0 up to " + sig(half_smallest) +
                                   " (2^-25, half the smallest subnormal, a tie that rounds to even); from just above "
                                   "it to " + sig(smallest) + " it rounds up to " + sig(smallest) +
                                   " (5.9e-08 is stored as " + fp16_text(5.9e-8f) +
                                   "): 'below 6e-8 becomes 0' holds below 3e-8");
}

Verdict fp16_overflow_threshold(Backend&, const ScenarioProgress&) {
    const FormatRange r = format_range(FormatId::fp16);
    const float last_to_max = std::nextafter(65520.0f, 0.0f);
    const bool holds = r.max == 65504.0 && round_to(FormatId::fp16, last_to_max) == 65504.0f &&
                       std::isinf(round_to(FormatId::fp16, 65520.0f));
    return make_verdict(holds, "FP16's largest value is " + shortest_text(r.max) + "; up to " +
                                   shortest_text(last_to_max) + " a value rounds back to it; 65520 is stored as " +
                                   fp16_text(65520.0f) + ", and Inf - Inf or 0 x Inf gives NaN");
}

Verdict tiny_product_flushes(Backend&, const ScenarioProgress&) {
    const float a = round_to(FormatId::fp16, 1e-4f);
    const float product = a * a;  // exact in FP32: two 11-bit significands
    const float stored = round_to(FormatId::fp16, product);
    const bool holds = a > 0 && product > 0 && stored == 0.0f;
    return make_verdict(holds, "1e-4 is FP16's " + significant_text(a, 5) + "; its square " + significant_text(product, 5) +
                                   " is below 2^-25 (" + sig(std::ldexp(1.0, -25)) + ") and is stored as " +
                                   shortest_text(stored));
}

Verdict range_and_precision_order(Backend&, const ScenarioProgress&) {
    const FormatRange fp32 = format_range(FormatId::fp32), fp16 = format_range(FormatId::fp16),
                      bf16 = format_range(FormatId::bf16);
    const bool range = bf16.min_normal == fp32.min_normal && bf16.max > 0.99 * fp32.max && fp16.max < 1e-30 * bf16.max;
    const bool precision = fp32.epsilon < fp16.epsilon && fp16.epsilon < bf16.epsilon;
    return make_verdict(range && precision,
                        "range: FP32 up to " + sig(fp32.max) + " and BF16 up to " + sig(bf16.max) + " (both down to " +
                            power_of_two_text(fp32.min_normal) + " normal) against FP16's " + shortest_text(fp16.max) +
                            " (down to " + power_of_two_text(fp16.min_normal) +
                            "); precision, the gap after 1: FP32 " + power_of_two_text(fp32.epsilon) + " < FP16 " +
                            power_of_two_text(fp16.epsilon) + " < BF16 " + power_of_two_text(bf16.epsilon) +
                            ": BF16 has FP32's range and the least precision of the three");
}

Verdict half_formats_same_width(Backend&, const ScenarioProgress&) {
    const FormatParams fp16 = format_params(FormatId::fp16), bf16 = format_params(FormatId::bf16);
    const bool holds = fp16.total_bits() == 16 && bf16.total_bits() == 16 &&
                       storage_bytes(FormatId::fp16) == storage_bytes(FormatId::bf16);
    return make_verdict(holds, "FP16 is 1+" + std::to_string(fp16.exp_bits) + "+" + std::to_string(fp16.man_bits) +
                                   " = " + std::to_string(fp16.total_bits()) + " bits, BF16 1+" +
                                   std::to_string(bf16.exp_bits) + "+" + std::to_string(bf16.man_bits) + " = " +
                                   std::to_string(bf16.total_bits()) +
                                   " bits: the same width; BF16 moves three mantissa bits into the exponent");
}

Verdict tf32_recipe_says_opt_in(Backend&, const ScenarioProgress&) {
    const std::string text(recipe_description(Recipe::tf32));
    const bool holds = text.find("allow_tf32 = True") != std::string::npos &&
                       text.find("off by default") != std::string::npos && text.find("Ampere+ default") == std::string::npos;
    return make_verdict(holds, "the lab's tf32 recipe reads: \"" + text +
                                   "\" (PyTorch's own default is checked by tests/probe: "
                                   "torch.backends.cuda.matmul.allow_tf32 is False)");
}

Verdict large_scale_skips_not_nan(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("scaler-sawtooth", {"telemetry.hist_every=0", "steps=100"});
    const RunResult run = run_to_end(backend, config, run_options(progress, 0, 1, "scaler-sawtooth, 100 steps"));
    const std::int64_t skipped = count_steps(run.records, [](const StepRecord& r) { return r.skipped; });
    const std::int64_t nan_losses = count_steps(run.records, [](const StepRecord& r) { return !std::isfinite(r.loss); });
    const bool holds = !run.records.empty() && skipped > 0 && nan_losses == 0;
    return make_verdict(holds, "loss scale started at 2^24: " + std::to_string(skipped) + " of the first " +
                                   std::to_string(run.records.size()) + " steps overflow and are skipped, " +
                                   std::to_string(nan_losses) +
                                   " losses are NaN or Inf (the loss is computed before it is scaled; a NaN loss "
                                   "comes from the forward pass: plab scenario overflow-nan)");
}

}  // namespace plab::claim_checks
