#include <gtest/gtest.h>

#include <memory>

#include "ui/present/histogram_view.h"

namespace plab {
namespace {

// Steps 1..5 in the recent records; those in `with` took histograms.
RunLogView log_with_histograms(std::initializer_list<int> with) {
    RunLogView log;
    for (int s = 1; s <= 5; ++s) {
        auto r = std::make_shared<StepRecord>();
        r->step = s;
        for (int w : with)
            if (w == s) r->histograms = std::make_shared<const std::vector<LayerHistograms>>(1);
        log.recent.push_back(r);
    }
    return log;
}

TEST(HistogramRecord, LatestThatTookHistograms) {
    const RunLogView log = log_with_histograms({2, 4});
    ASSERT_NE(histogram_record(log), nullptr);
    EXPECT_EQ(histogram_record(log)->step, 4);
}

TEST(HistogramRecord, AtOrBeforeAStep) {
    const RunLogView log = log_with_histograms({2, 4});
    EXPECT_EQ(histogram_record(log, 4)->step, 4);
    EXPECT_EQ(histogram_record(log, 3)->step, 2);
    EXPECT_EQ(histogram_record(log, 1), nullptr);
}

TEST(HistogramRecord, NoneTaken) {
    EXPECT_EQ(histogram_record(log_with_histograms({})), nullptr);
    EXPECT_EQ(histogram_record(RunLogView{}), nullptr);
}

}  // namespace
}  // namespace plab
