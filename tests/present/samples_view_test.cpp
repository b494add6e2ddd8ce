// The samples panel's view: steps newest first, each side's text split
// where model and twin first part, answers checked against the expected
// ones, and a note saying why there is nothing to show.
#include <gtest/gtest.h>

#include <memory>

#include "ui/present/samples_view.h"

namespace plab {
namespace {

RunConfig gpt_config(DatasetKind data, bool twin) {
    RunConfig c;
    c.model.kind = ModelKind::gpt;
    c.data.kind = data;
    c.model.gpt.context = 32;
    c.twin = twin;
    c.steps = 200;
    c.telemetry.sample_every = 50;
    return c;
}

StepRecord sampled(std::int64_t step, std::vector<TextSample> samples) {
    StepRecord r;
    r.step = step;
    r.samples = std::make_shared<const TextSamples>(TextSamples{step, std::move(samples)});
    return r;
}

// Steps 49..101 with samples on 50 and 100; others carry none.
SessionSnapshot snapshot_of(const RunConfig& config, const std::vector<StepRecord>& sampled_steps) {
    RunLog log;
    std::size_t next = 0;
    for (std::int64_t s = 49; s <= 101; ++s) {
        if (next < sampled_steps.size() && sampled_steps[next].step == s) {
            log.append(sampled_steps[next++]);
            continue;
        }
        StepRecord r;
        r.step = s;
        log.append(r);
    }
    SessionSnapshot snap;
    snap.main.config = std::make_shared<const RunConfig>(config);
    snap.main.log = log.view();
    return snap;
}

TEST(FirstDifference, IndexOfTheFirstUnequalCharacter) {
    EXPECT_EQ(first_difference("abcdef", "abcxef"), 3);
    EXPECT_EQ(first_difference("abc", "abc"), -1);
    EXPECT_EQ(first_difference("abc", "abcd"), 3);
    EXPECT_EQ(first_difference("", "x"), 0);
    EXPECT_EQ(first_difference("", ""), -1);
}

TEST(ShownText, NewlinesBecomeAReturnArrow) {
    EXPECT_EQ(shown_text("to be\nor not"), "to be\u21b5or not");
    EXPECT_EQ(shown_text("\n\n"), "\u21b5\u21b5");
    EXPECT_EQ(shown_text("plain"), "plain");
}

TEST(SamplesView, FreeTextNewestFirstSplitWhereTheModelLeavesTheTwin) {
    const SessionSnapshot snap = snapshot_of(
        gpt_config(DatasetKind::shakespeare, true),
        {sampled(50, {{"First Citizen:\n", "", "the the the", "the the the"}}),
         sampled(100, {{"First Citizen:\n", "", "And so\nwe go", "And so\nI go"}})});
    const SamplesView v = make_samples_view(snap);
    EXPECT_FALSE(v.answers);
    EXPECT_TRUE(v.twin);
    EXPECT_EQ(v.title, "Greedy text after the test text's first 32 characters");
    EXPECT_EQ(v.note, "");
    ASSERT_EQ(v.steps.size(), 2u);

    const SampleStep& newest = v.steps[0];
    EXPECT_EQ(newest.step, 100);
    EXPECT_EQ(newest.label, "step 100");
    EXPECT_EQ(newest.summary, "departs at character 8");
    ASSERT_EQ(newest.rows.size(), 1u);
    const SampleRow& r = newest.rows[0];
    EXPECT_EQ(r.prompt, "First Citizen:\u21b5");
    EXPECT_EQ(r.agreed, 7);
    EXPECT_EQ(r.model.same, "And so\u21b5");
    EXPECT_EQ(r.model.departed, "we go");
    EXPECT_EQ(r.twin.same, "And so\u21b5");
    EXPECT_EQ(r.twin.departed, "I go");

    const SampleStep& older = v.steps[1];
    EXPECT_EQ(older.step, 50);
    EXPECT_EQ(older.summary, "identical to the twin");
    EXPECT_EQ(older.rows[0].agreed, 11);
    EXPECT_EQ(older.rows[0].model.same, "the the the");
    EXPECT_EQ(older.rows[0].model.departed, "");
    EXPECT_EQ(older.rows[0].twin.departed, "");
}

TEST(SamplesView, WithoutATwinTheWholeTextIsTheModels) {
    const SessionSnapshot snap =
        snapshot_of(gpt_config(DatasetKind::shakespeare, false), {sampled(50, {{"p", "", "abc", ""}})});
    const SamplesView v = make_samples_view(snap);
    EXPECT_FALSE(v.twin);
    ASSERT_EQ(v.steps.size(), 1u);
    EXPECT_EQ(v.steps[0].summary, "3 characters");
    EXPECT_EQ(v.steps[0].rows[0].model.same, "abc");
    EXPECT_EQ(v.steps[0].rows[0].model.departed, "");
    EXPECT_EQ(v.steps[0].rows[0].twin.same, "");
}

TEST(SamplesView, AnswersAreCheckedAgainstTheExpectedDigits) {
    const SessionSnapshot snap = snapshot_of(gpt_config(DatasetKind::addition, true),
                                             {sampled(100, {{"123+456=", "9750", "9750", "9750"},
                                                            {"500+500=", "0001", "0010", "0001"},
                                                            {"999+1=", "0001", "9990", "0000"}})});
    const SamplesView v = make_samples_view(snap);
    EXPECT_TRUE(v.answers);
    EXPECT_EQ(v.title, "Greedy answers to the first test problems (digits lowest first, as the data writes them)");
    ASSERT_EQ(v.steps.size(), 1u);
    EXPECT_EQ(v.steps[0].summary, "model 1/3 exact, twin 2/3");
    const std::vector<SampleRow>& rows = v.steps[0].rows;
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].prompt, "123+456=");
    EXPECT_EQ(rows[0].expected, "9750");
    EXPECT_TRUE(rows[0].model_exact);
    EXPECT_TRUE(rows[0].twin_exact);
    EXPECT_FALSE(rows[1].model_exact);
    EXPECT_TRUE(rows[1].twin_exact);
    EXPECT_EQ(rows[1].agreed, 2);
    EXPECT_EQ(rows[1].model.same, "00");
    EXPECT_EQ(rows[1].model.departed, "10");
    EXPECT_EQ(rows[1].twin.departed, "01");
    EXPECT_FALSE(rows[2].model_exact);
    EXPECT_FALSE(rows[2].twin_exact);
    EXPECT_EQ(rows[2].agreed, 0);
}

TEST(SamplesView, ANoteSaysWhyThereIsNothingToShow) {
    RunConfig mlp;
    const SamplesView none = make_samples_view(snapshot_of(mlp, {}));
    EXPECT_EQ(none.note, "Text samples come from a language model; this run trains an MLP (model.kind mlp).");
    EXPECT_EQ(none.title, "");
    RunConfig off = gpt_config(DatasetKind::shakespeare, true);
    off.telemetry.sample_every = 0;
    EXPECT_EQ(make_samples_view(snapshot_of(off, {})).note,
              "No text samples: telemetry.sample_every is 0. Set it (e.g. --set telemetry.sample_every=50) to see "
              "the model's text beside its twin's.");
    RunConfig soon = gpt_config(DatasetKind::shakespeare, true);
    soon.telemetry.sample_every = 500;
    EXPECT_EQ(make_samples_view(snapshot_of(soon, {})).note, "The first samples come at step 200.");
    SessionSnapshot probe = snapshot_of(soon, {});
    auto origin = std::make_shared<RecordOrigin>();
    origin->file = "run.jsonl";
    origin->source = "plab_probe 0.1.0, torch 2.4.0";
    probe.record = origin;
    const SamplesView v = make_samples_view(probe);
    EXPECT_TRUE(v.steps.empty());
    EXPECT_NE(v.note.find("No text samples in "), std::string::npos) << v.note;
    EXPECT_EQ(make_samples_view(SessionSnapshot{}).steps.size(), 0u);
}

TEST(SamplesView, APickedStepStaysPickedWhileHeldElseTheNewest) {
    SamplesView v;
    EXPECT_EQ(picked_step_index(v, -1), -1);  // no steps
    v.steps.resize(3);
    v.steps[0].step = 150;
    v.steps[1].step = 100;
    v.steps[2].step = 50;
    EXPECT_EQ(picked_step_index(v, 100), 1);
    EXPECT_EQ(picked_step_index(v, 50), 2);
    EXPECT_EQ(picked_step_index(v, -1), 0);  // following the newest
    EXPECT_EQ(picked_step_index(v, 0), 0);   // a step no longer held
}

TEST(LineStarts, LinesOfWholeCharactersCutAnywhere) {
    EXPECT_EQ(line_starts("abcdefghij", 4), (std::vector<std::size_t>{0, 4, 8}));
    EXPECT_EQ(line_starts("abcd", 4), (std::vector<std::size_t>{0}));
    EXPECT_EQ(line_starts("", 4), (std::vector<std::size_t>{0}));
    // "↵" is three bytes and one character: the cut falls after it, not inside.
    EXPECT_EQ(line_starts("a↵bc", 2), (std::vector<std::size_t>{0, 4}));
    EXPECT_EQ(line_starts("abc", 0), (std::vector<std::size_t>{0, 1, 2}));  // at least a character a line
}

}  // namespace
}  // namespace plab
