#include "ui/present/fork_summary.h"

#include <gtest/gtest.h>

#include "tests/present/step_record_builders.h"

namespace {

plab::RunLogView log_of(std::initializer_list<plab::StepRecord> records) {
    plab::RunLog log;
    for (const plab::StepRecord& r : records) log.append(r);
    return log.view();
}

TEST(ForkSummary, NoForkNoSentence) {
    plab::SessionSnapshot s;
    s.main.log = log_of({plab::test::scaled_step(1, 16, 16, 0.5f)});
    EXPECT_EQ(plab::fork_summary(s), "");
}

TEST(ForkSummary, ComparesTheLatestLossAndTheOverflows) {
    plab::SessionSnapshot s;
    s.main.log = log_of({plab::test::overflow_step(11, 16, true, true, 0.75f),
                         plab::test::overflow_step(12, 15, true, true, 0.5f)});
    plab::RunView fork;
    fork.forked_at = 10;
    fork.log = log_of({plab::test::scaled_step(11, 12, 12, 0.25f), plab::test::scaled_step(12, 12, 12, 0.125f)});
    s.fork = fork;
    EXPECT_EQ(plab::fork_summary(s),
              "A fork from step 10 trains alongside the run: at step 12 its loss is 0.125 against the run's 0.5, "
              "0 overflows against 2.");
}

}  // namespace
