#include "engine/sweep/sweep_runner.h"

#include "engine/amp/precision_policy.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/backend/backend_choice.h"
#include "engine/backend/cpu/parallel_slices.h"
#include "engine/train/trainer.h"

namespace plab {

namespace {

constexpr auto kProgressEvery = std::chrono::milliseconds(100);

// What the worker threads share: the next run to take, the counts the
// progress report reads, the stop flag and the first error.
class SweepState {
public:
    SweepState(const SweepPlan& plan, const SweepRunOptions& options)
        : plan_(plan), observer_(options.observer), backend_(options.backend), measures_(plan.runs.size()) {}

    // A worker's life: take the next run until none is left or the sweep stops.
    void work() {
        for (std::size_t run = next_++; run < plan_.runs.size() && !stopping_; run = next_++) {
            try {
                train(run);
            } catch (...) {
                fail(std::current_exception());
            }
        }
        const std::lock_guard lock(mutex_);
        ++workers_done_;
        done_.notify_all();
    }

    // Waits for `workers` threads, reporting progress and asking `stop` meanwhile.
    void supervise(std::size_t workers, const SweepRunOptions& o) {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (o.stop && o.stop()) stopping_ = true;
            const bool finished = done_.wait_for(lock, kProgressEvery, [&] { return workers_done_ == workers; });
            if (o.progress) o.progress(steps_.load(), runs_done_.load());
            if (finished) return;
        }
    }

    bool stopped() const { return stopping_ && !error_; }
    std::exception_ptr error() const { return error_; }
    std::vector<RunMeasures> measures() && { return std::move(measures_); }

private:
    void train(std::size_t run) {
        const SweepRun& r = plan_.runs[run];
        // Made as plab run makes its backend, so a run here computes what plab
        // run computes; a fresh one per run (on the GPU: its own stream and
        // cuBLAS handles), so that nothing a worker's earlier run left in a
        // backend's caches can reach the next.
        const std::unique_ptr<Backend> backend = make_run_backend(backend_);
        Trainer trainer(*backend, r.config);
        if (observer_.started) observer_.started(run, trainer, *backend);
        RunMeter meter(r.config.scaler, mixed_pass_formats(r.config.precision, trainer.layer_names()).layer_compute);
        for (int i = 0; i < r.config.steps; ++i) {
            if (stopping_) return;
            const StepRecord record = trainer.step();
            meter.add(record);
            if (observer_.step) observer_.step(run, record);
            ++steps_;
        }
        measures_[run] = meter.result();
        if (observer_.finished) observer_.finished(run, measures_[run]);
        ++runs_done_;
    }

    void fail(std::exception_ptr e) {
        const std::lock_guard lock(mutex_);
        if (!error_) error_ = e;
        stopping_ = true;
    }

    const SweepPlan& plan_;
    const SweepObserver& observer_;
    const std::string& backend_;
    std::vector<RunMeasures> measures_;  // each written by the thread that trained its run
    std::atomic<std::size_t> next_{0};
    std::atomic<std::int64_t> steps_{0};
    std::atomic<std::size_t> runs_done_{0};
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::condition_variable done_;
    std::size_t workers_done_ = 0;  // mutex_
    std::exception_ptr error_;      // mutex_ while workers run
};

}  // namespace

std::size_t sweep_threads(std::size_t runs, std::size_t requested, Device device) {
    std::size_t wanted = requested > 0 ? requested : cpu::usable_cores();
    if (requested == 0 && device == Device::cuda) wanted = std::max(wanted, kCudaSweepStreams);
    return std::max<std::size_t>(1, std::min(runs, wanted));
}

std::optional<std::vector<RunMeasures>> run_sweep(const SweepPlan& plan, const SweepRunOptions& options) {
    // A bad choice or a missing device is bad input: found here, before any run starts.
    const Device device = backend_device(options.backend);
    SweepState state(plan, options);
    const std::size_t workers = sweep_threads(plan.runs.size(), options.threads, device);
    std::vector<std::jthread> threads;
    threads.reserve(workers);
    for (std::size_t i = 0; i < workers; ++i) threads.emplace_back([&state] { state.work(); });
    state.supervise(workers, options);
    threads.clear();  // joins
    if (state.error()) std::rethrow_exception(state.error());
    if (state.stopped()) return std::nullopt;
    return std::move(state).measures();
}

}  // namespace plab
