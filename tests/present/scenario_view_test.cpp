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

// The histogram panel's tensor and layer, from the "Look at" part only; a
// layer counts as a whole word, the first one named wins.
TEST(ScenarioView, LookAtNamesTheHistogramsTensorAndLayer) {
    using plab::HistTensor;
    using plab::looked_at_histogram;
    const std::vector<std::string> layers = {"fc1", "fc2", "fc10"};
    const plab::HistogramFocus focus = looked_at_histogram(
        "Look at: the activation-gradient histograms of fc10, then fc1.\n\nTry: fc2 and weight gradients.", layers);
    EXPECT_EQ(focus.tensor, HistTensor::act_grad);
    EXPECT_EQ(focus.layer, "fc10");
    EXPECT_EQ(looked_at_histogram("Look at: the weight gradients of FC2.", layers),
              (plab::HistogramFocus{HistTensor::grad, "fc2", {}}));
    EXPECT_EQ(looked_at_histogram("Look at: fc1.weight's histogram and fc2.", layers),
              (plab::HistogramFocus{std::nullopt, "fc2", {}}));  // fc1.weight is a parameter, not the layer's word
    EXPECT_EQ(looked_at_histogram("Try: the gradient histograms of fc1.", layers), plab::HistogramFocus{});
    EXPECT_EQ(looked_at_histogram("Look at: the BF16 and FP16 bands. FP8 is E4M3.", layers).bands,
              (std::vector<plab::FormatId>{plab::FormatId::fp16, plab::FormatId::bf16}));
}

// The shipped guides that name a tensor or a layer get them.
TEST(ScenarioView, ShippedGuidesFocusTheirHistograms) {
    auto focus_of = [](const std::string& preset) {
        const plab::RunConfig config = plab::load_preset(preset);
        return plab::looked_at_histogram(config.guide, {"fc1", "fc2", "fc3", "fc4", "fc5", "fc6", "fc7"});
    };
    EXPECT_EQ(focus_of("underflow-no-scaling"),
              (plab::HistogramFocus{plab::HistTensor::grad, "fc1", {plab::FormatId::fp16}}));
    EXPECT_EQ(focus_of("fp8-delayed-scaling").tensor, plab::HistTensor::act_grad);
    EXPECT_EQ(focus_of("fp8-delayed-scaling").bands, std::vector<plab::FormatId>{plab::FormatId::e5m2});
    EXPECT_EQ(focus_of("gradient-census").tensor, plab::HistTensor::act_grad);
    EXPECT_EQ(focus_of("scaler-sawtooth"), plab::HistogramFocus{});
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
