// The live view's keys: the table, the help overlay's lines, and what each
// command asks of a session in hand-made snapshots.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "ui/present/live_keys.h"

namespace plab {
namespace {

using Kind = SessionRequest::Kind;

struct SnapshotBuilder {
    SessionSnapshot snap;
    RunConfig config;

    SnapshotBuilder() {
        config.steps = 2000;
        config.scaler.kind = ScalerKind::dynamic;
        config.scaler.init_scale = 1024.0f;
        config.scaler.growth_interval = 2000;
    }
    // The main run after `step` steps, the last leaving scale `scale_after`.
    SnapshotBuilder& at(std::int64_t step, float scale_after) {
        auto r = std::make_shared<StepRecord>();
        r->step = step;
        r->scale = scale_after;
        r->scale_after = scale_after;
        snap.main.log.recent.push_back(r);
        snap.step = step;
        snap.main.steps_done = step;
        return *this;
    }
    SnapshotBuilder& edit(std::int64_t step, std::string assignment) {
        snap.main.log.edits.push_back({step, std::move(assignment)});
        return *this;
    }
    SessionSnapshot build() {
        snap.main.config = std::make_shared<const RunConfig>(config);
        return snap;
    }
};

SessionRequest request(LiveKey key, const SessionSnapshot& s) {
    const std::optional<SessionRequest> r = session_request(live_action(key), s);
    EXPECT_TRUE(r.has_value()) << live_key_name(key);
    return r.value_or(SessionRequest{});
}

TEST(LiveKeys, TheIssuesKeys) {
    EXPECT_EQ(live_action(LiveKey::space).command, LiveCommand::play_pause);
    EXPECT_EQ(live_action(LiveKey::s).command, LiveCommand::step);
    EXPECT_EQ(live_action(LiveKey::r).command, LiveCommand::reset);
    EXPECT_EQ(live_action(LiveKey::f).command, LiveCommand::fork);
    EXPECT_EQ(live_action(LiveKey::up).command, LiveCommand::scale_up);
    EXPECT_EQ(live_action(LiveKey::down).command, LiveCommand::scale_down);
    EXPECT_EQ(live_action(LiveKey::g).command, LiveCommand::growth_interval_up);
    EXPECT_EQ(live_action(LiveKey::b).command, LiveCommand::growth_interval_down);
    EXPECT_EQ(live_action(LiveKey::h).command, LiveCommand::help);
    EXPECT_EQ(live_action(LiveKey::p).command, LiveCommand::projector);
}

TEST(LiveKeys, DigitsPickTheRecipesInOrder) {
    const std::pair<LiveKey, const char*> digits[] = {
        {LiveKey::digit1, "fp32"},      {LiveKey::digit2, "tf32"},      {LiveKey::digit3, "amp-fp16"},
        {LiveKey::digit4, "amp-bf16"},  {LiveKey::digit5, "fp16-pure"}, {LiveKey::digit6, "bf16-pure"},
        {LiveKey::digit7, "fp8"}};
    for (const auto& [key, name] : digits) {
        const LiveAction a = live_action(key);
        EXPECT_EQ(a.command, LiveCommand::recipe) << name;
        EXPECT_EQ(recipe_name(a.recipe), name);
    }
}

TEST(LiveKeys, HelpNamesEveryKeyOnce) {
    std::map<LiveKey, int> seen;
    for (const KeyHelp& line : live_key_help()) {
        EXPECT_FALSE(line.what.empty()) << line.keys_text;
        for (LiveKey k : line.keys) ++seen[k];
    }
    for (LiveKey k : kAllLiveKeys) EXPECT_EQ(seen[k], 1) << live_key_name(k);
    EXPECT_EQ(seen.size(), std::size(kAllLiveKeys));
}

TEST(LiveKeys, HelpListsTheRecipesByDigit) {
    int lines = 0;
    for (const KeyHelp& line : live_key_help()) {
        if (line.keys_text != "1-7") continue;
        ++lines;
        EXPECT_NE(line.what.find("1 fp32  2 tf32  3 amp-fp16  4 amp-bf16  5 fp16-pure  6 bf16-pure  7 fp8"),
                  std::string::npos);
    }
    EXPECT_EQ(lines, 1);
}

TEST(SessionRequest, SpacePlaysOrPauses) {
    SnapshotBuilder b;
    b.at(10, 1024);
    SessionSnapshot s = b.build();
    EXPECT_EQ(request(LiveKey::space, s).kind, Kind::play);
    s.playing = true;
    EXPECT_EQ(request(LiveKey::space, s).kind, Kind::pause);
}

TEST(SessionRequest, SpaceAtTheLastStepSaysWhy) {
    SnapshotBuilder b;
    b.at(2000, 1024);
    const SessionRequest r = request(LiveKey::space, b.build());
    EXPECT_EQ(r.kind, Kind::notice);
    EXPECT_NE(r.said.find("last step (2000)"), std::string::npos) << r.said;
}

TEST(SessionRequest, StepResetFork) {
    SnapshotBuilder b;
    b.at(37, 1024);
    const SessionSnapshot s = b.build();
    const SessionRequest step = request(LiveKey::s, s);
    EXPECT_EQ(step.kind, Kind::step);
    EXPECT_EQ(step.at, 1);
    EXPECT_EQ(request(LiveKey::r, s).kind, Kind::reset);
    const SessionRequest fork = request(LiveKey::f, s);
    EXPECT_EQ(fork.kind, Kind::fork);
    EXPECT_EQ(fork.at, 37);
}

TEST(SessionRequest, RecipeRestarts) {
    SnapshotBuilder b;
    const SessionRequest r = request(LiveKey::digit4, b.build());
    EXPECT_EQ(r.kind, Kind::restart);
    EXPECT_EQ(r.recipe, Recipe::amp_bf16);
}

TEST(SessionRequest, UpAndDownDoubleAndHalveTheScale) {
    SnapshotBuilder b;
    b.at(12, 65536.0f);
    const SessionSnapshot s = b.build();
    const SessionRequest up = request(LiveKey::up, s);
    EXPECT_EQ(up.kind, Kind::set);
    EXPECT_EQ(up.assignment, "scaler.scale=131072");
    EXPECT_EQ(up.said, "loss scale 2^16 -> 2^17");
    EXPECT_EQ(request(LiveKey::down, s).assignment, "scaler.scale=32768");
}

TEST(SessionRequest, SecondPressBuildsOnTheFirstEdit) {
    // Paused at step 12: the first Up's edit is logged at step 12, before any
    // new record; a second Up must go on from it.
    SnapshotBuilder b;
    b.at(12, 65536.0f).edit(12, "scaler.scale=131072");
    EXPECT_EQ(request(LiveKey::up, b.build()).assignment, "scaler.scale=262144");
}

TEST(SessionRequest, OlderEditsGiveWayToTheLatestRecord) {
    SnapshotBuilder b;
    b.edit(3, "scaler.scale=8").at(5, 1024.0f);
    EXPECT_EQ(request(LiveKey::up, b.build()).assignment, "scaler.scale=2048");
}

TEST(SessionRequest, BeforeTheFirstStepTheInitScale) {
    SnapshotBuilder b;  // init_scale 1024
    EXPECT_EQ(request(LiveKey::down, b.build()).assignment, "scaler.scale=512");
}

TEST(SessionRequest, NoScalerNoScaleEdit) {
    SnapshotBuilder b;
    b.config.scaler.kind = ScalerKind::none;
    const SessionRequest r = request(LiveKey::up, b.build());
    EXPECT_EQ(r.kind, Kind::notice);
    EXPECT_TRUE(r.assignment.empty());
}

TEST(SessionRequest, ScaleStopsAtFloatsEnds) {
    SnapshotBuilder top;
    top.at(1, std::ldexp(1.0f, 127));
    EXPECT_EQ(request(LiveKey::up, top.build()).kind, Kind::notice);
    const std::string down = request(LiveKey::down, top.build()).assignment;
    ASSERT_TRUE(down.starts_with("scaler.scale="));
    EXPECT_EQ(std::stof(down.substr(13)), std::ldexp(1.0f, 126));
    SnapshotBuilder bottom;
    bottom.at(1, std::ldexp(1.0f, -149));  // the smallest subnormal float
    EXPECT_EQ(request(LiveKey::down, bottom.build()).kind, Kind::notice);
}

TEST(SessionRequest, GrowthIntervalKeys) {
    SnapshotBuilder b;
    const SessionSnapshot s = b.build();  // growth_interval 2000
    const SessionRequest g = request(LiveKey::g, s);
    EXPECT_EQ(g.assignment, "scaler.growth_interval=4000");
    EXPECT_EQ(g.said, "growth_interval 2000 -> 4000");
    EXPECT_EQ(request(LiveKey::b, s).assignment, "scaler.growth_interval=1000");
    SnapshotBuilder one;
    one.config.scaler.growth_interval = 3;
    EXPECT_EQ(request(LiveKey::b, one.build()).assignment, "scaler.growth_interval=1");
    one.config.scaler.growth_interval = 1;
    EXPECT_EQ(request(LiveKey::b, one.build()).kind, Kind::notice);
}

TEST(SessionRequest, ViewKeysAskNothingOfTheSession) {
    SnapshotBuilder b;
    const SessionSnapshot s = b.build();
    for (LiveKey k : {LiveKey::u, LiveKey::l, LiveKey::p, LiveKey::h})
        EXPECT_FALSE(session_request(live_action(k), s).has_value()) << live_key_name(k);
}

TEST(RecipeConfig, ScalerFollowsTheRecipe) {
    RunConfig base;
    base.precision.recipe = Recipe::amp_fp16;
    base.scaler.kind = ScalerKind::static_scale;
    base.seed = 7;
    const RunConfig bf16 = recipe_config(base, Recipe::amp_bf16);
    EXPECT_EQ(bf16.precision.recipe, Recipe::amp_bf16);
    EXPECT_EQ(bf16.scaler.kind, ScalerKind::none);
    EXPECT_EQ(bf16.seed, 7u);
    EXPECT_EQ(recipe_config(base, Recipe::fp16_pure).scaler.kind, ScalerKind::dynamic);
    EXPECT_EQ(recipe_config(base, Recipe::bf16_pure).scaler.kind, ScalerKind::none);
    EXPECT_EQ(recipe_config(base, Recipe::amp_fp16).scaler.kind, ScalerKind::dynamic);
    EXPECT_EQ(recipe_config(base, Recipe::fp32).scaler.kind, ScalerKind::none);
}

}  // namespace
}  // namespace plab
