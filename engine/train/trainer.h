#pragma once
// One training run: the mixed-precision model and, in lock-step, its exact
// FP32 twin (same init, same batches), stepped as docs/DESIGN.md "Mixed
// precision semantics" describes:
//   forward (policy formats) -> loss * S -> backward -> accumulate over
//   micro-batches -> fused unscale + finite check -> clip -> skip or update
//   -> scaler update -> telemetry.
// The twin runs the same step in FP32 without scaling.
//
// Life of a step (Trainer::step, on the caller's thread: the Session's
// worker in the GUIs, the main thread in plab):
//  1. prepare_step, host only: draw the batches, refresh the scaler rule and
//     the optimizer settings (StepSettings), upload the scaler state if a
//     live edit changed it, size the landing places of the statistics;
//     each side's Optimizer::prepare.
//  2. run_step_ops: every backend op of the step, in order, replayed from a
//     recording (StepGraphCache: a CUDA graph, or StepRecorder on the CPU)
//     or run op by op (NaN tracer, FP8). Uploads, the losses, the unscale
//     and found_inf, the scaler's rule, the clip, the gated updates and the
//     telemetry are all queued on the backend (the optimizer's part:
//     Optimizer::run_ops); nothing is read back.
//  3. Backend::wait_for_queued, the step's one host wait: everything queued
//     lands on the host (losses, found_inf and the scaler state, update
//     counts, statistics, histograms, twin comparisons) and a queued error
//     (a bad label) is thrown here.
//  4. collect_telemetry and collect_mixed, host only: the host's scaler
//     takes the landed found_inf and must agree bit for bit with the
//     backend's state; the optimizers' counts (Optimizer::collect) and the
//     telemetry go into the StepRecord.
//  5. Every eval_every steps, the test set (reads back at once: not part of
//     the recorded step), the decision boundary when asked, and a language
//     model's text samples every telemetry.sample_every steps.
#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/amp/loss_scaler.h"
#include "engine/backend/backend.h"
#include "engine/backend/step_recorder.h"
#include "engine/data/dataset.h"
#include "engine/data/token_data.h"
#include "engine/model/mlp.h"
#include "engine/optim/optimizer.h"
#include "engine/train/batch_sampler.h"
#include "engine/train/decision_grid.h"
#include "engine/train/nan_tracer.h"
#include "engine/train/run.h"
#include "engine/train/step_graph_cache.h"
#include "engine/train/step_settings.h"
#include "engine/train/telemetry.h"
#include "engine/train/text_sampler.h"

namespace plab {

// A live edit that is not a preset setting: the loss scale itself (scaler
// state, not config), e.g. "scaler.scale=1024" sets it at the next step.
inline constexpr std::string_view kLiveScaleSetting = "scaler.scale";

// How the trainer runs, beyond the config: what a viewer asks for. None of
// it changes a number of the run's records.
struct TrainerOptions {
    bool trace_nan = false;  // check every op's output (NanTracer)
    // The decision boundary (decision_grid.h) of 2-D classification sets
    // into StepRecord::boundary: every boundary_every steps (0 = never) and
    // on the config's last step, on boundary_resolution cells per side.
    int boundary_every = 0;
    int boundary_resolution = 64;
    // Record each step's ops once and replay them (step_graph.h): a CUDA
    // graph on a GPU, StepRecorder's replay on the CPU. The numbers are the
    // same bit for bit either way; off runs every step op by op.
    bool step_graphs = true;
};

class Trainer final : public Run {
public:
    // Validates the config (plab::Error), makes the data, initialises both
    // models from the seed. The backend must outlive the trainer. A model
    // that does not fit in the backend's memory is an OutOfMemory naming its
    // size, here or from step().
    Trainer(Backend& backend, const RunConfig& config, TrainerOptions options = {});
    ~Trainer() override;

    StepRecord step() override;
    std::int64_t steps_done() const override { return step_; }
    const RunConfig& config() const override { return config_; }
    void apply(std::string_view assignment) override;
    std::unique_ptr<Run> clone() const override;
    // Turns the tracer on (if trace_nan was off) for this and later steps.
    std::optional<NanReport> trace_step() override;

    // Of the last step: per-layer histograms when it was a histogram step
    // (empty otherwise); the step's record shares them.
    const std::vector<LayerHistograms>& histograms() const;
    bool has_histograms() const { return histograms_ != nullptr; }
    // The first non-finite value the tracer saw (trace mode), if any.
    const std::optional<NanReport>& nan_report() const;
    // The mixed-precision model and the twin (null when off), whichever network the run trains.
    const Model& network() const;
    const Model* twin_network() const;
    // The same for an MLP run; an Error for a run of another network.
    const Mlp& model() const;
    const Mlp* twin() const;
    const LossScaler& scaler() const { return scaler_; }
    const Dataset& data() const { return data_; }
    // The matmul layers' names in model order ("fc1", ..., or "h0.attn.q", ...),
    // what PassFormats' lists run over; the records' layers add the tables
    // (telemetry_layer_names(network())).
    std::vector<std::string> layer_names() const;
    // How many steps ran from a recorded graph (TrainerOptions::step_graphs).
    const StepGraphCounts& step_graph_counts() const { return graphs_.counts(); }

private:
    struct Side;  // one model with its optimizer, formats and parameter lists
    std::unique_ptr<Side> make_side(std::unique_ptr<Model> model, const PassFormats& formats) const;
    void initialise(Side& side, std::uint64_t seed);
    void initialise_gpt(Side& side, std::uint64_t seed);
    void allocate_gpt_and_tokens();
    float token_accuracy(const std::vector<float>& probs) const;
    void allocate_models_and_data();
    StepRecord take_step();
    // e with the model's size added: what did not fit, and what to change.
    [[noreturn]] void rethrow_with_model_size(const OutOfMemory& e) const;
    // A step in three parts: the host's preparation, the backend's ops (what
    // a recorded step holds: nothing in them may decide on the host), and
    // what the host reads once they have landed.
    void prepare_step(bool histograms);
    void run_step_ops(float scale, bool histograms);
    void step_ops(float scale, bool histograms);
    bool can_record_step() const;
    void collect_telemetry(StepRecord& record, bool histograms);
    void train_micro_batch(Side& side, float scale, int k, OpObserver* observer);
    // The step's mean loss over its micro-batches, once they have landed.
    float landed_loss(const Side& side) const;
    void sync_scaler_state();
    void update_mixed(float scale);
    void collect_mixed(StepRecord& record, float scale);
    void update_twin();
    void queue_step_telemetry(float scale, bool histograms);
    void evaluate(StepRecord& record);
    float evaluate_side(Side& side, const PassFormats& formats, float* accuracy);
    float evaluation_loss(Side& side, const PassFormats& formats, const Tensor& x, const Tensor& y);
    float predict(Side& side, const PassFormats& formats, const Tensor& x, const Tensor& y, std::vector<float>& probs);
    void take_boundary(StepRecord& record);
    void take_samples(StepRecord& record);
    void classify_grid(Side& side, std::vector<std::uint8_t>& classes, std::vector<float>& confidence);
    void draw_batch(int k);
    void apply_live(const RunConfig& next);
    void copy_state_from(const Trainer& other);

    Backend& given_backend_;
    // Between the trainer and a backend that cannot record steps itself (the
    // CPU's), when step graphs are on; null otherwise.
    std::unique_ptr<StepRecorder> recorder_;
    Backend& backend_;  // *recorder_ or the given backend
    RunConfig config_;
    TrainerOptions options_;
    Dataset data_;  // the toy data set (an MLP's run)
    BatchSampler sampler_;
    // A GPT's run: its tokens, the training windows' sampler and the test
    // windows (fixed for the run); null otherwise.
    std::unique_ptr<const TokenData> tokens_;
    std::unique_ptr<WindowSampler> windows_;
    TokenBatch test_tokens_;
    // Made on the first sample step (a live edit may turn samples on), and
    // again when telemetry.sample_chars changes; null until then.
    std::unique_ptr<TextSampler> text_sampler_;
    LossScaler scaler_;
    std::unique_ptr<Side> mixed_;
    std::unique_ptr<Side> twin_;  // null when the twin is off
    std::unique_ptr<NanTracer> tracer_;
    Tensor batch_x_, batch_y_, test_x_, test_y_;
    // Each micro-batch's rows on the host: the queued uploads read them (a
    // recorded step: at its replay, so they stay where they are).
    std::vector<std::vector<float>> host_x_, host_y_;
    std::vector<float> host_probs_;
    // The decision grid's bounds and points (fixed for the run), its cell
    // centres (cells x 2) and a training-batch-sized tensor they go through
    // in chunks; grid_frame_ is null unless options_ ask for grids and the
    // data is 2-D classification.
    std::unique_ptr<const DecisionGrid> grid_frame_;
    std::vector<float> grid_inputs_;
    Tensor grid_x_, grid_y_;
    // A new vector every histogram step, never changed once the step is over:
    // records (and the GUI's snapshots) hold on to it.
    std::shared_ptr<std::vector<LayerHistograms>> histograms_;
    // Where the step's queued statistics and histograms land: kept from step
    // to step (a recorded step writes to the same places), copied into the
    // step's record once landed.
    std::vector<LayerRecord> layers_landing_;
    std::vector<LayerHistograms> histograms_landing_;
    TwinView twin_view_landing_;  // the twin's, on histogram steps
    StepGraphCache graphs_;
    std::int64_t step_ = 0;
    // The step's scaler side, kept where the step runs (a GPU: no host round
    // trip): the scaler state the unscale reads and the rule moves, the
    // found_inf flag, and a state of scale 1 for the twin's unscale. The host
    // copies land by the end of the step; state_on_backend_ is what the
    // backend holds, so that a live edit of scaler_ is uploaded before the
    // next step (unset: upload).
    Tensor scaler_state_, found_inf_, unit_state_, twin_found_inf_;
    float landed_found_inf_ = 0;
    float landed_state_[kScalerStateWords] = {};
    std::optional<ScalerState> state_on_backend_;
    StepSettings settings_;  // the scaler rule and optimizer settings the step reads on the backend
    ScaledClip pre_clip_;
    std::vector<TensorComparison> twin_sums_;  // the step's queued twin comparison
};

}  // namespace plab
