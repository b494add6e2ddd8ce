#pragma once
// The Backend interface: every numerical operation of a training step, each
// one call over whole tensors (never per element), so that a GPU backend can
// run each as one kernel launch. The CPU backend (backend/cpu) is the exact
// emulation and the reference the GPU is tested against.
//
// Rounding contract (docs/DESIGN.md, "Mixed precision semantics"): an op computes
// in FP32 from its inputs and rounds its output to the output tensor's dtype;
// a GEMM first rounds its inputs to the compute format, multiplies them
// exactly, accumulates in FP32, then rounds to the output dtype.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/backend/activation.h"
#include "engine/backend/step_graph.h"
#include "engine/backend/update_step.h"
#include "engine/telemetry/tensor_stats.h"
#include "engine/tensor/tensor.h"

namespace plab {

struct GemmSpec {
    FormatId compute = FormatId::fp32;  // inputs are rounded to this before the multiply
    bool trans_a = false;
    bool trans_b = false;
    float alpha = 1.0f;
    float beta = 0.0f;  // c = alpha * op(a) op(b) + beta * c (+ bias)
    // 1 x n, added to every row in FP32 before the single rounding of c
    // (as a cuBLASLt bias epilogue does).
    const Tensor* row_bias = nullptr;
    // FP8 inputs with per-tensor scales (recipe fp8): when set, input a is
    // multiplied by a_input->scale and rounded to a_input->format (saturating)
    // instead of to `compute`, b likewise, and the FP32 product is divided by
    // both scales before the bias (cuBLASLt's A/B scale pointers). The scales
    // are powers of two: neither step rounds.
    struct ScaledInput {
        FormatId format = FormatId::fp32;
        float scale = 1.0f;
    };
    std::optional<ScaledInput> a_input = std::nullopt;
    std::optional<ScaledInput> b_input = std::nullopt;
};

// Sums comparing a tensor with a reference of the same shape (FP64
// accumulation, index order): the twin's distance and cosine come from these.
struct TensorComparison {
    double diff_sq = 0;  // sum (a - b)^2
    double a_sq = 0;     // sum a^2
    double b_sq = 0;     // sum b^2
    double dot = 0;      // sum a * b
};

// One parameter tensor of a multi-tensor optimizer update: w from its FP32
// gradient g with FP32 state (SGD: state_a is the velocity, null without
// momentum; AdamW: state_a = m, state_b = v); then, when `copy` is set (a
// parameter with an FP32 master w), copy = w rounded to copy's dtype.
struct UpdateJob {
    Tensor* w = nullptr;
    const Tensor* g = nullptr;
    Tensor* state_a = nullptr;
    Tensor* state_b = nullptr;
    Tensor* copy = nullptr;
};

// One tensor of a multi-tensor unscale: dst = FP32(src) * inv_scale.
struct UnscaleJob {
    const Tensor* src = nullptr;
    Tensor* dst = nullptr;  // FP32, src's shape
};

// How an update kept where the step runs (sgd/adamw_update_gated)
// is set, gated and counted, with no host round trip: every tensor here lives
// on the backend, and the counts land by the next wait_for_queued().
struct UpdateGate {
    // FP32 {1, kSgdSettingsWords} or {1, kAdamWSettingsWords}: the update's
    // hyper-parameters in update_settings.h's order, read where the step
    // runs (a live edit changes them, not a recorded step).
    const Tensor* settings = nullptr;
    // FP32 {1, 1}; when it holds a non-zero value nothing changes (weights,
    // optimizer state, step_count): the skip on found_inf. Null: never skipped.
    const Tensor* skip = nullptr;
    // FP32 {1, 1}: updates applied so far (AdamW's step t is this + 1); an
    // applied update adds 1.
    Tensor* step_count = nullptr;
    // AdamW: FP32 {rows, kAdamWTableWords}, row t - 1 holding the scalars of
    // step t that depend on t, as the host computes them from the settings
    // (adamw_table.h); steps past the last row use the last row.
    const Tensor* adamw_table = nullptr;
    // One per job: the update's counts (zero when skipped), written by the
    // next wait_for_queued().
    std::span<UpdateCount> counts;
};
inline constexpr int kAdamWTableWords = 2;  // step_size, bias_correction2_sqrt

// One telemetry request on tensor x: whichever of the statistics and
// log2 histograms of x as held and of x / divisor have a target.
struct TelemetryRequest {
    const Tensor* x = nullptr;
    double divisor = 1.0;
    TensorStats* stats = nullptr;
    TensorStats* stats_divided = nullptr;
    Log2Histogram* hist = nullptr;  // added to (its counts grow)
    Log2Histogram* hist_divided = nullptr;
};

class Backend {
public:
    virtual ~Backend() = default;
    Device device() const { return device_; }
    std::string name() const { return name_; }  // "CPU (exact emulation)", a GPU's name

    // A zero-filled tensor on this backend.
    virtual Tensor allocate(Shape shape, FormatId dtype) = 0;
    // Tensors allocated so far: a recorded step (step_graph.h) stays valid
    // while this has not changed.
    virtual std::uint64_t allocations() const = 0;
    // Records the ops `launches` calls on this backend, without running them,
    // into a graph to replay (step_graph.h); CaptureRefused when an op of the
    // step cannot be recorded. A backend on the host runs each op at once and
    // records nothing (nullptr, without calling `launches`): the trainer
    // records its steps through a StepRecorder instead.
    virtual std::unique_ptr<StepGraph> capture(const std::function<void()>& launches) = 0;
    // Host FP32 values into t, rounded to t.dtype(); and back out (exact).
    virtual void upload(const float* host, Tensor& t) = 0;
    virtual void download(const Tensor& t, float* host) = 0;
    // dst = src rounded to dst.dtype() (shapes must match).
    virtual void convert(const Tensor& src, Tensor& dst) = 0;

    virtual void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) = 0;
    // sums[0, j] = sum over i of x[i, j], accumulated in FP32 in row order
    virtual void column_sums(const Tensor& x, Tensor& sums) = 0;
    virtual void activation_forward(Activation a, const Tensor& x, Tensor& y) = 0;
    // dx = dy * f'(x)
    virtual void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

    // Softmax cross-entropy in FP32 (it is on every autocast FP32 list):
    // probs = softmax(logits) row by row, and the mean over rows of
    // -log probs[i, label_i] left in `loss` ({1, 1} FP32) on the backend, for
    // queue_download: no host round trip on a GPU. `labels` is rows x 1 of
    // class indices; a bad one is an error, thrown here or, on a GPU, by the
    // next wait_for_queued().
    virtual void softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                            Tensor& loss) = 0;
    // dlogits = (probs - onehot(labels)) * scale / rows: the loss gradient,
    // multiplied by the loss scale, rounded to dlogits' dtype.
    virtual void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                Tensor& dlogits) = 0;

    // Mean squared error over all elements, in FP32: mean((pred - target)^2),
    // left in `loss` ({1, 1} FP32) on the backend.
    virtual void mse_loss_into(const Tensor& pred, const Tensor& target, Tensor& loss) = 0;
    // dpred = 2 (pred - target) * scale / size, rounded to dpred's dtype.
    virtual void mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) = 0;

    // Layer normalisation over each row, in FP32 (autocast's FP32 list):
    // y = (x - mean) * rstd * gamma + beta with rstd = 1 / sqrt(var + eps) and
    // the biased variance; y rounded to its dtype. mean and rstd (rows x 1,
    // FP32) are kept for backward. gamma and beta are 1 x cols.
    virtual void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                                    Tensor& mean, Tensor& rstd) = 0;
    // dx rounded to its dtype; dgamma, dbeta (1 x cols) to theirs.
    virtual void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta) = 0;

    // --- single-head self-attention over the tokens of a row (model/attention.h) ---
    // Each row of q, k, v, out (rows x tokens*width) holds `tokens` tokens of
    // `width` values; scores, probs and their gradients are rows x tokens^2,
    // entry i*tokens + j pairing query token i with key token j. The matmul
    // ops compute from their inputs as held, accumulate in FP32 in index order
    // and round once to the output's dtype.
    // scores[r, i, j] = sum_c q[r, i, c] k[r, j, c]
    virtual void token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) = 0;
    // dq[r, i, :] = sum_j dscores[r, i, j] k[r, j, :];  dk[r, j, :] = sum_i dscores[r, i, j] q[r, i, :]
    virtual void token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens, Tensor& dq,
                                       Tensor& dk) = 0;
    // out[r, i, :] = sum_j probs[r, i, j] v[r, j, :]
    virtual void token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) = 0;
    // dprobs[r, i, j] = sum_c dout[r, i, c] v[r, j, c];  dv[r, j, :] = sum_i probs[r, i, j] dout[r, i, :]
    virtual void token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens,
                                    Tensor& dprobs, Tensor& dv) = 0;
    // Scaled softmax over each run of `group` values of a row, the fused form
    // attention uses: z = x * scale, rounded to `compute` (FP32 when softmax
    // is on the policy's FP32 list; in FP16 a z beyond 65504 is Inf, and the
    // row max subtraction turns it into NaN), then exp(z - max) / sum in FP32,
    // rounded to probs' dtype.
    virtual void scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, Tensor& probs) = 0;
    // dx = scale * p * (dp - sum_j p dp) per group, FP32, rounded to dx's dtype.
    virtual void scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                         Tensor& dx) = 0;

    // --- optimizer-side ops ---
    // dst = src (overwrite) or dst + src, rounded to dst's dtype: .grad accumulation.
    virtual void accumulate(const Tensor& src, Tensor& dst, bool overwrite) = 0;
    // --- the loss scale kept where the step runs ---
    // On a GPU these leave the verdict and the scale on the device, so that a
    // step needs no host round trip (and can be captured in a graph). `state`
    // is an FP32 tensor of kScalerStateWords floats, scaler_rule.h's
    // ScalerState in field order; `found_inf` an FP32 {1, 1} flag.
    // Every job's dst = FP32(src) * inv_scale (FP32 multiply, as PyTorch's
    // fused unscale; dst is FP32) with inv_scale = inverse_scale(state's
    // scale), read where the state is, in one pass where the backend can (a
    // GPU: one launch for all tensors); found_inf = 1 when some output holds
    // a NaN or Inf, else 0.
    virtual void unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) = 0;
    // state = next_scaler_state(rule, state, found_inf != 0), after the op
    // that wrote the flag; `rule` is an FP32 tensor of kScalerRuleWords
    // floats (store_scaler_rule's), read where the state is.
    virtual void update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) = 0;

    // --- the step kept where it runs: copies that land at the finish, the norm and clip, the gated
    // updates ---
    // host receives t's values as they are at this point of the step, by the
    // time wait_for_queued() returns (a GPU copies them with the telemetry's
    // results, without a sync; the CPU at once).
    virtual void queue_download(const Tensor& t, float* host) = 0;
    // upload, with `host` read at once but the copy landing later in the
    // step's order (a GPU: through pinned staging, without a sync; the
    // staging is reclaimed by wait_for_queued(); the CPU at once).
    virtual void queue_upload(const float* host, Tensor& t) = 0;
    // norm ({1, 1} FP32) = sqrt of the FP32 sum, in order, of each x's
    // sum_of_squares; then, when `max_norm` is given (an FP32 {1, 1} read
    // where the step runs), unless `skip` is given and non-zero, when
    // max_norm > 0 and clip_coefficient(max_norm, norm) < 1, every x is
    // multiplied by it (global_norm.h's rule, the host's).
    virtual void norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                               Tensor& norm) = 0;
    // The optimizer update of every job (w from its FP32 gradient g, with FP32
    // state; the new w rounded to w's dtype; then the job's copy, when set),
    // in one pass where the backend can, with gate.settings' hyper-parameters,
    // gated and counted by `gate`. For AdamW, t comes from gate.step_count and
    // the t-dependent scalars from gate.adamw_table. The CPU's reads the
    // settings, the flag and the count to the host (and checks the table's row
    // against adamw_scalars, so that a table bug shows on the CPU too).
    virtual void sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) = 0;
    virtual void adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) = 0;

    // --- telemetry and tracing ---
    // Telemetry a backend may compute while the step goes on (a second CPU
    // thread, or a GPU stream): results land in the request's targets by the
    // time wait_for_queued() returns; until then x must not change and the
    // targets must stay where they are.
    virtual void queue_telemetry(const TelemetryRequest& request) = 0;
    // The step's one host wait: everything queued so far (telemetry, losses,
    // update counts, comparisons, downloads) has landed where it was asked
    // to when this returns, and a queued op's error (a bad label) is thrown
    // here. A backend that runs each op at once has nothing to wait for.
    virtual void wait_for_queued() = 0;
    // Statistics of x / divisor (telemetry/tensor_stats.h) read back at once:
    // one queued request and the wait for it, so never inside a recorded step
    // (the NaN tracer's checks, the scenarios' probes).
    TensorStats tensor_stats(const Tensor& x, double divisor) {
        TensorStats stats;
        queue_telemetry({.x = &x, .divisor = divisor, .stats_divided = &stats});
        wait_for_queued();
        return stats;
    }
    // Number of NaN and +-Inf elements, the same way.
    std::int64_t count_non_finite(const Tensor& x) {
        const TensorStats s = tensor_stats(x, 1.0);
        return s.nans + s.pos_infs + s.neg_infs;
    }
    // max |x| over finite elements (the NaN tracer's input amax).
    virtual float finite_amax(const Tensor& x) = 0;
    // a against b, element by element (shapes must match; TensorComparison's
    // sums), landing in *out by the time wait_for_queued() returns (a GPU: no
    // sync per comparison).
    virtual void queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) = 0;

protected:
    Backend(Device device, std::string name) : device_(device), name_(std::move(name)) {}

private:
    Device device_;
    std::string name_;
};

}  // namespace plab
