// A record opened in a workbench: its snapshot carries the recorded run as a
// live run's would, and a scaler what-if replays on it as the fork.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/error.h"
#include "error_text.h"
#include "ui/records/opened_record.h"
#include "written_run.h"
#include "temp_path.h"

namespace plab {
namespace {

std::string saved(const std::string& text, const std::string& name) {
    const std::filesystem::path path = plab::testing_support::temp_path("plab-opened-" + name, ".jsonl");
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

TEST(OpenedRecord, ShowsALabRecordAsTheSnapshotOfItsRun) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 80);
    const std::string file = saved(written.text, "lab");
    const OpenedRecord record = open_record(file);
    const auto s = record_snapshot(record);
    ASSERT_TRUE(s->record);
    EXPECT_EQ(s->record->file, file);
    EXPECT_TRUE(s->record->source.empty());
    EXPECT_TRUE(s->record->replayed.empty());
    EXPECT_FALSE(s->fork);
    EXPECT_EQ(s->step, 80);
    EXPECT_EQ(s->main.layer_names, written.header.layer_names);
    EXPECT_EQ(s->main.config->name, "scaler-sawtooth");
    RunTotals want;
    for (const StepRecord& r : written.steps) {
        want.overflows += r.found_inf;
        want.skipped += r.skipped;
        want.backoffs += r.backoff;
        want.growths += r.growth;
    }
    const RunTotals& got = s->main.log.totals;
    EXPECT_EQ(got.steps, 80);
    EXPECT_EQ(got.overflows, want.overflows);
    EXPECT_EQ(got.skipped, want.skipped);
    EXPECT_EQ(got.backoffs, want.backoffs);
    EXPECT_EQ(got.growths, want.growths);
    EXPECT_GT(want.backoffs, 0);
    const StepRecord* last = s->main.log.latest();
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->loss, written.steps.back().loss);
    EXPECT_EQ(last->layers.size(), written.header.layer_names.size());
}

// A what-if replays overflows against the format the record's gradients were
// held in: BF16 for both BF16 recipes, E5M2 for FP8's, else FP16.
TEST(OpenedRecord, TheGradientFormatIsTheRecipes) {
    const std::pair<const char*, FormatId> recipes[] = {{"amp-fp16", FormatId::fp16}, {"fp16-pure", FormatId::fp16},
                                                        {"amp-bf16", FormatId::bf16}, {"bf16-pure", FormatId::bf16},
                                                        {"fp8", FormatId::e5m2}};
    for (const auto& [recipe, format] : recipes) {
        const WrittenRun written = train_and_write("spirals-amp-fp16", 1, {std::string("precision.recipe=") + recipe});
        EXPECT_EQ(open_record(saved(written.text, recipe)).grad_format, format) << recipe;
    }
}

TEST(OpenedRecord, AWhatIfOfTheRecordsOwnSettingsIsItsTrajectory) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 80);
    const OpenedRecord record = open_record(saved(written.text, "own"));
    ASSERT_TRUE(record.no_what_if.empty()) << record.no_what_if;
    const std::string own = "scaler.growth_interval=" + std::to_string(record.config.scaler.growth_interval);
    const auto s = record_snapshot(record, {own});
    ASSERT_TRUE(s->fork);
    EXPECT_EQ(s->record->replayed, own);
    EXPECT_EQ(s->fork->forked_at, 0);
    ASSERT_EQ(s->fork->log.recent.size(), written.steps.size());
    for (std::size_t i = 0; i < written.steps.size(); ++i) {
        const StepRecord &p = *s->fork->log.recent[i], &r = written.steps[i];
        EXPECT_EQ(p.step, r.step);
        EXPECT_EQ(p.scale, r.scale) << "step " << r.step;
        EXPECT_EQ(p.scale_after, r.scale_after) << "step " << r.step;
        EXPECT_EQ(p.found_inf, r.found_inf) << "step " << r.step;
        EXPECT_EQ(p.skipped, r.skipped) << "step " << r.step;
        EXPECT_EQ(p.backoff, r.backoff) << "step " << r.step;
        EXPECT_EQ(p.growth, r.growth) << "step " << r.step;
        EXPECT_TRUE(std::isnan(p.loss));  // a replay knows no loss
    }
}

TEST(OpenedRecord, AWhatIfStartsFromItsOwnScale) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 40);
    const OpenedRecord record = open_record(saved(written.text, "lower"));
    const auto s = record_snapshot(record, {"scaler.init_scale=1", "scaler.growth_interval=1000"});
    ASSERT_TRUE(s->fork);
    // At scale 1 nothing the scale explains overflows, and with growth every
    // 1000 steps the scale never moves in 40.
    for (const auto& r : s->fork->log.recent) {
        EXPECT_EQ(r->scale, 1.0f) << "step " << r->step;
        EXPECT_FALSE(r->found_inf) << "step " << r->step;
    }
    EXPECT_EQ(s->record->replayed, "scaler.init_scale=1, scaler.growth_interval=1000");
}

TEST(OpenedRecord, AWhatIfOutsideTheScalerOrOutOfRangeIsRefusedByName) {
    const WrittenRun written = train_and_write("spirals-amp-fp16", 5);
    const OpenedRecord record = open_record(saved(written.text, "bad"));
    EXPECT_EQ(testing_support::error_of([&] { record_snapshot(record, {"model.hidden=[3]"}); }),
              "'model.hidden=[3]': a recorded run replays only its loss scaler (scaler.* settings)");
    const std::string bad = testing_support::error_of([&] { record_snapshot(record, {"scaler.growth_interval=0"}); });
    EXPECT_NE(bad.find("scaler.growth_interval"), std::string::npos) << bad;
}

TEST(OpenedRecord, ACommandLineWhatIfTheKindIgnoresIsRefusedThePanelsOneIsDrawn) {
    const WrittenRun written = train_and_write("spirals-bf16", 5);  // no scaler
    const OpenedRecord record = open_record(saved(written.text, "no-scaler"));
    const std::vector<std::string> ignored{"scaler.init_scale=1024"};
    EXPECT_EQ(testing_support::error_of([&] { require_read_what_if(record, ignored); }),
              "--what-if scaler.init_scale=1024: changes nothing: init_scale is read by the static, dynamic and "
              "hysteresis scalers, and this run's scaler kind is none; set a kind that reads it too, e.g. --what-if "
              "scaler.kind=dynamic");
    EXPECT_EQ(testing_support::error_of([&] { require_read_what_if(record, {"model.hidden=[3]"}); }),
              "'model.hidden=[3]': a recorded run replays only its loss scaler (scaler.* settings)");
    EXPECT_EQ(testing_support::error_of([&] { require_read_what_if(record, {"scaler.kind=static", "scaler.init_scale=2"}); }),
              "(no error)");
    // A panel's edits may leave a setting behind while a person tries kinds: drawn, not refused.
    const auto s = record_snapshot(record, {"scaler.kind=none", "scaler.init_scale=1024"});
    ASSERT_TRUE(s->fork);
    EXPECT_EQ(s->fork->log.latest()->scale, 1.0f);
}

bool same_histogram(const Log2Histogram& a, const Log2Histogram& b) {
    return a.bins == b.bins && a.zeros == b.zeros && a.nans == b.nans && a.pos_infs == b.pos_infs &&
           a.neg_infs == b.neg_infs;
}

TEST(OpenedRecord, AnOlderStepsHistogramsAreReadAgainFromTheFile) {
    const int steps = static_cast<int>(kOpenedLayerSteps) + 80;
    const WrittenRun written = train_and_write("spirals-amp-fp16", steps);
    const OpenedRecord record = open_record(saved(written.text, "older"));
    const auto s = record_snapshot(record);
    EXPECT_EQ(s->main.log.recent.front()->step, 81);  // the newest 1024 steps hold their layers
    const int every = record.config.telemetry.hist_every;
    ASSERT_GT(every, 1);
    EXPECT_EQ(histograms_at(record, every - 1), nullptr);  // none taken before the first
    const std::int64_t asked = 5 * every + 3, taken = 5 * every;
    const auto older = histograms_at(record, asked);
    ASSERT_NE(older, nullptr);
    const StepRecord& want = written.steps[static_cast<std::size_t>(taken - 1)];
    EXPECT_EQ(older->step, taken);
    EXPECT_EQ(older->scale, want.scale);
    ASSERT_EQ(older->layers.size(), want.layers.size());
    for (std::size_t l = 0; l < want.layers.size(); ++l) {
        EXPECT_EQ(older->layers[l].grad.amax, want.layers[l].grad.amax) << "layer " << l;
        EXPECT_EQ(older->layers[l].weight.count, want.layers[l].weight.count);
        EXPECT_EQ(older->layers[l].grad.ranges[0].underflow, want.layers[l].grad.ranges[0].underflow);
    }
    ASSERT_TRUE(older->histograms && want.histograms);
    for (std::size_t l = 0; l < want.histograms->size(); ++l) {
        EXPECT_TRUE(same_histogram((*older->histograms)[l].grad, (*want.histograms)[l].grad)) << "layer " << l;
        EXPECT_TRUE(same_histogram((*older->histograms)[l].act, (*want.histograms)[l].act)) << "layer " << l;
    }
}

// A PyTorch record: its header's layer names, its nan line as the step's trace.
const char* kProbeRecord =
    R"J({"type":"run","version":1,"backend":"PyTorch 2.4.0 (cuda)","config":{"name":"GPT","description":"a PyTorch run recorded by plab_probe","scaler":{"kind":"dynamic","init_scale":65536,"growth_factor":2,"backoff_factor":0.5,"growth_interval":2000,"hysteresis":1},"telemetry":{"enabled":true,"hist_every":10}},"layers":[{"name":"blocks.0.fc","shape":"64x32"},{"name":"head","shape":"10x64"}],"histogram":{"low_log2":-64,"bins_per_binade":4,"bins":384},"source":{"probe":"0.1.0","torch":"2.4.0","rank":0,"world_size":1}})J"
    "\n"
    R"J({"type":"step","step":1,"loss":2.5,"scale":65536,"scale_after":32768,"growth_tracker":0,"found_inf":true,"skipped":true,"backoff":true,"growth":false,"first_nonfinite_layer":1,"grad_norm":"inf","layers":[{"name":"blocks.0.fc","grad_unscaled":{"amax":0.25}},{"name":"head","grad_unscaled":{"amax":1.5}}]})J"
    "\n"
    R"J({"type":"nan","step":1,"phase":"backward","layer":"head","op":"linear","tensor":"input_grad","format":"fp16","nans":0,"infs":12,"scale":65536,"diagnosis":"step 1, backward: head (linear) input gradient holds 0 NaN and 12 Inf"})J"
    "\n";

TEST(OpenedRecord, ShowsAPyTorchRecordWithItsLayerNamesAndNanLine) {
    const OpenedRecord record = open_record(saved(kProbeRecord, "probe"));
    const auto s = record_snapshot(record);
    EXPECT_EQ(s->record->source, "plab_probe 0.1.0, torch 2.4.0");
    EXPECT_EQ(s->record->backend, "PyTorch 2.4.0 (cuda)");
    EXPECT_EQ(s->main.layer_names, (std::vector<std::string>{"blocks.0.fc", "head"}));
    EXPECT_EQ(s->main.config->scaler.init_scale, 65536.0f);
    EXPECT_EQ(s->main.config->scaler.growth_interval, 2000);
    EXPECT_EQ(s->main.log.totals.first_nonfinite_step, 1);
    ASSERT_TRUE(s->trace);
    ASSERT_TRUE(s->trace->first_nonfinite);
    const NanReport& r = *s->trace->first_nonfinite;
    EXPECT_EQ(r.step, 1);
    EXPECT_EQ(r.phase, Phase::backward);
    EXPECT_EQ(r.layer, "head");
    EXPECT_EQ(r.format, FormatId::fp16);
    EXPECT_EQ(r.infs, 12);
    // Its overflow at 65536 recurs at any larger scale, and the amax (1.5)
    // times 32768 stays below FP16's 65520: the what-if at 2^15 is clean.
    const auto w = record_snapshot(record, {"scaler.init_scale=32768"});
    ASSERT_TRUE(w->fork);
    EXPECT_FALSE(w->fork->log.recent.front()->found_inf);
    const auto high = record_snapshot(record, {"scaler.init_scale=131072"});
    EXPECT_TRUE(high->fork->log.recent.front()->found_inf);
}

}  // namespace
}  // namespace plab
