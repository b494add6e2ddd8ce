#include "ui/present/scenario_view.h"

#include <gtest/gtest.h>

namespace {

using plab::GuidePart;

TEST(ScenarioView, GuideSplitsIntoItsThreeHeadedParagraphs) {
    const auto parts = plab::split_guide(
        "Look at: the histogram of fc1.\n\nTry:  --set scaler.kind=dynamic \n\nWhat happens: it trains.\n");
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].heading, "Look at");
    EXPECT_EQ(parts[0].text, "the histogram of fc1.");
    EXPECT_EQ(parts[1].heading, "Try");
    EXPECT_EQ(parts[1].text, "--set scaler.kind=dynamic");
    EXPECT_EQ(parts[2].heading, "What happens");
    EXPECT_EQ(parts[2].text, "it trains.");
}

TEST(ScenarioView, ParagraphWithoutAKnownHeadingKeepsItsText) {
    const auto parts = plab::split_guide("Note: a plain paragraph.\n\n\n\nLook at:x");
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].heading, "");
    EXPECT_EQ(parts[0].text, "Note: a plain paragraph.");
    EXPECT_EQ(parts[1].heading, "Look at");
    EXPECT_EQ(parts[1].text, "x");
}

TEST(ScenarioView, SetAssignmentsEndAtPunctuationAndQuotesAndDoNotRepeat) {
    const auto a = plab::set_assignments(
        "run with `--set scaler.kind=dynamic`, then --set precision.master_weights=true. Again: "
        "(--set scaler.kind=dynamic) and --set =bad and --set nothing");
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0], "scaler.kind=dynamic");
    EXPECT_EQ(a[1], "precision.master_weights=true");
}

TEST(ScenarioView, TryChangesComeOnlyFromTheTryParagraph) {
    plab::RunConfig c;
    c.name = "underflow-no-scaling";
    c.description = "one line";
    c.guide = "Look at: nothing like --set a.b=1 here.\n\nTry: --set scaler.kind=dynamic, or --set x.y=2.\n\n"
              "What happens: --set c.d=3 is not offered.";
    const plab::ScenarioView v = plab::make_scenario_view(c);
    EXPECT_EQ(v.title, "underflow-no-scaling");
    EXPECT_EQ(v.description, "one line");
    EXPECT_EQ(v.parts.size(), 3u);
    EXPECT_EQ(v.try_changes, (std::vector<std::string>{"scaler.kind=dynamic", "x.y=2"}));
    EXPECT_EQ(v.no_guide, "");
}

TEST(ScenarioView, NoGuideSaysWhereGuidesAre) {
    plab::RunConfig c;
    c.name = "spirals-fp32";
    const plab::ScenarioView v = plab::make_scenario_view(c);
    EXPECT_TRUE(v.parts.empty());
    EXPECT_TRUE(v.try_changes.empty());
    EXPECT_NE(v.no_guide.find("plab scenario --list"), std::string::npos);
}

}  // namespace
