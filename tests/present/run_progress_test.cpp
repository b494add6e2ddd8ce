#include "ui/present/run_progress.h"

#include <gtest/gtest.h>

namespace plab {
namespace {

TEST(RunProgress, StepAgainstThePlanThenHowFarPast) {
    EXPECT_EQ(run_progress_text(0, 2000), "step 0 / 2000");
    EXPECT_EQ(run_progress_text(2000, 2000), "step 2000 / 2000");
    EXPECT_EQ(run_progress_text(2001, 2000), "step 2001 (2000 planned)");
    EXPECT_EQ(run_progress_text(100000, 2000), "step 100000 (2000 planned)");
    EXPECT_EQ(run_progress_text(7, 0), "step 7");
}

}  // namespace
}  // namespace plab
