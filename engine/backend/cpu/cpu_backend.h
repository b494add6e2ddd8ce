#pragma once
// The CPU backend: exact emulation of every format on FP32 storage. GEMMs run
// on inputs pre-rounded to the compute format (their products are exact in
// FP32: at most 11 x 11 significant bits) and sum them in one fixed order on
// every machine (cpu/fixed_order_gemm.h); elementwise ops round their outputs
// with engine/numeric's array casts.
#include <vector>

#include "engine/backend/backend.h"

namespace plab {

class CpuBackend final : public Backend {
public:
    CpuBackend();
    ~CpuBackend() override;

    // Each op runs at once: nothing to record (the trainer records through a StepRecorder).
    std::unique_ptr<StepGraph> capture(const std::function<void()>&) override { return nullptr; }

    Tensor allocate(Shape shape, FormatId dtype) override;
    std::uint64_t allocations() const override { return allocations_; }
    void upload(const float* host, Tensor& t) override;
    void download(const Tensor& t, float* host) override;
    void convert(const Tensor& src, Tensor& dst) override;

    void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) override;
    void column_sums(const Tensor& x, Tensor& sums) override;
    void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
    void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) override;
    void softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute, Tensor& probs,
                                    Tensor& loss) override;
    void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                        Tensor& dlogits) override;

    // cpu_loss_ops.cpp
    void mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) override;
    void mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) override;
    void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) override;
    void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;

    // cpu_batch_norm_ops.cpp
    void batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd, Tensor& running_mean,
                            Tensor& running_var) override;
    void batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                              const Tensor& running_var, float eps, FormatId compute, Tensor& y) override;
    void batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;

    // cpu_attention_ops.cpp
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

    // cpu_optim_ops.cpp
    void accumulate(const Tensor& src, Tensor& dst, bool overwrite) override;

    // cpu_step_ops.cpp: the step's multi-tensor ops, from the per-tensor
    // references below, reading flags, counts and settings to the host.
    void unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) override;
    void update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) override;
    void queue_download(const Tensor& t, float* host) override { download(t, host); }
    void queue_upload(const float* host, Tensor& t) override { upload(host, t); }
    void norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                       Tensor& norm) override;
    void sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;
    void adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;

    // The CPU references the step's ops are made of, and the oracles the
    // tests (the GPU's too) compare against; no other backend has them.
    // The losses' values, returned to the host (`compute` as the _into ops take it).
    float softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                FormatId compute = FormatId::fp32);
    float mse_loss(const Tensor& pred, const Tensor& target, FormatId compute = FormatId::fp32);
    // Every job's dst = FP32(src) * inv_scale; the index of the first job
    // whose output holds a NaN or Inf, -1 when none does.
    int unscale_all(std::span<const UnscaleJob> jobs, float inv_scale);
    // dst = FP32(src) * inv_scale; true when any element of dst is NaN or +-Inf.
    bool unscale_and_check(const Tensor& src, float inv_scale, Tensor& dst);
    // Sum of squares in FP32, in index order; of each tensor, in order.
    float sum_of_squares(const Tensor& x);
    std::vector<float> sum_of_squares_all(std::span<const Tensor* const> xs);
    // x *= factor, rounded to x's dtype (cpu_optim_ops.cpp).
    void scale_in_place(Tensor& x, float factor);
    // One update of w from its FP32 gradient g (FP32 state); the new w rounded to w's dtype.
    UpdateCount sgd_update(Tensor& w, const Tensor& g, Tensor& velocity, const SgdStep& step);
    UpdateCount adamw_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step);
    // Every job's update (and copy), ungated, with the host's hyper-parameters.
    std::vector<UpdateCount> sgd_update_all(std::span<const UpdateJob> jobs, const SgdStep& step);
    std::vector<UpdateCount> adamw_update_all(std::span<const UpdateJob> jobs, const AdamWStep& step);
    // Statistics of x as held and of x / divisor from one pass over x.
    TensorStatsPair tensor_stats_pair(const Tensor& x, double divisor);
    // Adds the values of x / divisor to the log2 histogram `hist`; the pair
    // adds x as held to `held` and x / divisor to `divided` from one pass.
    void add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist);
    void add_to_histogram_pair(const Tensor& x, double divisor, Log2Histogram& held, Log2Histogram& divided);
    // a against b, element by element (shapes must match), at once
    // (cpu_compare_ops.cpp).
    TensorComparison compare(const Tensor& a, const Tensor& b);

    // cpu_stats_ops.cpp
    void queue_telemetry(const TelemetryRequest& request) override;
    void wait_for_queued() override;
    float finite_amax(const Tensor& x) override;

    // Compares at once: nothing waits on the CPU.
    void queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) override { *out = compare(a, b); }

private:
    // GEMM inputs rounded to the compute format, kept between calls.
    std::vector<float> scratch_a_, scratch_b_, scratch_pack_;
    std::uint64_t allocations_ = 0;
};

}  // namespace plab
