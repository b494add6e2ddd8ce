// The live view as a person sees it: precision-lab-imgui renders its window
// under xvfb-run (Mesa's software OpenGL) after a short run; the PNG must
// exist, have the window's size and show something (many colours, not one
// flat fill). Skipped where xvfb-run is not installed.
#include <gtest/gtest.h>

#include <stb/stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <sys/wait.h>

#include "temp_path.h"

namespace {

int exit_code(const std::string& command) {
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool have_xvfb() { return exit_code("command -v xvfb-run > /dev/null 2>&1") == 0; }

struct Image {
    int width = 0, height = 0;
    std::map<unsigned, int> colours;  // RGB -> pixels of it (every pixel)
    int pixels = 0;
};

Image load(const std::filesystem::path& file) {
    Image img;
    int channels = 0;
    unsigned char* data = stbi_load(file.c_str(), &img.width, &img.height, &channels, 3);
    if (!data) return img;
    img.pixels = img.width * img.height;
    for (int i = 0; i < img.pixels; ++i) {
        const unsigned char* p = data + 3 * i;
        ++img.colours[(unsigned{p[0]} << 16) | (unsigned{p[1]} << 8) | p[2]];
    }
    stbi_image_free(data);
    return img;
}

struct Shot {
    int exit_code = -1;
    Image image;
};

Shot shoot(const std::string& name, const std::string& args) {
    const std::filesystem::path file = plab::testing_support::temp_path("plab-imgui-" + name, ".png");
    std::filesystem::remove(file);
    // An auth file of our own: xvfb-run then makes no temporary folder, whose
    // removal it reports as its own exit code 5 when it fails.
    const std::filesystem::path auth = plab::testing_support::temp_path("plab-imgui-" + name, ".xauth");
    Shot s;
    s.exit_code = exit_code("xvfb-run -a -f " + auth.string() + " -s \"-screen 0 1600x1000x24\" " +
                            std::string(PLAB_LIVE_VIEW) + " " + args + " --screenshot " + file.string() + " > /dev/null");
    std::filesystem::remove(auth);
    s.image = load(file);
    return s;
}

// The least share of pixels not in the image's most common colour (the
// window background, which the plots no longer fill over). Measured at
// 1600x1000, normal look (projector in brackets): a blank frame (the GL clear
// and the window's 1-pixel border) 0.32%; the status line alone 0.7% (1.2%);
// every panel's border and title with nothing in them 2.1% (2.7%); trained,
// as the tests below shoot them, 17.5% to 18.2% (the tiny GPT with its
// samples 18.9%), scaler-sawtooth after 600 steps 21.5%. 8% is about three times the fullest near-blank frame and
// under half the emptiest trained one. (An untrained frame at step 0, 11%
// (7.7%), is not what these tests shoot.)
constexpr double kMinDrawn = 0.08;

void expect_drawn(const Shot& s) {
    ASSERT_EQ(s.exit_code, 0);
    ASSERT_GT(s.image.pixels, 0) << "no PNG written";
    EXPECT_EQ(s.image.width, 1600);
    EXPECT_EQ(s.image.height, 1000);
    int most = 0;
    for (const auto& [rgb, n] : s.image.colours) most = std::max(most, n);
    EXPECT_GE(s.image.colours.size(), 50u) << "nearly flat image";
    EXPECT_GE(1.0 - static_cast<double>(most) / s.image.pixels, kMinDrawn) << "almost everything is background";
}

// Pixels of exactly the live view's overflow red (ui/imgui/look.h): its
// NaN headline and overflow markers, besides the small swatch of the scale
// panel's colour key (about 100 pixels), which is always there.
constexpr int kKeySwatch = 200;
int overflow_red(const Image& img) {
    const auto it = img.colours.find(0xf03c3cu);
    return it == img.colours.end() ? 0 : it->second;
}

TEST(LiveViewScreenshot, TrainedSpirals) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    const Shot s = shoot("spirals", "--preset spirals-amp-fp16 --steps 300");
    expect_drawn(s);
    EXPECT_LE(overflow_red(s.image), kKeySwatch) << "spirals-amp-fp16 never overflows: only the key's swatch is red";
}

// A tiny GPT like tiny-gpt-amp-fp16 that writes its samples at step 5, so
// that the test trains 5 steps rather than the preset's 50.
std::string sampling_gpt_preset() {
    const std::filesystem::path file = plab::testing_support::temp_path("plab-gpt-samples", ".json");
    std::ofstream(file) << R"({"name": "plab-gpt-samples", "description": "A tiny GPT that writes samples at once",
        "batch_size": 16, "eval_every": 100, "twin": true, "data": {"kind": "shakespeare", "test_fraction": 0.1},
        "model": {"kind": "gpt", "context": 32, "width": 64, "heads": 4, "layers": 2},
        "precision": {"recipe": "amp-fp16"}, "telemetry": {"hist_every": 5, "sample_every": 5}})";
    return file.string();
}

// A language model: the samples panel shares the right column with the NaN
// diagnosis, showing the text of step 5 beside the twin's.
TEST(LiveViewScreenshot, ATinyGptWithItsSamples) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    const Shot s = shoot("tiny-gpt", "--preset " + sampling_gpt_preset() + " --steps 5");
    expect_drawn(s);
    EXPECT_LE(overflow_red(s.image), kKeySwatch) << "no overflow in 5 steps, and the samples agree with the twin's";
}

TEST(LiveViewScreenshot, ProjectorMode) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    expect_drawn(shoot("projector", "--preset spirals-amp-fp16 --steps 100 --projector"));
}

TEST(LiveViewScreenshot, NanDiagnosisShowsInRed) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    const Shot s = shoot("nan", "--preset overflow-nan --steps 60");
    expect_drawn(s);
    // 30 overflow markers and the diagnosis's headline.
    EXPECT_GE(overflow_red(s.image), 5 * kKeySwatch);
}

// A run record written by plab run, opened in place of a preset: the panels
// draw it, and the what-if at a higher scale is drawn over its trajectory.
std::string recorded_run() {
    static const std::string file = [] {
        const std::string path = plab::testing_support::temp_path("plab-live-record", ".jsonl").string();
        return exit_code(std::string(PLAB_EXE) + " run --preset scaler-sawtooth --steps 300 --format jsonl --out " + path +
                         " > /dev/null 2>&1") == 0
                   ? path
                   : std::string();
    }();
    return file;
}

TEST(LiveViewScreenshot, ARecordedRunWithAWhatIf) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    ASSERT_FALSE(recorded_run().empty()) << "plab run could not write the record";
    const Shot s = shoot("record", "--open " + recorded_run() + " --what-if scaler.init_scale=16777216");
    expect_drawn(s);
    // The record's overflow markers (scaler-sawtooth overflows every few dozen steps).
    EXPECT_GE(overflow_red(s.image), 5 * kKeySwatch);
}

TEST(LiveViewScreenshot, AWhatIfTheRecordsScalerKindIgnoresExitsTwo) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    const std::string path = plab::testing_support::temp_path("plab-live-no-scaler", ".jsonl").string();
    ASSERT_EQ(exit_code(std::string(PLAB_EXE) + " run --preset spirals-bf16 --steps 20 --quiet --out " + path +
                        " > /dev/null 2>&1"),
              0);
    EXPECT_EQ(shoot("no-scaler", "--open " + path + " --what-if scaler.growth_interval=5 2> /dev/null").exit_code, 2);
}

TEST(LiveViewScreenshot, ABadRecordExitsTwo) {
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not installed";
    EXPECT_EQ(shoot("bad-record", "--open /nonexistent/run.jsonl").exit_code, 2);
}

// Bad input is refused before any window opens: no display needed.
TEST(LiveViewArguments, BadInputExitsTwo) {
    const std::string exe = PLAB_LIVE_VIEW;
    EXPECT_EQ(exit_code(exe + " --preset no-such-preset --screenshot x.png 2> /dev/null"), 2);
    EXPECT_EQ(exit_code(exe + " --size 12x34 --screenshot x.png 2> /dev/null"), 2);
    EXPECT_EQ(exit_code(exe + " --screenshot x.jpg 2> /dev/null"), 2);
    EXPECT_EQ(exit_code(exe + " --steps -1 2> /dev/null"), 2);
    EXPECT_EQ(exit_code(exe + " --open run.jsonl --steps 5 2> /dev/null"), 2);
    EXPECT_EQ(exit_code(exe + " --what-if scaler.init_scale=2 2> /dev/null"), 2);  // needs --open
    EXPECT_EQ(exit_code(exe + " --help > /dev/null"), 0);
}

}  // namespace
