// plab bench --long-run: a preset trained for many steps, its step time in
// the first and the last tenth side by side. A run whose optimizer state
// fills with subnormals slows down on cores with a slow subnormal path;
// --subnormals picks the CPU backend's way with them to show either.
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "engine/backend/cpu/subnormal_arithmetic.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/cli/commands.h"
#include "ui/records/json_line.h"
#include "ui/cli/progress_bar.h"

namespace plab {

namespace {

cpu::SubnormalArithmetic parse_subnormal_way(const std::string& text) {
    if (text == "auto") return cpu::SubnormalArithmetic::automatic;
    if (text == "hardware") return cpu::SubnormalArithmetic::hardware;
    if (text == "exact-lanes") return cpu::SubnormalArithmetic::exact_lanes;
    throw Error("--subnormals: '" + text + "' is not a way; allowed: auto|hardware|exact-lanes");
}

// Mean microseconds per step of the steps in [first, last).
struct Window {
    std::int64_t first = 0, last = 0;
    double seconds = 0;
    void add(std::int64_t step, double s) {
        if (step >= first && step < last) seconds += s;
    }
    double micros_per_step() const { return 1e6 * seconds / static_cast<double>(last - first); }
};

}  // namespace

void run_long_run_bench(const BenchOptions& o, std::ostream& out, std::ostream& log) {
    if (o.steps < 10 || o.steps > 10000000)
        throw Error("--steps: " + std::to_string(o.steps) + " is out of range; allowed 10..10000000 with --long-run");
    cpu::set_subnormal_arithmetic(parse_subnormal_way(o.subnormals));
    RunConfig config = load_preset(o.preset);
    config.steps = o.steps;
    const std::unique_ptr<Backend> backend = make_run_backend(o.backend);
    Trainer trainer(*backend, config);
    const std::int64_t tenth = o.steps / 10;
    Window head{0, tenth}, tail{o.steps - tenth, o.steps};
    ProgressBar bar(log, o.steps, !o.json && isatty(STDERR_FILENO) != 0);
    for (std::int64_t i = 0; i < o.steps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const StepRecord r = trainer.step();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        head.add(i, s);
        tail.add(i, s);
        bar.update(i + 1, "loss " + significant_text(r.loss, 4));
    }
    bar.finish();
    const char* way = backend->device() == Device::cpu ? cpu::subnormal_arithmetic_name(cpu::subnormal_arithmetic())
                                                         : "device";
    const double ratio = tail.micros_per_step() / head.micros_per_step();
    if (o.json) {
        std::string line;
        {
            JsonLine j(line);
            j.string("preset", config.name).string("backend", backend->name()).integer("steps", o.steps);
            j.string("subnormals", way)
                .number("first_tenth_us_per_step", head.micros_per_step())
                .number("last_tenth_us_per_step", tail.micros_per_step())
                .number("last_vs_first", ratio);
        }
        out << line;
        return;
    }
    out << "preset " << config.name << " on " << backend->name() << ", " << o.steps << " steps, subnormals: " << way
        << '\n'
        << "  steps 1-" << tenth << ": " << significant_text(head.micros_per_step(), 4) << " us/step\n"
        << "  steps " << tail.first + 1 << "-" << o.steps << ": " << significant_text(tail.micros_per_step(), 4)
        << " us/step (" << significant_text(ratio, 3) << "x the first tenth)\n";
}

}  // namespace plab
