// The live view sleeps between frames only after a few quiet frames: no
// input and nothing training; any input or a training run wakes it at once.
#include <gtest/gtest.h>

#include "ui/present/frame_pacing.h"

namespace plab {
namespace {

TEST(FramePacing, WaitsOnlyAfterEnoughQuietFrames) {
    FramePacing pacing;
    EXPECT_FALSE(pacing.may_wait());
    for (int i = 1; i < FramePacing::kAwakeFrames; ++i) {
        pacing.note_frame(false, false);
        EXPECT_FALSE(pacing.may_wait()) << i;
    }
    pacing.note_frame(false, false);
    EXPECT_TRUE(pacing.may_wait());
    pacing.note_frame(true, false);  // a key or the mouse
    EXPECT_FALSE(pacing.may_wait());
    for (int i = 0; i < 3 * FramePacing::kAwakeFrames; ++i) pacing.note_frame(false, true);  // training
    EXPECT_FALSE(pacing.may_wait());
    for (int i = 0; i < FramePacing::kAwakeFrames; ++i) pacing.note_frame(false, false);
    EXPECT_TRUE(pacing.may_wait());
}

}  // namespace
}  // namespace plab
