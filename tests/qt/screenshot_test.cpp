// The workbench as a person sees it: precision-lab renders the whole window
// and every panel offscreen after a short run; each image must exist, have
// the expected size and show something (many colours, not one flat fill).
#include <gtest/gtest.h>

#include <QImage>
#include <QSet>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "temp_path.h"

namespace {

struct Shot {
    int exit_code = -1;
    QImage image;
};

// The workbench run with `args` and --screenshot into a file named after `name`.
Shot shoot(const std::string& args, const std::string& name) {
    const std::filesystem::path file = plab::testing_support::temp_path("plab-shot-" + name, ".png");
    std::filesystem::remove(file);
    const std::string command =
        std::string(PLAB_WORKBENCH) + " " + args + " --screenshot " + file.string() + " > /dev/null";
    Shot s;
    const int status = std::system(command.c_str());
    s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    s.image.load(QString::fromStdString(file.string()));
    return s;
}

Shot screenshot(const std::string& args, const std::string& name, const std::string& preset = "spirals-amp-fp16",
                int steps = 120) {
    return shoot("--preset " + preset + " --steps " + std::to_string(steps) + " " + args, name);
}

// Distinct colours over a grid of samples, and the share of samples that
// differ from the most common one (the background).
struct Variety {
    int colours = 0;
    double not_background = 0;
};

Variety variety(const QImage& img) {
    QHash<QRgb, int> counts;
    int samples = 0;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3) {
            ++counts[img.pixel(x, y)];
            ++samples;
        }
    int most = 0;
    for (int c : counts) most = std::max(most, c);
    return {static_cast<int>(counts.size()), samples ? 1.0 - static_cast<double>(most) / samples : 0.0};
}

void expect_drawn(const Shot& s, int min_width, int min_height) {
    ASSERT_EQ(s.exit_code, 0);
    ASSERT_FALSE(s.image.isNull()) << "no image written";
    EXPECT_GE(s.image.width(), min_width);
    EXPECT_GE(s.image.height(), min_height);
    const Variety v = variety(s.image);
    EXPECT_GE(v.colours, 20) << "nearly flat image";
    EXPECT_GE(v.not_background, 0.05) << "almost everything is background";
}

TEST(Screenshot, WholeWindow) { expect_drawn(screenshot("", "window"), 1200, 700); }

// Projector mode: a projector's 1920x1080, every panel at 1.5 times the size.
TEST(Screenshot, WholeWindowInProjectorMode) {
    const Shot s = screenshot("--projector", "window-projector");
    expect_drawn(s, 1920, 1080);
}

class PanelShot : public ::testing::TestWithParam<const char*> {};

TEST_P(PanelShot, IsDrawn) {
    // The diagnosis panel has something to show once a run has overflowed; the
    // decision panel once the first grid is taken (every 200 steps in the workbench);
    // the scenario panel on a scenario preset (its guide and its buttons); the
    // samples panel once a language model wrote its first text (step 50); the
    // sweep panel trains its own default grid before the shot.
    const std::string panel = GetParam();
    const bool nan = panel == "nan", samples = panel == "samples";
    const int steps = nan ? 270 : (panel == "decision" ? 200 : samples ? 50 : 120);
    const std::string preset = nan                   ? "fp16-static-overflow"
                               : panel == "scenario" ? "scaler-sawtooth"
                               : samples             ? "tiny-gpt-amp-fp16"
                                                     : "spirals-amp-fp16";
    expect_drawn(screenshot("--panel " + panel, panel, preset, steps), 250, 150);
}

// Every panel on a recorded run (written by plab run): drawn from the record,
// or saying why the record cannot feed it; the what-if overlays the scale panel.
class RecordShot : public ::testing::TestWithParam<const char*> {};

std::string recorded_run() {
    static const std::string file = [] {
        const std::string path = plab::testing_support::temp_path("plab-shot-record", ".jsonl").string();
        const std::string command = std::string(PLAB_EXE) + " run --preset scaler-sawtooth --steps 300 --format jsonl --out " +
                                    path + " > /dev/null 2>&1";
        return std::system(command.c_str()) == 0 ? path : std::string();
    }();
    return file;
}

Shot record_screenshot(const std::string& args, const std::string& name) {
    return shoot("--open " + recorded_run() + " " + args, "record-" + name);
}

TEST(RecordShot, WholeWindowWithAWhatIf) {
    ASSERT_FALSE(recorded_run().empty()) << "plab run could not write the record";
    expect_drawn(record_screenshot("--what-if scaler.init_scale=1024", "window"), 1200, 700);
}

// A run without a loss scaler: a what-if of its init_scale alone would draw
// the recorded trajectory again, so the command line refuses it.
TEST(RecordShot, AWhatIfTheRecordsScalerKindIgnoresExitsTwo) {
    const std::string path = plab::testing_support::temp_path("plab-shot-no-scaler", ".jsonl").string();
    ASSERT_EQ(std::system((std::string(PLAB_EXE) + " run --preset spirals-bf16 --steps 20 --quiet --out " + path +
                           " > /dev/null 2>&1").c_str()),
              0);
    EXPECT_EQ(shoot("--open " + path + " --what-if scaler.init_scale=1024 2> /dev/null", "no-scaler").exit_code, 2);
    EXPECT_EQ(shoot("--open " + path + " --what-if scaler.kind=dynamic --what-if scaler.init_scale=1024 --panel scale",
                    "no-scaler-dynamic").exit_code,
              0);
}

TEST_P(RecordShot, IsDrawn) {
    ASSERT_FALSE(recorded_run().empty()) << "plab run could not write the record";
    const std::string panel = GetParam();
    const Shot s = record_screenshot("--panel " + panel, panel);
    if (panel != "decision" && panel != "samples") {
        expect_drawn(s, 250, 150);
        return;
    }
    // A record holds no decision boundary, and an MLP's no text: the panel says so in a line of text.
    ASSERT_EQ(s.exit_code, 0);
    ASSERT_FALSE(s.image.isNull());
    const Variety v = variety(s.image);
    EXPECT_GE(v.colours, 3);
    EXPECT_GE(v.not_background, 0.002) << "no text drawn";
}

INSTANTIATE_TEST_SUITE_P(EveryPanel, RecordShot, ::testing::Values("bits", "histograms", "scale", "loss", "divergence", "events", "nan", "decision", "scenario", "speed", "samples", "sweep"));

INSTANTIATE_TEST_SUITE_P(EveryPanel, PanelShot, ::testing::Values("bits", "histograms", "scale", "loss", "divergence", "events", "nan", "decision", "scenario", "speed", "samples", "sweep"));

// A language model's record: the samples panel draws the text read back
// from the record's samples lines.
TEST(RecordShot, SamplesOfARecordedLanguageModel) {
    const std::string path = plab::testing_support::temp_path("plab-shot-gpt-record", ".jsonl").string();
    const std::string command = std::string(PLAB_EXE) + " run --preset tiny-gpt-amp-fp16 --steps 60 --out " + path +
                                " > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << "plab run could not write the record";
    expect_drawn(shoot("--open " + path + " --panel samples", "record-gpt-samples"), 250, 150);
}

// A scenario opens with the panels its guide names: tf32-drift's raises the
// divergence panel at once, whose relabelled axis moved the plot area and
// once made it redraw itself until the stack ran out.
TEST(Screenshot, ScenarioWindowWithItsGuidedPanels) {
    expect_drawn(screenshot("", "tf32-drift-window", "tf32-drift", 100), 1200, 700);
}

// Every panel of a run whose every step overflowed: the scale backs off to 0
// (minus infinity on the log2 axis, NaN once mapped to pixels), the losses
// are NaN. Markers at such points once crashed the raster engine.
class DegenerateRunShot : public ::testing::TestWithParam<const char*> {};

TEST_P(DegenerateRunShot, IsDrawn) {
    const std::string panel = GetParam();
    expect_drawn(screenshot("--panel " + panel, "degenerate-" + panel, "attention-softmax-overflow", 300), 250, 150);
}

INSTANTIATE_TEST_SUITE_P(EveryPanel, DegenerateRunShot,
                         ::testing::Values("histograms", "scale", "loss", "divergence", "events", "nan", "decision", "sweep"));

TEST(Screenshot, UnknownPanelIsAnErrorNamingTheAllowedOnes) {
    const Shot s = screenshot("--panel nope", "nope");
    EXPECT_EQ(s.exit_code, 2);
    EXPECT_TRUE(s.image.isNull());
}

TEST(Screenshot, UnwritablePathIsAnErrorNotACrash) {
    const std::string command = std::string(PLAB_WORKBENCH) +
                                " --steps 1 --screenshot /nonexistent-dir/x.png > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
}

// An empty name used to open the interactive window, which never exits; a
// name with no image suffix cannot say what to write.
TEST(Screenshot, EmptyOrSuffixlessNameIsAnErrorAndTheWindowNeverOpens) {
    for (const char* name : {"''", "/tmp/plab-shot-without-suffix"}) {
        const std::string command = "timeout 60 " + std::string(PLAB_WORKBENCH) + " --steps 1 --screenshot " + name +
                                    " > /dev/null 2>&1";
        const int status = std::system(command.c_str());
        ASSERT_TRUE(WIFEXITED(status)) << name;
        EXPECT_EQ(WEXITSTATUS(status), 2) << name;
    }
}

TEST(Screenshot, BadOptionValueIsAnErrorWithExitCodeTwo) {
    const std::string command = std::string(PLAB_WORKBENCH) + " --steps -3 --screenshot /tmp/plab-bad.png > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(Screenshot, BadPresetIsAnError) {
    const std::string command = std::string(PLAB_WORKBENCH) +
                                " --preset no-such-preset --screenshot /tmp/plab-bad.png > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
}

// Without any display Qt would abort in its platform plugin; the workbench
// says so in a line and exits 3 instead.
TEST(Screenshot, NoDisplayIsALineAndExitCodeThree) {
    const std::string command = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM " + std::string(PLAB_WORKBENCH) +
                                " > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3);
}

// A preset remembered from last time that no longer loads (moved, deleted)
// does not keep the workbench from opening: it opens on the default preset.
TEST(Screenshot, AVanishedRememberedPresetFallsBackToTheDefault) {
    const std::string config = plab::testing_support::temp_path("plab-settings-test").string();
    std::system(("rm -rf " + config + " && mkdir -p " + config + "/PrecisionLab").c_str());
    std::FILE* f = std::fopen((config + "/PrecisionLab/precision-lab.conf").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("[run]\npreset=/nonexistent-dir/gone.json\n", f);
    std::fclose(f);
    // Interactive (no --screenshot): it runs until the timeout ends it (124); a failed start exits 2 at once.
    const std::string command = "XDG_CONFIG_HOME=" + config + " QT_QPA_PLATFORM=offscreen timeout 3 " +
                                std::string(PLAB_WORKBENCH) + " > " + config + "/out.txt 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 124);
    std::FILE* out = std::fopen((config + "/out.txt").c_str(), "r");
    ASSERT_NE(out, nullptr);
    char text[4096] = {};
    (void)std::fread(text, 1, sizeof text - 1, out);
    std::fclose(out);
    EXPECT_NE(std::string(text).find("the last preset opened no longer loads"), std::string::npos) << text;
    EXPECT_NE(std::string(text).find("opening spirals-amp-fp16"), std::string::npos) << text;
}

}  // namespace
