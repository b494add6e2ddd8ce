// fp16-accumulate: what the accumulator's format does, beside the inputs'.
// A long dot product of small terms summed in FP16 stalls once the running
// sum's ULP is more than twice a term (each add then rounds back to the sum),
// far below the true sum, while FP32 accumulation, what tensor cores do under
// autocast, stays close; and in training, a step whose matmuls sum in FP16
// lands its gradients further from the FP32 twin's than the same step
// summing in FP32.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/numeric/bit_fields.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr int kTerms = 4096;               // K of the dot product
constexpr float kFactor = 0.1f;            // every element of both vectors
constexpr double kFp16ErrorAtLeast = 0.1;  // relative error of the FP16 sum
constexpr double kFp32ErrorAtMost = 1e-3;  // relative error of the FP32 sum
constexpr double kGradientRatioAtLeast = 3;  // FP16 sums' gradient distance from the twin over FP32 sums'

// x . y of two K-vectors of kFactor through the backend's GEMM, FP16 inputs
// summed in `accumulate`.
float dot_product(Backend& backend, FormatId accumulate) {
    Tensor x = backend.allocate({1, kTerms}, FormatId::fp16), y = backend.allocate({kTerms, 1}, FormatId::fp16);
    Tensor sum = backend.allocate({1, 1}, FormatId::fp32);
    const std::vector<float> values(kTerms, kFactor);
    backend.upload(values.data(), x);
    backend.upload(values.data(), y);
    backend.gemm(x, y, sum, {.compute = FormatId::fp16, .accumulate = accumulate});
    float out = 0;
    backend.download(sum, &out);
    return out;
}

Verdict dot_product_verdict(Backend& backend) {
    const double term = static_cast<double>(round_to(FormatId::fp16, kFactor)) * round_to(FormatId::fp16, kFactor);
    const double exact = term * kTerms;  // every product is exact, and so is their sum in FP64
    const float fp16 = dot_product(backend, FormatId::fp16), fp32 = dot_product(backend, FormatId::fp32);
    const double fp16_error = std::abs(fp16 - exact) / exact, fp32_error = std::abs(fp32 - exact) / exact;
    const double spacing = ulp(FormatId::fp16, fp16);
    const bool holds = fp16_error > kFp16ErrorAtLeast && fp32_error < kFp32ErrorAtMost;
    return make_verdict(
        holds, "a K=" + std::to_string(kTerms) + " dot product of " + shortest_text(kFactor) + " x " +
                   shortest_text(kFactor) + " (each term " + significant_text(term, 4) + " in FP16 inputs, true sum " +
                   significant_text(exact, 6) + "): summed in FP16 it stalls at " + significant_text(fp16, 6) +
                   ", where FP16's ULP is " + significant_text(spacing, 4) + " and a term under half of it rounds away, " +
                   percent_text(fp16_error) + " off; summed in FP32 " + significant_text(fp32, 6) + ", " +
                   significant_text(fp32_error, 2) + " off (needs > " + percent_text(kFp16ErrorAtLeast, 0) +
                   " and < " + significant_text(kFp32ErrorAtMost, 2) + ")");
}

// The last layer's weight gradient against the twin's on the first step, where
// the run and its twin hold the same weights and batch: what one step's
// arithmetic does. Each of its values is a sum over the batch, and its other
// inputs are rounded least (the loss gradient comes straight from FP32), so
// the accumulator's share of the error shows there. Later steps add the
// training's own chaos, which moves both runs alike.
double first_step_gradient_distance(const RunResult& run) {
    if (run.records.empty() || run.records.front().layers.empty()) return std::nan("");  // no verdict can hold
    return run.records.front().layers.back().grad_rel_dist;
}

RunResult run_accumulating(Backend& backend, const std::string& preset, const std::string& accumulate,
                           const ScenarioProgress& progress, double begin, double end) {
    RunToEndOptions options = run_options(progress, begin, end, "precision.accumulate=" + accumulate);
    options.keep_layers = true;
    return run_to_end(
        backend, scenario_config(preset, {"telemetry.hist_every=0", "precision.accumulate=" + accumulate}), options);
}

Verdict gradient_verdict(const RunResult& fp16, const RunResult& fp32) {
    const double a = first_step_gradient_distance(fp16), b = first_step_gradient_distance(fp32);
    return make_verdict(a >= kGradientRatioAtLeast * b,
                        "step 1 (the same weights and batch as the twin): the last layer's weight gradient, each "
                        "value a sum of " + std::to_string(fp16.config.batch_size) +
                            " products, is " + significant_text(a, 3) + " from the twin's with FP16 sums, " +
                            significant_text(b, 3) + " with FP32 sums, " + significant_text(a / b, 3) +
                            "x further (needs >= " + significant_text(kGradientRatioAtLeast, 2) + "x)");
}

}  // namespace

ScenarioReport check_fp16_accumulate(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("fp16-accumulate");
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(dot_product_verdict(backend));
    const RunResult fp16 = run_accumulating(backend, config.name, "fp16", progress, 0, 0.5);
    const RunResult fp32 = run_accumulating(backend, config.name, "fp32", progress, 0.5, 1);
    report.verdicts.push_back(gradient_verdict(fp16, fp32));
    return report;
}

}  // namespace plab
