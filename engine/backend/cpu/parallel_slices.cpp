#include "engine/backend/cpu/parallel_slices.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace plab::cpu {

std::size_t usable_cores() {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<std::size_t>(std::max(1, CPU_COUNT(&set)));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// Helper threads that sleep until the next op is handed out (no spinning: on
// a busy machine, or beside the GUI thread, a spinning helper would take the
// core from the thread it waits for). C++20's atomic wait parks on a futex.
class SlicePool {
public:
    // A helper without a core of its own only adds wake-ups.
    SlicePool() {
        for (std::size_t i = 1; i < std::min<std::size_t>(usable_cores(), kMostThreads); ++i)
            helpers_.emplace_back([this, i] { serve(i); });
    }
    ~SlicePool() {
        stop_ = true;
        generation_.store(~std::uint64_t{0});
        generation_.notify_all();
        for (std::thread& t : helpers_) t.join();
    }
    std::size_t threads() const { return helpers_.size() + 1; }

    // Runs job(0) here and job(1 .. slices - 1) on the helpers; returns once all have.
    bool try_run(std::size_t slices, const std::function<void(std::size_t)>& job) {
        // A slice that itself calls an op runs that op alone (and a thread
        // must not try the lock it holds).
        if (in_slice_) return false;
        std::unique_lock lock(busy_, std::try_to_lock);
        if (!lock.owns_lock()) return false;
        in_slice_ = true;
        pending_.store(static_cast<int>(slices - 1));
        {
            const std::lock_guard hand_out(task_mutex_);
            task_ = {task_.generation + 1, &job, slices};
        }
        generation_.store(task_.generation);
        generation_.notify_all();
        job(0);
        for (int left = pending_.load(); left != 0; left = pending_.load()) pending_.wait(left);
        in_slice_ = false;
        return true;
    }

private:
    static constexpr std::size_t kMostThreads = 8;

    // What one op hands out; a helper serves each generation at most once,
    // and only the one it read (a helper that slept through an op it had no
    // slice of reads the next one).
    struct Task {
        std::uint64_t generation = 0;
        const std::function<void(std::size_t)>* job = nullptr;
        std::size_t slices = 0;
    };

    Task read_task() {
        const std::lock_guard hand_out(task_mutex_);
        return task_;
    }

    void serve(std::size_t index) {
        in_slice_ = true;
        std::uint64_t served = 0;
        for (;;) {
            generation_.wait(served);
            if (stop_) return;
            const Task task = read_task();
            if (task.generation == served) continue;
            served = task.generation;
            if (index >= task.slices) continue;
            (*task.job)(index);
            if (pending_.fetch_sub(1) == 1) pending_.notify_one();
        }
    }

    std::vector<std::thread> helpers_;
    std::mutex busy_;  // one op at a time uses the helpers
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::mutex task_mutex_;
    Task task_;  // the last op handed out (task_mutex_)
    std::atomic<bool> stop_{false};
    static thread_local bool in_slice_;  // a helper, or a thread running its slice of an op
};

thread_local bool SlicePool::in_slice_ = false;

SlicePool& pool() {
    static SlicePool p;
    return p;
}

}  // namespace

std::size_t slice_threads() { return pool().threads(); }

void parallel_slices(std::size_t n, std::size_t min_slice,
                     const std::function<void(std::size_t begin, std::size_t end)>& body) {
    const std::size_t slices = std::min(slice_threads(), n / std::max<std::size_t>(min_slice, 1));
    if (slices > 1) {
        const std::function<void(std::size_t)> job = [&](std::size_t t) { body(n * t / slices, n * (t + 1) / slices); };
        if (pool().try_run(slices, job)) return;
    }
    body(0, n);
}

}  // namespace plab::cpu
