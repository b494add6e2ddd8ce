#include "engine/train/trainer.h"

#include "engine/train/trainer_side.h"

#include <algorithm>
#include <cmath>

#include "engine/amp/precision_policy.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/common/number_text.h"
#include "engine/model/init.h"
#include "engine/model/telemetry_layers.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/preset_rules.h"
#include "engine/optim/gradients.h"
#include "engine/train/fp8_step.h"
#include "engine/train/model_size.h"
#include "engine/train/preset_io.h"
#include "engine/train/run_seeds.h"

namespace plab {


namespace {


MlpSpec mlp_spec(const RunConfig& c, const Dataset& data, bool twin) {
    MlpSpec spec;
    spec.widths.push_back(data.input_dim);
    spec.widths.insert(spec.widths.end(), c.model.hidden.begin(), c.model.hidden.end());
    spec.widths.push_back(data.num_classes > 0 ? data.num_classes : 1);
    spec.activation = c.model.activation;
    spec.layer_norm = c.model.layer_norm;
    spec.batch_norm = c.model.batch_norm;
    spec.loss = data.num_classes > 0 ? LossKind::cross_entropy : LossKind::mse;
    spec.weight_format = twin ? FormatId::fp32 : recipe_weight_format(c.precision.recipe);
    spec.master_weights = twin || c.precision.master_weights;
    spec.attention_tokens = c.model.attention_tokens;
    spec.attention_logit_scale = c.model.attention_logit_scale;
    return spec;
}

void upload_rows(Backend& backend, const std::vector<float>& host, Tensor& t) { backend.upload(host.data(), t); }

// A GPT's run holds no toy data set; everything else makes one.
Dataset toy_data(const RunConfig& c) {
    return is_token_data(c.data.kind) ? Dataset{} : make_dataset(seeded(c.data, c.seed));
}

GptSpec gpt_spec(const RunConfig& c, int vocabulary, bool twin) {
    const GptConfig& g = c.model.gpt;
    return {.vocabulary = vocabulary,
            .context = g.context,
            .width = g.width,
            .heads = g.heads,
            .layers = g.layers,
            .tied_head = g.tied_head,
            .logit_scale = g.logit_scale,
            .weight_format = twin ? FormatId::fp32 : recipe_weight_format(c.precision.recipe),
            .master_weights = twin || c.precision.master_weights};
}

// The test split's windows a GPT is evaluated on: enough for a steady
// figure, few enough that an evaluation costs a handful of steps.
constexpr int kTestWindows = 64;

// The predicted class of one row of softmax outputs: the first largest.
std::size_t predicted_class(const float* row, std::size_t classes) {
    return static_cast<std::size_t>(std::max_element(row, row + classes) - row);
}

void check_options(const TrainerOptions& o) {
    check_int_field("boundary_every", o.boundary_every, 0, 1'000'000'000);
    check_int_field("boundary_resolution", o.boundary_resolution, 2, 1024);
}

}  // namespace

Trainer::Trainer(Backend& backend, const RunConfig& config, TrainerOptions options)
    : given_backend_(backend),
      recorder_(options.step_graphs && backend.device() == Device::cpu ? std::make_unique<StepRecorder>(backend)
                                                                         : nullptr),
      backend_(recorder_ ? *recorder_ : backend),
      config_(config),
      options_(options),
      data_(toy_data(config)),
      sampler_(data_.train.rows, config.batch_size, batch_seed(config.seed)),
      scaler_(config.scaler) {
    validate(config_);
    check_options(options_);
    try {
        allocate_models_and_data();
    } catch (const OutOfMemory& e) {
        rethrow_with_model_size(e);
    }
}

void Trainer::rethrow_with_model_size(const OutOfMemory& e) const {
    if (tokens_) {
        const GptConfig& g = config_.model.gpt;
        throw OutOfMemory("the GPT (" + std::to_string(g.layers) + " blocks, " + std::to_string(g.width) +
                          " wide, context " + std::to_string(g.context) + ") does not fit on " + backend_.name() +
                          ": " + e.what() + "; try a smaller model.width, model.layers or batch_size, or twin=false");
    }
    const int outputs = data_.num_classes > 0 ? data_.num_classes : 1;
    throw OutOfMemory(model_size_text(config_, data_.input_dim, outputs) + " does not fit on " + backend_.name() +
                      ": " + e.what() + "; try smaller model.hidden or batch_size, or twin=false");
}

void Trainer::allocate_gpt_and_tokens() {
    tokens_ = std::make_unique<const TokenData>(make_token_data(token_data_spec(config_.data), config_.seed));
    const int context = config_.model.gpt.context;
    windows_ = std::make_unique<WindowSampler>(*tokens_, context, config_.batch_size, batch_seed(config_.seed));
    const int vocabulary = tokens_->vocabulary();
    mixed_ = make_side(std::make_unique<TinyGpt>(backend_, gpt_spec(config_, vocabulary, false)),
                       mixed_pass_formats(config_.precision, model_layer_names(config_.model)));
    initialise_gpt(*mixed_, init_seed(config_.seed));
    if (config_.twin) {
        twin_ = make_side(std::make_unique<TinyGpt>(backend_, gpt_spec(config_, vocabulary, true)),
                          twin_pass_formats(mixed_->model->layer_count()));
        initialise_gpt(*twin_, init_seed(config_.seed));
    }
    if (options_.trace_nan) tracer_ = std::make_unique<NanTracer>(backend_);
    const int rows = config_.batch_size * context;
    batch_x_ = backend_.allocate({rows, 1}, FormatId::fp32);
    batch_y_ = backend_.allocate({rows, 1}, FormatId::fp32);
    test_tokens_ = test_windows(*tokens_, context, kTestWindows);
    const int test_rows = static_cast<int>(test_tokens_.ids.size());
    if (test_rows == 0)
        reject_field("model.context", std::to_string(context), "shorter than the test text");
    test_x_ = backend_.allocate({test_rows, 1}, FormatId::fp32);
    test_y_ = backend_.allocate({test_rows, 1}, FormatId::fp32);
    backend_.upload(test_tokens_.ids.data(), test_x_);
    backend_.upload(test_tokens_.targets.data(), test_y_);
}

void Trainer::allocate_models_and_data() {
    if (is_token_data(config_.data.kind)) {
        allocate_gpt_and_tokens();
        return;
    }
    const int layers = static_cast<int>(config_.model.hidden.size()) + 1;
    mixed_ = make_side(std::make_unique<Mlp>(backend_, mlp_spec(config_, data_, false)),
                       mixed_pass_formats(config_.precision, layers));
    initialise(*mixed_, init_seed(config_.seed));
    if (config_.twin) {
        twin_ = make_side(std::make_unique<Mlp>(backend_, mlp_spec(config_, data_, true)), twin_pass_formats(layers));
        initialise(*twin_, init_seed(config_.seed));
    }
    if (options_.trace_nan) tracer_ = std::make_unique<NanTracer>(backend_);
    const int width = data_.input_dim;
    batch_x_ = backend_.allocate({config_.batch_size, width}, FormatId::fp32);
    batch_y_ = backend_.allocate({config_.batch_size, 1}, FormatId::fp32);
    test_x_ = backend_.allocate({data_.test.rows, width}, FormatId::fp32);
    test_y_ = backend_.allocate({data_.test.rows, 1}, FormatId::fp32);
    backend_.upload(data_.test.inputs.data(), test_x_);
    std::vector<float> targets(static_cast<std::size_t>(data_.test.rows));
    for (int i = 0; i < data_.test.rows; ++i)
        targets[static_cast<std::size_t>(i)] = data_.num_classes > 0 ? static_cast<float>(data_.test.labels[i])
                                                                      : data_.test.targets[i];
    backend_.upload(targets.data(), test_y_);
    if (options_.boundary_every > 0 && has_decision_grid(data_)) {
        grid_frame_ = std::make_unique<const DecisionGrid>(make_empty_grid(data_, options_.boundary_resolution));
        // Asked in chunks of the training batch's rows: the models' buffers
        // keep their size, where one batch of every cell would reallocate
        // them twice per grid (most of a grid's cost, docs/perf.md).
        grid_inputs_ = grid_inputs(*grid_frame_);
        grid_x_ = backend_.allocate({config_.batch_size, width}, FormatId::fp32);
        grid_y_ = backend_.allocate({config_.batch_size, 1}, FormatId::fp32);
        // Targets only feed the loss, which nobody reads here: class 0 everywhere.
        const std::vector<float> zeros(static_cast<std::size_t>(config_.batch_size), 0.0f);
        backend_.upload(zeros.data(), grid_y_);
    }
}

Trainer::~Trainer() = default;

std::unique_ptr<Trainer::Side> Trainer::make_side(std::unique_ptr<Model> model, const PassFormats& formats) const {
    const int layers = model->layer_count();
    auto side = std::unique_ptr<Side>(new Side{std::move(model), Optimizer(config_.optimizer), formats, {}, {}, {},
                                               Fp8Scaling(config_.precision.fp8, layers), {}, {}});
    side->params = side->model->parameters();
    side->backward_params.assign(side->params.rbegin(), side->params.rend());
    for (const Parameter* p : side->backward_params) side->backward_layer.push_back(telemetry_layer_of(*side->model, *p));
    return side;
}

// Both sides draw from the same seed, so the twin starts from the very
// weights the mixed run starts from (up to the 16-bit rounding of the pure recipes).
void Trainer::initialise(Side& side, std::uint64_t seed) {
    Rng rng(seed);
    const double gain = config_.model.init_gain;
    auto& mlp = dynamic_cast<Mlp&>(*side.model);
    const int layers = mlp.layer_count();
    for (int i = 0; i < layers; ++i) {
        Linear& linear = mlp.linears()[static_cast<std::size_t>(i)];
        const Activation follows = i + 1 < layers ? config_.model.activation : Activation::identity;
        const std::vector<float> w =
            init_weights(config_.model.init, follows, linear.in_features(), linear.out_features(), rng, gain);
        set_parameter(backend_, linear.weight, w.data());
    }
    // Drawn after every Linear, so a model without the block keeps its init.
    if (SelfAttention* attention = mlp.attention())
        for (Linear* projection : attention->projections()) {
            const std::vector<float> w = init_weights(config_.model.init, Activation::identity,
                                                      projection->in_features(), projection->out_features(), rng,
                                                      gain);
            set_parameter(backend_, projection->weight, w.data());
        }
}

// GPT-2's: weights N(0, 0.02), embeddings N(0, model.embedding_std = 0.02),
// the projections into the residual stream N(0, 0.02 / sqrt(2 blocks)) so
// that its variance does not grow with depth, biases 0, norms' gains 1; all
// times model.init_gain.
// Drawn in parameter order from the seed, so the twin starts from the very
// weights the mixed run starts from (up to the 16-bit rounding of the pure recipes).
void Trainer::initialise_gpt(Side& side, std::uint64_t seed) {
    Rng rng(seed);
    const double gain = config_.model.init_gain;
    const double residual = 0.02 / std::sqrt(2.0 * config_.model.gpt.layers);
    for (Parameter* p : side.params) {
        const bool embedding = is_table_layer(p->name);
        if (!embedding && !p->name.ends_with(".weight")) continue;
        const bool into_stream = p->name.ends_with("attn.proj.weight") || p->name.ends_with("mlp.proj.weight");
        const double std = gain * (into_stream ? residual : embedding ? config_.model.gpt.embedding_std : 0.02);
        std::vector<float> v(p->value.size());
        for (float& x : v) x = static_cast<float>(std * rng.normal());
        set_parameter(backend_, *p, v.data());
    }
}

const Model& Trainer::network() const { return *mixed_->model; }
const Model* Trainer::twin_network() const { return twin_ ? twin_->model.get() : nullptr; }

namespace {

const Mlp& as_mlp(const Model& model) {
    const auto* mlp = dynamic_cast<const Mlp*>(&model);
    if (!mlp) throw Error("this run trains a GPT (model.kind gpt), not an MLP");
    return *mlp;
}

}  // namespace

const Mlp& Trainer::model() const { return as_mlp(*mixed_->model); }
const Mlp* Trainer::twin() const { return twin_ ? &as_mlp(*twin_->model) : nullptr; }

std::optional<NanReport> Trainer::trace_step() {
    if (!tracer_) tracer_ = std::make_unique<NanTracer>(backend_);
    tracer_->clear();
    (void)step();
    return tracer_->first();
}

const std::optional<NanReport>& Trainer::nan_report() const {
    static const std::optional<NanReport> none;
    return tracer_ ? tracer_->first() : none;
}

std::vector<std::string> Trainer::layer_names() const {
    return mixed_->model->layer_names();
}

// Micro-batch k's rows into its host buffers (the same size every step, so
// they stay where they are).
void Trainer::draw_batch(int k) {
    if (windows_) {
        // Copied into the host buffers, not moved: a recorded step reads them where they are.
        const TokenBatch& batch = windows_->next();
        std::vector<float>& ids = host_x_[static_cast<std::size_t>(k)];
        std::vector<float>& targets = host_y_[static_cast<std::size_t>(k)];
        ids = batch.ids;
        targets = batch.targets;
        // A garbled step still takes its windows, so the text after it is what it would have been.
        const DatasetSpec& d = config_.data;
        const std::int64_t step = step_ + 1;
        if (step >= d.garbled_from && step < std::int64_t{d.garbled_from} + d.garbled_steps) {
            Rng rng(garbled_seed(config_.seed, step, k));
            garble(ids, targets, config_.model.gpt.context, tokens_->vocabulary(), rng);
        }
        return;
    }
    const std::vector<int>& rows = sampler_.next();
    const auto width = static_cast<std::size_t>(data_.input_dim);
    std::vector<float>& x = host_x_[static_cast<std::size_t>(k)];
    std::vector<float>& y = host_y_[static_cast<std::size_t>(k)];
    x.resize(rows.size() * width);
    y.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto r = static_cast<std::size_t>(rows[i]);
        std::copy_n(data_.train.inputs.begin() + static_cast<std::ptrdiff_t>(r * width), width,
                    x.begin() + static_cast<std::ptrdiff_t>(i * width));
        y[i] = data_.num_classes > 0 ? static_cast<float>(data_.train.labels[r]) : data_.train.targets[r];
    }
}

// Micro-batch k of the step; its loss is queued to land in side.landed_losses[k].
void Trainer::train_micro_batch(Side& side, float scale, int k, OpObserver* observer) {
    side.model->forward_into(backend_, batch_x_, batch_y_, side.formats, side.loss, observer);
    backend_.queue_download(side.loss, &side.landed_losses[static_cast<std::size_t>(k)]);
    side.model->backward(backend_, batch_x_, batch_y_, scale, observer);
    if (uses_fp8(side.formats)) observe_fp8_amaxes(backend_, *side.model, side.formats, batch_x_, side.fp8);
    accumulate_gradients(backend_, side.params, k == 0);
    if (tracer_ && observer)
        for (Parameter* p : side.backward_params)
            tracer_->check(Phase::backward, p->name, "grad_accumulate", p->grad_sum, &p->grad, scale);
}

// The micro-batches' losses added in order, then divided by their count.
float Trainer::landed_loss(const Side& side) const {
    float loss = 0;
    for (const float l : side.landed_losses) loss += l;
    return loss / static_cast<float>(side.landed_losses.size());
}

namespace {

// Queued telemetry writes into the step's record: whichever way the step
// ends, nothing may still be writing once the record is gone.
class QueueFence {
public:
    explicit QueueFence(Backend& backend) : backend_(backend) {}
    QueueFence(const QueueFence&) = delete;
    QueueFence& operator=(const QueueFence&) = delete;
    ~QueueFence() {
        if (!armed_) return;
        try {
            backend_.wait_for_queued();
        } catch (...) {  // the step's own error is the one to report
        }
    }
    void finish() {
        armed_ = false;
        backend_.wait_for_queued();
    }

private:
    Backend& backend_;
    bool armed_ = true;
};

}  // namespace

// Models allocate per-batch buffers on first use (and the test set's on the
// first evaluation), so a step can run out of memory too.
StepRecord Trainer::step() {
    try {
        return take_step();
    } catch (const OutOfMemory& e) {
        rethrow_with_model_size(e);
    }
}

namespace {

bool same_bits(const ScalerState& a, const ScalerState& b) {
    return float_bits(a.scale) == float_bits(b.scale) && float_bits(a.growth_tracker) == float_bits(b.growth_tracker) &&
           float_bits(a.hysteresis_left) == float_bits(b.hysteresis_left);
}

void upload_state(Backend& backend, const ScalerState& state, Tensor& words_on_backend) {
    float words[kScalerStateWords];
    store_scaler_state(state, words);
    backend.upload(words, words_on_backend);
}

std::string state_text(const ScalerState& s) {
    return "scale " + shortest_text(s.scale) + ", growth tracker " + shortest_text(s.growth_tracker) +
           ", hysteresis left " + shortest_text(s.hysteresis_left);
}

}  // namespace

StepRecord Trainer::take_step() {
    StepRecord record;
    record.step = step_ + 1;
    const float scale = scaler_.scale();
    record.scale = scale;
    record.lr = config_.optimizer.lr;
    if (tracer_) tracer_->begin_step(record.step);
    const TelemetryConfig& t = config_.telemetry;
    const bool histograms = t.hist_every > 0 && record.step % t.hist_every == 0;
    prepare_step(histograms);
    // Whichever way the step ends, nothing queued may still be writing once the record is gone.
    QueueFence fence(backend_);
    run_step_ops(scale, histograms);
    ++step_;
    fence.finish();
    collect_telemetry(record, histograms);
    record.loss = landed_loss(*mixed_);
    if (twin_) record.loss_ref = landed_loss(*twin_);
    collect_mixed(record, scale);
    if (twin_) twin_->optimizer.collect();
    evaluate(record);  // overwrites the activations
    take_boundary(record);  // so does this, after everything that reads them
    take_samples(record);   // and this
    return record;
}

// Everything the step decides on the host, before its ops: the batches, the
// scaler state and optimizer state on the backend, where results land.
void Trainer::prepare_step(bool histograms) {
    // Delayed scaling: the step runs with the scales its history gave; its own amaxes serve the next steps.
    mixed_->model->set_fp8_scales(mixed_->fp8.scales());
    const auto micro_batches = static_cast<std::size_t>(config_.optimizer.accumulation);
    host_x_.resize(micro_batches);
    host_y_.resize(micro_batches);
    for (int k = 0; k < config_.optimizer.accumulation; ++k) draw_batch(k);
    for (Side* side : {mixed_.get(), twin_.get()}) {
        if (!side) continue;
        if (side->loss.empty()) side->loss = backend_.allocate({1, 1}, FormatId::fp32);
        side->landed_losses.assign(micro_batches, 0.0f);
    }
    if (!settings_.allocated()) settings_.allocate(backend_);
    sync_scaler_state();
    mixed_->optimizer.prepare(backend_, mixed_->params, settings_.optimizer(StepSettings::mixed));
    if (twin_) {
        if (unit_state_.empty()) {
            unit_state_ = backend_.allocate({1, kScalerStateWords}, FormatId::fp32);
            twin_found_inf_ = backend_.allocate({1, 1}, FormatId::fp32);
            upload_state(backend_, ScalerState{}, unit_state_);  // scale 1
        }
        twin_->optimizer.prepare(backend_, twin_->params, settings_.optimizer(StepSettings::twin));
    }
    pre_clip_ = {};
    const auto layers = static_cast<std::size_t>(telemetry_layer_count(*mixed_->model));
    if (config_.telemetry.enabled)
        layers_landing_.assign(layers, LayerRecord{});
    else
        layers_landing_.clear();
    if (histograms) histograms_landing_.assign(layers, LayerHistograms{});
    if (histograms && twin_) {
        twin_view_landing_.layers.assign(layers, LayerRecord{});
        twin_view_landing_.histograms.assign(layers, LayerHistograms{});
    }
}

// What the step's ops hold fixed besides the tensors (step_graph_cache.h);
// the NaN tracer and FP8's delayed scaling read values back in the middle
// of the step, so those steps always run op by op.
bool Trainer::can_record_step() const { return options_.step_graphs && !tracer_ && !uses_fp8(mixed_->formats); }

void Trainer::run_step_ops(float scale, bool histograms) {
    const auto ops = [&] { step_ops(scale, histograms); };
    if (!can_record_step()) {
        ops();
        return;
    }
    graphs_.run(backend_, step_graph_key(config_, scale, histograms, twin_ != nullptr), ops);
}

// The step on the backend: batches up, both sides' passes, the statistics
// (queued as soon as what they read is final, so a backend that can computes
// them while the update and the twin's step go on; none of those writes what
// they read), the updates, and the telemetry of the new weights.
void Trainer::step_ops(float scale, bool histograms) {
    settings_.queue_upload(backend_);
    for (int k = 0; k < config_.optimizer.accumulation; ++k) {
        // Queued: a GPU copies the batch in the step's order, without a sync.
        backend_.queue_upload(host_x_[static_cast<std::size_t>(k)].data(), batch_x_);
        backend_.queue_upload(host_y_[static_cast<std::size_t>(k)].data(), batch_y_);
        train_micro_batch(*mixed_, scale, k, tracer_.get());
        if (twin_) train_micro_batch(*twin_, 1.0f, k, nullptr);
    }
    if (uses_fp8(mixed_->formats)) mixed_->fp8.end_step();
    if (config_.telemetry.enabled) queue_pass_stats(backend_, *mixed_->model, scale, layers_landing_);
    if (config_.telemetry.enabled && uses_fp8(mixed_->formats))
        queue_fp8_stats(backend_, *mixed_->model, mixed_->formats, layers_landing_);
    update_mixed(scale);
    if (twin_) update_twin();
    queue_step_telemetry(scale, histograms);
}

// The landed statistics into the step's record.
void Trainer::collect_telemetry(StepRecord& record, bool histograms) {
    record.layers = layers_landing_;
    if (config_.telemetry.enabled && twin_) set_twin_comparison(twin_sums_, record.layers);
    histograms_.reset();
    if (histograms) histograms_ = std::make_shared<std::vector<LayerHistograms>>(histograms_landing_);
    record.histograms = histograms_;
    if (histograms && twin_) record.twin_view = std::make_shared<const TwinView>(twin_view_landing_);
}

// The backend's scaler state is the host's before the step: uploaded on the
// first step and after a live edit, a fork or a reset changed the host's.
// The rule's words are refreshed for the step to upload.
void Trainer::sync_scaler_state() {
    if (scaler_state_.empty()) {
        scaler_state_ = backend_.allocate({1, kScalerStateWords}, FormatId::fp32);
        found_inf_ = backend_.allocate({1, 1}, FormatId::fp32);
    }
    store_scaler_rule(scaler_rule(scaler_.config()), settings_.scaler_rule_words());
    if (state_on_backend_ && same_bits(*state_on_backend_, scaler_.state())) return;
    upload_state(backend_, scaler_.state(), scaler_state_);
    state_on_backend_ = scaler_.state();
}

// Launches the mixed side's step where the backend runs it: the unscale
// with its finite check, the scaler's rule and the optimizer step skipped
// on found_inf all read and write backend tensors; collect_mixed reads the
// outcome once the step's results have landed.
void Trainer::update_mixed(float scale) {
    Side& side = *mixed_;
    pre_clip_ = side.optimizer.clip_before_unscale(backend_, side.params);
    backend_.unscale_all_flagged(unscale_jobs(backend_, side.backward_params), scaler_state_, found_inf_);
    if (tracer_)
        for (Parameter* p : side.backward_params)
            tracer_->check(Phase::unscale, p->name, "unscale", p->master_grad, &p->grad_sum, scale);
    backend_.update_scaler(settings_.scaler_rule(), found_inf_, scaler_state_);
    // Every kind but none skips a step with a non-finite gradient (LossScaler::update).
    const bool skips = scaler_.config().kind != ScalerKind::none;
    side.optimizer.run_ops(backend_, skips ? &found_inf_ : nullptr);
    backend_.queue_download(found_inf_, &landed_found_inf_);
    backend_.queue_download(scaler_state_, landed_state_);
    if (tracer_)
        for (Parameter* p : side.params) tracer_->check(Phase::update, p->name, "update", p->value, &p->master_grad, scale);
}

// After the step's results landed: the host's scaler follows the same rule
// and must reach the backend's state bit for bit (a GPU kernel that did not
// would stop the run here, not drift silently).
void Trainer::collect_mixed(StepRecord& record, float scale) {
    Side& side = *mixed_;
    const bool found_inf = landed_found_inf_ != 0.0f;
    const ScalerEvent event = scaler_.update(found_inf);
    const ScalerState landed = load_scaler_state(landed_state_);
    if (!same_bits(landed, scaler_.state()))
        throw Error("step " + std::to_string(record.step) + ": the loss scaler state on " + backend_.name() + " (" +
                    state_text(landed) + ") is not the host rule's (" + state_text(scaler_.state()) + ")");
    state_on_backend_ = landed;
    record_scaler_event(record, event);
    if (found_inf) {
        const int first = first_non_finite_grad(backend_, side.backward_params);
        if (first >= 0) record.first_nonfinite_layer = side.backward_layer[static_cast<std::size_t>(first)];
    }
    const OptimizerStepResult result = side.optimizer.collect();
    record.grad_norm = result.grad_norm;
    if (!result.applied) return;
    record.clipped = result.clipped;
    if (pre_clip_.applied) {  // the norm before that clip, unscaled
        record.grad_norm = pre_clip_.scaled_norm * inverse_scale(scale);
        record.clipped = pre_clip_.clipped;
    }
    record.lost_update_frac = result.nonzero_updates > 0 ? static_cast<float>(static_cast<double>(result.lost_updates) /
                                                                              static_cast<double>(result.nonzero_updates))
                                                         : 0.0f;
}

void Trainer::update_twin() {
    twin_->optimizer.clip_before_unscale(backend_, twin_->params);  // at scale 1 the bug is harmless
    backend_.unscale_all_flagged(unscale_jobs(backend_, twin_->backward_params), unit_state_, twin_found_inf_);
    twin_->optimizer.run_ops(backend_, nullptr);
}

const std::vector<LayerHistograms>& Trainer::histograms() const {
    static const std::vector<LayerHistograms> none;
    return histograms_ ? *histograms_ : none;
}

void Trainer::queue_step_telemetry(float scale, bool histograms) {
    const bool enabled = config_.telemetry.enabled;
    if (enabled) queue_weight_stats(backend_, *mixed_->model, layers_landing_);
    if (histograms) queue_histograms(backend_, *mixed_->model, scale, histograms_landing_);
    if (histograms && twin_) queue_twin_view(backend_, *twin_->model, scale, twin_view_landing_);
    if (enabled && twin_) queue_twin_comparison(backend_, *mixed_->model, *twin_->model, twin_sums_);
}

// A forward in evaluation mode (PyTorch's model.eval()): BatchNorm uses its
// running statistics, and the run's training state stays as it was.
float Trainer::evaluation_loss(Side& side, const PassFormats& formats, const Tensor& x, const Tensor& y) {
    const EvaluationScope evaluating(*side.model);
    return side.model->forward(backend_, x, y, formats);
}

// Forward of one side on a batch (x, targets y) in the given formats, as
// the test set is evaluated; the softmax outputs land in probs (rows x
// classes). Returns the mean loss.
float Trainer::predict(Side& side, const PassFormats& formats, const Tensor& x, const Tensor& y,
                       std::vector<float>& probs) {
    const float loss = evaluation_loss(side, formats, x, y);
    const Tensor& out = side.model->outputs();
    probs.resize(out.size());
    backend_.download(out, probs.data());
    return loss;
}

// A GPT's accuracy on the test windows: exact-match answers for addition,
// the next character's top-1 for text.
float Trainer::token_accuracy(const std::vector<float>& probs) const {
    const int context = config_.model.gpt.context;
    if (tokens_->example_length > 0)
        return static_cast<float>(exact_match(*tokens_, test_tokens_, context, probs));
    const auto vocabulary = static_cast<std::size_t>(tokens_->vocabulary());
    std::size_t right = 0;
    for (std::size_t r = 0; r < test_tokens_.targets.size(); ++r)
        right += predicted_class(probs.data() + r * vocabulary, vocabulary) ==
                 static_cast<std::size_t>(test_tokens_.targets[r]);
    return static_cast<float>(static_cast<double>(right) / static_cast<double>(test_tokens_.targets.size()));
}

// Mean test loss of one side, and its accuracy for classification.
float Trainer::evaluate_side(Side& side, const PassFormats& formats, float* accuracy) {
    if (tokens_) {
        const float loss = predict(side, formats, test_x_, test_y_, host_probs_);
        *accuracy = token_accuracy(host_probs_);
        return loss;
    }
    if (data_.num_classes == 0) return evaluation_loss(side, formats, test_x_, test_y_);
    const float loss = predict(side, formats, test_x_, test_y_, host_probs_);
    const auto classes = static_cast<std::size_t>(data_.num_classes);
    int correct = 0;
    for (int i = 0; i < data_.test.rows; ++i) {
        const auto u = static_cast<std::size_t>(i);
        correct += predicted_class(host_probs_.data() + u * classes, classes) ==
                   static_cast<std::size_t>(data_.test.labels[u]);
    }
    *accuracy = static_cast<float>(correct) / static_cast<float>(data_.test.rows);
    return loss;
}

void Trainer::evaluate(StepRecord& record) {
    if (record.step % config_.eval_every != 0 && record.step != config_.steps) return;
    float acc = 0;
    const bool classifies = data_.num_classes > 0 || tokens_;
    record.test_loss = evaluate_side(*mixed_, mixed_->formats, &acc);
    if (classifies) record.acc = acc;
    if (!twin_) return;
    record.test_loss_ref = evaluate_side(*twin_, twin_->formats, &acc);
    if (classifies) record.acc_ref = acc;
}

// The class and confidence of every grid cell as the side predicts them in
// its own formats: the path the test set takes (predict), on the cell centres.
void Trainer::classify_grid(Side& side, std::vector<std::uint8_t>& classes, std::vector<float>& confidence) {
    const auto k = static_cast<std::size_t>(grid_frame_->classes);
    const std::size_t cells = grid_inputs_.size() / 2;
    const auto chunk = static_cast<std::size_t>(config_.batch_size);
    classes.resize(cells);
    confidence.resize(cells);
    std::vector<float> points(2 * chunk);
    for (std::size_t first = 0; first < cells; first += chunk) {
        const std::size_t rows = std::min(chunk, cells - first);
        // The last chunk's unused rows keep the previous chunk's points; their answers are dropped.
        std::copy_n(grid_inputs_.begin() + static_cast<std::ptrdiff_t>(2 * first), 2 * rows, points.begin());
        upload_rows(backend_, points, grid_x_);
        predict(side, side.formats, grid_x_, grid_y_, host_probs_);
        for (std::size_t r = 0; r < rows; ++r) {
            const float* row = host_probs_.data() + r * k;
            const std::size_t best = predicted_class(row, k);
            classes[first + r] = static_cast<std::uint8_t>(best);
            confidence[first + r] = row[best];
        }
    }
}

void Trainer::take_boundary(StepRecord& record) {
    const int every = options_.boundary_every;
    if (!grid_frame_ || (record.step % every != 0 && record.step != config_.steps)) return;
    auto grid = std::make_shared<DecisionGrid>(*grid_frame_);
    grid->step = record.step;
    classify_grid(*mixed_, grid->amp, grid->amp_confidence);
    if (twin_) classify_grid(*twin_, grid->twin, grid->twin_confidence);
    record.boundary = std::move(grid);
}

// Each side's greedy text from the sampler's fixed prompts, in the formats
// it is evaluated in; every sample_every steps and on the config's last step.
void Trainer::take_samples(StepRecord& record) {
    const TelemetryConfig& t = config_.telemetry;
    if (!tokens_ || t.sample_every == 0 || (record.step % t.sample_every != 0 && record.step != config_.steps))
        return;
    if (!text_sampler_ || text_sampler_->chars() != t.sample_chars)
        text_sampler_ = std::make_unique<TextSampler>(backend_, *tokens_, config_.model.gpt.context, t.sample_chars);
    auto samples = std::make_shared<TextSamples>(text_sampler_->prompts(record.step));
    const auto write = [&](Side& side, std::string TextSample::*into) {
        std::vector<std::string> texts = text_sampler_->write(dynamic_cast<TinyGpt&>(*side.model), side.formats);
        for (std::size_t i = 0; i < texts.size(); ++i) samples->samples[i].*into = std::move(texts[i]);
    };
    write(*mixed_, &TextSample::model);
    if (twin_) write(*twin_, &TextSample::twin);
    record.samples = std::move(samples);
}

}  // namespace plab
