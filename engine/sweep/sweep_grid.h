#pragma once
// A sweep's grid: axes of preset fields, each with the values to try; the
// cells are every combination of one value per axis, and each cell trains
// once per seed. A cell's values are --set assignments and each run's config
// is resolved by edited_config, so a run of the grid trains exactly what
// `plab run --set FIELD=VALUE ... --steps N --seed S` trains.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/preset_io.h"
#include "engine/train/run_config.h"

namespace plab {

struct SweepAxis {
    std::string field;                // a preset path, as --set names it: "scaler.init_scale"
    std::vector<std::string> values;  // as typed: "2^16"
};

// "FIELD=V1,V2,...". Commas inside brackets or quotes belong to the value,
// so a list value reads as one: "model.hidden=[32,32],[64,64]". plab::Error
// naming the text when there is no field or no value, or a value is empty.
SweepAxis parse_sweep_axis(std::string_view text);

// "1-5", "1,3,7" or both ("1-3,9"), in the order given; plab::Error naming
// --seeds for anything else, a backward range or more than kMaxSeeds seeds.
inline constexpr std::size_t kMaxSeeds = 10000;
std::vector<std::uint64_t> parse_seed_list(std::string_view text);

struct SweepCell {
    std::vector<std::string> settings;  // "field=value", one per axis, in axis order
};

struct SweepRun {
    std::size_t cell = 0;  // index into SweepPlan::cells
    std::uint64_t seed = 0;
    RunConfig config;
};

struct SweepPlan {
    std::vector<SweepAxis> axes;
    std::vector<SweepCell> cells;  // the last axis varies fastest
    std::vector<std::uint64_t> seeds;  // every cell's; empty: the preset's own seed, once
    std::vector<SweepRun> runs;    // cell by cell, each cell's seeds in order
};

// What a sweep trains: `base` (a loaded preset) with `edits` applied to every
// run (its settings first, then the cell's, then the seed), over the grid of
// `axes`, once per seed of `seeds` (empty: the preset's own seed, once).
// Every run's config is resolved and validated here, before anything trains.
// plab::Error, naming the axis and the allowed values, for: no axis, an
// axis without values, a field named twice (or `seed` as an axis beside
// seeds), an unknown field, and a value the field refuses.
SweepPlan plan_sweep(const RunConfig& base, const PresetEdits& edits, const std::vector<SweepAxis>& axes,
                     const std::vector<std::uint64_t>& seeds);

// A grid of more runs than this is likely a typo (an axis with a zero too
// many): the front ends train it only when a person confirms it (plab
// sweep's --yes, the workbench's question).
inline constexpr std::size_t kSweepRunsWithoutYes = 400;

// The settings that turn the sweep's base config into cell `cell`'s first
// run: the cell's own, then its seed (when the sweep names seeds) and its
// steps, as `plab run --set` takes them; what a front end trains again to
// show that run's curves (a fork from step 0 of the base preset).
std::vector<std::string> cell_run_settings(const SweepPlan& plan, std::size_t cell);

// "36 runs (6 x 6 cells x 5 seeds)"
std::string grid_size_text(const SweepPlan& plan);

// A name for the run that is safe as a file name, its index first so the
// files sort in grid order: "03_scaler.init_scale=2^8,scaler.growth_interval=50,seed=1"
// (the seed when the plan has seeds); characters a file name should not hold
// ('/', spaces, quotes, ...) become '_'.
std::string sweep_run_name(const SweepPlan& plan, std::size_t run);

}  // namespace plab
