#include "engine/backend/step_recorder.h"

#include <tuple>
#include <type_traits>
#include <utility>

namespace plab {

namespace {

// The tensors a recorded step names, with the storage each had then.
class Placement {
public:
    void note(const Tensor* t) {
        if (t) placed_.emplace_back(t, t->raw());
    }
    // A tensor reallocated since the recording: a GPU graph would write
    // freed memory, so it is an error here too (the trainer re-records
    // once the backend's allocations() moved; this catches a caller that
    // did not).
    void check() const {
        for (const auto& [t, raw] : placed_)
            if (t->raw() != raw)
                throw Error("a recorded step is replayed after one of its tensors (" + shape_text(t->shape()) +
                            ") was reallocated; record the step again");
    }

private:
    std::vector<std::pair<const Tensor*, const void*>> placed_;
};

// Every tensor an argument names.
void note_tensors(Placement&, const auto&) {}
void note_tensors(Placement& p, const Tensor* t) { p.note(t); }
void note_tensors(Placement& p, const UnscaleJob& j) {
    p.note(j.src);
    p.note(j.dst);
}
void note_tensors(Placement& p, const UpdateJob& j) {
    for (const Tensor* t : {static_cast<const Tensor*>(j.w), j.g, static_cast<const Tensor*>(j.state_a),
                            static_cast<const Tensor*>(j.state_b), static_cast<const Tensor*>(j.copy)})
        p.note(t);
}
void note_tensors(Placement& p, const UpdateGate& g) {
    p.note(g.settings);
    p.note(g.skip);
    p.note(g.step_count);
    p.note(g.adamw_table);
}
void note_tensors(Placement& p, const TelemetryRequest& r) { p.note(r.x); }
void note_tensors(Placement& p, const GemmSpec& s) { p.note(s.row_bias); }

// How an op's parameter of type P is kept until the replay: by value...
template <typename P>
struct Kept {
    using type = std::remove_cvref_t<P>;
    static type keep(const type& v, Placement& p) {
        note_tensors(p, v);
        return v;
    }
    static const type& use(const type& v) { return v; }
};
// ...tensors by address...
template <typename T>  // Tensor or const Tensor
struct KeptTensor {
    using type = T*;
    static type keep(T& t, Placement& p) {
        p.note(&t);
        return &t;
    }
    static T& use(type t) { return *t; }
};
template <>
struct Kept<const Tensor&> : KeptTensor<const Tensor> {};
template <>
struct Kept<Tensor&> : KeptTensor<Tensor> {};
// ...and a span's elements copied (the caller's vector is gone by the replay).
template <typename T>
struct Kept<std::span<T>> {
    using type = std::vector<std::remove_const_t<T>>;
    static type keep(std::span<T> s, Placement& p) {
        for (const auto& e : s) note_tensors(p, e);
        return type(s.begin(), s.end());
    }
    static std::span<T> use(const type& v) { return std::span<T>(v); }
};

}  // namespace

struct StepRecorder::Recording {
    std::vector<std::function<void()>> ops;
    Placement placement;
};

namespace {

class RecordedStep final : public StepGraph {
public:
    explicit RecordedStep(StepRecorder::Recording recording) : recording_(std::move(recording)) {}
    void replay() override {
        recording_.placement.check();
        for (const std::function<void()>& op : recording_.ops) op();
    }

private:
    StepRecorder::Recording recording_;
};

}  // namespace

std::unique_ptr<StepGraph> StepRecorder::capture(const std::function<void()>& launches) {
    if (recording_) throw Error("StepRecorder::capture: already recording a step");
    Recording recording;
    recording_ = &recording;
    try {
        launches();
    } catch (...) {
        recording_ = nullptr;
        throw;
    }
    recording_ = nullptr;
    return std::make_unique<RecordedStep>(std::move(recording));
}

template <typename Role, typename... Params, typename... Args>
void StepRecorder::pass(void (Role::*op)(Params...), Args&&... args) {
    if (!recording_) {
        (inner_.*op)(std::forward<Args>(args)...);
        return;
    }
    auto kept = std::make_tuple(Kept<Params>::keep(args, recording_->placement)...);
    recording_->ops.push_back([&inner = inner_, op, kept] {
        std::apply([&](const auto&... k) { (inner.*op)(Kept<Params>::use(k)...); }, kept);
    });
}

template <typename Role, typename R, typename... Params, typename... Args>
R StepRecorder::refused(const char* name, R (Role::*op)(Params...), Args&&... args) {
    refuse_while_recording(name);
    return (inner_.*op)(std::forward<Args>(args)...);
}

void StepRecorder::refuse_while_recording(const char* op) const {
    if (recording_)
        throw CaptureRefused(std::string(op) +
                             " cannot be part of a recorded step: it reads back to the host, waits or allocates");
}

// --- kept while recording ---

void StepRecorder::convert(const Tensor& src, Tensor& dst) { pass(&Backend::convert, src, dst); }
void StepRecorder::gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) {
    pass(&Backend::gemm, a, b, c, spec);
}
void StepRecorder::column_sums(const Tensor& x, Tensor& sums) { pass(&Backend::column_sums, x, sums); }
void StepRecorder::activation_forward(Activation a, const Tensor& x, Tensor& y) {
    pass(&Backend::activation_forward, a, x, y);
}
void StepRecorder::activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) {
    pass(&Backend::activation_backward, a, x, dy, dx);
}
void StepRecorder::softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                  Tensor& dlogits) {
    pass(&Backend::softmax_cross_entropy_backward, probs, labels, scale, dlogits);
}
void StepRecorder::softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute,
                                              Tensor& probs, Tensor& loss) {
    pass(&Backend::softmax_cross_entropy_into, logits, labels, compute, probs, loss);
}
void StepRecorder::mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) {
    pass(&Backend::mse_loss_into, pred, target, compute, loss);
}
void StepRecorder::mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) {
    pass(&Backend::mse_loss_backward, pred, target, scale, dpred);
}
void StepRecorder::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                      FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) {
    pass(&Backend::layer_norm_forward, x, gamma, beta, eps, compute, y, mean, rstd);
}
void StepRecorder::layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                       const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                                       Tensor& dbeta) {
    pass(&Backend::layer_norm_backward, x, gamma, mean, rstd, dy, compute, dx, dgamma, dbeta);
}
void StepRecorder::batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                      float momentum, FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd,
                                      Tensor& running_mean, Tensor& running_var) {
    pass(&Backend::batch_norm_forward, x, gamma, beta, eps, momentum, compute, y, mean, rstd, running_mean,
         running_var);
}
void StepRecorder::batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                        const Tensor& running_mean, const Tensor& running_var, float eps,
                                        FormatId compute, Tensor& y) {
    pass(&Backend::batch_norm_inference, x, gamma, beta, running_mean, running_var, eps, compute, y);
}
void StepRecorder::batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                       const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                                       Tensor& dbeta) {
    pass(&Backend::batch_norm_backward, x, gamma, mean, rstd, dy, compute, dx, dgamma, dbeta);
}
void StepRecorder::token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) {
    pass(&Backend::token_scores, q, k, tokens, scores);
}
void StepRecorder::token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens,
                                         Tensor& dq, Tensor& dk) {
    pass(&Backend::token_scores_backward, q, k, dscores, tokens, dq, dk);
}
void StepRecorder::token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) {
    pass(&Backend::token_mix, probs, v, tokens, out);
}
void StepRecorder::token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens,
                                      Tensor& dprobs, Tensor& dv) {
    pass(&Backend::token_mix_backward, probs, v, dout, tokens, dprobs, dv);
}
void StepRecorder::scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                                  Tensor& probs) {
    pass(&Backend::scaled_softmax, x, scale, group, compute, causal, probs);
}
void StepRecorder::scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                           Tensor& dx) {
    pass(&Backend::scaled_softmax_backward, probs, dprobs, scale, group, dx);
}
void StepRecorder::embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) {
    pass(&Backend::embedding_forward, ids, tokens, positions, out);
}
void StepRecorder::embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) {
    pass(&Backend::embedding_backward, ids, dout, dtokens, dpositions);
}
void StepRecorder::split_heads(const Tensor& x, int context, int heads, Tensor& out) {
    pass(&Backend::split_heads, x, context, heads, out);
}
void StepRecorder::merge_heads(const Tensor& x, int context, int heads, Tensor& out) {
    pass(&Backend::merge_heads, x, context, heads, out);
}
void StepRecorder::accumulate(const Tensor& src, Tensor& dst, bool overwrite) {
    pass(&Backend::accumulate, src, dst, overwrite);
}
void StepRecorder::unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) {
    pass(&Backend::unscale_all_flagged, jobs, state, found_inf);
}
void StepRecorder::update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) {
    pass(&Backend::update_scaler, rule, found_inf, state);
}
void StepRecorder::queue_download(const Tensor& t, float* host) { pass(&Backend::queue_download, t, host); }
void StepRecorder::queue_upload(const float* host, Tensor& t) { pass(&Backend::queue_upload, host, t); }
void StepRecorder::norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                                 Tensor& norm) {
    pass(&Backend::norm_and_clip, xs, max_norm, skip, norm);
}
void StepRecorder::sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    pass(&Backend::sgd_update_gated, jobs, gate);
}
void StepRecorder::adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    pass(&Backend::adamw_update_gated, jobs, gate);
}
void StepRecorder::queue_telemetry(const TelemetryRequest& request) { pass(&Backend::queue_telemetry, request); }
void StepRecorder::queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) {
    pass(&Backend::queue_compare, a, b, out);
}

// --- refused while recording: they allocate, wait, or hand a value back ---

Tensor StepRecorder::allocate(Shape shape, FormatId dtype) {
    return refused("allocate", &Backend::allocate, shape, dtype);
}
void StepRecorder::upload(const float* host, Tensor& t) {
    return refused("upload (queue_upload can be recorded)", &Backend::upload, host, t);
}
void StepRecorder::download(const Tensor& t, float* host) {
    return refused("download (queue_download can be recorded)", &Backend::download, t, host);
}
void StepRecorder::wait_for_queued() {
    return refused("wait_for_queued", &Backend::wait_for_queued);
}
float StepRecorder::finite_amax(const Tensor& x) {
    return refused("finite_amax", &Backend::finite_amax, x);
}

}  // namespace plab
