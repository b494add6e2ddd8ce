// Which scaler settings each kind reads: every kind against every field.
#include <gtest/gtest.h>

#include "ui/present/scaler_fields.h"

namespace plab {
namespace {

constexpr ScalerField kFields[] = {ScalerField::init_scale,      ScalerField::growth_factor, ScalerField::backoff_factor,
                                   ScalerField::growth_interval, ScalerField::hysteresis,    ScalerField::min_scale,
                                   ScalerField::max_scale};

void expect_reads(ScalerKind kind, const bool (&want)[7]) {
    for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(scaler_reads(kind, kFields[i]), want[i]) << "field " << i;
}

TEST(ScalerFields, WhatEachKindReads) {
    expect_reads(ScalerKind::none, {false, false, false, false, false, false, false});
    expect_reads(ScalerKind::static_scale, {true, false, false, false, false, false, false});
    expect_reads(ScalerKind::dynamic, {true, true, true, true, false, false, false});
    expect_reads(ScalerKind::hysteresis, {true, true, true, true, true, true, true});
}

TEST(ScalerFields, WhyAFieldIsUnused) {
    EXPECT_EQ(scaler_field_unused_text(ScalerField::max_scale), "read by the hysteresis scaler only");
    EXPECT_EQ(scaler_field_unused_text(ScalerField::growth_interval),
              "read by the dynamic and hysteresis scalers only (this one never moves S)");
    EXPECT_EQ(scaler_field_unused_text(ScalerField::init_scale),
              "init_scale: not read without scaling (kind none: S = 1)");
}

}  // namespace
}  // namespace plab
