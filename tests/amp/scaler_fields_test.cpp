// Which scaler kinds read which field, from the rules in loss_scaler.cpp,
// and the refusal of a setting that no run reads.
#include <gtest/gtest.h>

#include "engine/amp/scaler_fields.h"
#include "engine/common/error.h"
#include "error_text.h"

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

TEST(ScalerFields, RefusesASettingNoKindOfTheRunsReads) {
    using enum ScalerKind;
    EXPECT_EQ(testing_support::error_of([] { require_read_scaler_settings("--set", {"scaler.init_scale=1024"}, {none}); }),
              "--set scaler.init_scale=1024: changes nothing: init_scale is read by the static, dynamic and "
              "hysteresis scalers, and this run's scaler kind is none; set a kind that reads it too, e.g. --set "
              "scaler.kind=dynamic");
    EXPECT_EQ(testing_support::error_of([] { require_read_scaler_settings("--grid", {"scaler.min_scale=2,4"}, {dynamic, dynamic}); }),
              "--grid scaler.min_scale=2,4: changes nothing: min_scale is read by the hysteresis scaler only, and "
              "every run's scaler kind is dynamic; set a kind that reads it too, e.g. --set scaler.kind=hysteresis");
    EXPECT_EQ(testing_support::error_of([] {
                  require_read_scaler_settings("--grid", {"scaler.growth_interval=10"}, {none, static_scale, none});
              }),
              "--grid scaler.growth_interval=10: changes nothing: growth_interval is read by the dynamic and "
              "hysteresis scalers, and the runs' scaler kinds are none and static; set a kind that reads it too, "
              "e.g. --set scaler.kind=dynamic");
}

TEST(ScalerFields, TakesASettingOneRunReadsAndEveryOtherSetting) {
    using enum ScalerKind;
    EXPECT_NO_THROW(require_read_scaler_settings("--grid", {"scaler.growth_interval=10"}, {none, dynamic}));
    EXPECT_NO_THROW(require_read_scaler_settings("--set", {"scaler.init_scale=2^8"}, {static_scale}));
    EXPECT_NO_THROW(require_read_scaler_settings("--set", {"scaler.kind=none"}, {none}));
    EXPECT_NO_THROW(require_read_scaler_settings("--set", {"scaler={\"kind\":\"none\"}"}, {none}));
    EXPECT_NO_THROW(require_read_scaler_settings("--set", {"optimizer.lr=0.1", "seed=3"}, {none}));
}

}  // namespace
}  // namespace plab
