#pragma once
// A Backend that passes every op on to another, and can record a step's ops
// instead, to replay them later: a CUDA graph's semantics (step_graph.h) for
// a backend with no graphs of its own, the CPU's. The trainer runs its steps
// through one there, so every CPU test runs the recorded step a GPU replays,
// and a step that would not replay right (an argument that changes from step
// to step, a value read back in the middle of it) fails on any machine.
//
// While recording, an op that returns a value to the host, waits for the
// backend or allocates throws CaptureRefused and nothing is kept; every other
// op is kept with its arguments: tensors by address (each replay checks that
// their storage is where it was), spans and structs by value, host buffers
// by address (read and written when the replay runs).
#include "engine/backend/backend.h"

namespace plab {

class StepRecorder final : public Backend {
public:
    explicit StepRecorder(Backend& inner) : Backend(inner.device(), inner.name()), inner_(inner) {}

    std::unique_ptr<StepGraph> capture(const std::function<void()>& launches) override;

    std::uint64_t allocations() const override { return inner_.allocations(); }

    Tensor allocate(Shape shape, FormatId dtype) override;
    void upload(const float* host, Tensor& t) override;
    void download(const Tensor& t, float* host) override;
    void convert(const Tensor& src, Tensor& dst) override;
    void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) override;
    void column_sums(const Tensor& x, Tensor& sums) override;
    void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
    void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) override;
    void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                        Tensor& dlogits) override;
    void softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute, Tensor& probs,
                                    Tensor& loss) override;
    void mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) override;
    void mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) override;
    void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) override;
    void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;
    void batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd, Tensor& running_mean,
                            Tensor& running_var) override;
    void batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                              const Tensor& running_var, float eps, FormatId compute, Tensor& y) override;
    void batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;
    void token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) override;
    void token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens, Tensor& dq,
                               Tensor& dk) override;
    void token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) override;
    void token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens, Tensor& dprobs,
                            Tensor& dv) override;
    void scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                        Tensor& probs) override;
    void scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                 Tensor& dx) override;
    void embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) override;
    void embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) override;
    void split_heads(const Tensor& x, int context, int heads, Tensor& out) override;
    void merge_heads(const Tensor& x, int context, int heads, Tensor& out) override;
    void accumulate(const Tensor& src, Tensor& dst, bool overwrite) override;
    void unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) override;
    void update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) override;
    void queue_download(const Tensor& t, float* host) override;
    void queue_upload(const float* host, Tensor& t) override;
    void norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                       Tensor& norm) override;
    void sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;
    void adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;
    void queue_telemetry(const TelemetryRequest& request) override;
    void wait_for_queued() override;
    float finite_amax(const Tensor& x) override;
    void queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) override;

    struct Recording;  // step_recorder.cpp

private:
    // Runs op (of any of Backend's role interfaces) on the inner backend, or
    // keeps it (with its arguments) while recording.
    template <typename Role, typename... Params, typename... Args>
    void pass(void (Role::*op)(Params...), Args&&... args);
    // The ops that cannot be recorded: refused while recording, else run on the inner backend.
    template <typename Role, typename R, typename... Params, typename... Args>
    R refused(const char* name, R (Role::*op)(Params...), Args&&... args);
    void refuse_while_recording(const char* op) const;

    Backend& inner_;
    Recording* recording_ = nullptr;
};

}  // namespace plab
