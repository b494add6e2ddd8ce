// tiny-gpt-attention-overflow: the tiny GPT with a huge attention logit scale
// and its softmax off the FP32 list. The scores grow as training sharpens the
// attention until a scaled logit passes 65504 in FP16; the softmax makes NaN
// of the Inf and nearly every later step is skipped. On the FP32 list every
// forward stays finite (but trails the twin: the scale magnifies the scores'
// FP16 rounding); with the 1/sqrt(d_head) scale the run follows its twin.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/model/tiny_gpt.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kNanAfterNeeded = 0.8;    // of the steps from the first NaN loss on
constexpr double kFp32SkippedAtMost = 0.1;
constexpr double kFp32TrailsBy = 0.2;      // test loss above the twin's, softmax in FP32 at this scale
constexpr double kIntendedNear = 0.05;     // test loss apart from the twin's, at 1/sqrt(d_head)

// At the first step whose loss is not finite: which block's attention
// softmax returned NaN rows (a query row holding any NaN), and how many.
class SoftmaxNanMeter {
public:
    void measure(Backend& backend, const Trainer& trainer, const StepRecord& record) {
        if (step_ || std::isfinite(record.loss) || record.test_loss) return;  // an evaluation replaced the buffers
        const auto* gpt = dynamic_cast<const TinyGpt*>(&trainer.network());
        if (!gpt) return;
        step_ = record.step;
        for (const TransformerBlock& block : gpt->blocks()) {
            const Tensor& probs = block.attention_probs();
            std::vector<float> host(probs.size());
            backend.download(probs, host.data());
            const auto context = static_cast<std::size_t>(block.shape().context);
            std::int64_t bad = 0;
            for (std::size_t row = 0; row < host.size(); row += context)
                bad += std::any_of(host.begin() + static_cast<std::ptrdiff_t>(row),
                                   host.begin() + static_cast<std::ptrdiff_t>(row + context),
                                   [](float p) { return std::isnan(p); });
            if (bad > 0 && block_.empty()) {
                block_ = block.name();
                rows_ = bad;
                of_rows_ = static_cast<std::int64_t>(host.size() / context);
            }
        }
    }
    Verdict verdict() const {
        if (!step_) return make_verdict(false, "softmax in FP16: the loss stayed finite (needs a forward overflow)");
        return make_verdict(!block_.empty(), "softmax in FP16: the loss is first NaN at step " + std::to_string(step_) +
                                                 (block_.empty() ? std::string(", no attention softmax row NaN")
                                                                 : ", where the attention softmax of " + block_ +
                                                                       " returned NaN in " + std::to_string(rows_) +
                                                                       " of " + std::to_string(of_rows_) + " query rows") +
                                                 " (needs a NaN softmax row: a scaled logit past 65504)");
    }
    std::int64_t step() const { return step_; }

private:
    std::int64_t step_ = 0;
    std::string block_;
    std::int64_t rows_ = 0, of_rows_ = 0;
};

Verdict lost_after_overflow(const RunResult& fp16, std::int64_t first) {
    if (first == 0) return make_verdict(false, "softmax in FP16: no step to count from (needs a NaN loss)");
    std::int64_t after = 0, nan = 0, skipped = 0;
    for (const StepRecord& r : fp16.records) {
        if (r.step < first) continue;
        ++after;
        nan += !std::isfinite(r.loss);
        skipped += r.skipped;
    }
    const double share = static_cast<double>(std::min(nan, skipped)) / static_cast<double>(after);
    return make_verdict(share >= kNanAfterNeeded,
                        "softmax in FP16: from step " + std::to_string(first) + " on, " + std::to_string(nan) + " of " +
                            std::to_string(after) + " steps have a NaN loss and " + std::to_string(skipped) +
                            " are skipped; the loss scale fell to " + power_of_two_text(fp16.records.back().scale) +
                            ": no loss scale helps a forward overflow (needs >= " + percent_text(kNanAfterNeeded, 0) +
                            " of them NaN and skipped)");
}

Verdict finite_on_fp32_list(const RunResult& fp32) {
    const std::int64_t steps = static_cast<std::int64_t>(fp32.records.size());
    const std::int64_t bad = count_steps(fp32.records, [](const StepRecord& r) { return !std::isfinite(r.loss); });
    const std::int64_t skipped = count_steps(fp32.records, [](const StepRecord& r) { return r.skipped; });
    const double share = static_cast<double>(skipped) / static_cast<double>(steps);
    return make_verdict(bad == 0 && share <= kFp32SkippedAtMost,
                        "softmax on the FP32 list: the loss is finite on " + std::to_string(steps - bad) + " of " +
                            std::to_string(steps) + " steps, " + std::to_string(skipped) +
                            " skipped for a backward overflow (needs every loss finite, <= " +
                            percent_text(kFp32SkippedAtMost, 0) + " skipped)");
}

}  // namespace

ScenarioReport check_tiny_gpt_attention_overflow(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tiny-gpt-attention-overflow", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};

    SoftmaxNanMeter meter;
    RunToEndOptions fp16_options = run_options(progress, 0, 0.4, "softmax in FP16");
    fp16_options.after_step = [&](const Trainer& t, const StepRecord& r) { meter.measure(backend, t, r); };
    const RunResult fp16 = run_to_end(backend, config, fp16_options);
    report.verdicts.push_back(meter.verdict());
    report.verdicts.push_back(lost_after_overflow(fp16, meter.step()));

    const RunConfig listed = scenario_config(config.name, {"telemetry.hist_every=0", kAutocastFp32OpsSetting});
    const RunResult fp32 = run_to_end(backend, listed, run_options(progress, 0.4, 0.7, "softmax on the FP32 list"));
    report.verdicts.push_back(finite_on_fp32_list(fp32));
    report.verdicts.push_back(test_loss_above_twin("softmax on the FP32 list, logit scale " +
                                                       significant_text(config.model.gpt.logit_scale, 6),
                                                   final_test_loss(fp32.records), kFp32TrailsBy));

    const RunResult intended =
        run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0", "model.logit_scale=0"}),
                   run_options(progress, 0.7, 1, "model.logit_scale=0 (1/sqrt(d_head))"));
    report.verdicts.push_back(test_loss_near_twin("model.logit_scale=0 (1/sqrt(d_head)), softmax in FP16",
                                                  final_test_loss(intended.records), kIntendedNear));
    return report;
}

}  // namespace plab
