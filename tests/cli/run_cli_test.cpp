// `plab run` as a user runs it: the JSON Lines and CSV records it writes
// (docs/telemetry.md), --dump-preset, --trace-nan, determinism, and exit code
// 2 with a one-line reason for every kind of bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_run_util.h"
#include "cli/scaler_refusal.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using cli_test::Result;
using cli_test::run_plab;
using cli_test::scratch_dir;
using cli_test::init_scale_ignored_by_no_scaler;
using cli_test::slurp;

// ---- helpers --------------------------------------------------------------

// A run whose records went to a file: what the command printed, and the file.
struct FileRun {
    Result result;
    bool file_exists = false;
    std::string records;
};

FileRun run_to_file(const std::string& args, const std::string& file_name = "records.jsonl") {
    const fs::path dir = scratch_dir();
    const fs::path file = dir / file_name;
    FileRun r;
    r.result = run_plab("run " + args + " --out '" + file.string() + "'");
    r.file_exists = fs::exists(file);
    r.records = slurp(file);
    fs::remove_all(dir);
    return r;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    for (std::size_t next; (next = text.find(sep, at)) != std::string::npos; at = next + 1)
        parts.push_back(text.substr(at, next - at));
    parts.push_back(text.substr(at));
    return parts;
}

// The lines of a records text (which must end with a newline).
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines = split(text, '\n');
    EXPECT_EQ(lines.back(), "") << "records must end with a newline";
    lines.pop_back();
    return lines;
}

std::vector<json> parse_lines(const std::string& text) {
    std::vector<json> out;
    for (const std::string& line : lines_of(text)) out.push_back(json::parse(line));
    return out;
}

std::vector<json> of_type(const std::vector<json>& lines, const std::string& type) {
    std::vector<json> out;
    for (const json& j : lines)
        if (j.at("type") == type) out.push_back(j);
    return out;
}

// Any key, at any depth, whose name contains `part`.
bool has_key_containing(const json& j, const std::string& part) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key().find(part) != std::string::npos || has_key_containing(it.value(), part)) return true;
    } else if (j.is_array()) {
        for (const json& e : j)
            if (has_key_containing(e, part)) return true;
    }
    return false;
}

std::size_t count_of(const std::string& s, char c) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

// The spirals presets' model, written down from the preset files: 2 inputs,
// hidden [64, 64], 3 classes, batch 128.
struct LayerShape {
    const char* name;
    int in, out;
};
constexpr LayerShape kLayers[] = {{"fc1", 2, 64}, {"fc2", 64, 64}, {"fc3", 64, 3}};
constexpr int kBatch = 128;
// 1536 samples, test_fraction 0.2: 307 test samples.
constexpr int kTestSamples = 307;

const char* const kTensors[] = {"weight", "grad", "grad_unscaled", "act", "act_grad", "act_grad_unscaled"};
const char* const kStats[] = {"count", "zeros", "nans", "pos_infs", "neg_infs", "amax", "mean_abs", "rms"};

// Hand-written limits of the formats the statistics classify against.
struct FormatLimits {
    const char* name;
    double max_finite;     // largest finite value
    double overflows_at;   // |x| at or above this certainly rounds beyond max_finite
    double min_normal;
};
const FormatLimits kFormats[] = {
    {"fp16", 65504.0, 65536.0, std::ldexp(1.0, -14)},
    {"bf16", 3.3895313892515355e38, INFINITY, std::ldexp(1.0, -126)},
    {"e4m3", 448.0, 480.0, std::ldexp(1.0, -6)},
    {"e5m2", 57344.0, 65536.0, std::ldexp(1.0, -14)},
};

// Checks one statistics object against what its own counts and amax imply.
void check_stats(const json& s, std::int64_t expected_count, const std::string& where) {
    SCOPED_TRACE(where);
    ASSERT_EQ(s.at("count").get<std::int64_t>(), expected_count);
    const auto zeros = s.at("zeros").get<std::int64_t>(), nans = s.at("nans").get<std::int64_t>();
    const auto infs = s.at("pos_infs").get<std::int64_t>() + s.at("neg_infs").get<std::int64_t>();
    EXPECT_GE(zeros, 0);
    EXPECT_LE(zeros + nans + infs, expected_count);
    const double amax = s.at("amax").get<double>();
    EXPECT_GE(amax, 0.0);
    EXPECT_LE(s.at("mean_abs").get<double>(), amax * (1 + 1e-6));
    EXPECT_LE(s.at("rms").get<double>(), amax * (1 + 1e-6));
    const double count = static_cast<double>(expected_count);
    const double nonzero_finite = static_cast<double>(expected_count - zeros - nans - infs) / count;
    for (const FormatLimits& f : kFormats) {
        const json& fr = s.at(f.name);
        for (const char* k : {"underflow", "subnormal", "overflow"}) {
            const double x = fr.at(k).get<double>();
            EXPECT_GE(x, 0.0) << f.name << "." << k;
            EXPECT_LE(x, 1.0) << f.name << "." << k;
            // A fraction of `count` values is a whole number of values.
            EXPECT_NEAR(x * count, std::round(x * count), 1e-3) << f.name << "." << k;
        }
        if (nans + infs != 0) continue;
        const double overflow = fr.at("overflow").get<double>();
        if (amax <= f.max_finite) {
            EXPECT_EQ(overflow, 0.0) << f.name << " amax " << amax;
        }
        if (amax >= f.overflows_at) {
            EXPECT_GT(overflow, 0.0) << f.name << " amax " << amax;
        }
        // Far enough below the smallest normal, every non-zero value either
        // flushes to zero or lands subnormal.
        if (amax < 0.75 * f.min_normal) {
            EXPECT_NEAR(fr.at("underflow").get<double>() + fr.at("subnormal").get<double>(), nonzero_finite, 1e-6)
                << f.name << " amax " << amax;
        }
    }
}

// The CSV columns docs/telemetry.md documents for a twin run of kLayers.
std::vector<std::string> documented_csv_columns() {
    std::vector<std::string> cols = {"step",      "loss",     "loss_ref",    "scale",        "scale_after",
                                     "growth_tracker", "found_inf", "skipped", "backoff",   "growth",
                                     "first_nonfinite_layer", "grad_norm", "clipped", "lost_update_frac", "lr",
                                     "acc",       "acc_ref",  "test_loss",   "test_loss_ref"};
    for (const LayerShape& l : kLayers) {
        const std::string layer = l.name;
        for (const char* t : kTensors) {
            for (const char* s : kStats) cols.push_back(layer + "." + t + "." + s);
            for (const FormatLimits& f : kFormats)
                for (const char* k : {"underflow", "subnormal", "overflow"})
                    cols.push_back(layer + "." + t + "." + f.name + "." + k);
        }
        for (const char* k : {"rel_dist", "grad_rel_dist", "grad_cos"}) cols.push_back(layer + "." + k);
    }
    return cols;
}

// A step line flattened the way CSV names columns: nested keys joined by
// dots, list items named by their "name".
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "type" || it.key() == "name") continue;
        if (it.key() == "layers") {
            for (const json& item : it.value()) flatten(item, prefix + item.at("name").get<std::string>() + ".", out);
        } else if (it.value().is_object()) {
            flatten(it.value(), prefix + it.key() + ".", out);
        } else {
            out[prefix + it.key()] = it.value();
        }
    }
}

// A CSV cell as a number: the whole cell must parse.
std::optional<double> cell_number(const std::string& cell) {
    if (cell.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (end != cell.c_str() + cell.size()) return std::nullopt;
    return v;
}

// ---- JSON Lines -------------------------------------------------------------

TEST(RunCliJsonl, HeaderHoldsTheResolvedConfigAndLayers) {
    const Result r = run_plab("run --preset spirals-amp-fp16 --steps 20 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::vector<json> lines = parse_lines(r.out);
    ASSERT_FALSE(lines.empty());
    const json& h = lines[0];
    EXPECT_EQ(h.at("type"), "run");
    EXPECT_EQ(h.at("version"), 1);
    // The scaler values of assets/presets/spirals-amp-fp16.json.
    const json& scaler = h.at("config").at("scaler");
    EXPECT_EQ(scaler.at("init_scale"), 65536);
    EXPECT_EQ(scaler.at("growth_factor"), 2);
    EXPECT_EQ(scaler.at("backoff_factor"), 0.5);
    EXPECT_EQ(scaler.at("growth_interval"), 2000);
    EXPECT_EQ(scaler.at("kind"), "dynamic");
    EXPECT_EQ(h.at("config").at("steps"), 20);  // --steps is in the resolved config
    RunConfig expected = load_preset("spirals-amp-fp16");
    expected.steps = 20;
    EXPECT_EQ(h.at("config"), json::parse(run_config_to_json(expected, false)));
    const json layers = json::array({{{"name", "fc1"}, {"shape", "2x64"}},
                                     {{"name", "fc2"}, {"shape", "64x64"}},
                                     {{"name", "fc3"}, {"shape", "64x3"}}});
    EXPECT_EQ(h.at("layers"), layers);
    EXPECT_EQ(h.at("histogram"), json({{"low_log2", -64}, {"bins_per_binade", 4}, {"bins", 384}}));
    // Then 20 steps and, at the preset's hist_every 10, two histogram lines.
    EXPECT_EQ(of_type(lines, "run").size(), 1u);
    EXPECT_EQ(of_type(lines, "step").size(), 20u);
    EXPECT_EQ(of_type(lines, "hist").size(), 2u);
    EXPECT_EQ(lines.size(), 23u);
}

// A GPT's layers are its matmul layers, then the embedding tables no matmul
// layer holds (docs/telemetry.md): wpe always, wte before it when the head
// is untied; a table's shape is rows x width, and it has no activation.
TEST(RunCliJsonl, AGptsHeaderEndsWithItsEmbeddingTables) {
    for (const bool tied : {true, false}) {
        SCOPED_TRACE(tied ? "tied head" : "untied head");
        const Result r = run_plab(std::string("run --preset tiny-gpt-embedding-underflow --steps 1 --quiet") +
                                  (tied ? "" : " --set model.tied_head=false"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::vector<json> lines = parse_lines(r.out);
        const json& layers = lines.at(0).at("layers");
        ASSERT_EQ(layers.size(), tied ? 14u : 15u);  // 2 blocks of 6 matmuls, the head, the tables
        EXPECT_EQ(layers[12], json({{"name", "head"}, {"shape", tied ? "13x64" : "64x13"}}));
        if (!tied) {
            EXPECT_EQ(layers[13], json({{"name", "wte"}, {"shape", "13x64"}}));
        }
        EXPECT_EQ(layers.back(), json({{"name", "wpe"}, {"shape", "9x64"}}));  // context 9, width 64
        const std::vector<json> steps = of_type(lines, "step");
        ASSERT_EQ(steps.size(), 1u);
        const json& wpe = steps[0].at("layers").back();
        EXPECT_EQ(wpe.at("name"), "wpe");
        EXPECT_EQ(wpe.at("grad").at("count"), 9 * 64);
        EXPECT_EQ(wpe.at("act").at("count"), 0);
        EXPECT_EQ(wpe.at("act_grad").at("count"), 0);
    }
}

TEST(RunCliJsonl, StepLinesCarryTheDocumentedFields) {
    const Result r = run_plab("run --preset spirals-amp-fp16 --steps 24 --quiet --hist-every 0");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> steps = of_type(parse_lines(r.out), "step");
    ASSERT_EQ(steps.size(), 24u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const json& s = steps[i];
        SCOPED_TRACE("step " + std::to_string(i + 1));
        EXPECT_EQ(s.at("step"), i + 1);
        for (const char* k : {"loss", "loss_ref", "scale", "scale_after", "growth_tracker", "found_inf", "skipped",
                              "backoff", "growth", "grad_norm", "clipped", "lost_update_frac", "lr"})
            EXPECT_TRUE(s.contains(k)) << k;
        EXPECT_TRUE(std::isfinite(s.at("loss").get<double>()));
        // 2^16, no overflow, growth after 2000 clean steps: the scale stays and
        // the tracker counts every step as clean.
        EXPECT_EQ(s.at("scale"), 65536);
        EXPECT_EQ(s.at("scale_after"), 65536);
        EXPECT_EQ(s.at("growth_tracker"), i + 1);
        EXPECT_EQ(s.at("found_inf"), false);
        EXPECT_EQ(s.at("skipped"), false);
        EXPECT_FALSE(s.contains("first_nonfinite_layer"));
        EXPECT_EQ(s.at("lost_update_frac"), 0);  // FP32 master weights lose no update
        EXPECT_EQ(s.at("lr"), 0.002);
        ASSERT_EQ(s.at("layers").size(), 3u);
        for (std::size_t li = 0; li < 3; ++li) {
            const LayerShape& shape = kLayers[li];
            const json& l = s.at("layers")[li];
            ASSERT_EQ(l.at("name"), shape.name);
            const std::string at = std::string(shape.name) + ".";
            const std::int64_t params = shape.in * shape.out, acts = kBatch * shape.out;
            check_stats(l.at("weight"), params, at + "weight");
            check_stats(l.at("grad"), params, at + "grad");
            check_stats(l.at("grad_unscaled"), params, at + "grad_unscaled");
            check_stats(l.at("act"), acts, at + "act");
            check_stats(l.at("act_grad"), acts, at + "act_grad");
            check_stats(l.at("act_grad_unscaled"), acts, at + "act_grad_unscaled");
            // Unscaling by a power of two is exact.
            for (const auto& [scaled, unscaled] : {std::pair{"grad", "grad_unscaled"}, {"act_grad", "act_grad_unscaled"}})
                EXPECT_EQ(l.at(unscaled).at("amax").get<float>(), l.at(scaled).at("amax").get<float>() / 65536.0f)
                    << at << scaled;
            const double cos = l.at("grad_cos").get<double>();
            EXPECT_GT(cos, 0.99) << at;  // AMP FP16 with a good scale tracks the twin
            EXPECT_LE(cos, 1.0 + 1e-6) << at;
            EXPECT_GE(l.at("rel_dist").get<double>(), 0.0);
            EXPECT_LT(l.at("rel_dist").get<double>(), 0.01);
            EXPECT_GE(l.at("grad_rel_dist").get<double>(), 0.0);
        }
    }
}

TEST(RunCliJsonl, AccuracyOnEvalStepsAndAlwaysOnTheLast) {
    const Result r = run_plab("run --steps 25 --set eval_every=10 --quiet --hist-every 0");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> steps = of_type(parse_lines(r.out), "step");
    ASSERT_EQ(steps.size(), 25u);
    for (const json& s : steps) {
        const int step = s.at("step");
        const bool eval = step == 10 || step == 20 || step == 25;
        for (const char* k : {"acc", "acc_ref", "test_loss", "test_loss_ref"})
            EXPECT_EQ(s.contains(k), eval) << "step " << step << " " << k;
        if (!eval) continue;
        for (const char* k : {"acc", "acc_ref"}) {
            const double acc = s.at(k);
            EXPECT_GE(acc, 0.0);
            EXPECT_LE(acc, 1.0);
            // A share of the 307 test samples.
            EXPECT_NEAR(acc * kTestSamples, std::round(acc * kTestSamples), 1e-3) << k << " " << acc;
        }
    }
    EXPECT_GT(steps.back().at("acc").get<double>(), 1.0 / 3);  // better than chance after 25 steps
}

TEST(RunCliJsonl, Fp32TwinMatchesExactly) {
    const Result r = run_plab("run --preset spirals-fp32 --steps 20 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> steps = of_type(parse_lines(r.out), "step");
    ASSERT_EQ(steps.size(), 20u);
    for (const json& s : steps) {
        SCOPED_TRACE(s.at("step").dump());
        EXPECT_EQ(s.at("loss"), s.at("loss_ref"));
        EXPECT_EQ(s.at("scale"), 1);  // no scaler
        for (const json& l : s.at("layers")) {
            EXPECT_EQ(l.at("rel_dist"), 0);
            EXPECT_EQ(l.at("grad_rel_dist"), 0);
            EXPECT_EQ(l.at("grad_cos"), 1);
        }
    }
    EXPECT_EQ(steps.back().at("acc"), steps.back().at("acc_ref"));
}

TEST(RunCliJsonl, LostUpdatesOnlyWithoutMasterWeights) {
    // FP16 weights of magnitude >= 2^-8 have a half-ulp above 1e-6, so an
    // update of about lr = 1e-6 leaves almost all of them unchanged.
    const Result r = run_plab(
        "run --steps 20 --quiet --set precision.recipe=fp16-pure --set precision.master_weights=false "
        "--set optimizer.lr=1e-6");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const json& s : of_type(parse_lines(r.out), "step")) {
        EXPECT_GT(s.at("lost_update_frac").get<double>(), 0.5) << s.at("step");
        EXPECT_LE(s.at("lost_update_frac").get<double>(), 1.0) << s.at("step");
    }
}

TEST(RunCliJsonl, HistogramsEveryKStepsAgreeWithTheStepCounts) {
    const Result r = run_plab("run --steps 20 --hist-every 5 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> lines = parse_lines(r.out);
    ASSERT_EQ(lines.size(), 1u + 20u + 4u);
    std::vector<int> hist_steps;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].at("type") != "hist") continue;
        const json& h = lines[i];
        const json& step = lines[i - 1];  // written right after its step
        ASSERT_EQ(step.at("type"), "step");
        ASSERT_EQ(h.at("step"), step.at("step"));
        hist_steps.push_back(h.at("step"));
        ASSERT_EQ(h.at("layers").size(), 3u);
        for (std::size_t li = 0; li < 3; ++li) {
            const json& hl = h.at("layers")[li];
            ASSERT_EQ(hl.at("name"), kLayers[li].name);
            for (const char* t : kTensors) {
                SCOPED_TRACE(std::string(kLayers[li].name) + "." + t + " at step " + h.at("step").dump());
                const json& hist = hl.at(t);
                const json& stats = step.at("layers")[li].at(t);
                std::int64_t in_bins = 0;
                for (const json& b : hist.at("bins")) in_bins += b.get<std::int64_t>();
                // Every value is a zero, a NaN, an Inf, or in exactly one bin.
                EXPECT_EQ(hist.at("zeros"), stats.at("zeros"));
                EXPECT_EQ(hist.at("nans"), stats.at("nans"));
                EXPECT_EQ(hist.at("pos_infs"), stats.at("pos_infs"));
                EXPECT_EQ(hist.at("neg_infs"), stats.at("neg_infs"));
                EXPECT_EQ(in_bins + hist.at("zeros").get<std::int64_t>() + hist.at("nans").get<std::int64_t>() +
                              hist.at("pos_infs").get<std::int64_t>() + hist.at("neg_infs").get<std::int64_t>(),
                          stats.at("count").get<std::int64_t>());
                // Trimmed to the occupied range, which ends at amax's bin.
                const json& bins = hist.at("bins");
                if (bins.empty()) continue;
                EXPECT_GT(bins.front().get<std::int64_t>(), 0);
                EXPECT_GT(bins.back().get<std::int64_t>(), 0);
                const double amax = stats.at("amax").get<double>();
                const int amax_bin = std::clamp(static_cast<int>(std::floor(4 * (std::log2(amax) + 64))), 0, 383);
                EXPECT_EQ(hist.at("first_bin").get<int>() + static_cast<int>(bins.size()) - 1, amax_bin) << amax;
            }
        }
    }
    EXPECT_EQ(hist_steps, (std::vector<int>{5, 10, 15, 20}));
}

TEST(RunCliJsonl, HistEveryZeroWritesNoneAndTheDefaultIsThePresets) {
    const Result none = run_plab("run --steps 20 --hist-every 0 --quiet");
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_EQ(of_type(parse_lines(none.out), "hist").size(), 0u);
    const Result preset = run_plab("run --preset scaler-sawtooth --steps 12 --quiet");  // hist_every 5
    ASSERT_EQ(preset.exit_code, 0) << preset.err;
    const std::vector<json> hists = of_type(parse_lines(preset.out), "hist");
    ASSERT_EQ(hists.size(), 2u);
    EXPECT_EQ(hists[0].at("step"), 5);
    EXPECT_EQ(hists[1].at("step"), 10);
}

TEST(RunCliJsonl, TelemetryOffDropsTheLayers) {
    const Result r = run_plab("run --steps 5 --quiet --set telemetry.enabled=false");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> steps = of_type(parse_lines(r.out), "step");
    ASSERT_EQ(steps.size(), 5u);
    for (const json& s : steps) {
        EXPECT_FALSE(s.contains("layers"));
        EXPECT_TRUE(s.contains("loss"));
    }
}

TEST(RunCliJsonl, SummaryOnStandardErrorUnlessQuiet) {
    const FileRun loud = run_to_file("--steps 20");
    ASSERT_EQ(loud.result.exit_code, 0) << loud.result.err;
    EXPECT_EQ(loud.result.out, "");  // the records went to the file
    EXPECT_EQ(loud.result.err.rfind("spirals-amp-fp16: 20 steps in ", 0), 0u) << loud.result.err;
    EXPECT_NE(loud.result.err.find("records: "), std::string::npos) << loud.result.err;
    const FileRun quiet = run_to_file("--steps 20 --quiet");
    ASSERT_EQ(quiet.result.exit_code, 0);
    EXPECT_EQ(quiet.result.err, "");
    EXPECT_EQ(quiet.records, loud.records);
}

// ---- CSV ----------------------------------------------------------------------

TEST(RunCliCsv, HeaderThenOneNumericRowPerStep) {
    const FileRun run = run_to_file("--format csv --steps 20 --set eval_every=8 --quiet", "records.csv");
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
    EXPECT_EQ(run.result.out, "");
    const std::vector<std::string> lines = lines_of(run.records);
    ASSERT_EQ(lines.size(), 21u);
    const std::vector<std::string> header = split(lines[0], ',');
    EXPECT_EQ(header, documented_csv_columns());
    const std::set<std::string> may_be_empty = {"first_nonfinite_layer", "acc", "acc_ref", "test_loss",
                                                "test_loss_ref"};
    for (std::size_t row = 1; row < lines.size(); ++row) {
        const std::vector<std::string> cells = split(lines[row], ',');
        ASSERT_EQ(cells.size(), header.size()) << "row " << row;
        EXPECT_EQ(cells[0], std::to_string(row));
        const bool eval = row == 8 || row == 16 || row == 20;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string& col = header[c];
            if (cells[c].empty()) {
                EXPECT_TRUE(may_be_empty.count(col)) << col << " empty in row " << row;
                if (col != "first_nonfinite_layer") {
                    EXPECT_FALSE(eval) << col << " empty on eval row " << row;
                }
                continue;
            }
            EXPECT_TRUE(cell_number(cells[c])) << col << " = '" << cells[c] << "' in row " << row;
        }
    }
}

TEST(RunCliCsv, SameValuesAsJsonLines) {
    const FileRun csv = run_to_file("--format csv --steps 12 --set eval_every=5 --quiet", "records.csv");
    const FileRun jsonl = run_to_file("--steps 12 --set eval_every=5 --quiet --hist-every 0");
    ASSERT_EQ(csv.result.exit_code, 0) << csv.result.err;
    ASSERT_EQ(jsonl.result.exit_code, 0) << jsonl.result.err;
    const std::vector<std::string> rows = lines_of(csv.records);
    const std::vector<json> steps = of_type(parse_lines(jsonl.records), "step");
    ASSERT_EQ(rows.size(), steps.size() + 1);
    const std::vector<std::string> header = split(rows[0], ',');
    for (std::size_t i = 0; i < steps.size(); ++i) {
        std::map<std::string, json> fields;
        flatten(steps[i], "", fields);
        const std::vector<std::string> cells = split(rows[i + 1], ',');
        ASSERT_EQ(cells.size(), header.size());
        std::size_t matched = 0;
        for (std::size_t c = 0; c < header.size(); ++c) {
            const auto it = fields.find(header[c]);
            if (it == fields.end()) {
                EXPECT_EQ(cells[c], "") << header[c] << " at step " << i + 1;
                continue;
            }
            ++matched;
            const json& v = it->second;
            if (v.is_boolean()) {
                EXPECT_EQ(cells[c], v.get<bool>() ? "1" : "0") << header[c];
            } else {
                EXPECT_EQ(cell_number(cells[c]), std::optional<double>(v.get<double>())) << header[c];
            }
        }
        EXPECT_EQ(matched, fields.size()) << "JSON fields without a CSV column at step " << i + 1;
    }
}

// ---- determinism and --timing ---------------------------------------------------

TEST(RunCliDeterminism, OneSeedGivesByteIdenticalRecords) {
    const std::string args = "--steps 30 --seed 7 --hist-every 5 --quiet";
    const FileRun a = run_to_file(args);
    const FileRun b = run_to_file(args);
    ASSERT_EQ(a.result.exit_code, 0) << a.result.err;
    ASSERT_EQ(b.result.exit_code, 0) << b.result.err;
    EXPECT_EQ(lines_of(a.records).size(), 1u + 30u + 6u);
    EXPECT_TRUE(a.records == b.records);  // not EXPECT_EQ: a diff of two megabytes helps no one
    // Standard output gets the same bytes, and --backend cpu is the default.
    const Result to_stdout = run_plab("run " + args + " --backend cpu");
    ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
    EXPECT_TRUE(to_stdout.out == a.records);
    for (const json& j : parse_lines(a.records)) EXPECT_FALSE(has_key_containing(j, "time")) << j.at("type");
}

TEST(RunCliDeterminism, AnotherSeedChangesEveryStep) {
    const Result a = run_plab("run --steps 20 --seed 7 --quiet --hist-every 0");
    const Result b = run_plab("run --steps 20 --seed 8 --quiet --hist-every 0");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    const std::vector<json> la = parse_lines(a.out), lb = parse_lines(b.out);
    ASSERT_EQ(la.size(), 21u);
    ASSERT_EQ(lb.size(), 21u);
    EXPECT_EQ(la[0].at("config").at("seed"), 7);
    EXPECT_EQ(lb[0].at("config").at("seed"), 8);
    json header_b = lb[0];
    header_b["config"]["seed"] = 7;
    EXPECT_EQ(la[0], header_b);  // the seed is the only difference in the header
    for (std::size_t i = 1; i < la.size(); ++i) EXPECT_NE(la[i].at("loss"), lb[i].at("loss")) << "step " << i;
}

TEST(RunCliDeterminism, TimingAddsWallTimeAndNothingElse) {
    const Result plain = run_plab("run --steps 15 --seed 3 --hist-every 5 --quiet");
    const Result timed = run_plab("run --steps 15 --seed 3 --hist-every 5 --quiet --timing");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_EQ(timed.exit_code, 0) << timed.err;
    const std::vector<json> lp = parse_lines(plain.out), lt = parse_lines(timed.out);
    ASSERT_EQ(lp.size(), lt.size());
    for (std::size_t i = 0; i < lp.size(); ++i) {
        json t = lt[i];
        if (t.at("type") == "step") {
            ASSERT_TRUE(t.contains("time_us")) << "line " << i;
            EXPECT_GT(t.at("time_us").get<double>(), 0.0);
            t.erase("time_us");
        }
        EXPECT_FALSE(has_key_containing(lp[i], "time")) << "line " << i;
        EXPECT_EQ(t, lp[i]) << "line " << i;
    }
    // CSV: one more column at the end.
    const FileRun csv = run_to_file("--format csv --steps 5 --quiet --timing", "r.csv");
    ASSERT_EQ(csv.result.exit_code, 0) << csv.result.err;
    const std::vector<std::string> rows = lines_of(csv.records);
    ASSERT_EQ(rows.size(), 6u);
    std::vector<std::string> expected = documented_csv_columns();
    expected.push_back("time_us");
    EXPECT_EQ(split(rows[0], ','), expected);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto t = cell_number(split(rows[i], ',').back());
        ASSERT_TRUE(t) << rows[i];
        EXPECT_GT(*t, 0.0);
    }
}

// ---- --dump-preset ---------------------------------------------------------------

TEST(RunCliDumpPreset, EqualsPresetsShowForEveryShippedPreset) {
    for (const char* name : {"fp16-static-overflow", "scaler-sawtooth", "spirals-amp-fp16", "spirals-bf16", "spirals-fp32"}) {
        const Result dump = run_plab(std::string("run --dump-preset --preset ") + name);
        const Result show = run_plab(std::string("presets --show ") + name);
        ASSERT_EQ(dump.exit_code, 0) << name << ": " << dump.err;
        ASSERT_EQ(show.exit_code, 0) << name << ": " << show.err;
        EXPECT_EQ(dump.err, "") << name;
        EXPECT_EQ(json::parse(dump.out), json::parse(show.out)) << name;
        EXPECT_EQ(json::parse(dump.out).at("name"), name);
    }
}

TEST(RunCliDumpPreset, ReflectsSettingsAndFlags) {
    const Result dump = run_plab(
        "run --dump-preset --preset spirals-amp-fp16 --set scaler.init_scale=1024 --set optimizer.lr=0.005 "
        "--seed 9 --steps 33 --hist-every 3");
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    json expected = json::parse(run_plab("presets --show spirals-amp-fp16").out);
    expected["scaler"]["init_scale"] = 1024;
    expected["optimizer"]["lr"] = 0.005;
    expected["seed"] = 9;
    expected["steps"] = 33;
    expected["telemetry"]["hist_every"] = 3;
    EXPECT_EQ(json::parse(dump.out), expected);
    // The header of a real run with the same changes holds the same config.
    const Result run = run_plab(
        "run --preset spirals-amp-fp16 --set scaler.init_scale=1024 --set optimizer.lr=0.005 --seed 9 --steps 33 "
        "--hist-every 3 --quiet");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(json::parse(run.out.substr(0, run.out.find('\n'))).at("config"), expected);
}

TEST(RunCliDumpPreset, RunsNothing) {
    // Ten million steps would take hours: a prompt exit shows nothing ran.
    const auto start = std::chrono::steady_clock::now();
    const FileRun r = run_to_file("--dump-preset --steps 10000000");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
    EXPECT_LT(seconds, 10.0);
    EXPECT_EQ(r.result.err, "");  // no summary
    EXPECT_FALSE(r.file_exists);  // the preset goes to standard output; no records
    const json j = json::parse(r.result.out);  // one JSON document, nothing after it
    EXPECT_EQ(j.at("steps"), 10000000);
}

// ---- --trace-nan -----------------------------------------------------------------

struct Divergence {
    const char* label;
    const char* settings;
    // What the first non-finite value must be, where it can be worked out by
    // hand; empty/0 where only its kind is certain.
    int step;
    const char* phase;
    const char* layer;
    const char* op;
};

// fp16-pure with a static scale of 1e9: the loss gradient (p - y) / 128 times
// 1e9 is far beyond 65504 at the first backward op of step 1.
// fp16-pure SGD with lr 1000: step 1's update blows the weights up and step
// 2's forward pass overflows FP16.
const Divergence kDivergences[] = {
    {"huge_static_scale",
     "--set precision.recipe=fp16-pure --set scaler.kind=static --set scaler.init_scale=1e9", 1, "backward", "loss",
     "loss_grad"},
    {"huge_lr",
     "--set precision.recipe=fp16-pure --set scaler.kind=none --set optimizer.kind=sgd --set optimizer.lr=1000", 0,
     "forward", "", "matmul"},
};

class RunCliNan : public testing::TestWithParam<Divergence> {};

std::string divergence_name(const testing::TestParamInfo<Divergence>& param) { return param.param.label; }

TEST_P(RunCliNan, TraceNanStopsWithExitThreeAndAReport) {
    const Divergence& d = GetParam();
    const FileRun r = run_to_file(std::string("--trace-nan --steps 40 ") + d.settings);
    ASSERT_EQ(r.result.exit_code, 3) << r.result.err;
    const std::vector<json> lines = parse_lines(r.records);
    ASSERT_GE(lines.size(), 3u);
    const json& nan = lines.back();
    ASSERT_EQ(nan.at("type"), "nan");
    const int step = nan.at("step");
    if (d.step) {
        EXPECT_EQ(step, d.step);
    }
    EXPECT_EQ(nan.at("phase"), d.phase);
    if (*d.layer) {
        EXPECT_EQ(nan.at("layer"), d.layer);
    }
    EXPECT_EQ(nan.at("op"), d.op);
    EXPECT_EQ(nan.at("format"), "fp16");
    EXPECT_GT(nan.at("nans").get<std::int64_t>() + nan.at("infs").get<std::int64_t>(), 0);
    // The records stop with the step that produced it.
    EXPECT_EQ(of_type(lines, "step").size(), static_cast<std::size_t>(step));
    EXPECT_EQ(of_type(lines, "nan").size(), 1u);
    // Standard error names step, phase, layer and op, and gives the diagnosis.
    const std::string& err = r.result.err;
    const std::string diagnosis = nan.at("diagnosis");
    EXPECT_NE(err.find("plab: " + diagnosis + "\n"), std::string::npos) << err;
    for (const std::string& word : {"step " + std::to_string(step), nan.at("phase").get<std::string>(),
                                    nan.at("layer").get<std::string>(), nan.at("op").get<std::string>()})
        EXPECT_NE(err.find(word), std::string::npos) << word << " in " << err;
    EXPECT_NE(err.find("--continue-on-nan"), std::string::npos) << err;
}

TEST_P(RunCliNan, ContinueOnNanRunsEveryStep) {
    const Divergence& d = GetParam();
    const FileRun r = run_to_file(std::string("--trace-nan --continue-on-nan --steps 30 ") + d.settings);
    ASSERT_EQ(r.result.exit_code, 3) << r.result.err;  // every step written, and still: a NaN was found
    const std::vector<json> lines = parse_lines(r.records);
    EXPECT_EQ(of_type(lines, "step").size(), 30u);
    const std::vector<json> nans = of_type(lines, "nan");
    ASSERT_EQ(nans.size(), 1u);  // the first only
    EXPECT_NE(r.result.err.find(nans[0].at("diagnosis").get<std::string>()), std::string::npos) << r.result.err;
    // Without --trace-nan the same run has no report and exits 0.
    const FileRun untraced = run_to_file(std::string("--steps 30 ") + d.settings);
    ASSERT_EQ(untraced.result.exit_code, 0) << untraced.result.err;
    EXPECT_EQ(of_type(parse_lines(untraced.records), "nan").size(), 0u);
    EXPECT_EQ(of_type(parse_lines(untraced.records), "step").size(), 30u);
    // --continue-on-nan alone would do nothing: refused, naming what it needs.
    const Result alone = run_plab(std::string("run --continue-on-nan --steps 3 ") + d.settings);
    EXPECT_EQ(alone.exit_code, 2);
    EXPECT_NE(alone.err.find("--continue-on-nan: only with --trace-nan"), std::string::npos) << alone.err;
}

INSTANTIATE_TEST_SUITE_P(Divergences, RunCliNan, testing::ValuesIn(kDivergences), divergence_name);

TEST(RunCliNanScaler, StaticScaleSkipsEveryOverflowingStep) {
    const FileRun r = run_to_file(
        "--trace-nan --continue-on-nan --steps 20 --set precision.recipe=fp16-pure --set scaler.kind=static "
        "--set scaler.init_scale=1e9");
    ASSERT_EQ(r.result.exit_code, 3) << r.result.err;
    for (const json& s : of_type(parse_lines(r.records), "step")) {
        EXPECT_EQ(s.at("found_inf"), true);
        EXPECT_EQ(s.at("skipped"), true);
        EXPECT_EQ(s.at("scale"), 1e9);  // static: never backs off
        EXPECT_EQ(s.at("scale_after"), 1e9);
    }
}

// ---- bad input -------------------------------------------------------------------

struct BadInput {
    const char* label;
    const char* args;  // "{dir}" stands for a scratch directory holding bad.json
    std::vector<std::string> message;  // each must be in the one-line message
};

const BadInput kBadInputs[] = {
    {"unknown_key", "--set scaler.grwth=3",
     {"plab: scaler.grwth: unknown key; allowed keys: kind, init_scale, growth_factor"}},
    {"unknown_top_key", "--set foo=1", {"plab: foo: unknown key; allowed keys: name, description, guide, seed"}},
    {"wrong_type", "--set steps=abc", {"plab: steps: \"abc\" is not allowed; allowed an integer 1..10000000"}},
    {"wrong_type_bool", "--set twin=3", {"plab: twin: 3 is not allowed; allowed true|false"}},
    {"out_of_range", "--set scaler.growth_factor=0.5",
     {"plab: scaler.growth_factor: 0.5 is out of range; allowed", "> 1"}},
    {"out_of_range_list", "--set model.hidden=[0]", {"plab: model.hidden[0]: 0 is out of range; allowed 1..4096"}},
    {"unknown_name", "--set precision.recipe=fp64",
     {"plab: precision.recipe: \"fp64\" is not allowed; allowed fp32|tf32|amp-fp16|amp-bf16|fp16-pure|bf16-pure|fp8"}},
    {"set_without_value", "--set scaler.init_scale", {"plab: --set: \"scaler.init_scale\" is not allowed; allowed"}},
    {"unknown_preset", "--preset spirals-fp64",
     {"plab: unknown preset \"spirals-fp64\"; known presets: ", "fp16-static-overflow, ", "spirals-amp-fp16, ",
      "spirals-fp32, ", "underflow-no-scaling (in "}},
    {"invalid_json_file", "--preset {dir}/bad.json", {"plab: {dir}/bad.json:1:26: invalid JSON: "}},
    {"missing_file", "--preset {dir}/absent.json", {"plab: preset file \"{dir}/absent.json\": cannot be read"}},
    {"format_xml", "--format xml", {"plab: --format", "xml", "jsonl", "csv"}},
    {"steps_zero", "--steps 0", {"plab: --steps: 0 is out of range; allowed 1..10000000"}},
    {"steps_negative", "--steps -3", {"plab: --steps: -3 is out of range; allowed 1..10000000"}},
    {"steps_not_a_number", "--steps abc", {"plab: ", "--steps", "abc"}},
    {"backend_gpu", "--backend gpu", {"plab: --backend: 'gpu' is not a backend; allowed: auto|cpu|cuda"}},
    {"hist_every_negative", "--hist-every -1", {"plab: --hist-every: -1 is out of range; allowed 0..10000000"}},
    {"hist_every_with_csv", "--hist-every 5 --format csv", {"plab: --hist-every: ", "--format jsonl"}},
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
    return s;
}

// A scratch directory with a preset file holding a JSON syntax error at 1:26.
fs::path dir_with_bad_preset() {
    const fs::path dir = scratch_dir();
    std::ofstream(dir / "bad.json") << R"({"name": "x", "steps": 7,})";
    return dir;
}

class RunCliBadInput : public testing::TestWithParam<BadInput> {};

std::string bad_input_name(const testing::TestParamInfo<BadInput>& param) { return param.param.label; }

TEST_P(RunCliBadInput, ExitsTwoWithOneLineNamingTheField) {
    const BadInput& b = GetParam();
    const fs::path dir = dir_with_bad_preset();
    const Result r = run_plab("run " + replace_all(b.args, "{dir}", dir.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(count_of(r.err, '\n'), 1u) << r.err;
    for (const std::string& part : b.message)
        EXPECT_NE(r.err.find(replace_all(part, "{dir}", dir.string())), std::string::npos) << part << "\n" << r.err;
    // --dump-preset checks its input the same way.
    EXPECT_EQ(run_plab("run --dump-preset " + replace_all(b.args, "{dir}", dir.string())).exit_code, 2);
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Cases, RunCliBadInput, testing::ValuesIn(kBadInputs), bad_input_name);

TEST(RunCliBadInputOut, UnwritableOutFileExitsTwo) {
    const Result r = run_plab("run --steps 5 --out /nonexistent-plab-dir/records.jsonl");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err,
              "plab: --out: '/nonexistent-plab-dir/records.jsonl' is in a folder that does not exist "
              "('/nonexistent-plab-dir')\n");
}

TEST(RunCliBadInputOut, BadInputWritesNothingToOut) {
    // Every bad input exits 2 without creating --out, and without
    // truncating a previous run's file there (nor leaving FILE.part).
    const fs::path dir = dir_with_bad_preset();
    for (const BadInput& b : kBadInputs) {
        const fs::path fresh = dir / "fresh.jsonl", kept = dir / "kept.jsonl";
        std::ofstream(kept) << "previous records\n";
        const std::string args = replace_all(b.args, "{dir}", dir.string());
        EXPECT_EQ(run_plab("run " + args + " --out '" + fresh.string() + "'").exit_code, 2) << b.label;
        EXPECT_FALSE(fs::exists(fresh)) << b.label;
        for (const auto& entry : fs::directory_iterator(dir))  // no temporary file left either
            EXPECT_EQ(entry.path().string().find(".part"), std::string::npos) << b.label << ": " << entry.path();
        EXPECT_EQ(run_plab("run " + args + " --out '" + kept.string() + "'").exit_code, 2) << b.label;
        EXPECT_EQ(slurp(kept), "previous records\n") << b.label;
    }
    fs::remove_all(dir);
}

TEST(RunCliBadInputSeed, SeedOutOfRangeIsRejected) {
    // Neither wrapped (-1) nor clamped (2^64): rejected with the range.
    for (const char* seed : {"-1", "18446744073709551616"}) {
        const Result r = run_plab(std::string("run --dump-preset --seed ") + seed);
        EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.out;
        EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("allowed"), std::string::npos) << r.err;
    }
}

TEST(RunCliBadInputFormat, FormatTakesOnlyItsNamesAndSaysSo) {
    // Only the names, and every message in the project's shape.
    EXPECT_EQ(run_plab("run --steps 2 --quiet --format 1").exit_code, 2);
    EXPECT_EQ(run_plab("run --steps 2 --quiet --format 0").exit_code, 2);
    for (const char* args : {"--format xml", "--steps abc", "--steps 2.5", "--hist-every 2.5", "--seed abc"}) {
        const Result r = run_plab(std::string("run ") + args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_NE(r.err.find("allowed"), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(r.err.find("->"), std::string::npos) << args << ": " << r.err;
    }
}

TEST(RunCliErrors, ASettingTheScalerKindIgnoresExitsTwo) {
    const Result none = run_plab("run --preset spirals-bf16 --steps 5 --set scaler.init_scale=1024");
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, init_scale_ignored_by_no_scaler("1024"));
    // The same setting with a kind that reads it trains.
    EXPECT_EQ(run_plab("run --preset spirals-bf16 --steps 5 --quiet --set scaler.kind=static --set scaler.init_scale=1024")
                  .exit_code,
              0);
}

// A model that does not fit in memory is bad input, not a crash: under a
// 1.5 GB address-space limit the largest model the presets allow (8 x 4096
// wide, 117.5 M parameters plus the twin, ~4 GB of FP32 tensors) must end
// with one line naming its size, exit 2 (it aborted on std::bad_alloc).
TEST(RunCliErrors, ModelTooBigForMemoryNamesItsSizeAndExitsTwo) {
    const std::filesystem::path dir = scratch_dir();
    const std::string cmd = "ulimit -v 1500000; env -u PLAB_PRESET_DIR '" + std::string(PLAB_EXE) +
                            "' run --steps 1 --set 'model.hidden=[4096,4096,4096,4096,4096,4096,4096,4096]' > '" +
                            (dir / "out").string() + "' 2> '" + (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string err = slurp(dir / "err");
    EXPECT_EQ(err.rfind("plab: a 2-4096-4096-4096-4096-4096-4096-4096-4096-3 MLP (117.5 M parameters, batch 128, "
                        "with its FP32 twin) does not fit on CPU (exact emulation): cannot allocate ",
                        0),
              0u)
        << err;
    EXPECT_NE(err.find(" MiB of host memory; try smaller model.hidden or batch_size, or twin=false\n"),
              std::string::npos)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace plab
