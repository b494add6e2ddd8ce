#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer_factory.h"
#include "engine/train/session.h"
#include "engine/train/session_checkpoints.h"
#include "train/fake_run.h"

namespace plab {
namespace {

using test::fake_factory;
using test::FakeRun;
using test::FakeScript;
using Clock = std::chrono::steady_clock;

RunConfig small_config(int steps = 100) {
    RunConfig c;
    c.steps = steps;
    c.eval_every = 10;
    c.scaler.init_scale = 1024.0f;
    c.scaler.growth_interval = 5;
    return c;
}

// ---------------------------------------------------------------------------
// The reference: a FakeRun driven by hand, no Session, no checkpoints. Edits
// logged at step s are applied after s steps, in order; the records of steps
// 1..steps come back.
std::vector<StepRecord> reference_records(const RunConfig& config, const FakeScript& script, std::int64_t steps,
                                          const std::vector<LiveEdit>& edits) {
    FakeRun run(config, std::make_shared<const FakeScript>(script));
    std::vector<StepRecord> out;
    std::size_t next = 0;
    for (std::int64_t s = 0;; ++s) {
        for (; next < edits.size() && edits[next].step == s; ++next) run.apply(edits[next].assignment);
        if (s == steps) break;
        out.push_back(run.step());
    }
    return out;
}

void expect_same_record(const StepRecord& got, const StepRecord& want) {
    EXPECT_EQ(got.step, want.step);
    EXPECT_EQ(got.loss, want.loss) << "step " << want.step;
    EXPECT_EQ(got.loss_ref, want.loss_ref) << "step " << want.step;
    EXPECT_EQ(got.scale, want.scale) << "step " << want.step;
    EXPECT_EQ(got.scale_after, want.scale_after) << "step " << want.step;
    EXPECT_EQ(got.growth_tracker, want.growth_tracker) << "step " << want.step;
    EXPECT_EQ(got.found_inf, want.found_inf) << "step " << want.step;
    EXPECT_EQ(got.skipped, want.skipped) << "step " << want.step;
    EXPECT_EQ(got.backoff, want.backoff) << "step " << want.step;
    EXPECT_EQ(got.growth, want.growth) << "step " << want.step;
    EXPECT_EQ(got.grad_norm, want.grad_norm) << "step " << want.step;
    EXPECT_EQ(got.lr, want.lr) << "step " << want.step;
    EXPECT_EQ(got.acc, want.acc) << "step " << want.step;
    ASSERT_EQ(got.layers.size(), want.layers.size()) << "step " << want.step;
    for (std::size_t i = 0; i < got.layers.size(); ++i) {
        EXPECT_EQ(got.layers[i].weight.count, want.layers[i].weight.count);
        EXPECT_EQ(got.layers[i].weight.amax, want.layers[i].weight.amax);
        EXPECT_EQ(got.layers[i].grad_rel_dist, want.layers[i].grad_rel_dist);
    }
}

// Every record the view still holds against the reference (whose index i is step i + 1).
void expect_log_matches(const RunLogView& log, const std::vector<StepRecord>& reference) {
    ASSERT_FALSE(log.recent.empty());
    for (const auto& held : log.recent) {
        ASSERT_GE(held->step, 1);
        ASSERT_LE(held->step, static_cast<std::int64_t>(reference.size()));
        expect_same_record(*held, reference[static_cast<std::size_t>(held->step - 1)]);
    }
}

std::vector<LiveEdit> edits_of(const RunLogView& log) {
    std::vector<LiveEdit> out;
    for (std::size_t i = 0; i < log.edits.size(); ++i) out.push_back(log.edits[i]);
    return out;
}

// Polls snapshots until `done` holds or `limit` passes.
std::shared_ptr<const SessionSnapshot> poll(const Session& session,
                                            const std::function<bool(const SessionSnapshot&)>& done,
                                            std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto until = Clock::now() + limit;
    auto snap = session.snapshot();
    while (!done(*snap) && Clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        snap = session.snapshot();
    }
    return snap;
}

TEST(Session, StartsPausedWithASnapshot) {
    Session session(small_config(), fake_factory());
    const auto snap = session.snapshot();
    ASSERT_NE(snap, nullptr);
    EXPECT_EQ(snap->step, 0);
    EXPECT_FALSE(snap->playing);
    EXPECT_EQ(snap->main.log.latest(), nullptr);
    EXPECT_FALSE(snap->fork.has_value());
    EXPECT_EQ(snap->main.config->steps, 100);
    session.wait_until_idle();  // returns with nothing queued
}

TEST(Session, BadConfigThrowsFromTheConstructor) {
    RunFactory refuse = [](const RunConfig&) -> std::unique_ptr<plab::Run> { throw Error("steps: 0 is out of range"); };
    EXPECT_THROW((Session{small_config(), refuse}), Error);
    SessionOptions bad;
    bad.checkpoint_every = 0;
    EXPECT_THROW((Session{small_config(), fake_factory(), bad}), Error);
}

TEST(Session, StepCountsAreExactAndCommandsApplyInOrder) {
    const RunConfig config = small_config();
    Session session(config, fake_factory());
    session.step(3);
    session.set("optimizer.lr=0.5");
    const std::uint64_t last = session.step(2);
    session.wait_until_idle();
    const auto snap = session.snapshot();
    EXPECT_EQ(snap->step, 5);
    EXPECT_EQ(snap->main.steps_done, 5);
    EXPECT_EQ(snap->applied, last);
    EXPECT_FALSE(snap->playing);
    ASSERT_EQ(snap->main.log.recent.size(), 5u);
    EXPECT_EQ(snap->main.log.totals.steps, 5);
    EXPECT_EQ(snap->main.config->optimizer.lr, 0.5f);

    const std::vector<LiveEdit> edits = edits_of(snap->main.log);
    ASSERT_EQ(edits.size(), 1u);
    EXPECT_EQ(edits[0].step, 3);  // after three steps, before the fourth
    EXPECT_EQ(edits[0].assignment, "optimizer.lr=0.5");
    EXPECT_EQ(snap->main.log.find(3)->lr, config.optimizer.lr);
    EXPECT_EQ(snap->main.log.find(4)->lr, 0.5f);
    expect_log_matches(snap->main.log, reference_records(config, {}, 5, edits));
}

TEST(Session, PlayStopsAtStepsAndStepGoesPastThem) {
    Session session(small_config(50), fake_factory());
    session.play();
    session.wait_until_idle();
    auto snap = session.snapshot();
    EXPECT_EQ(snap->step, 50);
    EXPECT_FALSE(snap->playing);
    session.play();  // already there: nothing to do
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 50);
    session.step(2);
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 52);
    session.set("steps=60");  // a live edit of the limit moves where play stops
    session.play();
    session.wait_until_idle();
    snap = session.snapshot();
    EXPECT_EQ(snap->step, 60);
    expect_log_matches(snap->main.log, reference_records(small_config(50), {}, 60, edits_of(snap->main.log)));
}

// A paced play's frame: play(n) stops after n boundaries; each run stops at
// its own plan, so a fork made after the main run reached its steps trains
// on to its own while the main run waits (and never goes past its plan).
TEST(Session, PacedPlayTrainsAForkPastTheMainRunsPlan) {
    Session session(small_config(10), fake_factory());
    session.play(3);
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 3);
    EXPECT_FALSE(session.snapshot()->playing);
    session.play();
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 10);
    EXPECT_FALSE(session.snapshot()->play_has_steps());

    session.fork(4, {"optimizer.lr=0.05"});
    session.wait_until_idle();
    EXPECT_TRUE(session.snapshot()->play_has_steps());
    session.play(4);
    session.wait_until_idle();
    auto snap = session.snapshot();
    EXPECT_EQ(snap->step, 10);
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(snap->fork->steps_done, 8);
    session.play(100);
    session.wait_until_idle();
    snap = session.snapshot();
    EXPECT_EQ(snap->step, 10);
    EXPECT_EQ(snap->fork->steps_done, 10);
    EXPECT_FALSE(snap->playing);
    EXPECT_FALSE(snap->play_has_steps());
    EXPECT_EQ(snap->errors, 0u);
    session.play(-1);
    session.wait_until_idle();
    EXPECT_NE(session.snapshot()->last_error.find("play.at_most: -1"), std::string::npos);
}

TEST(Session, PauseDuringPlay) {
    const int steps = 2'000'000'000;
    Session session(small_config(steps), fake_factory());
    session.play();
    auto snap = poll(session, [](const SessionSnapshot& s) { return s.step >= 50; });
    ASSERT_GE(snap->step, 50);
    EXPECT_TRUE(snap->playing);
    session.pause();
    session.wait_until_idle();
    snap = session.snapshot();
    const std::int64_t stopped = snap->step;
    EXPECT_LT(stopped, steps);
    EXPECT_FALSE(snap->playing);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(session.snapshot()->step, stopped);
    EXPECT_EQ(snap->main.log.latest()->step, stopped);
    EXPECT_EQ(snap->main.log.totals.steps, stopped);
}

TEST(Session, QueuedPauseCutsAStepCommandShortAndLaterCommandsApplyThere) {
    Session session(small_config(), fake_factory());
    session.step(1'000'000'000'000);
    poll(session, [](const SessionSnapshot& s) { return s.step >= 20; });
    session.set("optimizer.lr=0.5");  // waits behind the step command ...
    session.pause();                  // ... until this cuts it short
    session.wait_until_idle();
    const auto snap = session.snapshot();
    EXPECT_FALSE(snap->playing);
    const std::vector<LiveEdit> edits = edits_of(snap->main.log);
    ASSERT_EQ(edits.size(), 1u);
    EXPECT_EQ(edits[0].step, snap->step);
    EXPECT_LT(snap->step, 1'000'000'000'000);
}

TEST(Session, ResetGoesBackToAFreshRun) {
    const RunConfig config = small_config();
    Session session(config, fake_factory());
    session.step(10);
    session.set("optimizer.lr=0.5");
    session.fork(4);
    session.step(2);
    session.wait_until_idle();
    ASSERT_TRUE(session.snapshot()->fork.has_value());
    session.reset();
    session.wait_until_idle();
    auto snap = session.snapshot();
    EXPECT_EQ(snap->step, 0);
    EXPECT_FALSE(snap->fork.has_value());
    EXPECT_TRUE(snap->main.log.recent.empty());
    EXPECT_TRUE(snap->main.log.edits.empty());
    EXPECT_EQ(snap->main.log.totals.steps, 0);
    EXPECT_TRUE(snap->checkpoints.empty());
    EXPECT_EQ(snap->main.config->optimizer.lr, config.optimizer.lr);
    session.step(3);
    session.wait_until_idle();
    snap = session.snapshot();
    EXPECT_EQ(snap->step, 3);
    expect_log_matches(snap->main.log, reference_records(config, {}, 3, {}));
}

// Main run: 7 steps, an edit, 5 steps, two edits at step 12, 25 steps; then
// forks at several past steps, each stepped 6 times beside the main run.
void expect_forks_equal_fresh_replays(int checkpoint_every, int max_checkpoints) {
    const RunConfig config = small_config(1000);
    FakeScript script;
    script.found_inf_steps = {6, 13, 14, 30, 41};
    SessionOptions options;
    options.checkpoint_every = checkpoint_every;
    options.max_checkpoints = max_checkpoints;
    Session session(config, fake_factory(script), options);
    session.step(7);
    session.set("optimizer.lr=0.02");
    session.step(5);
    session.set("scaler.growth_interval=3");
    session.set("optimizer.lr=0.03");
    session.step(25);
    session.wait_until_idle();
    const std::vector<LiveEdit> main_edits = edits_of(session.snapshot()->main.log);
    ASSERT_EQ(main_edits.size(), 3u);

    std::int64_t main_steps = 37;
    for (std::int64_t at : {0, 4, 7, 12, 20, 36, 37}) {
        SCOPED_TRACE("fork at " + std::to_string(at));
        // The changes leave growth_interval alone, so a lost edit of it shows.
        session.fork(at, {"steps=900", "optimizer.lr=0.05"});
        session.step(6);
        session.wait_until_idle();
        main_steps += 6;
        const auto snap = session.snapshot();
        ASSERT_TRUE(snap->fork.has_value());
        const RunView& fork = *snap->fork;
        EXPECT_EQ(fork.forked_at, at);
        EXPECT_EQ(fork.steps_done, at + 6);
        EXPECT_EQ(fork.config->steps, 900);
        EXPECT_EQ(fork.config->scaler.growth_interval, at >= 12 ? 3 : 5);
        EXPECT_EQ(snap->step, main_steps);

        std::vector<LiveEdit> want_edits;
        for (const LiveEdit& e : main_edits) {
            if (e.step <= at) want_edits.push_back(e);
        }
        want_edits.push_back({at, "steps=900"});
        want_edits.push_back({at, "optimizer.lr=0.05"});
        const std::vector<LiveEdit> got_edits = edits_of(fork.log);
        ASSERT_EQ(got_edits.size(), want_edits.size());
        for (std::size_t i = 0; i < want_edits.size(); ++i) {
            EXPECT_EQ(got_edits[i].step, want_edits[i].step);
            EXPECT_EQ(got_edits[i].assignment, want_edits[i].assignment);
        }
        // The fork's log starts after the fork step and holds exactly its own 6 steps.
        ASSERT_EQ(fork.log.recent.size(), 6u);
        EXPECT_EQ(fork.log.recent.front()->step, at + 1);
        expect_log_matches(fork.log, reference_records(config, script, at + 6, want_edits));
        // And the main run went on untouched.
        expect_log_matches(snap->main.log, reference_records(config, script, main_steps, main_edits));
        EXPECT_LE(snap->checkpoints.size(), static_cast<std::size_t>(max_checkpoints));
    }
}

TEST(Session, ForkEqualsAFreshReplayFromSparseThinnedCheckpoints) { expect_forks_equal_fresh_replays(4, 3); }

// Clones at 4, 8, 12, ... all kept: the fork at 12 starts from the clone taken
// at the step the two edits were made, which does not hold them yet.
TEST(Session, ForkEqualsAFreshReplayFromACheckpointAtAnEditedStep) { expect_forks_equal_fresh_replays(4, 100); }

TEST(Session, ForkEqualsAFreshReplayWithoutCheckpoints) { expect_forks_equal_fresh_replays(1, 0); }

// A FakeRun that counts the edits applied to it over its whole history
// (clones included), so an edit replayed twice shows even when it is
// idempotent.
class CountingRun : public FakeRun {
public:
    using FakeRun::FakeRun;
    void apply(std::string_view assignment) override {
        FakeRun::apply(assignment);
        ++applied;
    }
    std::unique_ptr<Run> clone() const override { return std::make_unique<CountingRun>(*this); }
    int applied = 0;
};

// restore_run resumes the replay at the edits a checkpoint does not hold,
// whichever side of the edits made at its own step it was taken.
TEST(CheckpointStore, RestoreReplaysExactlyTheEditsTheCloneLacks) {
    const RunConfig config = small_config();
    auto script = std::make_shared<const FakeScript>();
    RunFactory factory = [script](const RunConfig& c) -> std::unique_ptr<plab::Run> {
        return std::make_unique<CountingRun>(c, script);
    };
    auto never = [] { return false; };
    EditList edits;
    CountingRun main(config, script);
    CheckpointStore before(4, 10);  // clones taken before the step-4 edits
    CheckpointStore after(4, 10);   // clones taken once they were made
    for (int i = 0; i < 4; ++i) main.step();
    before.after_step(main, edits.size());
    for (const char* a : {"scaler.growth_interval=3", "optimizer.lr=0.5"}) {
        main.apply(a);
        edits.push_back({4, a});
    }
    after.after_step(main, edits.size());
    main.step();
    main.apply("optimizer.lr=0.25");
    edits.push_back({5, "optimizer.lr=0.25"});

    for (const CheckpointStore* store : {&before, &after}) {
        for (std::int64_t at : {4, 5, 6}) {
            SCOPED_TRACE("restore at " + std::to_string(at) + (store == &before ? " (before)" : " (after)"));
            const auto run = restore_run(*store, factory, config, edits, at, never);
            ASSERT_NE(run, nullptr);
            EXPECT_EQ(run->steps_done(), at);
            EXPECT_EQ(run->config().scaler.growth_interval, 3);
            EXPECT_EQ(run->config().optimizer.lr, at >= 5 ? 0.25f : 0.5f);
            EXPECT_EQ(static_cast<const CountingRun&>(*run).applied, at >= 5 ? 3 : 2);
        }
    }
}

TEST(Session, ForkedRecordsDifferFromTheMainRun) {  // the comparison above can tell runs apart
    const RunConfig config = small_config();
    Session session(config, fake_factory());
    session.step(10);
    session.fork(10, {"optimizer.lr=0.05"});
    session.step(1);
    session.wait_until_idle();
    const auto snap = session.snapshot();
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_NE(snap->fork->log.latest()->loss, snap->main.log.latest()->loss);
}

TEST(Session, SetAppliesToEveryLiveRunAtItsOwnStep) {
    const RunConfig config = small_config(100);
    Session session(config, fake_factory());
    session.step(20);
    session.fork(5);
    session.step(2);
    session.set("optimizer.lr=0.3");
    session.wait_until_idle();
    auto snap = session.snapshot();
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(edits_of(snap->main.log).back().step, 22);
    EXPECT_EQ(edits_of(snap->fork->log).back().step, 7);
    EXPECT_EQ(snap->fork->config->optimizer.lr, 0.3f);

    // Valid for the fork (at step 7), not for the main run (at 22): the main
    // run is left as it was, the fork takes it, the error names the main run's.
    session.set("steps=10");
    session.wait_until_idle();
    snap = session.snapshot();
    EXPECT_EQ(snap->last_error, "steps: 10 is out of range; allowed 22..1073741824");
    EXPECT_EQ(snap->main.log.edits.size(), 1u);
    EXPECT_EQ(snap->main.config->steps, 100);
    EXPECT_EQ(edits_of(snap->fork->log).back().assignment, "steps=10");
    EXPECT_EQ(snap->fork->config->steps, 10);

    session.play();  // each run stops at its own limit
    session.wait_until_idle();
    snap = session.snapshot();
    EXPECT_EQ(snap->step, 100);
    EXPECT_EQ(snap->fork->steps_done, 10);
}

TEST(Session, ErrorsSurfaceInTheSnapshotAndTheWorkerGoesOn) {
    Session session(small_config(), fake_factory());
    session.set("bogus=1");
    session.wait_until_idle();
    auto snap = session.snapshot();
    EXPECT_EQ(snap->last_error,
              "set: bogus=1 is out of range; allowed optimizer.lr=F, scaler.growth_interval=N, steps=N");
    EXPECT_EQ(snap->errors, 1u);
    EXPECT_TRUE(snap->main.log.edits.empty());

    session.step(0);
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->last_error, "step.count: 0 is out of range; allowed 1..9223372036854775807");

    session.fork(5);
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->last_error, "fork.at_step: 5 is out of range; allowed 0..0");
    EXPECT_FALSE(session.snapshot()->fork.has_value());

    session.step(2);
    session.fork(1);
    session.fork(0, {"optimizer.lr=0.5", "optimizer.lr=-1"});  // the second change is bad: no new fork
    session.wait_until_idle();
    snap = session.snapshot();
    // A fork from step 0 is built from the preset with its changes: the preset's own check speaks.
    EXPECT_EQ(snap->last_error, "optimizer.lr: -1 is out of range; allowed finite and > 0");
    EXPECT_EQ(snap->errors, 4u);
    EXPECT_EQ(snap->step, 2);
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(snap->fork->forked_at, 1);  // the earlier fork, untouched
    EXPECT_EQ(snap->fork->config->optimizer.lr, small_config().optimizer.lr);
}

// A change a live run refuses (it rebuilds the model) is refused for a fork
// from a later step, and taken by a fork from step 0, which is a new run of
// the changed preset: its records are those of a Trainer built from it.
TEST(Session, AForkFromStepZeroMayChangeWhatALiveRunCannot) {
    RunConfig config = small_config(50);
    config.model.hidden = {8};
    config.data.samples = 200;
    config.batch_size = 32;
    config.data.seed = config.seed;  // as a loaded preset is: the data seeded from the run's seed
    Session session(config, trainer_factory(std::make_shared<CpuBackend>()));
    session.step(4);
    session.fork(2, {"model.init_gain=3"});
    session.wait_until_idle();
    auto snap = session.snapshot();
    EXPECT_EQ(snap->last_error,
              "model.init_gain: 3 cannot be set while a run is live: it changes model, which the run and its "
              "twin were built from; reset the run with the new value, or fork from step 0 with it");
    EXPECT_FALSE(snap->fork.has_value());

    session.fork(0, {"model.init_gain=3", "scaler.scale=256"});
    session.step(3);
    session.wait_until_idle();
    snap = session.snapshot();
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(snap->errors, 1u);
    EXPECT_EQ(snap->fork->config->model.init_gain, 3.0);
    ASSERT_EQ(snap->fork->log.edits.size(), 2u);
    EXPECT_EQ(snap->fork->log.edits[0].assignment, "model.init_gain=3");
    EXPECT_EQ(snap->fork->log.edits[1].step, 0);

    RunConfig changed = config;
    changed.model.init_gain = 3.0;
    CpuBackend backend;
    Trainer reference(backend, changed);
    reference.apply("scaler.scale=256");
    ASSERT_EQ(snap->fork->log.recent.size(), 3u);
    for (const auto& held : snap->fork->log.recent) {
        const StepRecord want = reference.step();
        EXPECT_EQ(held->loss, want.loss) << "step " << want.step;
        EXPECT_EQ(held->scale, want.scale) << "step " << want.step;
        EXPECT_EQ(held->loss_ref, want.loss_ref) << "step " << want.step;
    }
    EXPECT_EQ(snap->fork->log.recent.front()->scale, 256.0f);
}

// A trace replays one step of the main run on a rebuilt copy with every op
// checked: on overflow-nan it names what `plab run --trace-nan` names (a
// Trainer tracing from step 0), and the main run goes on untouched.
TEST(Session, TraceNamesTheOpThatMadeTheFirstNonFiniteValue) {
    const RunConfig config = load_preset("overflow-nan");
    CpuBackend backend;
    Trainer traced(backend, config, {.trace_nan = true});
    while (!traced.nan_report() && traced.steps_done() < 100) (void)traced.step();
    ASSERT_TRUE(traced.nan_report().has_value());
    const NanReport want = *traced.nan_report();

    SessionOptions options;
    options.checkpoint_every = 7;  // the replay starts from a checkpoint before the step
    Session session(config, trainer_factory(std::make_shared<CpuBackend>()), options);
    session.step(want.step + 5);
    session.trace(want.step);
    session.wait_until_idle();
    auto snap = session.snapshot();
    ASSERT_TRUE(snap->trace.has_value());
    EXPECT_EQ(snap->trace->step, want.step);
    ASSERT_TRUE(snap->trace->first_nonfinite.has_value());
    const NanReport& got = *snap->trace->first_nonfinite;
    EXPECT_EQ(got.step, want.step);
    EXPECT_EQ(got.phase, want.phase);
    EXPECT_EQ(got.layer, want.layer);
    EXPECT_EQ(got.op, want.op);
    EXPECT_EQ(got.input_amax, want.input_amax);
    EXPECT_EQ(got.diagnosis, want.diagnosis);
    EXPECT_EQ(snap->step, want.step + 5);

    session.trace(want.step - 1);  // the step before: every op finite
    session.trace(want.step + 6);  // not taken yet
    session.wait_until_idle();
    snap = session.snapshot();
    ASSERT_TRUE(snap->trace.has_value());
    EXPECT_EQ(snap->trace->step, want.step - 1);
    EXPECT_FALSE(snap->trace->first_nonfinite.has_value());
    EXPECT_NE(snap->last_error.find("trace.step"), std::string::npos) << snap->last_error;

    session.reset();
    session.wait_until_idle();
    EXPECT_FALSE(session.snapshot()->trace.has_value());
}

TEST(Session, AFailingStepPausesAndIsReported) {
    FakeScript script;
    script.fail_at = 5;
    Session session(small_config(), fake_factory(script));
    session.play();
    session.wait_until_idle();
    const auto snap = session.snapshot();
    EXPECT_EQ(snap->step, 4);
    EXPECT_FALSE(snap->playing);
    EXPECT_EQ(snap->last_error, "fake: step 5 failed");
    EXPECT_EQ(snap->errors, 1u);
}

TEST(Session, CheckpointsStayBoundedRecentOnesDense) {
    SessionOptions options;
    options.checkpoint_every = 1;
    options.max_checkpoints = 8;
    Session session(small_config(), fake_factory(), options);
    session.step(1000);
    session.wait_until_idle();
    const std::vector<std::int64_t> kept = session.snapshot()->checkpoints;
    ASSERT_EQ(kept.size(), 8u);
    EXPECT_EQ(kept.back(), 1000);
    for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1], kept[i]);
    // Gaps grow with age: the newest gap is the smallest, the oldest the largest.
    const std::int64_t newest_gap = kept[7] - kept[6];
    const std::int64_t oldest_gap = kept[1] - kept[0];
    EXPECT_LT(newest_gap, oldest_gap);
    EXPECT_LE(newest_gap, 4);
}

TEST(Session, ReadersOnOtherThreadsSeeConsistentSnapshots) {
    const int steps = 100'000;
    SessionOptions options;
    options.log.recent = 64;
    options.publish_every = std::chrono::microseconds(500);
    Session session(small_config(steps), fake_factory(), options);
    std::atomic<bool> failed{false};
    std::atomic<int> distinct{0};
    auto reader = [&] {
        std::int64_t previous = -1;
        for (;;) {
            const auto snap = session.snapshot();
            if (snap->step != previous) ++distinct;
            if (snap->step < previous) failed = true;
            previous = snap->step;
            const RunLogView& log = snap->main.log;
            if (snap->step > 0) {
                if (log.latest() == nullptr || log.latest()->step != snap->step) failed = true;
                if (log.totals.steps != snap->step || log.series.back().last_step != snap->step) failed = true;
                for (std::size_t i = 1; i < log.recent.size(); ++i) {
                    if (log.recent[i]->step != log.recent[i - 1]->step + 1) failed = true;
                }
            }
            if (snap->step == steps && !snap->playing) return;
            std::this_thread::yield();
        }
    };
    std::thread a(reader);
    std::thread b(reader);
    session.play();
    for (int i = 0; i < 5; ++i) session.set("optimizer.lr=0.0" + std::to_string(i + 1));
    session.wait_until_idle();
    a.join();
    b.join();
    EXPECT_FALSE(failed);
    EXPECT_GE(distinct.load(), 4);  // both readers saw the run move
    const auto snap = session.snapshot();
    EXPECT_EQ(snap->step, steps);
    EXPECT_EQ(snap->main.log.edits.size(), 5u);
}

TEST(Session, DestructionWhilePlayingIsPrompt) {
    const auto start = Clock::now();
    {
        Session session(small_config(2'000'000'000), fake_factory());
        session.play();
        poll(session, [](const SessionSnapshot& s) { return s.step >= 100; });
        EXPECT_TRUE(session.snapshot()->playing);
    }
    {
        Session session(small_config(), fake_factory());
        session.step(1'000'000'000'000);  // commands queued behind it are dropped
        session.set("optimizer.lr=0.5");
        session.fork(0);
    }
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace plab
