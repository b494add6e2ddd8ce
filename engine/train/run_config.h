#pragma once
// Everything that defines a run: what a preset file holds once resolved
// (every field present), and what `plab run --dump-preset` prints.
#include <cstdint>
#include <string>

#include "engine/amp/precision_config.h"
#include "engine/amp/scaler_config.h"
#include "engine/data/dataset.h"
#include "engine/model/model_config.h"
#include "engine/optim/optimizer_config.h"

namespace plab {

struct TelemetryConfig {
    bool enabled = true;  // per-step tensor statistics
    int hist_every = 0;   // log2 histograms every K steps; 0 = none
    // A language model's greedy text (train/text_sampler.h) every K steps and
    // on the last; 0 = none. The MLP writes no text, so it must keep 0.
    int sample_every = 0;
    int sample_chars = 80;  // characters each free-text sample writes (addition: the answer's digits)

    bool operator==(const TelemetryConfig&) const = default;
};

struct RunConfig {
    std::string name = "custom";
    std::string description;
    // A scenario's guided text: "Look at: ...", "Try: ...", "What happens: ..."
    // paragraphs separated by blank lines; empty for an ordinary preset.
    std::string guide;
    std::uint64_t seed = 1;  // data, init and batch order all derive from it
    int steps = 2000;        // optimizer steps
    int batch_size = 128;    // rows per micro-batch
    int eval_every = 100;    // test accuracy every K steps (and always on the last)
    bool twin = true;        // FP32 twin in lock-step
    DatasetSpec data;        // data.seed is ignored: the run's seed is used
    ModelConfig model;
    PrecisionConfig precision;
    ScalerConfig scaler;
    OptimizerConfig optimizer;
    TelemetryConfig telemetry;

    bool operator==(const RunConfig&) const = default;
};

// Every field, each with its own field-path message (plab::Error).
void validate(const RunConfig& config);

}  // namespace plab
