#include "engine/train/recipe_comparison.h"

#include <chrono>
#include <string>

#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab {

RunConfig seeds_wide_mlp() {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.name = "seeds-wide-mlp";
    c.description = "2-4096x4-3 ReLU MLP on spirals, batch 8192: the model of the seeds' speed and memory claims";
    c.batch_size = 8192;
    c.data.samples = 10240;  // 8192 training rows after the 20% test split
    c.model.hidden = {4096, 4096, 4096, 4096};
    c.twin = false;
    c.telemetry.enabled = false;
    c.telemetry.hist_every = 0;
    c.steps = 20;
    c.eval_every = c.steps;
    return c;
}

namespace {

RunConfig under(const RunConfig& base, Recipe recipe) {
    RunConfig c = base;
    c.precision.recipe = recipe;
    c.scaler.kind = recipe_default_scaler(recipe);
    c.eval_every = c.steps;  // one evaluation, at the end
    return c;
}

// The mean step time past the first two steps, and the last evaluation.
void time_on(Backend& backend, const RunConfig& config, RecipeFigures& figures,
             const std::function<void(const std::string&)>& progress) {
    Trainer trainer(backend, config);
    constexpr int kUntimed = 2;
    std::chrono::steady_clock::time_point start;
    for (int i = 0; i < config.steps; ++i) {
        if (i == kUntimed) start = std::chrono::steady_clock::now();
        const StepRecord r = trainer.step();
        if (r.acc) figures.accuracy = *r.acc;
        if (progress)
            progress(std::string(recipe_name(config.precision.recipe)) + ": step " + std::to_string(i + 1) + "/" +
                     std::to_string(config.steps));
    }
    const int timed = config.steps - kUntimed;
    if (timed > 0)
        figures.step_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed;
}

}  // namespace

std::vector<RecipeFigures> compare_recipes(const RunConfig& base, Backend* timing,
                                           const std::function<void(const std::string&)>& progress) {
    std::vector<RecipeFigures> out;
    for (Recipe r : kComparedRecipes) {
        const RunConfig c = under(base, r);
        RecipeFigures f;
        f.recipe = r;
        f.ledger = memory_ledger(c);
        if (timing) time_on(*timing, c, f, progress);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace plab
