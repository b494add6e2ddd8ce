#pragma once
// One model under FP32, TF32, AMP-FP16 and AMP-BF16 side by side: each
// recipe's memory ledger, and where a GPU is at hand its step time and test
// accuracy after a few steps. What the seeds claim of mixed precision
// ("2-3x faster, about half the memory"), measured instead of quoted.
#include <functional>
#include <optional>
#include <vector>

#include "engine/amp/precision_config.h"
#include "engine/backend/backend.h"
#include "engine/train/memory_ledger.h"
#include "engine/train/run_config.h"

namespace plab {

inline constexpr Recipe kComparedRecipes[] = {Recipe::fp32, Recipe::tf32, Recipe::amp_fp16, Recipe::amp_bf16};

struct RecipeFigures {
    Recipe recipe = Recipe::fp32;
    MemoryLedger ledger;
    std::optional<double> step_seconds;  // the mean over the timed steps; none without a timing backend
    std::optional<float> accuracy;       // test accuracy after the run's steps
};

// The seeds' model: the default preset's spirals through a 2-4096x4-3 ReLU MLP,
// batch 8192 (10240 samples), AdamW, no twin, no telemetry.
RunConfig seeds_wide_mlp();

// `base` under each compared recipe (its scaler the recipe's default): the
// ledgers always; with `timing` also base.steps training steps on it, the
// first two (which record the step graphs) left out of the time. `progress`
// hears "fp32: step 12/50" lines.
std::vector<RecipeFigures> compare_recipes(const RunConfig& base, Backend* timing,
                                           const std::function<void(const std::string&)>& progress = {});

}  // namespace plab
