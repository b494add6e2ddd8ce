// What the scaler panel says of each field.
#include <gtest/gtest.h>

#include "ui/present/scaler_fields.h"

namespace plab {
namespace {

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
