// A run record read back: what the writer wrote comes back bit for bit,
// PyTorch records (plab_probe's variant) read, and every kind of bad record
// is refused with its line and field named, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "error_text.h"
#include "step_fields_text.h"
#include "written_run.h"
#include "ui/cli/commands.h"
#include "ui/present/step_fields.h"
#include "ui/records/fast_lines.h"
#include "ui/records/opened_record.h"
#include "ui/records/run_reader.h"
#include "ui/records/run_writer.h"

namespace plab {
namespace {

bool same_histogram(const Log2Histogram& a, const Log2Histogram& b);

// The six histograms of two layers, bin for bin.
bool same_layer_histograms(const LayerHistograms& a, const LayerHistograms& b) {
    return same_histogram(a.weight, b.weight) && same_histogram(a.grad, b.grad) &&
           same_histogram(a.grad_unscaled, b.grad_unscaled) && same_histogram(a.act, b.act) &&
           same_histogram(a.act_grad, b.act_grad) && same_histogram(a.act_grad_unscaled, b.act_grad_unscaled);
}

// Two twin views, or their absence: every histogram bin for bin, every statistic as the step walk writes it.
std::string twin_view_difference(const std::shared_ptr<const TwinView>& a, const std::shared_ptr<const TwinView>& b,
                                 const std::vector<std::string>& layer_names) {
    if ((a == nullptr) != (b == nullptr)) return a ? "only the first has a twin view" : "only the second has a twin view";
    if (!a) return "";
    if (a->histograms.size() != b->histograms.size()) return "layer counts differ";
    for (std::size_t l = 0; l < a->histograms.size(); ++l)
        if (!same_layer_histograms(a->histograms[l], b->histograms[l])) return "histograms of layer " + std::to_string(l);
    StepRecord x, y;
    x.layers = a->layers;
    y.layers = b->layers;
    return fields_of(x, layer_names, false) == fields_of(y, layer_names, false) ? "" : "statistics differ";
}

RecordedRun read_text(const std::string& text, RunReadOptions options = {}) {
    std::istringstream in(text);
    return read_run(in, "run.jsonl", options);
}

std::string error_of(const std::string& text) {
    return testing_support::error_of([&] { read_text(text); });
}

TEST(RunReader, ReadsBackEveryFieldOfEveryStepBitForBit) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 60);
    const RecordedRun run = read_text(written.text);
    EXPECT_EQ(run.version, 1);
    EXPECT_EQ(run.backend, written.header.backend);
    EXPECT_EQ(run.name, "scaler-sawtooth");
    EXPECT_EQ(run.twin, written.header.twin);
    EXPECT_EQ(run.layer_names, written.header.layer_names);
    EXPECT_EQ(run.layer_shapes, written.header.layer_shapes);
    EXPECT_TRUE(run.source.empty());
    EXPECT_TRUE(run.warnings.empty());
    ASSERT_EQ(run.steps.size(), written.steps.size());
    std::int64_t events = 0, hist_steps = 0;
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        const std::vector<std::string> read = fields_of(run.steps[i], run.layer_names, run.twin);
        const std::vector<std::string> wrote = fields_of(written.steps[i], run.layer_names, run.twin);
        ASSERT_EQ(read.size(), wrote.size()) << "step " << i + 1;
        for (std::size_t k = 0; k < read.size(); ++k) ASSERT_EQ(read[k], wrote[k]) << "step " << i + 1;
        events += written.steps[i].backoff + written.steps[i].growth;
        hist_steps += written.steps[i].histograms != nullptr;
    }
    EXPECT_GT(events, 0) << "the run should exercise the scaler's events";
    EXPECT_EQ(run.histogram_lines, hist_steps);
    EXPECT_TRUE(run.gradient_histograms.empty());  // not asked for
}

TEST(RunReader, SumsEachHistogramLinesGradientHistogramsOverLayers) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 30);
    RunReadOptions options;
    options.gradient_histograms = true;
    const RecordedRun run = read_text(written.text, options);
    std::size_t k = 0;
    for (const StepRecord& r : written.steps) {
        if (!r.histograms) continue;
        ASSERT_LT(k, run.gradient_histograms.size());
        Log2Histogram sum;
        for (const LayerHistograms& layer : *r.histograms) {
            for (int i = 0; i < Log2Histogram::kBins; ++i) sum.bins[i] += layer.grad_unscaled.bins[i];
            sum.zeros += layer.grad_unscaled.zeros;
            sum.nans += layer.grad_unscaled.nans;
        }
        EXPECT_EQ(run.gradient_histograms[k].first, r.step);
        EXPECT_EQ(run.gradient_histograms[k].second.bins, sum.bins) << "step " << r.step;
        EXPECT_EQ(run.gradient_histograms[k].second.zeros, sum.zeros);
        EXPECT_EQ(run.gradient_histograms[k].second.nans, sum.nans);
        ++k;
    }
    EXPECT_EQ(k, run.gradient_histograms.size());
    EXPECT_GT(k, 0u);
}

bool same_histogram(const Log2Histogram& a, const Log2Histogram& b) {
    return a.bins == b.bins && a.zeros == b.zeros && a.nans == b.nans && a.pos_infs == b.pos_infs &&
           a.neg_infs == b.neg_infs;
}

TEST(RunReader, PutsEveryLayersHistogramsOnTheirStepBinForBin) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 30);
    RunReadOptions options;
    options.layer_histograms = true;
    const RecordedRun run = read_text(written.text, options);
    ASSERT_EQ(run.steps.size(), written.steps.size());
    int hist_steps = 0;
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        const auto& wrote = written.steps[i].histograms;
        const auto& read = run.steps[i].histograms;
        ASSERT_EQ(read != nullptr, wrote != nullptr) << "step " << i + 1;
        if (!wrote) continue;
        ++hist_steps;
        ASSERT_EQ(read->size(), wrote->size());
        for (std::size_t l = 0; l < read->size(); ++l) {
            const LayerHistograms &r = (*read)[l], &w = (*wrote)[l];
            EXPECT_TRUE(same_histogram(r.weight, w.weight)) << "step " << i + 1 << " layer " << l;
            EXPECT_TRUE(same_histogram(r.grad, w.grad));
            EXPECT_TRUE(same_histogram(r.grad_unscaled, w.grad_unscaled));
            EXPECT_TRUE(same_histogram(r.act, w.act));
            EXPECT_TRUE(same_histogram(r.act_grad, w.act_grad));
            EXPECT_TRUE(same_histogram(r.act_grad_unscaled, w.act_grad_unscaled));
        }
    }
    EXPECT_GT(hist_steps, 1);
}

// The twin's statistics and histograms ride in the hist lines ("twin" in
// each layer) and come back onto their steps as they were; a run without a
// twin writes none.
TEST(RunReader, PutsTheTwinsViewOnItsStepBinForBin) {
    const WrittenRun written = train_and_write("underflow-no-scaling", 20);
    ASSERT_TRUE(written.header.twin);
    RunReadOptions options;
    options.layer_histograms = true;
    const RecordedRun run = read_text(written.text, options);
    int twin_steps = 0;
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        ASSERT_EQ(twin_view_difference(run.steps[i].twin_view, written.steps[i].twin_view, run.layer_names), "")
            << "step " << i + 1;
        twin_steps += written.steps[i].twin_view != nullptr;
    }
    EXPECT_EQ(twin_steps, 2);  // histograms every 10 steps
    const WrittenRun alone = train_and_write("underflow-no-scaling", 10, {"twin=false"});
    EXPECT_EQ(alone.text.find("\"twin\":{"), std::string::npos);
    EXPECT_EQ(read_text(alone.text, options).steps.back().twin_view, nullptr);
}

TEST(RunReader, ATwinInSomeLayersOnlyIsNamed) {
    const WrittenRun written = train_and_write("underflow-no-scaling", 10);
    std::string text = written.text;
    const std::size_t hist = text.find("{\"type\":\"hist\"");
    ASSERT_NE(hist, std::string::npos);
    const std::size_t twin = text.find(",\"twin\":{", hist);
    ASSERT_NE(twin, std::string::npos);
    // The first layer's twin object cut out: its end is the matching brace.
    std::size_t end = twin + 9, depth = 1;
    for (; depth > 0; ++end) depth += text[end] == '{' ? 1 : text[end] == '}' ? -1 : 0;
    text.erase(twin, end - twin);
    RunReadOptions careful;
    careful.layer_histograms = careful.careful_only = true;
    const std::string error = testing_support::error_of([&] { read_text(text, careful); });
    EXPECT_NE(error.find("layers[1].twin: present, while layers[0] has none"), std::string::npos) << error;
    RunReadOptions fast;
    fast.layer_histograms = true;
    EXPECT_EQ(testing_support::error_of([&] { read_text(text, fast); }), error);  // the fast way leaves it to the careful one
}

TEST(RunReader, KeepsLayersAndHistogramsOfTheNewestStepsOnly) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 30);
    RunReadOptions options;
    options.layer_histograms = true;
    options.layers_kept = 12;
    const RecordedRun run = read_text(written.text, options);
    const RecordedRun whole = read_text(written.text);
    ASSERT_EQ(run.steps.size(), 30u);
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        const bool kept = i >= 18;
        EXPECT_EQ(run.steps[i].layers.empty(), !kept) << "step " << i + 1;
        const bool has_histograms = run.steps[i].histograms != nullptr;
        EXPECT_EQ(has_histograms, kept && written.steps[i].histograms != nullptr) << "step " << i + 1;
        EXPECT_EQ(bits(run.steps[i].scale), bits(written.steps[i].scale));  // every step keeps its scalars
        EXPECT_EQ(bits(run.grad_amax[i]), bits(whole.grad_amax[i]));  // read before the layers go
    }
}

TEST(RunReader, WithoutLayersKeepsTheStepFieldsAndReportsProgress) {
    const WrittenRun written = train_and_write("spirals-amp-fp16", 20);
    std::vector<std::uint64_t> progress;
    const RecordedRun run = read_text(written.text, {.layers = false, .progress = [&](std::uint64_t b) {
                                                          progress.push_back(b);
                                                      }});
    ASSERT_EQ(run.steps.size(), 20u);
    EXPECT_TRUE(run.steps.back().layers.empty());
    EXPECT_EQ(bits(run.steps.back().loss), bits(written.steps.back().loss));
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), written.text.size());
}

TEST(RunReader, ACutOffLastLineIsSkippedWithAWarning) {
    const WrittenRun written = train_and_write("spirals-amp-fp16", 5);
    const std::string cut = written.text.substr(0, written.text.size() - 40);  // the last line, half written
    const RecordedRun run = read_text(cut);
    EXPECT_EQ(run.steps.size(), 4u);
    ASSERT_EQ(run.warnings.size(), 1u);
    EXPECT_EQ(run.warnings[0], "run.jsonl line 6 is cut off (the run stopped while writing it): skipped");
}

// A PyTorch run as plab_probe writes it: no twin, no data or model section,
// FP32 fields as NaN strings, layers without activations.
const char* kProbeRecord =
    R"J({"type":"run","version":1,"backend":"PyTorch 2.4.0 (cuda)","config":{"name":"GPT","scaler":{"kind":"dynamic","init_scale":65536}},"layers":[{"name":"blocks.0.fc","shape":"64x32"}],"histogram":{"low_log2":-64,"bins_per_binade":4,"bins":384},"source":{"probe":"0.1.0","torch":"2.4.0","rank":1,"world_size":2}})J"
    "\n"
    R"J({"type":"step","step":1,"loss":2.5,"scale":65536,"scale_after":32768,"growth_tracker":0,"found_inf":true,"skipped":true,"backoff":true,"growth":false,"first_nonfinite_layer":0,"grad_norm":"nan","layers":[{"name":"blocks.0.fc","weight":{"count":2048,"zeros":0,"nans":0,"pos_infs":0,"neg_infs":0,"amax":0.5,"mean_abs":0.1,"rms":0.2,"fp16":{"underflow":0,"subnormal":0,"overflow":0}},"grad":{"count":2048,"nans":3,"pos_infs":1,"amax":"inf"}}]})J"
    "\n"
    R"J({"type":"nan","step":1,"phase":"backward","layer":"blocks.0.fc","op":"linear","tensor":"output_grad","format":"fp16","nans":0,"infs":12,"scale":65536,"diagnosis":"..."})J"
    "\n"
    R"J({"type":"step","step":2,"loss":2.25,"scale":32768,"scale_after":32768,"growth_tracker":1,"found_inf":false,"skipped":false,"backoff":false,"growth":false,"grad_norm":1.5})J"
    "\n";

TEST(RunReader, ReadsAPyTorchRecordFromTheProbe) {
    const RecordedRun run = read_text(kProbeRecord);
    EXPECT_EQ(run.name, "GPT");
    EXPECT_EQ(run.source, "plab_probe 0.1.0, torch 2.4.0, rank 1 of 2");
    EXPECT_FALSE(run.twin);
    ASSERT_EQ(run.steps.size(), 2u);
    const StepRecord& first = run.steps[0];
    EXPECT_TRUE(first.found_inf && first.skipped && first.backoff);
    EXPECT_EQ(first.first_nonfinite_layer, 0);
    EXPECT_TRUE(std::isnan(first.grad_norm));
    ASSERT_EQ(first.layers.size(), 1u);
    EXPECT_EQ(first.layers[0].weight.count, 2048);
    EXPECT_EQ(first.layers[0].weight.rms, 0.2f);
    EXPECT_EQ(first.layers[0].grad.nans, 3);
    EXPECT_TRUE(std::isinf(first.layers[0].grad.amax));
    EXPECT_EQ(first.layers[0].act.count, 0);  // not recorded: left at its default
    ASSERT_EQ(run.nans.size(), 1u);
    EXPECT_EQ(run.nans[0].phase, "backward");
    EXPECT_EQ(run.nans[0].infs, 12);
    EXPECT_EQ(run.steps[1].lr, 0.0f);  // no optimizer given to the probe: no lr
}

TEST(RunReader, BadRecordsNameTheLineAndTheField) {
    const std::string header = std::string(kProbeRecord).substr(0, std::string(kProbeRecord).find('\n') + 1);
    EXPECT_EQ(error_of(""), "run.jsonl: empty, not a run record");
    EXPECT_EQ(error_of("step,loss\n1,0.5\n"), "run.jsonl line 1: not a run record (not JSON Lines)");
    EXPECT_EQ(error_of("{\"type\":\"step\",\"step\":1}\n"),
              "run.jsonl line 1: not a run record: its first line must be {\"type\":\"run\", ...} (docs/telemetry.md)");
    EXPECT_EQ(error_of(R"J({"type":"run","version":2,"config":{},"layers":[]})J"
                       "\n"),
              "run.jsonl line 1: version: 2 is not a record version this lab reads (1)");
    EXPECT_EQ(error_of(header + R"J({"type":"step","step":1,"loss":"x","scale":1,"scale_after":1})J" + "\n"),
              "run.jsonl line 2: loss: \"x\" is not a number (nor \"nan\", \"inf\", \"-inf\")");
    EXPECT_EQ(error_of(header + R"J({"type":"step","step":1,"loss":1,"scale":1})J" + "\n"),
              "run.jsonl line 2: scale_after: missing");
    const std::string ok_step =
        R"J({"type":"step","step":3,"loss":1,"scale":1,"scale_after":1,"found_inf":false,"skipped":false,"backoff":false,"growth":false})J";
    EXPECT_EQ(error_of(header + ok_step + "\n" + ok_step + "\n"), "run.jsonl line 3: step: 3 does not follow step 3");
    EXPECT_EQ(error_of(header + "{not json\n" + ok_step + "\n"), "run.jsonl line 2: not a JSON object");
    std::string bad_layer = kProbeRecord;
    bad_layer.replace(bad_layer.find("\"rms\":0.2"), 9, "\"rms\":[1]");
    EXPECT_EQ(error_of(bad_layer), "run.jsonl line 2: layers[0].weight.rms: [1] is not a number (nor \"nan\", \"inf\", \"-inf\")");
    std::string bad_index = kProbeRecord;
    bad_index.replace(bad_index.find("\"first_nonfinite_layer\":0"), 25, "\"first_nonfinite_layer\":7");
    EXPECT_EQ(error_of(bad_index), "run.jsonl line 2: first_nonfinite_layer: 7 is not an index into the header's 1 layers");
}

bool same_histogram(const Log2Histogram& a, const Log2Histogram& b);

// The fast way (simdjson, fast_lines.h) reads what the careful way reads:
// every field of every step, the gradient amax, every histogram, with the
// layers of every step or of the newest ones only (the second pass).
void expect_same_reads(const std::string& text, const std::string& what, std::size_t kept) {
    RunReadOptions options;
    options.gradient_histograms = options.layer_histograms = true;
    options.layers_kept = kept;
    RunReadOptions careful = options;
    careful.careful_only = true;
    const RecordedRun fast = read_text(text, options), slow = read_text(text, careful);
    ASSERT_EQ(fast.steps.size(), slow.steps.size()) << what;
    for (std::size_t i = 0; i < fast.steps.size(); ++i) {
        ASSERT_EQ(fields_of(fast.steps[i], fast.layer_names, fast.twin), fields_of(slow.steps[i], slow.layer_names, slow.twin))
            << what << " step " << i + 1;
        ASSERT_EQ(fast.steps[i].layers.size(), slow.steps[i].layers.size()) << what << " step " << i + 1;
        ASSERT_EQ(bits(fast.grad_amax[i]), bits(slow.grad_amax[i])) << what << " step " << i + 1;
        ASSERT_EQ(fast.steps[i].histograms != nullptr, slow.steps[i].histograms != nullptr) << what << " step " << i + 1;
        if (!fast.steps[i].histograms) continue;
        for (std::size_t l = 0; l < fast.steps[i].histograms->size(); ++l) {
            const LayerHistograms &a = (*fast.steps[i].histograms)[l], &b = (*slow.steps[i].histograms)[l];
            for (auto [x, y] : {std::pair{&a.weight, &b.weight}, {&a.grad, &b.grad}, {&a.grad_unscaled, &b.grad_unscaled},
                                {&a.act, &b.act}, {&a.act_grad, &b.act_grad}, {&a.act_grad_unscaled, &b.act_grad_unscaled}})
                ASSERT_TRUE(same_histogram(*x, *y)) << what << " step " << i + 1 << " layer " << l;
        }
        ASSERT_EQ(twin_view_difference(fast.steps[i].twin_view, slow.steps[i].twin_view, fast.layer_names), "")
            << what << " step " << i + 1;
    }
    ASSERT_EQ(fast.gradient_histograms.size(), slow.gradient_histograms.size()) << what;
    for (std::size_t k = 0; k < fast.gradient_histograms.size(); ++k) {
        EXPECT_EQ(fast.gradient_histograms[k].first, slow.gradient_histograms[k].first);
        EXPECT_TRUE(same_histogram(fast.gradient_histograms[k].second, slow.gradient_histograms[k].second)) << what;
    }
    EXPECT_EQ(fast.histogram_lines, slow.histogram_lines) << what;
    EXPECT_EQ(fast.nans.size(), slow.nans.size()) << what;
    EXPECT_EQ(fast.warnings, slow.warnings) << what;
}

TEST(RunReader, TheFastWayReadsWhatTheCarefulWayReads) {
    if (!fast_lines_available()) GTEST_SKIP() << "built without simdjson: every line is read the careful way";
    for (const PresetInfo& p : list_presets()) {
        const WrittenRun written = train_and_write(p.name, 60);
        expect_same_reads(written.text, p.name, static_cast<std::size_t>(-1));
        expect_same_reads(written.text, p.name + " (newest 25 steps' layers)", 25);
    }
    expect_same_reads(kProbeRecord, "probe record", static_cast<std::size_t>(-1));
    expect_same_reads(kProbeRecord, "probe record (newest step's layers)", 1);
}

std::string saved(const std::string& text, const std::string& name) {
    const std::string path = testing::TempDir() + "plab-reader-" + name + ".jsonl";
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// A file read in ranges on threads gives what one pass over it gives:
// every step, amax, histogram and warning, and the same first problem.
RunReadOptions in_ranges(unsigned threads) {
    RunReadOptions o;
    o.threads = threads;
    o.bytes_per_thread = 1;  // as many ranges as threads, however small the file
    o.gradient_histograms = o.layer_histograms = true;
    o.layers_kept = 20;
    o.line_offsets = true;
    return o;
}

TEST(RunReader, AFileReadInRangesOnThreadsIsReadAsInOnePass) {
    for (const char* preset : {"scaler-sawtooth", "overflow-nan", "grad-accumulation"}) {
        const WrittenRun written = train_and_write(preset, 90);
        const std::string text = written.text + R"J({"type":"mystery","step":1})J" + "\n";
        const std::string file = saved(text, preset);
        const RecordedRun one = read_run_file(file, in_ranges(1));
        for (unsigned threads : {2u, 7u}) {
            std::vector<std::uint64_t> progress;
            RunReadOptions o = in_ranges(threads);
            o.progress = [&](std::uint64_t b) { progress.push_back(b); };
            const RecordedRun many = read_run_file(file, o);
            ASSERT_EQ(many.steps.size(), one.steps.size()) << preset << " on " << threads;
            for (std::size_t i = 0; i < one.steps.size(); ++i) {
                ASSERT_EQ(fields_of(many.steps[i], many.layer_names, many.twin), fields_of(one.steps[i], one.layer_names, one.twin))
                    << preset << " step " << i + 1;
                ASSERT_EQ(bits(many.grad_amax[i]), bits(one.grad_amax[i]));
                ASSERT_EQ(many.steps[i].layers.size(), one.steps[i].layers.size()) << preset << " step " << i + 1;
                ASSERT_EQ(many.steps[i].histograms != nullptr, one.steps[i].histograms != nullptr);
            }
            EXPECT_EQ(many.histogram_lines, one.histogram_lines);
            // Every step line's place, and each hist line's step, wherever a range began.
            ASSERT_EQ(many.step_offsets.size(), many.steps.size());
            ASSERT_EQ(many.histogram_offsets.size(), static_cast<std::size_t>(many.histogram_lines));
            for (std::size_t i = 0; i < one.step_offsets.size(); ++i) {
                EXPECT_EQ(many.step_offsets[i].offset, one.step_offsets[i].offset);
                EXPECT_EQ(many.step_offsets[i].line, one.step_offsets[i].line);
            }
            for (std::size_t k = 0; k < one.histogram_offsets.size(); ++k)
                EXPECT_EQ(many.histogram_offsets[k].first, one.histogram_offsets[k].first) << preset;
            for (std::size_t i : {std::size_t{0}, many.steps.size() / 2, many.steps.size() - 1}) {
                const StepRecord again = read_step_again(file, many, i);
                EXPECT_EQ(fields_of(again, many.layer_names, many.twin), fields_of(written.steps[i], many.layer_names, many.twin))
                    << preset << " step " << i + 1;
            }
            EXPECT_EQ(many.gradient_histograms.size(), one.gradient_histograms.size());
            EXPECT_EQ(many.warnings, one.warnings) << preset;
            ASSERT_EQ(one.warnings.size(), 1u);
            ASSERT_FALSE(progress.empty());
            EXPECT_EQ(progress.back(), text.size());
        }
    }
}

// A language model's text samples come back character for character, on
// their steps, however the file is read; the twin's text only where the
// header has a twin.
TEST(RunReader, ReadsBackEveryTextSampleExactly) {
    const WrittenRun written =
        train_and_write("tiny-gpt-amp-fp16", 7,
                        {"model.layers=1", "model.width=16", "model.heads=2", "model.context=8", "batch_size=4",
                         "telemetry.hist_every=2", "telemetry.sample_every=3", "telemetry.sample_chars=40"});
    std::vector<const TextSamples*> wrote;
    for (const StepRecord& r : written.steps)
        if (r.samples) wrote.push_back(r.samples.get());
    ASSERT_EQ(wrote.size(), 3u);  // steps 3, 6 and the last, 7
    const std::string file = saved(written.text, "samples");
    for (unsigned threads : {0u, 1u, 2u, 7u}) {
        const RecordedRun run = threads == 0 ? read_text(written.text) : read_run_file(file, in_ranges(threads));
        EXPECT_TRUE(run.warnings.empty()) << threads;
        ASSERT_EQ(run.samples.size(), wrote.size()) << threads;
        for (std::size_t i = 0; i < wrote.size(); ++i) EXPECT_EQ(*run.samples[i], *wrote[i]) << threads;
    }
    EXPECT_EQ(wrote[0]->step, 3);
    EXPECT_EQ(wrote[2]->step, 7);
    EXPECT_EQ(wrote[0]->samples[0].model.size(), 40u);

    // An opened record puts them on their steps, as a live run's records carry them.
    const OpenedRecord opened = open_record(file);
    int carried = 0;
    for (const auto& r : opened.recorded.log.recent) {
        if (!r->samples) continue;
        EXPECT_EQ(*r->samples, *wrote[static_cast<std::size_t>(carried)]);
        EXPECT_EQ(r->step, wrote[static_cast<std::size_t>(carried)]->step);
        ++carried;
    }
    EXPECT_EQ(carried, 3);
}

TEST(RunReader, ASamplesLineEscapesItsTextAndLeavesOutWhatIsAbsent) {
    std::ostringstream out;
    {
        auto writer = make_run_writer(RecordFormat::jsonl, out);
        RunHeader h;
        h.config_json = "{}";
        writer->header(h);
        writer->samples({4, {{"a\"b\\c\nd", "", "x\ty", "ignored: no twin"}, {"1+2=", "30", "31", "31"}}});
        writer->flush();
    }
    const std::string text = out.str();
    const std::string line = text.substr(text.find('\n') + 1);
    EXPECT_EQ(line, R"J({"type":"samples","step":4,"samples":[{"prompt":"a\"b\\c\u000ad","model":"x\u0009y"},)J"
                    R"J({"prompt":"1+2=","expected":"30","model":"31"}]})J"
                    "\n");
    const RecordedRun run = read_text(text);
    ASSERT_EQ(run.samples.size(), 1u);
    const TextSamples expected{4, {{"a\"b\\c\nd", "", "x\ty", ""}, {"1+2=", "30", "31", ""}}};
    EXPECT_EQ(*run.samples[0], expected);
    EXPECT_EQ(error_of(text.substr(0, text.find('\n') + 1) + R"J({"type":"samples","step":4,"samples":[{"prompt":"x"}]})J" +
                       "\n"),
              "run.jsonl line 2: samples[0].model: missing");
}

TEST(RunReader, AFileReadInRangesNamesTheLineOfItsFirstProblem) {
    const WrittenRun written = train_and_write("spirals-amp-fp16", 60);
    std::vector<std::string> lines;
    std::istringstream in(written.text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    auto text_of = [](const std::vector<std::string>& ls) {
        std::string t;
        for (const std::string& l : ls) t += l + "\n";
        return t;
    };
    // A bad field late in the file, and a step out of order in the middle
    // (where a range boundary falls with seven threads).
    std::vector<std::string> bad = lines;
    bad[bad.size() - 3].replace(bad[bad.size() - 3].find("\"loss\":"), 7, "\"loss\":\"x\",\"was\":");
    std::vector<std::string> order = lines;
    std::swap(order[30], order[33]);
    for (const auto& broken : {bad, order}) {
        const std::string text = text_of(broken);
        const std::string file = saved(text, "broken");
        std::string one;
        try {
            read_text(text, in_ranges(1));
        } catch (const Error& e) {
            one = e.what();
        }
        ASSERT_FALSE(one.empty());
        EXPECT_EQ(testing_support::error_of([&] { read_run_file(file, in_ranges(7)); }),
                  file + one.substr(std::string("run.jsonl").size()));
    }
    // A last line cut off: skipped with a warning naming it, the rest read.
    const std::string cut = written.text.substr(0, written.text.size() - 40);
    const RecordedRun run = read_run_file(saved(cut, "cut"), in_ranges(7));
    EXPECT_EQ(run.steps.size(), read_text(cut, in_ranges(1)).steps.size());
    EXPECT_EQ(run.steps.size(), 60u);  // the cut line is step 60's hist line
    ASSERT_EQ(run.warnings.size(), 1u);
    EXPECT_NE(run.warnings[0].find(" line " + std::to_string(lines.size()) + " is cut off"), std::string::npos)
        << run.warnings[0];
}

TEST(RunReader, AFileThatCannotBeOpenedIsNamed) {
    EXPECT_EQ(testing_support::error_of([] { read_run_file("/nonexistent/run.jsonl"); }),
              "/nonexistent/run.jsonl: cannot be opened for reading");
}

}  // namespace
}  // namespace plab
