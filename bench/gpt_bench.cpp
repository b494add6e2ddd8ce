// Speed of the tiny GPT's passes on the CPU backend (the exact emulation),
// at the size the tiny-gpt presets use: a forward and backward of the
// mixed-precision model and of its FP32 twin, as a training step runs them,
// without the optimizer and telemetry. Prints one JSON object: passes per
// second for FP32 alone, AMP-FP16 alone and AMP-FP16 with its twin, where
// the time goes (each op's share, timed between the model's op callbacks),
// and whole training steps per second of the tiny-gpt presets as shipped
// (twin, telemetry and evaluation on), after a warm-up, beside the FP32
// preset's step with the twin and telemetry off.
//
//   gpt_bench [--layers 2] [--width 64] [--heads 4] [--context 32] [--batch 16] [--seconds 3]
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/data/random.h"
#include "engine/data/token_data.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    GptSpec spec{.context = 32, .width = 64, .heads = 4, .layers = 2};
    int batch = 16;
    double seconds = 3.0;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const int v = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--layers")) o.spec.layers = v;
        else if (!std::strcmp(argv[i], "--width")) o.spec.width = v;
        else if (!std::strcmp(argv[i], "--heads")) o.spec.heads = v;
        else if (!std::strcmp(argv[i], "--context")) o.spec.context = v;
        else if (!std::strcmp(argv[i], "--batch")) o.batch = v;
        else if (!std::strcmp(argv[i], "--seconds")) o.seconds = std::atof(argv[i + 1]);
        else {
            std::cerr << "gpt_bench: unknown option " << argv[i] << "\n";
            std::exit(2);
        }
    }
    return o;
}

// Time between consecutive op callbacks, charged to the op that just ended.
class OpClock final : public OpObserver {
public:
    void start() { last_ = Clock::now(); }
    void after_op(const OpEvent& e) override {
        const Clock::time_point now = Clock::now();
        seconds_[std::string(phase_name(e.phase)) + " " + std::string(e.op)] +=
            std::chrono::duration<double>(now - last_).count();
        last_ = now;
    }
    const std::map<std::string, double>& seconds() const { return seconds_; }

private:
    Clock::time_point last_;
    std::map<std::string, double> seconds_;
};

struct Model {
    TinyGpt gpt;
    PassFormats formats;
};

void initialise(CpuBackend& be, TinyGpt& gpt) {
    Rng rng(1);
    for (Parameter* p : gpt.parameters()) {
        std::vector<float> v(p->value.size());
        for (float& x : v) x = p->name.ends_with(".gamma") ? 1.0f : static_cast<float>(0.02 * rng.normal());
        set_parameter(be, *p, v.data());
    }
}

// Passes per second of forward + backward over `models`, each on the same batch.
double passes_per_second(CpuBackend& be, std::vector<Model*> models, const Tensor& ids, const Tensor& targets,
                         double seconds, OpObserver* observer) {
    Tensor loss = be.allocate({1, 1}, FormatId::fp32);
    auto pass = [&](OpObserver* watching) {
        if (auto* clock = dynamic_cast<OpClock*>(watching)) clock->start();
        for (Model* m : models) {
            m->gpt.forward_into(be, ids, targets, m->formats, loss, watching);
            m->gpt.backward(be, ids, targets, 1024.0f, watching);
        }
    };
    pass(nullptr);  // buffers allocated outside the timing
    int done = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
        pass(observer);
        ++done;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    return done / elapsed;
}

// Steps per second of a preset's Trainer, after the steps that allocate.
double trainer_steps_per_second(const std::string& preset, const std::vector<std::string>& settings,
                                double seconds) {
    RunConfig config = load_preset(preset);
    apply_settings(config, settings);
    CpuBackend be;
    Trainer trainer(be, config);
    for (int i = 0; i < 3; ++i) trainer.step();
    int done = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
        trainer.step();
        ++done;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    return done / elapsed;
}

nlohmann::json preset_steps(double seconds) {
    // Long enough that no run reaches its last step (which evaluates) while timed.
    const std::string endless = "steps=1000000";
    nlohmann::json out = nlohmann::json::object();
    for (const char* preset : {"tiny-gpt-fp32", "tiny-gpt-amp-fp16", "tiny-gpt-amp-bf16", "tiny-gpt-fp8"})
        out[preset] = trainer_steps_per_second(preset, {endless}, seconds);
    out["tiny-gpt-fp32 twin=false telemetry.enabled=false"] =
        trainer_steps_per_second("tiny-gpt-fp32", {endless, "twin=false", "telemetry.enabled=false"}, seconds);
    return out;
}

int run(const Options& o) {
    const TokenData data = make_token_data({}, 1);
    GptSpec spec = o.spec;
    spec.vocabulary = data.vocabulary();
    CpuBackend be;
    Model fp32{TinyGpt(be, spec), {}}, amp{TinyGpt(be, spec), {}};
    fp32.formats = PassFormats::uniform(FormatId::fp32, fp32.gpt.matmul_count());
    amp.formats = PassFormats::uniform(FormatId::fp16, amp.gpt.matmul_count());
    initialise(be, fp32.gpt);
    initialise(be, amp.gpt);
    WindowSampler sampler(data, spec.context, o.batch, 1);
    const TokenBatch& batch = sampler.next();
    const int rows = o.batch * spec.context;
    Tensor ids = be.allocate({rows, 1}, FormatId::fp32), targets = be.allocate({rows, 1}, FormatId::fp32);
    be.upload(batch.ids.data(), ids);
    be.upload(batch.targets.data(), targets);

    const double f32 = passes_per_second(be, {&fp32}, ids, targets, o.seconds, nullptr);
    const double f16 = passes_per_second(be, {&amp}, ids, targets, o.seconds, nullptr);
    const double both = passes_per_second(be, {&amp, &fp32}, ids, targets, o.seconds, nullptr);
    OpClock clock;
    passes_per_second(be, {&amp}, ids, targets, o.seconds, &clock);
    double total = 0;
    for (const auto& [op, s] : clock.seconds()) total += s;
    nlohmann::json shares = nlohmann::json::object();
    for (const auto& [op, s] : clock.seconds()) shares[op] = std::round(1000.0 * s / total) / 10.0;
    const nlohmann::json out = {
        {"model", {{"layers", spec.layers}, {"width", spec.width}, {"heads", spec.heads}, {"context", spec.context},
                   {"vocabulary", spec.vocabulary}, {"batch", o.batch}}},
        {"passes_per_s", {{"fp32", f32}, {"amp_fp16", f16}, {"amp_fp16_with_fp32_twin", both}}},
        {"amp_fp16_op_share_percent", shares},
        {"preset_steps_per_s", preset_steps(o.seconds)}};
    std::cout << out.dump(2) << '\n';
    return 0;
}

}  // namespace
}  // namespace plab

int main(int argc, char** argv) { return plab::run(plab::parse(argc, argv)); }
