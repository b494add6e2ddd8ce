#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/amp/loss_scaler.h"
#include "engine/common/error.h"

namespace plab {
namespace {

// ---------------------------------------------------------------------------
// Slow references, written from the papers' / libraries' own statements and
// sharing no code with the engine. Each replays the whole found_inf history
// from the initial state for every step it is asked about, so a state bug in
// the engine (anything carried wrongly from one step to the next) cannot be
// mirrored here.

struct RefState {
    float scale;
    int tracker;
};

// PyTorch _amp_update_scale_, as in aten/src/ATen/native/cuda/AmpKernels.cu.
RefState pytorch_replay(const ScalerConfig& c, const std::vector<bool>& history) {
    RefState s{c.init_scale, 0};
    for (bool found_inf : history) {
        if (found_inf) {
            s.scale = s.scale * c.backoff_factor;
            s.tracker = 0;
        } else {
            int successful = s.tracker + 1;
            if (successful == c.growth_interval) {
                float grown = s.scale * c.growth_factor;
                if (std::isfinite(grown)) s.scale = grown;
                s.tracker = 0;
            } else {
                s.tracker = successful;
            }
        }
    }
    return s;
}

struct RefHysteresis {
    float scale;
    int tracker;
    int hysteresis_tracker;
};

// Megatron-LM DynamicGradScaler.update (the tracker may go below zero there),
// plus the lab's max_scale ceiling applied before the finite check.
RefHysteresis megatron_replay(const ScalerConfig& c, const std::vector<bool>& history) {
    RefHysteresis s{c.init_scale, 0, c.hysteresis};
    for (bool found_inf : history) {
        if (found_inf) {
            s.tracker = 0;
            s.hysteresis_tracker -= 1;
            if (s.hysteresis_tracker <= 0) s.scale = std::fmax(s.scale * c.backoff_factor, c.min_scale);
        } else {
            s.tracker += 1;
            if (s.tracker == c.growth_interval) {
                s.tracker = 0;
                s.hysteresis_tracker = c.hysteresis;
                float grown = s.scale * c.growth_factor;
                if (c.max_scale > 0 && grown > c.max_scale) grown = c.max_scale;
                if (std::isfinite(grown)) s.scale = grown;
            }
        }
    }
    return s;
}

std::vector<bool> pattern(const std::string& text) {  // 'x' = found_inf, '.' = clean
    std::vector<bool> out;
    for (char ch : text) out.push_back(ch == 'x');
    return out;
}

// mt19937's output is fixed by the standard (distributions are not), so the
// sequence is the same on every library.
std::vector<bool> random_history(std::uint32_t seed, int steps, std::uint32_t inf_per_mille) {
    std::mt19937 gen(seed);
    std::vector<bool> out;
    for (int i = 0; i < steps; ++i) out.push_back(gen() % 1000 < inf_per_mille);
    return out;
}

std::uint32_t bits(float x) {
    std::uint32_t b;
    static_assert(sizeof b == sizeof x);
    std::memcpy(&b, &x, sizeof b);
    return b;
}

void expect_follows_pytorch(const ScalerConfig& c, const std::vector<bool>& history) {
    LossScaler scaler(c);
    std::vector<bool> prefix;
    for (std::size_t i = 0; i < history.size(); ++i) {
        scaler.update(history[i]);
        prefix.push_back(history[i]);
        const RefState ref = pytorch_replay(c, prefix);
        ASSERT_EQ(bits(scaler.scale()), bits(ref.scale)) << "step " << i << ": " << scaler.scale() << " vs " << ref.scale;
        ASSERT_EQ(scaler.growth_tracker(), ref.tracker) << "step " << i;
    }
}

void expect_follows_megatron(const ScalerConfig& c, const std::vector<bool>& history) {
    LossScaler scaler(c);
    std::vector<bool> prefix;
    for (std::size_t i = 0; i < history.size(); ++i) {
        scaler.update(history[i]);
        prefix.push_back(history[i]);
        const RefHysteresis ref = megatron_replay(c, prefix);
        ASSERT_EQ(bits(scaler.scale()), bits(ref.scale)) << "step " << i << ": " << scaler.scale() << " vs " << ref.scale;
        ASSERT_EQ(scaler.growth_tracker(), ref.tracker) << "step " << i;
        ASSERT_EQ(scaler.hysteresis_left(), std::max(ref.hysteresis_tracker, 1)) << "step " << i;
    }
}

ScalerConfig dynamic(int growth_interval, float growth = 2.0f, float backoff = 0.5f) {
    ScalerConfig c;
    c.growth_interval = growth_interval;
    c.growth_factor = growth;
    c.backoff_factor = backoff;
    return c;
}

ScalerConfig hysteresis(int hyst, int growth_interval, float init_scale) {
    ScalerConfig c;
    c.kind = ScalerKind::hysteresis;
    c.hysteresis = hyst;
    c.growth_interval = growth_interval;
    c.init_scale = init_scale;
    return c;
}

// ---------------------------------------------------------------------------

TEST(ScalerKind, NamesParseAndChoices) {
    EXPECT_EQ(scaler_kind_name(ScalerKind::none), "none");
    EXPECT_EQ(scaler_kind_name(ScalerKind::static_scale), "static");
    EXPECT_EQ(scaler_kind_name(ScalerKind::dynamic), "dynamic");
    EXPECT_EQ(scaler_kind_name(ScalerKind::hysteresis), "hysteresis");
    for (ScalerKind k : kAllScalerKinds) EXPECT_EQ(parse_scaler_kind(scaler_kind_name(k)), k);
    EXPECT_EQ(parse_scaler_kind("static_scale"), std::nullopt);
    EXPECT_EQ(parse_scaler_kind("Dynamic"), std::nullopt);
    EXPECT_EQ(parse_scaler_kind(""), std::nullopt);
    EXPECT_EQ(scaler_kind_choices(), "none|static|dynamic|hysteresis");
}

TEST(LossScaler, DefaultsArePyTorchs) {
    const ScalerConfig c;
    EXPECT_EQ(c.kind, ScalerKind::dynamic);
    EXPECT_EQ(c.init_scale, 65536.0f);
    EXPECT_EQ(c.growth_factor, 2.0f);
    EXPECT_EQ(c.backoff_factor, 0.5f);
    EXPECT_EQ(c.growth_interval, 2000);
    const LossScaler s(c);
    EXPECT_EQ(s.scale(), 65536.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
}

TEST(LossScaler, DynamicExactValues) {
    LossScaler s(dynamic(3));
    s.update(false);
    s.update(false);
    EXPECT_EQ(s.scale(), 65536.0f);
    EXPECT_EQ(s.growth_tracker(), 2);
    s.update(false);
    EXPECT_EQ(s.scale(), 131072.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
    s.update(false);
    s.update(true);
    EXPECT_EQ(s.scale(), 65536.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
    s.update(true);
    EXPECT_EQ(s.scale(), 32768.0f);
    // growth_interval 1: every clean step grows.
    LossScaler every(dynamic(1));
    every.update(false);
    every.update(false);
    EXPECT_EQ(every.scale(), 262144.0f);
    EXPECT_EQ(every.growth_tracker(), 0);
}

TEST(LossScaler, DynamicFollowsPyTorchOnFixedPatterns) {
    const std::vector<std::string> patterns = {
        std::string(50, '.'),
        std::string(50, 'x'),
        "x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x",
        "......x.......xx........xxx.........xxxx..........",
        "..x..x..x...x...x...x.......x.......x............x",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx......................",
    };
    for (const std::string& p : patterns)
        for (int interval : {1, 2, 3, 7})
            for (float growth : {2.0f, 1.5f, 3.0f}) {
                SCOPED_TRACE(p + " interval " + std::to_string(interval) + " growth " + std::to_string(growth));
                expect_follows_pytorch(dynamic(interval, growth, 0.5f), pattern(p));
                expect_follows_pytorch(dynamic(interval, growth, 0.3f), pattern(p));
            }
}

TEST(LossScaler, DynamicFollowsPyTorchOnSeededRandomRun) {
    // Small growth_interval so growth and backoff both happen often; factors
    // that are not powers of two so every step rounds in FP32.
    const std::vector<bool> history = random_history(20240601u, 10000, 150);
    expect_follows_pytorch(dynamic(5), history);
    expect_follows_pytorch(dynamic(3, 1.7f, 0.6f), history);
    // Rare overflows: the scale climbs to the FP32 ceiling and must stop there.
    expect_follows_pytorch(dynamic(2, 2.0f, 0.5f), random_history(7u, 10000, 5));
}

TEST(LossScaler, DynamicGrowthStopsBeforeFp32Overflow) {
    ScalerConfig c = dynamic(1);
    c.init_scale = 0x1p126f;
    LossScaler s(c);
    EXPECT_TRUE(s.update(false).growth);
    EXPECT_EQ(s.scale(), 0x1p127f);
    const ScalerEvent ev = s.update(false);  // 2^128 would be inf: kept
    EXPECT_FALSE(ev.growth);
    EXPECT_EQ(s.scale(), 0x1p127f);
    EXPECT_EQ(s.growth_tracker(), 0);
    // 1.5 * 2^127 is still finite (FLT_MAX is about 1.99 * 2^127), 2.25 * 2^127 is not.
    c.growth_factor = 1.5f;
    c.init_scale = 0x1p127f;
    LossScaler g(c);
    g.update(false);
    EXPECT_EQ(g.scale(), 1.5f * 0x1p127f);
    g.update(false);
    EXPECT_EQ(g.scale(), 1.5f * 0x1p127f);
    // From FLT_MAX itself nothing can grow.
    c.init_scale = FLT_MAX;
    LossScaler top(c);
    top.update(false);
    EXPECT_EQ(top.scale(), FLT_MAX);
}

TEST(LossScaler, DynamicBackoffCanUnderflowToZeroLikePyTorch) {
    ScalerConfig c = dynamic(2000);
    c.init_scale = std::numeric_limits<float>::denorm_min();
    c.min_scale = c.init_scale;
    LossScaler s(c);
    ScalerEvent ev = s.update(true);  // 2^-150 rounds (ties to even) to 0
    EXPECT_TRUE(ev.backoff);
    EXPECT_EQ(s.scale(), 0.0f);
    ev = s.update(true);
    EXPECT_FALSE(ev.backoff);  // 0 * 0.5 == 0: nothing changed
    EXPECT_EQ(s.scale(), 0.0f);
}

TEST(LossScaler, EventFlags) {
    LossScaler s(dynamic(2));
    ScalerEvent ev = s.update(false);
    EXPECT_FALSE(ev.found_inf);
    EXPECT_FALSE(ev.skipped);
    EXPECT_FALSE(ev.backoff);
    EXPECT_FALSE(ev.growth);
    EXPECT_EQ(ev.scale_before, 65536.0f);
    EXPECT_EQ(ev.scale_after, 65536.0f);
    EXPECT_EQ(ev.growth_tracker_after, 1);

    ev = s.update(false);
    EXPECT_TRUE(ev.growth);
    EXPECT_FALSE(ev.backoff);
    EXPECT_FALSE(ev.skipped);
    EXPECT_EQ(ev.scale_before, 65536.0f);
    EXPECT_EQ(ev.scale_after, 131072.0f);
    EXPECT_EQ(ev.growth_tracker_after, 0);

    s.update(false);
    ev = s.update(true);
    EXPECT_TRUE(ev.found_inf);
    EXPECT_TRUE(ev.skipped);
    EXPECT_TRUE(ev.backoff);
    EXPECT_FALSE(ev.growth);
    EXPECT_EQ(ev.scale_before, 131072.0f);
    EXPECT_EQ(ev.scale_after, 65536.0f);
    EXPECT_EQ(ev.growth_tracker_after, 0);
}

TEST(LossScaler, StaticNeverMoves) {
    ScalerConfig c;
    c.kind = ScalerKind::static_scale;
    c.init_scale = 1024.0f;
    c.growth_interval = 1;
    LossScaler s(c);
    for (bool found_inf : pattern("..x..xx...x.")) {
        const ScalerEvent ev = s.update(found_inf);
        EXPECT_EQ(ev.skipped, found_inf);
        EXPECT_EQ(ev.found_inf, found_inf);
        EXPECT_FALSE(ev.backoff);
        EXPECT_FALSE(ev.growth);
        EXPECT_EQ(ev.scale_before, 1024.0f);
        EXPECT_EQ(ev.scale_after, 1024.0f);
        EXPECT_EQ(s.scale(), 1024.0f);
        EXPECT_EQ(s.growth_tracker(), 0);
    }
}

// Without a scaler nothing checks the gradients: a non-finite step is applied
// and NaN spreads into the weights, as in plain training without GradScaler.
TEST(LossScaler, NoneScalesByOneAndAppliesNonFiniteSteps) {
    ScalerConfig c;
    c.kind = ScalerKind::none;
    c.growth_interval = 1;
    LossScaler s(c);
    EXPECT_EQ(s.scale(), 1.0f);
    for (bool found_inf : pattern(".x..x")) {
        const ScalerEvent ev = s.update(found_inf);
        EXPECT_FALSE(ev.skipped);
        EXPECT_EQ(ev.found_inf, found_inf);
        EXPECT_FALSE(ev.backoff);
        EXPECT_FALSE(ev.growth);
        EXPECT_EQ(ev.scale_after, 1.0f);
        EXPECT_EQ(s.scale(), 1.0f);
    }
    s.set_scale(8.0f);  // meaningless without scaling: ignored
    EXPECT_EQ(s.scale(), 1.0f);
}

TEST(LossScaler, HysteresisBacksOffOnlyAfterHysteresisOverflows) {
    LossScaler s(hysteresis(3, 4, 1024.0f));
    EXPECT_EQ(s.hysteresis_left(), 3);
    ScalerEvent ev = s.update(true);
    EXPECT_TRUE(ev.skipped);
    EXPECT_FALSE(ev.backoff);
    EXPECT_EQ(s.scale(), 1024.0f);
    EXPECT_EQ(s.hysteresis_left(), 2);
    s.update(false);  // a clean step does not refill (consecutive_hysteresis=false)
    EXPECT_EQ(s.hysteresis_left(), 2);
    EXPECT_EQ(s.growth_tracker(), 1);
    ev = s.update(true);
    EXPECT_FALSE(ev.backoff);
    EXPECT_EQ(s.hysteresis_left(), 1);
    EXPECT_EQ(s.growth_tracker(), 0);
    ev = s.update(true);  // the third overflow since the last growth
    EXPECT_TRUE(ev.backoff);
    EXPECT_EQ(ev.scale_after, 512.0f);
    EXPECT_EQ(s.hysteresis_left(), 1);
    ev = s.update(true);  // stays armed: every further overflow backs off
    EXPECT_TRUE(ev.backoff);
    EXPECT_EQ(s.scale(), 256.0f);
}

TEST(LossScaler, HysteresisRefillsOnGrowth) {
    LossScaler s(hysteresis(2, 3, 1024.0f));
    s.update(true);
    s.update(true);
    EXPECT_EQ(s.scale(), 512.0f);
    EXPECT_EQ(s.hysteresis_left(), 1);
    s.update(false);
    s.update(false);
    EXPECT_EQ(s.hysteresis_left(), 1);
    const ScalerEvent ev = s.update(false);
    EXPECT_TRUE(ev.growth);
    EXPECT_EQ(s.scale(), 1024.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
    EXPECT_EQ(s.hysteresis_left(), 2);
    EXPECT_FALSE(s.update(true).backoff);
    EXPECT_TRUE(s.update(true).backoff);
    EXPECT_EQ(s.scale(), 512.0f);
}

TEST(LossScaler, HysteresisMinScaleFloor) {
    ScalerConfig c = hysteresis(1, 1000, 1000.0f);
    c.min_scale = 300.0f;
    LossScaler s(c);
    ScalerEvent ev = s.update(true);
    EXPECT_TRUE(ev.backoff);
    EXPECT_EQ(s.scale(), 500.0f);
    ev = s.update(true);  // max(250, 300)
    EXPECT_TRUE(ev.backoff);
    EXPECT_EQ(s.scale(), 300.0f);
    ev = s.update(true);  // held at the floor: no change, no backoff marker
    EXPECT_FALSE(ev.backoff);
    EXPECT_TRUE(ev.skipped);
    EXPECT_EQ(s.scale(), 300.0f);
    s.set_scale(100.0f);  // below the floor by hand: a backoff must not raise it
    EXPECT_FALSE(s.update(true).backoff);
    EXPECT_EQ(s.scale(), 100.0f);
}

TEST(LossScaler, HysteresisMaxScaleCap) {
    ScalerConfig c = hysteresis(2, 1, 1024.0f);
    c.max_scale = 3000.0f;
    LossScaler s(c);
    EXPECT_TRUE(s.update(false).growth);
    EXPECT_EQ(s.scale(), 2048.0f);
    EXPECT_TRUE(s.update(false).growth);
    EXPECT_EQ(s.scale(), 3000.0f);
    const ScalerEvent ev = s.update(false);
    EXPECT_FALSE(ev.growth);
    EXPECT_EQ(s.scale(), 3000.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
}

TEST(LossScaler, HysteresisGrowthNearFp32Max) {
    ScalerConfig c = hysteresis(2, 1, 0x1p127f);
    LossScaler uncapped(c);
    EXPECT_FALSE(uncapped.update(false).growth);  // 2^128 is inf: dropped
    EXPECT_EQ(uncapped.scale(), 0x1p127f);
    c.max_scale = FLT_MAX;  // the ceiling applies before the finite check
    LossScaler capped(c);
    EXPECT_TRUE(capped.update(false).growth);
    EXPECT_EQ(capped.scale(), FLT_MAX);
}

TEST(LossScaler, HysteresisFollowsMegatronOnSeededRandomRun) {
    const std::vector<bool> history = random_history(424242u, 10000, 200);
    expect_follows_megatron(hysteresis(2, 5, 65536.0f), history);
    ScalerConfig c = hysteresis(3, 4, 1000.0f);
    c.growth_factor = 1.7f;
    c.backoff_factor = 0.6f;
    c.min_scale = 3.0f;
    c.max_scale = 50000.0f;
    expect_follows_megatron(c, history);
    expect_follows_megatron(hysteresis(1, 2, 1.0f), random_history(99u, 10000, 20));
}

TEST(LossScaler, ReconfigureKeepsScaleAndTracker) {
    ScalerConfig c = dynamic(10);
    LossScaler s(c);
    for (int i = 0; i < 7; ++i) s.update(false);
    c.growth_interval = 5;
    c.growth_factor = 4.0f;
    c.init_scale = 2.0f;  // does not reset the running scale
    c.min_scale = 1.0f;
    s.reconfigure(c);
    EXPECT_EQ(s.scale(), 65536.0f);
    EXPECT_EQ(s.growth_tracker(), 7);
    const ScalerEvent ev = s.update(false);  // tracker already past the new interval
    EXPECT_TRUE(ev.growth);
    EXPECT_EQ(s.scale(), 262144.0f);
    EXPECT_EQ(s.growth_tracker(), 0);
    c.backoff_factor = 0.25f;
    s.reconfigure(c);
    s.update(true);
    EXPECT_EQ(s.scale(), 65536.0f);
}

TEST(LossScaler, ReconfigureMidRunMatchesAReferenceRestartedFromThatState) {
    const std::vector<bool> history = random_history(5u, 4000, 150);
    const ScalerConfig first = dynamic(4, 2.0f, 0.5f);
    const ScalerConfig second = dynamic(6, 1.5f, 0.7f);
    LossScaler s(first);
    std::vector<bool> head(history.begin(), history.begin() + 2000);
    for (bool f : head) s.update(f);
    const RefState mid = pytorch_replay(first, head);
    ASSERT_EQ(bits(s.scale()), bits(mid.scale));
    s.reconfigure(second);
    // Replay the tail from the state at the switch: as if init_scale were that scale.
    ScalerConfig from_mid = second;
    from_mid.init_scale = mid.scale;
    ASSERT_LT(mid.tracker, second.growth_interval);
    std::vector<bool> tail;
    // Clean lead-in steps bring a fresh tracker to mid.tracker without growing (asserted above).
    for (int k = 0; k < mid.tracker; ++k) tail.push_back(false);
    for (std::size_t i = 2000; i < history.size(); ++i) {
        s.update(history[i]);
        tail.push_back(history[i]);
        const RefState ref = pytorch_replay(from_mid, tail);
        ASSERT_EQ(bits(s.scale()), bits(ref.scale)) << "step " << i;
        ASSERT_EQ(s.growth_tracker(), ref.tracker) << "step " << i;
    }
}

TEST(LossScaler, ReconfigureKind) {
    ScalerConfig c;
    c.init_scale = 1024.0f;
    LossScaler s(c);
    s.update(true);
    EXPECT_EQ(s.scale(), 512.0f);
    c.kind = ScalerKind::static_scale;
    s.reconfigure(c);
    EXPECT_EQ(s.scale(), 1024.0f);
    c.kind = ScalerKind::none;
    s.reconfigure(c);
    EXPECT_EQ(s.scale(), 1.0f);
    c.kind = ScalerKind::dynamic;  // none had no scale to keep: start at init_scale
    s.reconfigure(c);
    EXPECT_EQ(s.scale(), 1024.0f);
    s.update(true);
    c.kind = ScalerKind::hysteresis;  // a moving kind to another keeps the scale
    c.hysteresis = 2;
    s.reconfigure(c);
    EXPECT_EQ(s.scale(), 512.0f);
    EXPECT_EQ(s.hysteresis_left(), 2);
    EXPECT_FALSE(s.update(true).backoff);
    c.hysteresis = 5;  // same kind: no refill from a larger hysteresis ...
    s.reconfigure(c);
    EXPECT_EQ(s.hysteresis_left(), 1);
    EXPECT_TRUE(s.update(true).backoff);
    EXPECT_EQ(s.scale(), 256.0f);
}

TEST(LossScaler, ReconfigureLowersHysteresisLeft) {
    ScalerConfig c = hysteresis(5, 100, 1024.0f);
    LossScaler s(c);
    s.update(true);
    EXPECT_EQ(s.hysteresis_left(), 4);
    c.hysteresis = 2;
    s.reconfigure(c);
    EXPECT_EQ(s.hysteresis_left(), 2);
    EXPECT_FALSE(s.update(true).backoff);
    EXPECT_TRUE(s.update(true).backoff);
}

TEST(LossScaler, BadReconfigureChangesNothing) {
    LossScaler s(dynamic(3));
    s.update(false);
    ScalerConfig bad = dynamic(3);
    bad.growth_factor = 0.5f;
    EXPECT_THROW(s.reconfigure(bad), Error);
    EXPECT_EQ(s.config().growth_factor, 2.0f);
    EXPECT_EQ(s.scale(), 65536.0f);
    EXPECT_EQ(s.growth_tracker(), 1);
}

TEST(LossScaler, SetScale) {
    LossScaler s(dynamic(2));
    s.update(false);
    s.set_scale(0x1p10f);
    EXPECT_EQ(s.scale(), 1024.0f);
    EXPECT_EQ(s.growth_tracker(), 1);  // only the scale is edited
    s.update(false);
    EXPECT_EQ(s.scale(), 2048.0f);
    for (float bad : {0.0f, -1.0f, INFINITY, NAN}) {
        try {
            s.set_scale(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("scaler.scale: ", 0), 0u) << e.what();
        }
    }
    EXPECT_EQ(s.scale(), 2048.0f);
    ScalerConfig st;
    st.kind = ScalerKind::static_scale;
    LossScaler fixed(st);
    fixed.set_scale(8.0f);
    fixed.update(false);
    EXPECT_EQ(fixed.scale(), 8.0f);
}

std::string error_of(const ScalerConfig& c) {
    try {
        validate(c);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ScalerConfigValidation, DefaultsAndBoundsAreAccepted) {
    EXPECT_EQ(error_of(ScalerConfig{}), "");
    ScalerConfig c;
    c.growth_interval = 1;
    c.hysteresis = 1;
    c.min_scale = c.init_scale;
    c.max_scale = c.init_scale;
    c.backoff_factor = 0.999f;
    c.growth_factor = 1.001f;
    EXPECT_EQ(error_of(c), "");
    c.growth_interval = 1000000;
    c.hysteresis = 1000;
    c.init_scale = FLT_MAX;
    c.max_scale = 0.0f;
    EXPECT_EQ(error_of(c), "");
}

TEST(ScalerConfigValidation, ExactMessages) {
    ScalerConfig c;
    c.growth_factor = 0.5f;
    EXPECT_EQ(error_of(c), "scaler.growth_factor: 0.5 is out of range; allowed finite and > 1");
    c = {};
    c.init_scale = 0.0f;
    EXPECT_EQ(error_of(c), "scaler.init_scale: 0 is out of range; allowed finite and > 0");
    c = {};
    c.backoff_factor = 1.0f;
    EXPECT_EQ(error_of(c), "scaler.backoff_factor: 1 is out of range; allowed in (0, 1)");
    c = {};
    c.growth_interval = 0;
    EXPECT_EQ(error_of(c), "scaler.growth_interval: 0 is out of range; allowed 1..1000000");
    c = {};
    c.kind = ScalerKind::hysteresis;
    c.hysteresis = 1001;
    EXPECT_EQ(error_of(c), "scaler.hysteresis: 1001 is out of range; allowed 1..1000");
    c = {};
    c.kind = ScalerKind::hysteresis;
    c.min_scale = 131072.0f;
    EXPECT_EQ(error_of(c), "scaler.min_scale: 131072 is out of range; allowed > 0 and <= init_scale (65536)");
    c = {};
    c.kind = ScalerKind::hysteresis;
    c.max_scale = 0.1f;
    EXPECT_EQ(error_of(c),
              "scaler.max_scale: 0.1 is out of range; allowed 0 (no ceiling) or finite and >= init_scale (65536)");
}

// The hysteresis kind's fields are checked in their own ranges whatever the
// kind (a dynamic scaler stored max_scale -1 and hysteresis 0 before), and
// tied to init_scale only for the kind that uses them.
TEST(ScalerConfigValidation, HysteresisFieldsAreCheckedForEveryKindAndBindInitOnlyForTheirs) {
    ScalerConfig c;
    c.init_scale = 0.5f;  // below the default min_scale of 1: fine for dynamic
    EXPECT_NO_THROW(validate(c));
    c.kind = ScalerKind::hysteresis;
    EXPECT_EQ(error_of(c), "scaler.min_scale: 1 is out of range; allowed > 0 and <= init_scale (0.5)");
    for (ScalerKind kind : kAllScalerKinds) {
        c = {};
        c.kind = kind;
        c.hysteresis = 0;
        EXPECT_EQ(error_of(c), "scaler.hysteresis: 0 is out of range; allowed 1..1000");
        c = {};
        c.kind = kind;
        c.max_scale = -1.0f;
        EXPECT_EQ(error_of(c), "scaler.max_scale: -1 is out of range; allowed 0 (no ceiling) or finite and > 0");
        c = {};
        c.kind = kind;
        c.min_scale = 0.0f;
        EXPECT_EQ(error_of(c), "scaler.min_scale: 0 is out of range; allowed finite and > 0");
    }
    c = {};
    c.min_scale = 1e10f;
    c.max_scale = 5.0f;
    EXPECT_EQ(error_of(c), "scaler.max_scale: 5 is out of range; allowed 0 (no ceiling) or >= min_scale (1e+10)");
}

TEST(ScalerConfigValidation, EveryBadValueNamesItsField) {
    struct Case {
        const char* field;
        void (*spoil)(ScalerConfig&);
    };
    const Case cases[] = {
        {"init_scale", [](ScalerConfig& c) { c.init_scale = -1.0f; }},
        {"init_scale", [](ScalerConfig& c) { c.init_scale = INFINITY; }},
        {"init_scale", [](ScalerConfig& c) { c.init_scale = NAN; }},
        {"growth_factor", [](ScalerConfig& c) { c.growth_factor = 1.0f; }},
        {"growth_factor", [](ScalerConfig& c) { c.growth_factor = INFINITY; }},
        {"growth_factor", [](ScalerConfig& c) { c.growth_factor = NAN; }},
        {"backoff_factor", [](ScalerConfig& c) { c.backoff_factor = 0.0f; }},
        {"backoff_factor", [](ScalerConfig& c) { c.backoff_factor = -0.5f; }},
        {"backoff_factor", [](ScalerConfig& c) { c.backoff_factor = NAN; }},
        {"growth_interval", [](ScalerConfig& c) { c.growth_interval = -3; }},
        {"growth_interval", [](ScalerConfig& c) { c.growth_interval = 1000001; }},
        {"hysteresis", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.hysteresis = 0; }},
        {"min_scale", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.min_scale = 0.0f; }},
        {"min_scale", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.min_scale = NAN; }},
        {"max_scale", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.max_scale = -1.0f; }},
        {"max_scale", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.max_scale = INFINITY; }},
        {"max_scale", [](ScalerConfig& c) { c.kind = ScalerKind::hysteresis, c.max_scale = NAN; }},
    };
    for (const Case& k : cases) {
        ScalerConfig c;
        k.spoil(c);
        const std::string msg = error_of(c);
        EXPECT_EQ(msg.rfind("scaler." + std::string(k.field) + ": ", 0), 0u) << k.field << ": '" << msg << "'";
        EXPECT_NE(msg.find("allowed"), std::string::npos) << msg;
        EXPECT_THROW(LossScaler{c}, Error) << k.field;
    }
}

}  // namespace
}  // namespace plab
