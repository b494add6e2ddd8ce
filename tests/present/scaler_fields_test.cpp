// Which scaler kinds read which field, from the rules in loss_scaler.cpp.
#include <gtest/gtest.h>

#include "ui/present/scaler_fields.h"

namespace plab {
namespace {

TEST(ScalerFields, EachKindReadsItsOwnFields) {
    using enum ScalerKind;
    for (const char* f : {"init_scale", "growth_factor", "backoff_factor", "growth_interval", "hysteresis",
                          "min_scale", "max_scale"}) {
        EXPECT_FALSE(scaler_uses(none, f)) << f;
        EXPECT_TRUE(scaler_uses(hysteresis, f)) << f;
    }
    EXPECT_TRUE(scaler_uses(static_scale, "init_scale"));
    EXPECT_FALSE(scaler_uses(static_scale, "growth_interval"));
    EXPECT_TRUE(scaler_uses(dynamic, "growth_interval"));
    EXPECT_TRUE(scaler_uses(dynamic, "backoff_factor"));
    EXPECT_FALSE(scaler_uses(dynamic, "hysteresis"));
    EXPECT_FALSE(scaler_uses(dynamic, "min_scale"));
    EXPECT_FALSE(scaler_uses(dynamic, "max_scale"));
    EXPECT_TRUE(scaler_uses(none, "kind"));
}

TEST(ScalerFields, NoteNamesTheKindsThatUseTheField) {
    using enum ScalerKind;
    EXPECT_EQ(scaler_field_note(hysteresis, "min_scale"), "");
    EXPECT_EQ(scaler_field_note(dynamic, "min_scale"),
              "min_scale is read by the hysteresis scaler only; this run's kind, dynamic, ignores it");
    EXPECT_EQ(scaler_field_note(static_scale, "growth_factor"),
              "growth_factor is read by the dynamic and hysteresis scalers; this run's kind, static, ignores it");
    EXPECT_EQ(scaler_field_note(none, "init_scale"),
              "init_scale is read by the static, dynamic and hysteresis scalers; this run's kind, none, ignores it");
}

TEST(ScalerFields, TooltipSaysHowInitScaleRoundsOrThatTheKindIgnoresTheField) {
    using enum ScalerKind;
    EXPECT_EQ(scaler_field_tooltip(dynamic, "init_scale"),
              "A power of two from 2^-24 to 2^64: type 2^24, 16777216 or 1.6e7. Any other value is rounded to the "
              "nearest power of two (6.5e4 becomes 2^16), so that scaling the loss and unscaling the gradients "
              "stay exact. The arrows double and halve it.");
    EXPECT_EQ(scaler_field_tooltip(none, "init_scale"), scaler_field_note(none, "init_scale"));
    EXPECT_EQ(scaler_field_tooltip(dynamic, "min_scale"),
              "min_scale is read by the hysteresis scaler only; this run's kind, dynamic, ignores it");
    EXPECT_EQ(scaler_field_tooltip(dynamic, "growth_interval"), "");
}

}  // namespace
}  // namespace plab
