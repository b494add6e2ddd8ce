#include "engine/train/session.h"

#include <exception>
#include <limits>
#include <variant>

#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/train/preset_io.h"
#include "engine/train/preset_rules.h"
#include "engine/train/trainer.h"

namespace plab {

Session::Session(RunConfig config, RunFactory factory, SessionOptions options)
    : config_(std::move(config)),
      factory_(std::move(factory)),
      options_(std::move(options)),
      main_(make_main()),
      checkpoints_(options_.checkpoint_every, options_.max_checkpoints) {
    publish();
    worker_ = std::thread([this] { worker_loop(); });
}

Session::~Session() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    work_cv_.notify_all();
    idle_cv_.notify_all();
    worker_.join();
}

// --- callers' side ----------------------------------------------------------

bool SessionSnapshot::play_has_steps() const {
    auto short_of_plan = [](const RunView& run) { return run.config && run.steps_done < run.config->steps; };
    return short_of_plan(main) || (fork && short_of_plan(*fork));
}

std::uint64_t Session::play(std::int64_t at_most) { return enqueue(PlayCommand{at_most}); }
std::uint64_t Session::pause() { return enqueue(PauseCommand{}); }
std::uint64_t Session::step(std::int64_t count) { return enqueue(StepCommand{count}); }
std::uint64_t Session::reset() { return enqueue(ResetCommand{}); }
std::uint64_t Session::set(std::string assignment) { return enqueue(SetCommand{std::move(assignment)}); }
std::uint64_t Session::fork(std::int64_t at_step, std::vector<std::string> changes) {
    return enqueue(ForkCommand{at_step, std::move(changes)});
}

std::uint64_t Session::trace(std::int64_t step) { return enqueue(TraceCommand{step}); }

std::uint64_t Session::enqueue(SessionCommand command) {
    std::uint64_t seq = 0;
    {
        std::lock_guard lock(mutex_);
        seq = ++next_seq_;
        if (std::holds_alternative<PauseCommand>(command)) ++pauses_queued_;
        queue_.emplace_back(seq, std::move(command));
        idle_ = false;
    }
    work_cv_.notify_one();
    return seq;
}

std::shared_ptr<const SessionSnapshot> Session::snapshot() const {
    std::lock_guard lock(snapshot_mutex_);
    return snapshot_;
}

void Session::wait_until_idle() {
    std::unique_lock lock(mutex_);
    idle_cv_.wait(lock, [this] { return stop_ || (queue_.empty() && idle_); });
}

// --- the worker -------------------------------------------------------------

void Session::worker_loop() {
    for (;;) {
        std::pair<std::uint64_t, SessionCommand> command;
        while (take_command(command)) {
            apply_command(command.second);
            applied_ = command.first;
            dirty_ = true;
        }
        if (stop_requested()) return;
        if (busy()) {
            advance();
            if (std::chrono::steady_clock::now() - last_publish_ >= options_.publish_every) publish();
            continue;
        }
        if (dirty_) publish();
        if (!wait_for_work()) return;
    }
}

// The next command to apply now, in queue order; none while a step(n) still
// has steps to take (commands after it wait for them), unless a pause is queued.
bool Session::take_command(std::pair<std::uint64_t, SessionCommand>& out) {
    std::lock_guard lock(mutex_);
    if (stop_) return false;
    if (steps_left_ > 0 && pauses_queued_ > 0) steps_left_ = 0;
    if (steps_left_ > 0 || queue_.empty()) return false;
    out = std::move(queue_.front());
    queue_.pop_front();
    if (std::holds_alternative<PauseCommand>(out.second)) --pauses_queued_;
    return true;
}

// Idle until a command comes; false when the session is closing.
bool Session::wait_for_work() {
    std::unique_lock lock(mutex_);
    if (!stop_ && queue_.empty()) {
        idle_ = true;
        idle_cv_.notify_all();
        work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        idle_ = false;
    }
    return !stop_;
}

bool Session::stop_requested() const {
    std::lock_guard lock(mutex_);
    return stop_;
}

void Session::apply_command(const SessionCommand& command) {
    try {
        std::visit([this](const auto& c) { apply_one(c); }, command);
    } catch (const std::exception& e) {
        record_error(e.what());
    }
}

void Session::apply_one(const PlayCommand& command) {
    check_int_field("play.at_most", command.at_most, 0, std::numeric_limits<std::int64_t>::max());
    playing_ = true;
    play_left_ = command.at_most;
    steps_left_ = 0;
}

void Session::apply_one(const PauseCommand&) {
    playing_ = false;
    steps_left_ = 0;
}

void Session::apply_one(const StepCommand& command) {
    check_int_field("step.count", command.count, 1, std::numeric_limits<std::int64_t>::max());
    playing_ = false;
    steps_left_ = command.count;
}

void Session::apply_one(const ResetCommand&) {
    main_ = make_main();
    fork_.reset();
    trace_.reset();
    checkpoints_.clear();
    playing_ = false;
    steps_left_ = 0;
}

void Session::apply_one(const SetCommand& command) {
    std::string failures;
    auto try_edit = [&](LiveRun& live, const char* label) {
        try {
            apply_edit(live, command.assignment);
        } catch (const std::exception& e) {
            failures += (failures.empty() ? "" : "; ") + std::string(label) + e.what();
        }
    };
    try_edit(main_, "");
    if (fork_) try_edit(*fork_, "fork: ");
    if (!failures.empty()) throw Error(failures);
}

void Session::apply_one(const ForkCommand& command) {
    check_int_field("fork.at_step", command.at_step, 0, main_.run->steps_done());
    const EditList& edits = main_.log.edits();
    if (command.at_step == 0) {
        LiveRun fork{fresh_fork_run(command.changes), RunLog(options_.log), nullptr, 0};
        // Logged as edits at step 0 (what the fork changed, for the views);
        // applying them again to its config changes nothing.
        for (std::size_t i = 0; i < edits.size() && edits[i].step == 0; ++i) fork.log.add_edit(0, edits[i].assignment);
        for (const std::string& change : command.changes) fork.log.add_edit(0, change);
        fork.config = std::make_shared<const RunConfig>(fork.run->config());
        fork_ = std::move(fork);
        return;
    }
    std::unique_ptr<Run> run = restore_run(checkpoints_, factory_, config_, edits, command.at_step,
                                           [this] { return stop_requested(); });
    if (!run) return;  // closing
    LiveRun fork{std::move(run), RunLog(options_.log), nullptr, command.at_step};
    // The fork's own log holds every edit it carries, so it replays alone.
    for (std::size_t i = 0; i < edits.size() && edits[i].step <= command.at_step; ++i) {
        fork.log.add_edit(edits[i].step, edits[i].assignment);
    }
    for (const std::string& change : command.changes) apply_edit(fork, change);
    fork.config = std::make_shared<const RunConfig>(fork.run->config());
    fork_ = std::move(fork);
}

void Session::apply_one(const TraceCommand& command) {
    check_int_field("trace.step", command.step, 1, main_.run->steps_done());
    if (trace_ && trace_->step == command.step) return;  // traced already (views may ask more than once)
    std::unique_ptr<Run> run = restore_run(checkpoints_, factory_, config_, main_.log.edits(), command.step - 1,
                                           [this] { return stop_requested(); });
    if (!run) return;  // closing
    trace_ = StepTrace{command.step, run->trace_step()};
}

// The preset with the main run's step-0 edits and then `changes` folded into
// its config (validated: an error names the field), built from scratch; the
// live loss scale, which is state and not config, is set on the new run.
std::unique_ptr<Run> Session::fresh_fork_run(const std::vector<std::string>& changes) const {
    std::vector<std::string> settings, live_scale;
    const EditList& edits = main_.log.edits();
    for (std::size_t i = 0; i < edits.size() && edits[i].step == 0; ++i) settings.push_back(edits[i].assignment);
    settings.insert(settings.end(), changes.begin(), changes.end());
    std::erase_if(settings, [&](const std::string& a) {
        const bool scale = a.starts_with(std::string(kLiveScaleSetting) + "=");
        if (scale) live_scale.push_back(a);
        return scale;
    });
    RunConfig config = config_;
    apply_settings(config, settings);
    std::unique_ptr<Run> run = factory_(config);
    for (const std::string& a : live_scale) run->apply(a);
    return run;
}

void Session::apply_edit(LiveRun& live, const std::string& assignment) {
    live.log.require_edit_room();  // before the run changes: an unlogged edit would break replays
    live.run->apply(assignment);
    live.log.add_edit(live.run->steps_done(), assignment);
    live.config = std::make_shared<const RunConfig>(live.run->config());
}

// Play stops each run at its config's `steps`; step(n) goes past it.
bool Session::should_step(const LiveRun& live) const {
    return steps_left_ > 0 || (playing_ && live.run->steps_done() < live.run->config().steps);
}

// One step boundary: every live run that should, steps once.
void Session::advance() {
    const char* label = "";
    try {
        if (should_step(main_)) {
            main_.log.append(main_.run->step());
            checkpoints_.after_step(*main_.run, main_.log.edits().size());
        }
        label = "fork: ";
        if (fork_ && should_step(*fork_)) fork_->log.append(fork_->run->step());
    } catch (const std::exception& e) {
        playing_ = false;
        steps_left_ = 0;
        record_error(label + std::string(e.what()));
        return;
    }
    dirty_ = true;
    if (steps_left_ > 0) --steps_left_;
    if (playing_ && play_left_ > 0 && --play_left_ == 0) playing_ = false;
    if (playing_ && !should_step(main_) && !(fork_ && should_step(*fork_))) playing_ = false;
}

Session::LiveRun Session::make_main() const {
    std::unique_ptr<Run> run = factory_(config_);
    if (!run) throw Error("session: the run factory made no run");
    auto config = std::make_shared<const RunConfig>(run->config());
    return LiveRun{std::move(run), RunLog(options_.log), std::move(config), -1};
}

void Session::record_error(std::string message) {
    last_error_ = std::move(message);
    ++errors_;
    dirty_ = true;
}

RunView Session::view_of(const LiveRun& live) const {
    return RunView{live.config, live.run->steps_done(), live.forked_at, live.log.view(),
                   telemetry_layer_names(live.config->model)};
}

void Session::publish() {
    auto next = std::make_shared<SessionSnapshot>();
    next->step = main_.run->steps_done();
    next->playing = busy();
    next->applied = applied_;
    next->main = view_of(main_);
    if (fork_) next->fork = view_of(*fork_);
    next->checkpoints = checkpoints_.steps();
    next->trace = trace_;
    next->last_error = last_error_;
    next->errors = errors_;
    std::shared_ptr<const SessionSnapshot> previous = std::move(next);
    {
        std::lock_guard lock(snapshot_mutex_);
        snapshot_.swap(previous);
    }
    // `previous` (the old snapshot) is released here, outside the lock.
    dirty_ = false;
    last_publish_ = std::chrono::steady_clock::now();
}

}  // namespace plab
