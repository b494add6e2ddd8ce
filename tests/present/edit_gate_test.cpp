#include "ui/present/edit_gate.h"

#include <gtest/gtest.h>

namespace {

TEST(EditGate, AnEditIsSentOnceThoughQtFinishesItOnEnterAndOnFocusOut) {
    plab::EditGate gate;
    gate.shown("growth_interval", "2000");
    EXPECT_TRUE(gate.finished("growth_interval", "3"));    // Enter
    EXPECT_FALSE(gate.finished("growth_interval", "3"));   // the focus leaves
    EXPECT_TRUE(gate.finished("growth_interval", "2000"));  // and back: a change again
}

TEST(EditGate, AFieldLeftUnchangedSendsNothing) {
    plab::EditGate gate;
    gate.shown("init_scale", "65536");
    gate.shown("hysteresis", "2");
    EXPECT_FALSE(gate.finished("init_scale", "65536"));
    EXPECT_FALSE(gate.finished("hysteresis", "2"));
    EXPECT_TRUE(gate.finished("hysteresis", "3"));  // fields are kept apart
    EXPECT_FALSE(gate.finished("init_scale", "65536"));
}

TEST(EditGate, ANewConfigShownReplacesWhatWasSent) {
    plab::EditGate gate;
    gate.shown("kind", "dynamic");
    EXPECT_TRUE(gate.finished("kind", "static"));
    gate.shown("kind", "dynamic");  // another preset loaded
    EXPECT_FALSE(gate.finished("kind", "dynamic"));
    EXPECT_TRUE(gate.finished("kind", "static"));
}

TEST(EditGate, AFieldNeverShownSendsItsFirstEdit) {
    plab::EditGate gate;
    EXPECT_TRUE(gate.finished("min_scale", "1"));
    EXPECT_FALSE(gate.finished("min_scale", "1"));
}

}  // namespace
