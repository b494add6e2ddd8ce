// The fp8 recipe's delayed scaling (engine/amp/fp8_scaling.h): the scale rule
// on hand-made amaxes and histories, worked out by hand from the formats'
// largest values (E4M3 448 = 1.75 * 2^8, E5M2 57344 = 1.75 * 2^15); the
// history window; and the preset fields' validation messages.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "engine/amp/fp8_scaling.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

TEST(Fp8ScaleRule, HandComputedExponents) {
    // floor(log2(448 / amax)) - margin, worked out by hand:
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 1.0f, 0), 8);      // 256 <= 448 < 512
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 448.0f, 0), 0);    // already at the top
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 449.0f, 0), -1);   // just over: halve
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 0.001f, 0), 18);   // 262.1 <= 448 < 524.3
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 1000.0f, 0), -2);  // 250 <= 448 < 500
    // floor(log2(57344 / amax)):
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 1.0f, 0), 15);   // 32768 <= 57344 < 65536
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 1e-6f, 0), 35);  // 34359.7 <= 57344 < 68719.5
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 3e-3f, 0), 24);  // 50331.6 <= 57344 < 100663.3
    // The margin lowers the scale by whole binades.
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 1.0f, 2), 6);
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 1e-6f, 8), 27);
    EXPECT_EQ(fp8_scale(FormatId::e5m2, 1e-6f, 0), 34359738368.0f);  // 2^35
    EXPECT_EQ(fp8_scale(FormatId::e4m3, 1000.0f, 0), 0.25f);
}

TEST(Fp8ScaleRule, ExactAtPowersOfTwoOfTheMax) {
    // amax = 448 / 2^7 = 3.5: scaled by 2^7 it is exactly 448, which fits.
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, 3.5f, 0), 7);
    // One FP32 step above, 2^7 would overflow 448: one binade less.
    EXPECT_EQ(fp8_scale_exponent(FormatId::e4m3, std::nextafter(3.5f, 4.0f), 0), 6);
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 57344.0f / 1024.0f, 0), 10);
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, std::nextafter(56.0f, 57.0f), 0), 9);
}

TEST(Fp8ScaleRule, ClampedAndRejected) {
    // log2(57344 / 1e-30) = 115.4 and log2(57344 / 1e30) = -83.8: clamped to +-63.
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 1e-30f, 0), 63);
    EXPECT_EQ(fp8_scale_exponent(FormatId::e5m2, 1e30f, 0), -63);
    EXPECT_THROW(fp8_scale_exponent(FormatId::e4m3, 0.0f, 0), Error);
    EXPECT_THROW(fp8_scale_exponent(FormatId::e4m3, std::numeric_limits<float>::infinity(), 0), Error);
}

TEST(AmaxHistoryWindow, KeepsTheLastLengthValues) {
    AmaxHistory h(3);
    EXPECT_EQ(h.max(), 0.0f);
    h.push(8.0f);
    h.push(1.0f);
    h.push(2.0f);
    EXPECT_EQ(h.max(), 8.0f);
    h.push(1.0f);  // 8 leaves the window
    EXPECT_EQ(h.max(), 2.0f);
    EXPECT_EQ(h.values(), (std::deque<float>{1.0f, 2.0f, 1.0f}));
    h.resize(1);  // keeps the newest
    EXPECT_EQ(h.values(), (std::deque<float>{1.0f}));
    h.push(0.5f);
    EXPECT_EQ(h.max(), 0.5f);
}

TEST(Fp8DelayedScaling, ScalesFollowTheHistoryOfPreviousSteps) {
    Fp8Scaling s({Fp8ScalingKind::delayed, 3, 0}, 2);
    ASSERT_EQ(s.scales().size(), 2u);
    EXPECT_EQ(s.scales()[1], Fp8Scales{});  // step 1: no history, every scale 1

    s.observe(1, Fp8Tensor::grad, 1e-6f);
    s.observe(1, Fp8Tensor::input, 1.0f);
    EXPECT_EQ(s.scales()[1].grad, 1.0f);  // this step's amax serves later steps only
    s.end_step();
    EXPECT_EQ(s.scales()[1].grad, std::ldexp(1.0f, 35));
    EXPECT_EQ(s.scales()[1].input, 256.0f);
    EXPECT_EQ(s.scales()[1].weight, 1.0f);  // never observed: keeps 1
    EXPECT_EQ(s.scales()[0], Fp8Scales{});

    // Two micro-batches: the step's amax is the larger one.
    s.observe(1, Fp8Tensor::grad, 5e-4f);
    s.observe(1, Fp8Tensor::grad, 3e-3f);
    s.end_step();  // history {1e-6, 3e-3}
    EXPECT_EQ(s.scales()[1].grad, std::ldexp(1.0f, 24));
    for (int step = 0; step < 2; ++step) {
        s.observe(1, Fp8Tensor::grad, 1e-6f);
        s.end_step();  // {3e-3, 1e-6, 1e-6}: 3e-3 still in the window
        EXPECT_EQ(s.scales()[1].grad, std::ldexp(1.0f, 24));
    }
    s.observe(1, Fp8Tensor::grad, 1e-6f);
    s.end_step();  // {1e-6, 1e-6, 1e-6}: slid out
    EXPECT_EQ(s.scales()[1].grad, std::ldexp(1.0f, 35));
    EXPECT_EQ(s.history(1, Fp8Tensor::grad).values().size(), 3u);
}

TEST(Fp8DelayedScaling, ReconfigureAppliesAtOnce) {
    Fp8Scaling s({Fp8ScalingKind::none, 4, 0}, 1);
    s.observe(0, Fp8Tensor::grad, 3e-3f);
    s.end_step();
    s.observe(0, Fp8Tensor::grad, 1e-6f);
    s.end_step();
    EXPECT_EQ(s.scales()[0], Fp8Scales{});  // none: all 1, the history still kept
    s.reconfigure({Fp8ScalingKind::delayed, 4, 1});
    EXPECT_EQ(s.scales()[0].grad, std::ldexp(1.0f, 24 - 1));  // max of {3e-3, 1e-6}, margin 1
    s.reconfigure({Fp8ScalingKind::delayed, 1, 0});           // keeps the newest: {1e-6}
    EXPECT_EQ(s.scales()[0].grad, std::ldexp(1.0f, 35));
    EXPECT_THROW(s.reconfigure({Fp8ScalingKind::delayed, 0, 0}), Error);
}

std::string setting_error(const std::string& assignment) {
    RunConfig c;
    try {
        apply_setting(c, assignment);
        validate(c);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Fp8Fields, ValidationNamesTheFieldAndTheAllowedValues) {
    EXPECT_EQ(setting_error("precision.fp8_scaling=auto"),
              "precision.fp8_scaling: \"auto\" is not allowed; allowed none|delayed");
    EXPECT_EQ(setting_error("precision.fp8_history_len=0"),
              "precision.fp8_history_len: 0 is out of range; allowed 1..1024");
    EXPECT_EQ(setting_error("precision.fp8_history_len=1025"),
              "precision.fp8_history_len: 1025 is out of range; allowed 1..1024");
    EXPECT_EQ(setting_error("precision.fp8_margin=9"), "precision.fp8_margin: 9 is out of range; allowed 0..8");
    EXPECT_EQ(setting_error("precision.fp8_margin=-1"), "precision.fp8_margin: -1 is out of range; allowed 0..8");
    EXPECT_EQ(setting_error("precision.fp8_margin=1.5"),
              "precision.fp8_margin: 1.5 is not allowed; allowed an integer 0..8");
    // A config built in code is checked by validate() too.
    RunConfig c;
    c.precision.fp8.history_len = 2000;
    try {
        validate(c);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "precision.fp8_history_len: 2000 is out of range; allowed 1..1024");
    }
}

TEST(Fp8Fields, DefaultsAndRoundTrip) {
    RunConfig c;
    EXPECT_EQ(c.precision.fp8, (Fp8Config{Fp8ScalingKind::delayed, 16, 0}));
    apply_settings(c, {"precision.recipe=fp8", "precision.fp8_scaling=none", "precision.fp8_history_len=4",
                       "precision.fp8_margin=2"});
    EXPECT_EQ(c.precision.recipe, Recipe::fp8);
    EXPECT_EQ(c.precision.fp8, (Fp8Config{Fp8ScalingKind::none, 4, 2}));
    const std::string json = run_config_to_json(c, true);
    EXPECT_NE(json.find("\"fp8_scaling\": \"none\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"fp8_history_len\": 4"), std::string::npos) << json;
    EXPECT_EQ(parse_run_config(json, "round-trip"), c);
}

}  // namespace
}  // namespace plab
