// tiny-gpt-embedding-underflow: the tiny GPT learns 2-digit addition in pure
// FP16 without a loss scaler. The last position of a window always predicts
// the newline; once the model is sure of it, that token's logit gradient,
// (p - 1) over the batch's token count, rounds to zero in FP16, and since the
// last position feeds no other token's loss, its position-embedding row gets
// nothing where the FP32 twin's holds small non-zero values. A dynamic loss
// scaler lifts the same values into FP16's range. The token embedding keeps
// its gradients: each digit's row also gathers them where it is a random
// operand.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/tiny_gpt.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kLostNeeded = 0.05;         // of the twin's non-zero wpe gradient values, scaler off
constexpr std::int64_t kRowsNeeded = 400;    // whole wpe rows (row-steps) zero where the twin's are not
constexpr double kScaledLostAllowed = 1e-4;  // the same share with the dynamic scaler
constexpr double kTestLossApart = 0.05;      // the unscaled run's test loss from its twin's
// The token rows gather gradient wherever their digit is a random operand.
constexpr double kTokenLostAllowed = 0.005;
constexpr const char* kPosition = "position-embedding (wpe)";

// Over the steps it is shown, the FP32 twin's non-zero gradient values of
// one embedding table, and those the mixed run holds as zero; rows count
// when every non-zero value of the twin's row is a zero in the run.
class EmbeddingGradLoss {
public:
    using Table = const Parameter& (*)(const TinyGpt&);
    EmbeddingGradLoss(Backend& backend, Table table, std::int64_t from_step)
        : backend_(backend), table_(table), from_step_(from_step) {}

    void measure(const Trainer& trainer, const StepRecord& record) {
        if (record.step < from_step_ || record.skipped) return;  // a skipped step's gradients are Inf, not lost
        const auto* mixed = dynamic_cast<const TinyGpt*>(&trainer.network());
        const auto* twin = dynamic_cast<const TinyGpt*>(trainer.twin_network());
        if (!mixed || !twin) throw Error("scenario: the embedding check needs the GPT and its FP32 twin");
        const Tensor& run = table_(*mixed).master_grad;
        compare(download(run), download(table_(*twin).master_grad), run.cols());
    }
    double share() const { return nonzero_ > 0 ? static_cast<double>(lost_) / static_cast<double>(nonzero_) : 0.0; }
    std::int64_t lost() const { return lost_; }
    std::int64_t rows_lost() const { return rows_lost_; }
    std::int64_t rows() const { return rows_; }

private:
    std::vector<float> download(const Tensor& t) {
        std::vector<float> host(t.size());
        backend_.download(t, host.data());
        return host;
    }
    void compare(const std::vector<float>& run, const std::vector<float>& twin, int cols) {
        const auto width = static_cast<std::size_t>(cols);
        for (std::size_t row = 0; row * width < twin.size(); ++row) {
            std::int64_t nonzero = 0, lost = 0;
            for (std::size_t j = row * width; j < (row + 1) * width; ++j) {
                if (twin[j] == 0.0f) continue;
                ++nonzero;
                lost += run[j] == 0.0f;
            }
            nonzero_ += nonzero;
            lost_ += lost;
            rows_ += nonzero > 0;
            rows_lost_ += nonzero > 0 && lost == nonzero;
        }
    }

    Backend& backend_;
    Table table_;
    std::int64_t from_step_;
    std::int64_t nonzero_ = 0, lost_ = 0, rows_ = 0, rows_lost_ = 0;
};

const Parameter& position_table(const TinyGpt& gpt) { return gpt.position_embedding(); }
const Parameter& token_table(const TinyGpt& gpt) { return gpt.token_embedding(); }

struct MeasuredRun {
    EmbeddingGradLoss position, token;
    FinalTestLoss test_loss;
};

// The run with the meter on its second half.
MeasuredRun measured_run(Backend& backend, const RunConfig& config, const ScenarioProgress& progress, double begin,
                         double end, std::string what) {
    const std::int64_t from = config.steps / 2 + 1;
    MeasuredRun m{{backend, position_table, from}, {backend, token_table, from}, {}};
    RunToEndOptions options = run_options(progress, begin, end, std::move(what));
    options.after_step = [&m](const Trainer& t, const StepRecord& r) {
        m.position.measure(t, r);
        m.token.measure(t, r);
    };
    m.test_loss = final_test_loss(run_to_end(backend, config, options).records);
    return m;
}

std::string loss_text(const EmbeddingGradLoss& m, std::string_view table) {
    return percent_text(m.share(), 3) + " of the FP32 twin's non-zero " + std::string(table) + " gradient values (" +
           std::to_string(m.lost()) + ") are zeros in the FP16 run, " + std::to_string(m.rows_lost()) + " of " +
           std::to_string(m.rows()) + " row-steps whole";
}

std::string needs(const std::string& what) { return " (needs " + what + ")"; }

}  // namespace

ScenarioReport check_tiny_gpt_embedding_underflow(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tiny-gpt-embedding-underflow", {"telemetry.hist_every=0"});
    const MeasuredRun off = measured_run(backend, config, progress, 0, 0.5, "pure FP16, scaler off");
    const MeasuredRun dynamic =
        measured_run(backend, scenario_config(config.name, {"telemetry.hist_every=0", "scaler.kind=dynamic"}),
                     progress, 0.5, 1, "pure FP16, scaler.kind=dynamic");
    const std::string late = " over steps " + std::to_string(config.steps / 2 + 1) + "-" + std::to_string(config.steps);
    const EmbeddingGradLoss& wpe = off.position;
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        wpe.share() >= kLostNeeded && wpe.rows_lost() >= kRowsNeeded,
        "scaler off: " + loss_text(wpe, kPosition) + late +
            needs(">= " + percent_text(kLostNeeded, 0) + " and >= " + std::to_string(kRowsNeeded) + " rows")));
    report.verdicts.push_back(
        make_verdict(dynamic.position.share() <= kScaledLostAllowed,
                     "scaler.kind=dynamic: " + loss_text(dynamic.position, kPosition) + late +
                         needs("<= " + percent_text(kScaledLostAllowed, 3))));
    report.verdicts.push_back(make_verdict(
        off.token.share() <= kTokenLostAllowed && off.token.rows_lost() == 0,
        "scaler off: " + loss_text(off.token, "token-embedding (wte)") + late +
            needs("<= " + percent_text(kTokenLostAllowed, 1) + " and no row")));
    // What is lost is the last nudges of predictions already right: the loss does not suffer.
    report.verdicts.push_back(test_loss_near_twin("scaler off", off.test_loss, kTestLossApart));
    return report;
}

}  // namespace plab
