#include "ui/records/opened_record.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/amp/scaler_fields.h"
#include "engine/common/error.h"
#include "engine/telemetry/tensor_stats_bounds.h"
#include "engine/train/preset_io.h"
#include "ui/records/record_scaler.h"

namespace plab {

namespace {

using Json = nlohmann::json;

// A lab record's header holds its whole config; a PyTorch record's only what
// PyTorch knows (docs/probe.md), read over the lab's defaults.
RunConfig config_of(const RecordedRun& run, const std::string& file) {
    if (!run.source.empty()) {
        const Json recorded = Json::parse(run.config_json);
        Json known = Json::object();
        for (const char* key : {"scaler", "telemetry"})  // a PyTorch name need not be a preset name
            if (recorded.contains(key)) known[key] = recorded[key];
        RunConfig config = parse_run_config(known.dump(), file + " (its config)");
        config.twin = false;  // PyTorch trained no twin
        // GradScaler backs off at every overflow: a what-if that turns a
        // scaler on for a run without one starts from that, not the lab's default.
        config.scaler.hysteresis = 1;
        return config;
    }
    return parse_run_config(run.config_json, file + " (its config)");
}

Phase phase_named(const std::string& name) {
    for (Phase p : {Phase::forward, Phase::loss, Phase::backward, Phase::unscale, Phase::update})
        if (phase_name(p) == name) return p;
    return name == "optimizer" ? Phase::update : Phase::backward;  // the probe's word for the update
}

// The record's account of its first non-finite value, as a trace of that step.
std::optional<StepTrace> recorded_trace(const RecordedRun& run) {
    if (run.nans.empty()) return std::nullopt;
    const RecordedNan& n = run.nans.front();
    NanReport r;
    r.step = n.step;
    r.phase = phase_named(n.phase);
    r.layer = n.layer;
    r.op = n.op;
    r.format = parse_format(n.format).value_or(FormatId::fp32);
    r.nans = n.nans;
    r.infs = n.infs;
    r.loss_scale = n.scale;
    r.diagnosis = n.diagnosis;
    return StepTrace{n.step, r};
}

RunLogLimits record_limits() {
    RunLogLimits limits;
    limits.recent = kOpenedLayerSteps;
    return limits;
}

// Each samples line onto its step's record, as a live run's step carries
// them; a line whose step the record lacks stays in RecordedRun::samples only.
void attach_samples(RecordedRun& run) {
    for (const std::shared_ptr<const TextSamples>& s : run.samples) {
        const auto it = std::lower_bound(run.steps.begin(), run.steps.end(), s->step,
                                         [](const StepRecord& r, std::int64_t step) { return r.step < step; });
        if (it != run.steps.end() && it->step == s->step) it->samples = s;
    }
}

// The record's steps as a run's log. Their layers and histograms move into
// it: a moved-from StepRecord keeps its scalars, which is all that
// RecordedRun::steps is read for afterwards (the what-if's scale steps).
RunView recorded_view(RecordedRun& run, std::shared_ptr<const RunConfig> config) {
    attach_samples(run);
    RunLog log(record_limits());
    for (StepRecord& r : run.steps) log.append(std::move(r));
    const std::int64_t steps = run.steps.empty() ? 0 : run.steps.back().step;
    return RunView{std::move(config), steps, -1, log.view(), run.layer_names};
}

RunView replayed_view(const OpenedRecord& record, std::shared_ptr<const RunConfig> config) {
    const FormatBoundaries bounds = format_boundaries(record.grad_format);
    RunLog log(record_limits());
    for (const ReplayedStep& s : replay_scaler(record.scale_steps, config->scaler, bounds.overflow.value,
                                               bounds.overflow.inclusive)) {
        StepRecord r;
        r.step = s.step;
        r.loss = r.loss_ref = std::numeric_limits<float>::quiet_NaN();
        r.scale = s.event.scale_before;
        record_scaler_event(r, s.event);
        log.append(std::move(r));
    }
    const std::int64_t steps = record.run.steps.empty() ? 0 : record.run.steps.back().step;
    return RunView{std::move(config), steps, 0, log.view(), record.run.layer_names};
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
    return text;
}

}  // namespace

OpenedRecord open_record(const std::string& file, std::function<void(std::uint64_t bytes)> progress) {
    RunReadOptions read;
    read.layer_histograms = true;
    read.layers_kept = kOpenedLayerSteps;
    read.line_offsets = true;
    read.progress = std::move(progress);
    OpenedRecord record;
    record.file = file;
    record.run = read_run_file(file, read);
    record.config = config_of(record.run, file);
    record.recorded = recorded_view(record.run, std::make_shared<const RunConfig>(record.config));
    record.grad_format = recorded_gradient_format(record.run);
    try {
        recorded_scaler_config(record.run, file);
        record.scale_steps = recorded_scale_steps(record.run, file);
    } catch (const Error& e) {
        record.no_what_if = e.what();
    }
    return record;
}

std::shared_ptr<const StepRecord> histograms_at(const OpenedRecord& record, std::int64_t at) {
    const auto& hists = record.run.histogram_offsets;
    const auto h = std::upper_bound(hists.begin(), hists.end(), at,
                                    [](std::int64_t s, const auto& entry) { return s < entry.first; });
    if (h == hists.begin()) return nullptr;
    const std::int64_t step = std::prev(h)->first;
    const auto& steps = record.run.steps;
    const auto r = std::lower_bound(steps.begin(), steps.end(), step,
                                    [](const StepRecord& s, std::int64_t x) { return s.step < x; });
    if (r == steps.end() || r->step != step) return nullptr;
    return std::make_shared<const StepRecord>(read_step_again(record.file, record.run,
                                                              static_cast<std::size_t>(r - steps.begin()),
                                                              std::prev(h) - hists.begin()));
}

namespace {

// The record's settings with the what-if's scaler edits applied.
RunConfig what_if_config(const OpenedRecord& record, const std::vector<std::string>& what_if) {
    if (!record.no_what_if.empty()) throw Error(record.no_what_if);
    for (const std::string& edit : what_if)
        if (edit.rfind("scaler.", 0) != 0)
            throw Error("'" + edit + "': a recorded run replays only its loss scaler (scaler.* settings)");
    RunConfig replayed = record.config;
    apply_settings(replayed, what_if);
    return replayed;
}

}  // namespace

void require_read_what_if(const OpenedRecord& record, const std::vector<std::string>& what_if) {
    if (what_if.empty()) return;
    require_read_scaler_settings("--what-if", what_if, {what_if_config(record, what_if).scaler.kind});
}

std::shared_ptr<const SessionSnapshot> record_snapshot(const OpenedRecord& record,
                                                       const std::vector<std::string>& what_if) {
    auto snapshot = std::make_shared<SessionSnapshot>();
    snapshot->main = record.recorded;
    snapshot->step = snapshot->main.steps_done;
    snapshot->trace = recorded_trace(record.run);
    auto origin = std::make_shared<RecordOrigin>();
    origin->file = record.file;
    origin->source = record.run.source;
    origin->backend = record.run.backend;
    if (!what_if.empty()) {
        snapshot->fork = replayed_view(record, std::make_shared<const RunConfig>(what_if_config(record, what_if)));
        origin->replayed = joined(what_if);
    }
    snapshot->record = std::move(origin);
    return snapshot;
}

}  // namespace plab
