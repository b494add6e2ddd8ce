// A record read through its index (record_index.h) is the record read
// whole: every step's fields, its gradient amax, every line's place, the
// newest steps' layers and histograms, the warnings and the first problem.
// An index that does not describe its record is set aside with a warning;
// a record that runs on past its index is read on from where the index ends.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "engine/common/error.h"
#include "error_text.h"
#include "step_fields_text.h"
#include "written_run.h"
#include "ui/records/record_index.h"
#include "ui/records/run_reader.h"

namespace plab {
namespace {

// A record and its index saved under `name`; returns the record's path.
std::string saved(const std::string& record, const std::string& index, const std::string& name) {
    const std::string path = testing::TempDir() + "plab-index-" + name + ".jsonl";
    std::ofstream(path, std::ios::binary) << record;
    std::ofstream(record_index_path(path), std::ios::binary) << index;
    return path;
}

// As a workbench opens a record (the newest steps' layers on a second pass),
// and as plab replay reads one (every hist line's gradient histograms).
RunReadOptions opening(bool with_index) {
    RunReadOptions o;
    o.layers_kept = 16;
    o.layer_histograms = o.gradient_histograms = o.line_offsets = true;
    o.use_index = with_index;
    return o;
}

// What differs between two reads of one record ("" when nothing does).
std::string difference(const RecordedRun& a, const RecordedRun& b) {
    if (a.steps.size() != b.steps.size()) return "step counts";
    if (a.step_offsets.size() != b.step_offsets.size()) return "step places";
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        const std::string step = "step " + std::to_string(i + 1) + ": ";
        if (fields_of(a.steps[i], a.layer_names, a.twin) != fields_of(b.steps[i], b.layer_names, b.twin))
            return step + "fields";
        if (bits(a.grad_amax[i]) != bits(b.grad_amax[i]) && !(std::isnan(a.grad_amax[i]) && std::isnan(b.grad_amax[i])))
            return step + "grad_amax";
        if (a.steps[i].layers.size() != b.steps[i].layers.size()) return step + "layers kept";
        if ((a.steps[i].histograms == nullptr) != (b.steps[i].histograms == nullptr)) return step + "histograms kept";
        if (i < a.step_offsets.size() &&
            (a.step_offsets[i].offset != b.step_offsets[i].offset || a.step_offsets[i].line != b.step_offsets[i].line))
            return step + "place";
    }
    if (a.histogram_lines != b.histogram_lines || a.histogram_offsets.size() != b.histogram_offsets.size())
        return "hist lines";
    for (std::size_t k = 0; k < a.histogram_offsets.size(); ++k)
        if (a.histogram_offsets[k].first != b.histogram_offsets[k].first ||
            a.histogram_offsets[k].second.offset != b.histogram_offsets[k].second.offset ||
            a.histogram_offsets[k].second.line != b.histogram_offsets[k].second.line)
            return "hist line " + std::to_string(k) + "'s place";
    if (a.gradient_histograms.size() != b.gradient_histograms.size()) return "gradient histograms";
    for (std::size_t k = 0; k < a.gradient_histograms.size(); ++k)
        if (a.gradient_histograms[k].first != b.gradient_histograms[k].first ||
            a.gradient_histograms[k].second.bins != b.gradient_histograms[k].second.bins)
            return "gradient histogram " + std::to_string(k);
    if (a.nans.size() != b.nans.size()) return "nan lines";
    for (std::size_t k = 0; k < a.nans.size(); ++k)
        if (a.nans[k].diagnosis != b.nans[k].diagnosis) return "nan line " + std::to_string(k);
    if (a.samples.size() != b.samples.size()) return "samples lines";
    for (std::size_t k = 0; k < a.samples.size(); ++k)
        if (a.samples[k]->samples.front().model != b.samples[k]->samples.front().model) return "samples line";
    if (a.warnings != b.warnings) return "warnings";
    return "";
}

const std::vector<std::string> kTinyGpt = {"model.layers=1", "model.width=16", "model.heads=2", "model.context=8",
                                           "batch_size=4", "eval_every=5", "telemetry.sample_every=10",
                                           "telemetry.sample_chars=20"};

TEST(RecordIndex, AReadThroughTheIndexIsTheRecordReadWhole) {
    for (const auto& [preset, settings] : {std::pair{std::string("scaler-sawtooth"), std::vector<std::string>{}},
                                           {"overflow-nan", {}}, {"tiny-gpt-amp-fp16", kTinyGpt}}) {
        const WrittenRun written = train_and_write(preset, 70, settings);
        const std::string file = saved(written.text, written.index, preset);
        const RecordedRun indexed = read_run_file(file, opening(true)), whole = read_run_file(file, opening(false));
        EXPECT_EQ(difference(indexed, whole), "") << preset;
        EXPECT_TRUE(indexed.warnings.empty()) << preset;
        EXPECT_GT(whole.histogram_lines, 0) << preset;
        EXPECT_EQ(whole.samples.size(), preset == "tiny-gpt-amp-fp16" ? 7u : 0u) << preset;
        RunReadOptions careful = opening(true);  // every line read with nlohmann-json, the index's too
        careful.careful_only = true;
        EXPECT_EQ(difference(read_run_file(file, careful), whole), "") << preset << " (careful)";
        RunReadOptions scalars;
        scalars.layers = false;
        const RecordedRun summary = read_run_file(file, scalars);
        scalars.use_index = false;
        EXPECT_EQ(difference(summary, read_run_file(file, scalars)), "") << preset;
    }
}

TEST(RecordIndex, OldStepLinesAreNotReadFromTheRecord) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 40);
    // Step 3's line spoilt inside its layers, its length kept: only a read of
    // that line's bytes can find it.
    std::string spoilt = written.text;
    const std::size_t step3 = spoilt.find("{\"type\":\"step\",\"step\":3,");
    const std::size_t amax = spoilt.find("\"amax\":", step3) + 7;
    spoilt[amax] = 'x';
    const std::string file = saved(spoilt, written.index, "spoilt");
    EXPECT_EQ(testing_support::error_of([&] { read_run_file(file, opening(false)); }),
              file + " line 4: not a JSON object");
    const RecordedRun indexed = read_run_file(file, opening(true));
    EXPECT_EQ(indexed.steps.size(), 40u);
    EXPECT_TRUE(indexed.warnings.empty());
}

TEST(RecordIndex, ARecordLongerThanItsIndexIsReadOnFromWhereTheIndexEnds) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 60);
    const std::string whole_file = saved(written.text, "", "whole");
    const RecordedRun whole = read_run_file(whole_file, opening(false));
    // A killed run's index: the entries of its first lines, the last one cut off.
    std::size_t cut = 0;
    for (int k = 0; k < 25; ++k) cut = written.index.find('\n', cut) + 1;
    const std::string file = saved(written.text, written.index.substr(0, cut + 30), "longer");
    const RecordedRun indexed = read_run_file(file, opening(true));
    RecordedRun expected = whole;
    EXPECT_EQ(difference(indexed, expected), "");
}

TEST(RecordIndex, AnIndexThatDoesNotDescribeItsRecordIsSetAsideWithAWarning) {
    const WrittenRun mine = train_and_write("scaler-sawtooth", 30), other = train_and_write("scaler-sawtooth", 30, {"seed=2"});
    const std::string why_other = "the record's line 2 is not the entry's";
    for (const auto& [index, why] : {std::pair{other.index, why_other},
                                     {"{\"type\":\"index\",\"version\":9}\n", std::string("not an index of version 1")},
                                     {"{\"type\":\"index\",\"version\":1,\"header_bytes\":3}\n",
                                      std::string("it is of a record with another header")}}) {
        const std::string file = saved(mine.text, index, "other");
        const RecordedRun indexed = read_run_file(file, opening(true));
        RecordedRun whole = read_run_file(file, opening(false));
        ASSERT_EQ(indexed.warnings.size(), 1u) << why;
        EXPECT_EQ(indexed.warnings[0], record_index_path(file) + " does not describe this record (" + why +
                                           "): the record was read whole");
        whole.warnings = indexed.warnings;
        EXPECT_EQ(difference(indexed, whole), "") << why;
    }
}

// A progress callback that stops the read (a cancelled dialog) stops it:
// its exception is not taken for an index that does not fit.
TEST(RecordIndex, AReadStoppedByItsProgressCallbackStops) {
    const WrittenRun written = train_and_write("scaler-sawtooth", 700);  // over 4 MB: progress during the index
    ASSERT_GT(written.text.size(), 4u << 20);
    const std::string file = saved(written.text, written.index, "stopped");
    RunReadOptions o = opening(true);
    std::uint64_t heard = 0;
    o.progress = [&](std::uint64_t bytes) {  // the first call says stop; a read that went on would finish
        if (heard > 0) return;
        heard = bytes;
        throw Error("opening cancelled");
    };
    EXPECT_EQ(testing_support::error_of([&] { read_run_file(file, o); }), "opening cancelled");
    EXPECT_GT(heard, 0u);
    EXPECT_LT(heard, written.text.size());  // from inside the index's read, not from its end
}

TEST(RecordIndex, ARecordsOwnProblemIsNamedAsAWholeReadNamesIt) {
    const WrittenRun written = train_and_write("tiny-gpt-amp-fp16", 20, kTinyGpt);
    std::string spoilt = written.text;
    const std::size_t samples = spoilt.find("{\"type\":\"samples\"");
    spoilt.replace(spoilt.find("\"prompt\"", samples), 8, "\"prompX\"");
    const std::string file = saved(spoilt, written.index, "samples");
    const std::string indexed = testing_support::error_of([&] { read_run_file(file, opening(true)); });
    EXPECT_EQ(indexed, testing_support::error_of([&] { read_run_file(file, opening(false)); }));
    EXPECT_NE(indexed.find(" line "), std::string::npos) << indexed;
}

}  // namespace
}  // namespace plab
