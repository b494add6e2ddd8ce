// plab replay FILE --set scaler.KEY=VALUE...: the loss scaler replayed on a
// recorded run (the lab's own or a PyTorch run plab_probe recorded) under
// other settings (engine/amp/scaler_replay.h), its predicted trajectory
// written as step records and summed up beside the recorded one.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/amp/scaler_fields.h"
#include "engine/amp/scaler_replay.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/telemetry/tensor_stats_bounds.h"
#include "engine/train/preset_io.h"
#include "ui/cli/commands.h"
#include "ui/records/json_line.h"
#include "ui/records/output_file.h"
#include "ui/present/scaler_snippet.h"
#include "ui/records/record_scaler.h"
#include "ui/records/run_reader.h"

namespace plab {

namespace {

constexpr const char* kGradFormats = "auto|fp16|bf16|e4m3|e5m2";

// The format the record's gradients are held in, unless --grad-format says otherwise.
FormatId gradient_format(const RecordedRun& run, const std::string& choice) {
    if (choice == "auto") return recorded_gradient_format(run);
    const std::optional<FormatId> f = parse_format(choice);
    if (!f || (*f != FormatId::fp16 && *f != FormatId::bf16 && *f != FormatId::e4m3 && *f != FormatId::e5m2))
        throw Error("--grad-format: '" + choice + "' is not a gradient format; allowed: " + kGradFormats);
    return *f;
}

void check_settings(const std::vector<std::string>& settings) {
    for (const std::string& s : settings)
        if (s.rfind("scaler.", 0) != 0)
            throw Error("--set: '" + s +
                        "' is not a scaler setting; plab replay changes scaler.kind, scaler.init_scale, "
                        "scaler.growth_factor, scaler.backoff_factor, scaler.growth_interval, scaler.hysteresis, "
                        "scaler.min_scale, scaler.max_scale");
}

struct Counts {
    std::int64_t overflows = 0, skipped = 0, backoffs = 0, growths = 0, unscaled = 0;
    float final_scale = 1;
    void add(bool found_inf, bool skipped_step, bool backoff, bool growth, float scale_after) {
        overflows += found_inf;
        skipped += skipped_step;
        backoffs += backoff;
        growths += growth;
        final_scale = scale_after;
    }
    std::string text() const {
        return "loss scale " + power_of_two_text(final_scale) + " at the end, " + std::to_string(overflows) +
               " overflows, " + std::to_string(skipped) + " skipped steps, " + std::to_string(backoffs) +
               " backoffs, " + std::to_string(growths) + " growths";
    }
};

// "2^16 x 120, 2^15 x 880": the steps at each scale, largest scale first;
// past kScalesShown scales, the ones with the most steps and the rest summed.
std::string scales_text(const std::vector<ReplayedStep>& steps) {
    constexpr std::size_t kScalesShown = 10;
    std::map<float, std::int64_t, std::greater<>> at;
    for (const ReplayedStep& s : steps) ++at[s.event.scale_before];
    std::vector<std::pair<std::int64_t, float>> by_steps;  // (steps, scale), the most steps first
    for (const auto& [scale, n] : at) by_steps.push_back({n, scale});
    std::stable_sort(by_steps.begin(), by_steps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (by_steps.size() > kScalesShown) by_steps.resize(kScalesShown);
    std::string text;
    std::size_t other_scales = 0;
    std::int64_t other_steps = 0;
    for (const auto& [scale, n] : at) {
        const bool shown = std::any_of(by_steps.begin(), by_steps.end(), [&](const auto& e) { return e.second == scale; });
        if (shown) {
            text += (text.empty() ? "" : ", ") + power_of_two_text(scale) + " x " + std::to_string(n);
        } else {
            ++other_scales;
            other_steps += n;
        }
    }
    if (other_scales)
        text += ", and " + std::to_string(other_steps) + " steps at " + std::to_string(other_scales) + " other scales";
    return text;
}

std::string percent_text(double share) { return significant_text(100.0 * share, 3) + "%"; }

// The flush and subnormal shares of the record's gradient histograms, each
// at the scale its step ran with (`scale_at`), averaged over the histogram
// steps (none: the record has no histograms).
struct AveragedShares {
    double flush = 0;
    double subnormal = 0;
    int steps = 0;
};

AveragedShares mean_flush_shares(const RecordedRun& run, const std::map<std::int64_t, float>& scale_at,
                                 const FormatBoundaries& bounds) {
    AveragedShares mean;
    for (const auto& [step, hist] : run.gradient_histograms) {
        const auto it = scale_at.find(step);
        if (it == scale_at.end()) continue;
        const FlushShares f = scaled_flush_shares(hist, it->second, bounds.nonzero.value, bounds.normal.value);
        mean.flush += f.flush;
        mean.subnormal += f.subnormal;
        ++mean.steps;
    }
    if (mean.steps > 0) {
        mean.flush /= mean.steps;
        mean.subnormal /= mean.steps;
    }
    return mean;
}

std::map<std::int64_t, float> predicted_scales(const std::vector<ReplayedStep>& steps) {
    std::map<std::int64_t, float> at;
    for (const ReplayedStep& s : steps) at[s.step] = s.event.scale_before;
    return at;
}

// The shares of gradient values that flush to zero and land subnormal at
// the recorded and at the predicted scales; empty without histograms.
std::string flush_text(const RecordedRun& run, const std::vector<ReplayedStep>& steps, const FormatBoundaries& bounds,
                       FormatId grad) {
    std::map<std::int64_t, float> recorded;
    for (const StepRecord& r : run.steps) recorded[r.step] = r.scale;
    const AveragedShares was = mean_flush_shares(run, recorded, bounds);
    const AveragedShares will = mean_flush_shares(run, predicted_scales(steps), bounds);
    if (will.steps == 0) return "";
    return "  gradient values flushed to zero / subnormal in " + std::string(format_name(grad)) + ", over " +
           std::to_string(will.steps) + " histogram steps: recorded " + percent_text(was.flush) + " / " +
           percent_text(was.subnormal) + ", predicted " + percent_text(will.flush) + " / " +
           percent_text(will.subnormal) + "\n";
}

// The header names the candidate's scaler settings as a preset writes them.
void write_records(std::ostream& out, const std::string& file, const RunConfig& candidate, FormatId grad,
                   const std::vector<ReplayedStep>& steps) {
    std::string buffer;
    {
        JsonLine j(buffer);
        j.string("type", "replay").integer("version", 1).string("record", file).string("grad_format", format_name(grad));
        j.raw("scaler", nlohmann::ordered_json::parse(run_config_to_json(candidate, false))["scaler"].dump());
    }
    for (const ReplayedStep& s : steps) {
        JsonLine j(buffer);
        j.string("type", "step").integer("step", s.step).number("scale", s.event.scale_before)
            .number("scale_after", s.event.scale_after).integer("growth_tracker", s.event.growth_tracker_after)
            .boolean("found_inf", s.event.found_inf).boolean("skipped", s.event.skipped)
            .boolean("backoff", s.event.backoff).boolean("growth", s.event.growth);
        if (s.overflow != OverflowKind::none) j.string("overflow", overflow_kind_name(s.overflow));
    }
    out << buffer;
}

// One grid point of --search, replayed.
struct Candidate {
    ScalerConfig config;
    std::vector<ReplayedStep> steps;
    double skipped = 0;  // share of steps
    double lost = 0;     // share of gradient values flushed or subnormal, over the histogram steps
    double mean_log2_scale = 0;
};

// GradScaler's settings over a grid (init_scale 2^0..2^24, growth_interval
// 50..5000, the record's factors), each replayed; the proposal loses the
// fewest gradient values to the format's low end (flush or subnormal, from
// the histograms; without them, the highest mean scale) among those that skip
// at most max_skipped_percent of the steps.
std::string search(const RecordedRun& run, const std::vector<RecordedScaleStep>& recorded, const ScalerConfig& base,
                   const FormatBoundaries& bounds, double max_skipped_percent, ScalerConfig& best_config) {
    std::vector<Candidate> fit;
    for (int k = 0; k <= 24; ++k) {
        for (int interval : {50, 100, 200, 500, 1000, 2000, 5000}) {
            Candidate c;
            c.config = base;
            c.config.kind = ScalerKind::dynamic;
            c.config.init_scale = std::ldexp(1.0f, k);
            c.config.growth_interval = interval;
            c.steps = replay_scaler(recorded, c.config, bounds.overflow.value, bounds.overflow.inclusive);
            std::int64_t skipped = 0;
            for (const ReplayedStep& s : c.steps) {
                skipped += s.event.skipped;
                c.mean_log2_scale += s.event.scale_before > 0 ? std::log2(s.event.scale_before) : -150.0;
            }
            c.skipped = static_cast<double>(skipped) / static_cast<double>(c.steps.size());
            c.mean_log2_scale /= static_cast<double>(c.steps.size());
            if (100.0 * c.skipped > max_skipped_percent) continue;
            const AveragedShares lost = mean_flush_shares(run, predicted_scales(c.steps), bounds);
            c.lost = lost.flush + lost.subnormal;
            fit.push_back(std::move(c));
        }
    }
    if (fit.empty())
        throw Error("--max-skipped: no setting of the grid skips at most " + significant_text(max_skipped_percent, 3) +
                    "% of the steps; allow more (--max-skipped PERCENT)");
    const bool by_histograms = !run.gradient_histograms.empty();
    std::stable_sort(fit.begin(), fit.end(), [&](const Candidate& a, const Candidate& b) {
        if (by_histograms && a.lost != b.lost) return a.lost < b.lost;
        if (a.mean_log2_scale != b.mean_log2_scale) return a.mean_log2_scale > b.mean_log2_scale;
        return a.skipped < b.skipped;
    });
    best_config = fit.front().config;
    std::string text = "  the grid: init_scale 2^0..2^24 x growth_interval 50..5000 (growth " +
                       shortest_text(base.growth_factor) + ", backoff " + shortest_text(base.backoff_factor) +
                       "), " + std::to_string(fit.size()) + " of 175 skip at most " +
                       significant_text(max_skipped_percent, 3) + "% of the steps; the best of them, " +
                       (by_histograms ? "fewest gradient values flushed or subnormal first"
                                      : "highest mean scale first (the record has no histograms)") + ":\n";
    for (std::size_t i = 0; i < fit.size() && i < 5; ++i) {
        const Candidate& c = fit[i];
        text += "    init_scale " + power_of_two_text(c.config.init_scale) + ", growth_interval " +
                std::to_string(c.config.growth_interval) + ": skips " + percent_text(c.skipped) +
                (by_histograms ? ", loses " + percent_text(c.lost) : std::string()) + ", mean scale 2^" +
                significant_text(c.mean_log2_scale, 3) + "\n";
    }
    const ScalerSnippet torch = pytorch_grad_scaler(best_config), deepspeed = deepspeed_fp16_block(best_config);
    text += "  proposal, for PyTorch:\n" + torch.code + (torch.note.empty() ? "" : "# " + torch.note + "\n");
    text += "  and as a DeepSpeed \"fp16\" block:\n" + deepspeed.code + "\n" +
            (deepspeed.note.empty() ? "" : "  (" + deepspeed.note + ")\n");
    return text;
}

}  // namespace

int run_replay(const ReplayOptions& o, std::ostream& records, std::ostream& log) {
    check_settings(o.settings);
    std::optional<OutputFile> out_file;
    if (!o.out.empty()) out_file.emplace(o.out);
    RunReadOptions read;
    read.layers = false;  // the gradient amax of each step is read all the same
    read.gradient_histograms = true;
    const RecordedRun run = read_run_file(o.file, read);
    for (const std::string& w : run.warnings) log << "plab: " << w << '\n';
    if (run.steps.empty()) throw Error(o.file + ": a run record without steps: nothing to replay");
    RunConfig config;
    config.scaler = recorded_scaler_config(run, o.file);
    const ScalerConfig recorded = config.scaler;
    apply_settings(config, o.settings);
    require_read_scaler_settings("--set", o.settings, {config.scaler.kind});
    const FormatId grad = gradient_format(run, o.grad_format);
    const FormatBoundaries bounds = format_boundaries(grad);
    const RangeBoundary overflow = bounds.overflow;
    const std::vector<RecordedScaleStep> recorded_scale = recorded_scale_steps(run, o.file);
    std::string proposal;
    if (o.search) {
        if (!o.settings.empty()) throw Error("--search: proposes the settings itself; leave out --set");
        proposal = search(run, recorded_scale, config.scaler, bounds, o.max_skipped_percent, config.scaler);
    }
    const std::vector<ReplayedStep> steps =
        replay_scaler(recorded_scale, config.scaler, overflow.value, overflow.inclusive);
    write_records(out_file ? out_file->stream() : records, o.file, config, grad, steps);
    if (out_file) out_file->commit();

    Counts was, will;
    for (const StepRecord& r : run.steps) was.add(r.found_inf, r.skipped, r.backoff, r.growth, r.scale_after);
    for (const ReplayedStep& s : steps) {
        will.add(s.event.found_inf, s.event.skipped, s.event.backoff, s.event.growth, s.event.scale_after);
        will.unscaled += s.overflow == OverflowKind::unscaled;
    }
    std::string changes;
    for (const std::string& s : o.settings) changes += (changes.empty() ? "" : " ") + s;
    if (o.search)
        changes = "the proposal, init_scale=" + shortest_text(config.scaler.init_scale) +
                  " growth_interval=" + std::to_string(config.scaler.growth_interval);
    log << (run.name.empty() ? "run" : run.name) << ": " << steps.size() << " steps replayed in "
        << format_name(grad) << " gradients under "
        << (changes.empty() || config.scaler == recorded ? "the record's own scaler settings" : changes) << '\n'
        << "  recorded:  " << was.text() << '\n'
        << "  predicted: " << will.text() << " (" << will.overflows - will.unscaled << " from the scale, "
        << will.unscaled << " not explained by it)\n"
        << "  steps at each predicted scale: " << scales_text(steps) << '\n'
        << flush_text(run, steps, bounds, grad) << proposal
        << "  records: " << (o.out.empty() ? "standard output" : o.out) << '\n';
    return 0;
}

void add_replay_command(CLI::App& app) {
    auto options = std::make_shared<ReplayOptions>();
    CLI::App* cmd = app.add_subcommand("replay", "Replay a run's loss scaler under other GradScaler settings");
    cmd->description(
        "Replay a run's loss scaler under other GradScaler settings.\n"
        "Reads a run record (plab run --out, File > Export run, or a PyTorch run that plab_probe recorded:\n"
        "docs/probe.md) and replays the scaler rule on its recorded gradients: a step overflows under a\n"
        "candidate scale when its unscaled gradient amax times that scale reaches the gradient format's\n"
        "overflow threshold (or the record overflowed at a scale no larger), or when the record saw NaN/Inf\n"
        "that the scale does not explain (a forward-pass NaN, an overflow at scale 1). Writes the predicted\n"
        "trajectory as JSON Lines step records (plab run's field names, plus \"overflow\": \"scale\" or\n"
        "\"unscaled\") and prints it beside the recorded one. Replaying the record's own settings gives its\n"
        "own trajectory.\n"
        "\n"
        "Examples:\n"
        "  plab replay run.jsonl --set scaler.init_scale=1024 --out replay.jsonl\n"
        "  plab replay run.jsonl --set scaler.growth_interval=200 --set scaler.backoff_factor=0.25\n"
        "  plab replay run.jsonl --search --max-skipped 0.5    proposes settings, with the code to paste\n"
        "Exit codes: 0 done; 2 bad input (the message names the field or the record's line); 4 the records\n"
        "could not be written.");
    cmd->add_option("FILE", options->file, "The run record (JSON Lines)")->required();
    cmd->add_option("--set", options->settings, "A scaler setting to change, KEY=VALUE (scaler.init_scale=1024); repeatable");
    cmd->add_option("--grad-format", options->grad_format,
                    std::string("The gradients' format: ") + kGradFormats +
                        " (auto: the record's recipe; FP16 for a PyTorch record)")
        ->default_str("auto");
    cmd->add_option("--out", options->out, "Write the predicted records to FILE (default: standard output)");
    cmd->add_flag("--search", options->search,
                  "Propose settings: a grid of init_scale and growth_interval replayed, the proposal the one that "
                  "loses the fewest gradient values to underflow within --max-skipped, as a GradScaler call and a "
                  "DeepSpeed \"fp16\" block; its trajectory is what gets written");
    cmd->add_option("--max-skipped", options->max_skipped_percent,
                    "With --search: the most steps a proposal may skip, in percent (0..100)")
        ->default_str("1")
        ->check(CLI::Range(0.0, 100.0));
    cmd->callback([options] { run_replay(*options, std::cout, std::cerr); });
}

}  // namespace plab
