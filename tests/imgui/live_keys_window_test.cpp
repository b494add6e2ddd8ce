// The live view's keys end to end: a key as GLFW reports it (the GLFW
// backend's key callback, which GLFW calls on a real key press), through
// ImGui's key state and the shell's key table, to the session. Needs a
// display: ctest runs it under xvfb-run; without one it skips.
#include <gtest/gtest.h>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>

#include "engine/train/preset_io.h"
#include "ui/imgui/gl_window.h"
#include "ui/imgui/live_app.h"

namespace plab::imgui {
namespace {

class LiveKeysInAWindow : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::getenv("DISPLAY") == nullptr) GTEST_SKIP() << "no display (ctest runs this under xvfb-run)";
        window_ = std::make_unique<GlWindow>(WindowOptions{1024, 768, false, "live keys test"});
        app_ = std::make_unique<LiveApp>("spirals-amp-fp16", load_preset("spirals-amp-fp16"), window_->fonts());
        frame();
    }

    void frame() {
        window_->begin_frame();
        app_->frame();
        window_->render();
        window_->swap();
    }

    // Pressed in one frame, released in the next, as a person types it.
    void press(int key) {
        ImGui_ImplGlfw_KeyCallback(window_->handle(), key, 0, GLFW_PRESS, 0);
        frame();
        ImGui_ImplGlfw_KeyCallback(window_->handle(), key, 0, GLFW_RELEASE, 0);
        frame();
    }
    void press_and_wait(int key) {
        press(key);
        session().wait_until_idle();
    }

    Session& session() { return app_->session(); }
    std::shared_ptr<const SessionSnapshot> until(const std::function<bool(const SessionSnapshot&)>& done) {
        auto snap = session().snapshot();
        for (int i = 0; i < 5000 && !done(*snap); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            snap = session().snapshot();
        }
        return snap;
    }

    // The app's snapshot, drawing a frame every millisecond until `done`.
    std::shared_ptr<const SessionSnapshot> frames_until(const std::function<bool(const SessionSnapshot&)>& done) {
        auto snap = app_->snapshot();
        for (int i = 0; i < 5000 && !done(*snap); ++i) {
            frame();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            snap = app_->snapshot();
        }
        return snap;
    }

    std::unique_ptr<GlWindow> window_;
    std::unique_ptr<LiveApp> app_;
};

TEST_F(LiveKeysInAWindow, SStepsOnce) {
    press_and_wait(GLFW_KEY_S);
    EXPECT_EQ(session().snapshot()->step, 1);
    press_and_wait(GLFW_KEY_S);
    EXPECT_EQ(session().snapshot()->step, 2);
}

// Play at the default pace: the frames queue its steps, so they are drawn
// while the test waits; the app says it is playing between them too.
TEST_F(LiveKeysInAWindow, SpacePlaysAndPauses) {
    press(GLFW_KEY_SPACE);
    EXPECT_TRUE(frames_until([](const SessionSnapshot& s) { return s.playing && s.step > 0; })->playing);
    press(GLFW_KEY_SPACE);
    const auto paused = until([](const SessionSnapshot& s) { return !s.playing; });
    EXPECT_FALSE(paused->playing);
    session().wait_until_idle();
    const std::int64_t at = session().snapshot()->step;
    for (int i = 0; i < 10; ++i) {
        frame();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(session().snapshot()->step, at);  // it stays paused
    EXPECT_FALSE(app_->snapshot()->playing);
}

TEST_F(LiveKeysInAWindow, UpAndDownScaleTheNextStepsLossScale) {
    press_and_wait(GLFW_KEY_S);
    const float before = session().snapshot()->main.log.latest()->scale_after;
    press_and_wait(GLFW_KEY_UP);
    press_and_wait(GLFW_KEY_S);
    EXPECT_EQ(session().snapshot()->main.log.latest()->scale, 2 * before);
    press_and_wait(GLFW_KEY_DOWN);
    press_and_wait(GLFW_KEY_DOWN);
    press_and_wait(GLFW_KEY_S);
    EXPECT_EQ(session().snapshot()->main.log.latest()->scale, before / 2);
}

TEST_F(LiveKeysInAWindow, GAndBChangeTheGrowthInterval) {
    const int preset = session().snapshot()->main.config->scaler.growth_interval;
    press_and_wait(GLFW_KEY_G);
    EXPECT_EQ(session().snapshot()->main.config->scaler.growth_interval, 2 * preset);
    press_and_wait(GLFW_KEY_B);
    press_and_wait(GLFW_KEY_B);
    EXPECT_EQ(session().snapshot()->main.config->scaler.growth_interval, preset / 2);
}

TEST_F(LiveKeysInAWindow, FForksAtTheCurrentStep) {
    press_and_wait(GLFW_KEY_S);
    press_and_wait(GLFW_KEY_S);
    press_and_wait(GLFW_KEY_F);
    const auto snap = session().snapshot();
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(snap->fork->forked_at, 2);
}

TEST_F(LiveKeysInAWindow, RResetsAndADigitStartsANewRunWithItsRecipe) {
    press_and_wait(GLFW_KEY_S);
    press_and_wait(GLFW_KEY_R);
    EXPECT_EQ(session().snapshot()->step, 0);
    press_and_wait(GLFW_KEY_4);  // a new session: session() is another object now
    const auto snap = session().snapshot();
    EXPECT_EQ(snap->main.config->precision.recipe, Recipe::amp_bf16);
    EXPECT_EQ(snap->step, 0);
    press_and_wait(GLFW_KEY_1);
    EXPECT_EQ(session().snapshot()->main.config->precision.recipe, Recipe::fp32);
}

TEST_F(LiveKeysInAWindow, PTogglesProjectorMode) {
    ASSERT_FALSE(app_->projector());
    press(GLFW_KEY_P);
    EXPECT_TRUE(app_->projector());
    press(GLFW_KEY_P);
    EXPECT_FALSE(app_->projector());
}

}  // namespace
}  // namespace plab::imgui
