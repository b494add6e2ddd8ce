// A scale at its scaler's floor or ceiling, against the bounds written out
// by hand from each rule's statement (docs/DESIGN.md, "Loss scaler").
#include <gtest/gtest.h>

#include <cfloat>
#include <string>
#include <vector>

#include "engine/amp/scaler_bounds.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

// A scaler as --set edits write it, validated with the rest of a run.
ScalerConfig scaler(const std::vector<std::string>& settings) {
    RunConfig run;
    apply_settings(run, settings);
    return run.scaler;
}

TEST(ScalerBounds, HysteresisStopsAtMinAndMaxScale) {
    const ScalerConfig c =
        scaler({"scaler.kind=hysteresis", "scaler.init_scale=16", "scaler.min_scale=4", "scaler.max_scale=1024"});
    EXPECT_TRUE(scale_at_floor(c, 4.0f));
    EXPECT_TRUE(scale_at_floor(c, 2.0f));  // below the floor after a live edit: a backoff never raises it
    EXPECT_FALSE(scale_at_floor(c, 8.0f));
    EXPECT_TRUE(scale_at_ceiling(c, 1024.0f));
    EXPECT_TRUE(scale_at_ceiling(c, 4096.0f));
    EXPECT_FALSE(scale_at_ceiling(c, 512.0f));  // 1024 is reachable
    EXPECT_FALSE(scale_at_ceiling(c, 768.0f));  // capped at 1024, still up
}

TEST(ScalerBounds, HysteresisWithoutCeilingStopsWhereFp32Does) {
    const ScalerConfig c = scaler({"scaler.kind=hysteresis", "scaler.max_scale=0"});
    EXPECT_FALSE(scale_at_ceiling(c, 0x1p126f));
    EXPECT_TRUE(scale_at_ceiling(c, 0x1p127f));  // x2 is Inf
}

// PyTorch's rule has no min_scale or max_scale: its floor is 0 (x0.5 of the
// smallest subnormal rounds to 0) and its ceiling the largest power of two
// that x2 keeps finite.
TEST(ScalerBounds, DynamicHasOnlyFp32sBounds) {
    const ScalerConfig c = scaler({"scaler.kind=dynamic", "scaler.min_scale=1024", "scaler.max_scale=2048"});
    EXPECT_FALSE(scale_at_floor(c, 1.0f));
    EXPECT_FALSE(scale_at_floor(c, FLT_TRUE_MIN));
    EXPECT_TRUE(scale_at_floor(c, 0.0f));
    EXPECT_FALSE(scale_at_ceiling(c, 4096.0f));
    EXPECT_FALSE(scale_at_ceiling(c, 0x1p126f));
    EXPECT_TRUE(scale_at_ceiling(c, 0x1p127f));
}

TEST(ScalerBounds, StillScalersHaveNone) {
    for (ScalerKind kind : {ScalerKind::static_scale, ScalerKind::none}) {
        ScalerConfig c;
        c.kind = kind;
        EXPECT_FALSE(scale_at_floor(c, 0.0f));
        EXPECT_FALSE(scale_at_ceiling(c, 0x1p127f));
    }
}

}  // namespace
}  // namespace plab
