#include "ui/present/scenario_view.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/train/preset_io.h"

namespace {

using plab::GuidePart;

// The panels a guide's "Look at" names, in its order; mentions elsewhere in the guide do not count.
TEST(ScenarioView, LookAtNamesItsPanelsInOrder) {
    using plab::looked_at_panels;
    EXPECT_EQ(looked_at_panels("Look at: the loss curves (the run and its forks), the loss scale panel and the Events "
                               "table.\n\nTry: the histograms.\n\nWhat happens: the bit layout."),
              (std::vector<std::string>{"loss", "scale", "events"}));
    EXPECT_EQ(looked_at_panels("Look at: the Loss scale panel, then the loss scale again."),
              (std::vector<std::string>{"scale"}));
    EXPECT_TRUE(looked_at_panels("Try: the loss curves.").empty());
}

// Every shipped scenario's guide names at least one panel.
TEST(ScenarioView, EveryShippedGuideNamesAPanel) {
    for (const plab::PresetInfo& info : plab::list_presets()) {
        const plab::RunConfig config = plab::load_preset(info.name);
        if (config.guide.empty()) continue;
        EXPECT_FALSE(plab::looked_at_panels(config.guide).empty()) << info.name;
    }
}

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

using Changes = std::vector<std::vector<std::string>>;

TEST(ScenarioView, ChangesAreSettingAssignmentsEndingAtPunctuationAndQuotes) {
    EXPECT_EQ(plab::named_changes("run with `--set scaler.kind=dynamic`, then --set precision.master_weights=true. "
                                  "Again: (scaler.kind=dynamic) and nothing.kind=x or =bad or steps="),
              (Changes{{"scaler.kind=dynamic"}, {"precision.master_weights=true"}}));
}

TEST(ScenarioView, AssignmentsJoinedByWithOrAndAreOneChange) {
    EXPECT_EQ(plab::named_changes("precision.recipe=amp-bf16 with scaler.kind=none, or fork with scaler.scale=256 "
                                  "and --set scaler.growth_interval=50; or batch_size=256"),
              (Changes{{"precision.recipe=amp-bf16", "scaler.kind=none"},
                       {"scaler.scale=256", "scaler.growth_interval=50"},
                       {"batch_size=256"}}));
}

TEST(ScenarioView, ListValuesAndLayerOverridesAreChangesToo) {
    EXPECT_EQ(plab::named_changes(R"(precision.fp32_ops=["mse","softmax"] (autocast's), precision.layer_overrides.fc4=fp32.)"),
              (Changes{{R"(precision.fp32_ops=["mse","softmax"])"}, {"precision.layer_overrides.fc4=fp32"}}));
}

TEST(ScenarioView, TryChangesComeOnlyFromTheTryParagraph) {
    plab::RunConfig c;
    c.name = "underflow-no-scaling";
    c.description = "one line";
    c.guide = "Look at: nothing like scaler.kind=none here.\n\nTry: --set scaler.kind=dynamic, or steps=20.\n\n"
              "What happens: scaler.init_scale=2 is not offered.";
    const plab::ScenarioView v = plab::make_scenario_view(c);
    EXPECT_EQ(v.title, "underflow-no-scaling");
    EXPECT_EQ(v.description, "one line");
    EXPECT_EQ(v.parts.size(), 3u);
    EXPECT_EQ(v.try_changes, (Changes{{"scaler.kind=dynamic"}, {"steps=20"}}));
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
