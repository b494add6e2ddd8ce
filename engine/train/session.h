#pragma once
// Session: drives a training run on its own worker thread (docs/DESIGN.md, "Data
// flow"). Any thread queues commands; the worker applies them in order at
// step boundaries. Readers (GUI timers at 60 Hz, the CLI) take snapshots:
// immutable, published by the worker, never blocking it.
//
// Up to two runs live side by side: the main run and at most one fork, a
// copy of the main run as it was at some past step with other settings.
// Once forked, every step boundary advances both.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/train/run.h"
#include "engine/train/run_log.h"
#include "engine/train/session_checkpoints.h"
#include "engine/train/session_command.h"

namespace plab {

struct SessionOptions {
    RunLogLimits log;              // for each run's RunLog
    int checkpoint_every = 100;    // a clone of the main run every C steps (forks replay from it)
    int max_checkpoints = 32;      // older clones are thinned past this
    std::chrono::microseconds publish_every{15000};  // snapshot period while running
};

// One run as readers see it.
struct RunView {
    std::shared_ptr<const RunConfig> config;  // live edits included
    std::int64_t steps_done = 0;
    // The fork: the main run's step it branched at; its log (records, series,
    // totals) starts with step forked_at + 1, its edits are complete from step 0.
    // -1 for the main run.
    std::int64_t forked_at = -1;
    RunLogView log;  // log.latest(): the latest StepRecord; nullptr before the first step
    // What the entries of every StepRecord::layers are called ("fc1", "blocks.0.mlp.fc1").
    std::vector<std::string> layer_names;
};

// Where a snapshot comes from when no session trains it: a run record read
// back from a file (the workbenches' --open). Panels that need the live
// model, or a twin the record lacks, say why they stay empty.
struct RecordOrigin {
    std::string file;     // as opened
    std::string source;   // its writer: "plab_probe 0.1.0, torch 2.4.0"; "" for the lab's own
    std::string backend;  // where it trained: "CPU (exact emulation)", "PyTorch 2.4.0 (cuda)"
    // The fork, when there is one, is the record's loss scaler replayed under
    // these settings ("scaler.init_scale=1024, ..."): a prediction, not a run.
    std::string replayed;
};

// A step of the main run traced op by op (Session::trace).
struct StepTrace {
    std::int64_t step = 0;
    std::optional<NanReport> first_nonfinite;  // nullopt: every op's output was finite
};

struct SessionSnapshot {
    std::int64_t step = 0;       // the main run's steps_done
    bool playing = false;        // playing, or working through a step(n)
    std::uint64_t applied = 0;   // sequence number of the last command applied (0: none yet)
    RunView main;
    std::optional<RunView> fork;
    std::vector<std::int64_t> checkpoints;  // steps of the main run's kept clones, oldest first
    std::optional<StepTrace> trace;         // the latest trace(); cleared by reset()
    std::string last_error;      // the latest failed command or step; "" if none yet
    std::uint64_t errors = 0;    // failures so far: a change means a new last_error
    std::shared_ptr<const RecordOrigin> record;  // null for a session's own snapshot

    // Whether play() would step a run: the main run or the fork is short of its config's `steps`.
    bool play_has_steps() const;
};

class Session {
public:
    // Makes the main run (factory(config): throws plab::Error on a bad
    // config, before any thread starts) and starts the worker, paused.
    Session(RunConfig config, RunFactory factory, SessionOptions options = {});
    // Stops the worker at the next step boundary, playing or not; queued
    // commands are dropped.
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Commands: each returns its sequence number (compare with
    // SessionSnapshot::applied). A command's failure never stops the worker:
    // it lands in SessionSnapshot::last_error.
    //
    // Play: step every live run until it reaches its config's `steps`, then
    // pause; with `at_most` > 0, pause after that many boundaries at the
    // latest (a paced play's frame: forks go on to their own `steps` while
    // the main run waits at its own).
    std::uint64_t play(std::int64_t at_most = 0);
    // Pause at the next boundary. A queued pause also cancels the steps left
    // of any step(n) queued before it (the commands between then apply there).
    std::uint64_t pause();
    // Step every live run `count` (>= 1) times, past `steps` if asked; stops
    // play. Commands queued after it wait until those steps are done.
    std::uint64_t step(std::int64_t count = 1);
    // Back to a fresh main run at step 0 from the session's config: edits,
    // checkpoints and the fork are dropped; paused.
    std::uint64_t reset();
    // A live edit ("scaler.growth_interval=100") applied to every live run and
    // logged in each one's RunLog at its step. A run that rejects it is left
    // unchanged (Run::apply's contract) and the error reported.
    std::uint64_t set(std::string assignment);
    // A fork equal to the main run as it was at `at_step` (0 <= at_step <= the
    // current step), with `changes` applied in order, then stepped alongside
    // the main run. It replaces an existing fork; on any error the existing
    // fork stays as it was. A fork from step 0 is a new run of the preset with
    // the changes made before it starts, so it may change what a live run
    // cannot (the model, the data, master weights, the seed).
    std::uint64_t fork(std::int64_t at_step, std::vector<std::string> changes = {});
    // Replays step `step` (1 <= step <= the current step) of the main run on a
    // copy rebuilt from its checkpoints, with every op's output checked: the
    // first non-finite value names the op, phase and layer that made it
    // (SessionSnapshot::trace). The main run itself is not touched; asking
    // again for the step last traced does nothing.
    std::uint64_t trace(std::int64_t step);

    // The latest published state: cheap (a pointer copy under a tiny mutex).
    // Published at most every options.publish_every while running, and after
    // the commands applied when the worker goes idle.
    std::shared_ptr<const SessionSnapshot> snapshot() const;
    // Blocks until the queue is empty and the worker has paused with its
    // snapshot published (so a play() waits for the whole run).
    void wait_until_idle();

private:
    struct LiveRun {
        std::unique_ptr<Run> run;
        RunLog log;
        std::shared_ptr<const RunConfig> config;
        std::int64_t forked_at = -1;
    };

    std::uint64_t enqueue(SessionCommand command);
    void worker_loop();
    bool take_command(std::pair<std::uint64_t, SessionCommand>& out);
    bool wait_for_work();
    void apply_command(const SessionCommand& command);
    void apply_one(const PlayCommand&);
    void apply_one(const PauseCommand&);
    void apply_one(const StepCommand& command);
    void apply_one(const ResetCommand&);
    void apply_one(const SetCommand& command);
    void apply_one(const ForkCommand& command);
    void apply_one(const TraceCommand& command);
    std::unique_ptr<Run> fresh_fork_run(const std::vector<std::string>& changes) const;
    void advance();
    bool should_step(const LiveRun& live) const;
    bool busy() const { return playing_ || steps_left_ > 0; }
    bool stop_requested() const;
    LiveRun make_main() const;
    void apply_edit(LiveRun& live, const std::string& assignment);
    void record_error(std::string message);
    void publish();
    RunView view_of(const LiveRun& live) const;

    const RunConfig config_;
    const RunFactory factory_;
    const SessionOptions options_;

    // Worker-only state (and the constructor's, before the thread starts).
    LiveRun main_;
    std::optional<LiveRun> fork_;
    std::optional<StepTrace> trace_;
    CheckpointStore checkpoints_;
    bool playing_ = false;
    std::int64_t play_left_ = 0;  // boundaries left in a play with at_most; 0 = no limit
    std::int64_t steps_left_ = 0;
    std::uint64_t applied_ = 0;
    std::string last_error_;
    std::uint64_t errors_ = 0;
    bool dirty_ = false;  // state changed since the last publish
    std::chrono::steady_clock::time_point last_publish_;

    // Shared with the command and wait callers.
    mutable std::mutex mutex_;
    std::condition_variable work_cv_;  // the worker waits for commands
    std::condition_variable idle_cv_;  // wait_until_idle waits for the worker
    std::deque<std::pair<std::uint64_t, SessionCommand>> queue_;
    std::uint64_t next_seq_ = 0;
    std::int64_t pauses_queued_ = 0;
    bool idle_ = false;
    bool stop_ = false;

    mutable std::mutex snapshot_mutex_;  // held only to copy or swap the pointer
    std::shared_ptr<const SessionSnapshot> snapshot_;

    std::thread worker_;  // last: starts once everything above exists
};

}  // namespace plab
