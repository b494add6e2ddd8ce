// The samples panel's step chooser, used as a person would: it opens on the
// newest samples and follows new ones, and a step picked by hand stays
// shown while later samples arrive.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QTextBrowser>

#include "ui/qt/samples_panel.h"

namespace {

plab::SessionSnapshot sampled_up_to(std::int64_t last) {
    plab::RunConfig c;
    c.model.kind = plab::ModelKind::gpt;
    c.data.kind = plab::DatasetKind::shakespeare;
    c.telemetry.sample_every = 50;
    plab::RunLog log;
    for (std::int64_t s = 50; s <= last; s += 50) {
        plab::StepRecord r;
        r.step = s;
        const std::string text = "text of step " + std::to_string(s);
        r.samples = std::make_shared<const plab::TextSamples>(
            plab::TextSamples{s, {{"prompt", "", text, s == 100 ? "other words" : text}}});
        log.append(r);
    }
    plab::SessionSnapshot snap;
    snap.main.config = std::make_shared<const plab::RunConfig>(c);
    snap.main.log = log.view();
    return snap;
}

QString shown_text(plab::qt::SamplesPanel& panel) {
    return panel.findChild<QTextBrowser*>()->toPlainText();
}

TEST(SamplesPanel, FollowsTheNewestUntilAStepIsPicked) {
    plab::qt::SamplesPanel panel;
    panel.show_snapshot(sampled_up_to(100));
    QComboBox* steps = panel.steps();
    ASSERT_EQ(steps->count(), 2);
    EXPECT_EQ(steps->currentText(), "step 100: departs at character 1");
    EXPECT_TRUE(shown_text(panel).contains("text of step 100")) << shown_text(panel).toStdString();
    EXPECT_TRUE(shown_text(panel).contains("other words"));

    panel.show_snapshot(sampled_up_to(150));  // a new sample step: followed
    EXPECT_EQ(steps->currentIndex(), 0);
    EXPECT_EQ(steps->currentText(), "step 150: identical to the twin");
    EXPECT_TRUE(shown_text(panel).contains("text of step 150"));

    steps->setCurrentIndex(2);
    emit steps->activated(2);  // as a click on "step 50" sends it
    EXPECT_TRUE(shown_text(panel).contains("text of step 50"));
    panel.show_snapshot(sampled_up_to(250));  // later samples keep the pick
    EXPECT_EQ(steps->count(), 5);
    EXPECT_EQ(steps->currentText(), "step 50: identical to the twin");
    EXPECT_TRUE(shown_text(panel).contains("text of step 50"));

    steps->setCurrentIndex(0);
    emit steps->activated(0);  // back to the newest: followed again
    panel.show_snapshot(sampled_up_to(300));
    EXPECT_EQ(steps->currentText(), "step 300: identical to the twin");
}

}  // namespace
