// tiny-gpt-layer-norm-fp16: the tiny GPT with large embeddings and LayerNorm
// off the FP32 list, so every norm takes its statistics in FP16. A row's sum
// of squared deviations passes 65504, the variance is Inf, rstd is 0 and the
// row comes out as beta: the blocks and the head see no input, the norms pass
// no gradient back, and the run stalls near the characters' frequencies with
// every value finite, so the scaler sees nothing. On the FP32 list the run
// follows its twin; with smaller embeddings, FP16 statistics are enough.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/model/tiny_gpt.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kCollapsedAtLeast = 0.9;  // of every norm's rows, at the first and the last step
constexpr double kStallsBy = 0.3;          // test loss above the twin's, statistics in FP16
constexpr double kNear = 0.05;             // test loss apart from the twin's, on the FP32 list or small embeddings
constexpr const char* kFp32LayerNorm = kAutocastFp32OpsSetting;
constexpr const char* kSmallEmbeddings = "model.embedding_std=10";

// Rows whose rstd is 0 (an Inf variance) in one LayerNorm's last forward.
struct Collapsed {
    std::string norm;
    std::int64_t rows = 0, of_rows = 0;
    double share() const { return of_rows ? static_cast<double>(rows) / static_cast<double>(of_rows) : 0.0; }
};

Collapsed collapsed_rows(Backend& backend, const std::string& name, const LayerNorm& norm) {
    Collapsed c{name, 0, 0};
    const Tensor* rstd = norm.last_rstd();
    if (!rstd) return c;
    std::vector<float> host(rstd->size());
    backend.download(*rstd, host.data());
    c.of_rows = static_cast<std::int64_t>(host.size());
    c.rows = std::count(host.begin(), host.end(), 0.0f);
    return c;
}

// The least collapsed of the GPT's norms (every block's two and ln_f) after
// the first step and after the last.
class CollapseMeter {
public:
    explicit CollapseMeter(Backend& backend, std::int64_t last_step) : backend_(backend), last_step_(last_step) {}
    void measure(const Trainer& trainer, const StepRecord& record) {
        if (record.step != 1 && record.step != last_step_) return;
        const auto* gpt = dynamic_cast<const TinyGpt*>(&trainer.network());
        if (!gpt) return;
        std::vector<Collapsed> all;
        for (const TransformerBlock& block : gpt->blocks()) {
            all.push_back(collapsed_rows(backend_, block.name() + ".ln1", block.ln1()));
            all.push_back(collapsed_rows(backend_, block.name() + ".ln2", block.ln2()));
        }
        all.push_back(collapsed_rows(backend_, "ln_f", gpt->final_norm()));
        const Collapsed least = *std::min_element(all.begin(), all.end(), [](const Collapsed& a, const Collapsed& b) {
            return a.share() < b.share();
        });
        (record.step == 1 ? first_ : last_) = least;
    }
    Verdict verdict() const {
        const bool holds = first_.share() >= kCollapsedAtLeast && last_.share() >= kCollapsedAtLeast;
        return make_verdict(holds, "statistics in FP16: after step 1 every LayerNorm has rstd 0 (an Inf variance, the "
                                   "row output is beta) in at least " + percent_text(first_.share()) +
                                   " of its rows (" +
                                   first_.norm + ": " + std::to_string(first_.rows) + " of " +
                                   std::to_string(first_.of_rows) + "), and at the last step in at least " +
                                   percent_text(last_.share()) + " (" + last_.norm + ") (needs >= " +
                                   percent_text(kCollapsedAtLeast, 0) + " at both)");
    }

private:
    Backend& backend_;
    std::int64_t last_step_;
    Collapsed first_, last_;
};

// Every loss finite and no step skipped, while the run stalls far above its
// twin: nothing overflowed that a loss scaler could see.
Verdict silent_stall(const RunResult& fp16) {
    const std::int64_t steps = static_cast<std::int64_t>(fp16.records.size());
    const std::int64_t bad = count_steps(fp16.records, [](const StepRecord& r) { return !std::isfinite(r.loss); });
    const std::int64_t skipped = count_steps(fp16.records, [](const StepRecord& r) { return r.skipped; });
    const FinalTestLoss l = final_test_loss(fp16.records);
    return make_verdict(bad == 0 && skipped == 0 && l.gap() >= kStallsBy,
                        "statistics in FP16: test loss " + significant_text(l.loss, 4) + " vs FP32 twin " +
                            significant_text(l.loss_ref, 4) + ", " + significant_text(l.gap(), 3) +
                            " above it, with " + std::to_string(steps - bad) + " of " + std::to_string(steps) +
                            " losses finite and " + std::to_string(skipped) +
                            " steps skipped: the scaler saw nothing (needs every loss finite, none skipped, >= " +
                            significant_text(kStallsBy, 2) + " above the twin)");
}

}  // namespace

ScenarioReport check_tiny_gpt_layer_norm_fp16(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tiny-gpt-layer-norm-fp16", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};

    CollapseMeter meter(backend, config.steps);
    RunToEndOptions fp16_options = run_options(progress, 0, 0.4, "LayerNorm statistics in FP16");
    fp16_options.after_step = [&](const Trainer& t, const StepRecord& r) { meter.measure(t, r); };
    const RunResult fp16 = run_to_end(backend, config, fp16_options);
    report.verdicts.push_back(meter.verdict());
    report.verdicts.push_back(silent_stall(fp16));

    const RunResult fp32 = run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0", kFp32LayerNorm}),
                                      run_options(progress, 0.4, 0.7, "LayerNorm on the FP32 list"));
    report.verdicts.push_back(
        test_loss_near_twin("LayerNorm on the FP32 list", final_test_loss(fp32.records), kNear));

    const RunConfig small_config = scenario_config(config.name, {"telemetry.hist_every=0", kSmallEmbeddings});
    const RunResult small = run_to_end(backend, small_config, run_options(progress, 0.7, 1, kSmallEmbeddings));
    report.verdicts.push_back(test_loss_near_twin(std::string(kSmallEmbeddings) + ", statistics in FP16",
                                                  final_test_loss(small.records), kNear));
    return report;
}

}  // namespace plab
