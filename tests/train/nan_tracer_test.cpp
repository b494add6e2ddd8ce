// The NaN tracer inside a real Trainer (docs/DESIGN.md, "NaN tracing and diagnosis"): a NaN or
// Inf put into a known place must be reported at that layer, phase and op,
// with counts and an input amax the test works out on its own from the
// model's tensors, and tracing must not change what a run computes.
//
// Injection: Trainer::model() is const, and no setting can put a NaN into a
// weight. Tensors are handles that share storage (tensor.h), so a copy of a
// weight's `value` handle writes into the model's own weights, with no
// const_cast. Under amp-fp16 `value` is the FP32 tensor the optimizer owns
// (no separate master), so the next step computes with exactly what is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab {
namespace {

constexpr double kFp16Max = 65504.0;
// Values at or beyond this round to Inf in FP16 (round to nearest even: the
// midpoint between 65504 and the next step, 65536, goes up).
constexpr double kFp16InfEdge = 65520.0;

// The default preset, cut down: 3 Linear layers (fc1..fc3), small hidden
// widths, no histograms, no evaluation before `steps`.
RunConfig small_config(int steps) {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.steps = steps;
    c.eval_every = steps;
    c.model.hidden = {16, 16};
    c.telemetry.hist_every = 0;
    return c;
}

// Host copy of a CPU tensor's values.
std::vector<float> values(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

float max_abs_finite(const std::vector<float>& v) {
    float m = 0;
    for (float x : v)
        if (std::isfinite(x)) m = std::max(m, std::fabs(x));
    return m;
}

// A writable handle onto a parameter's storage (see the file comment).
Tensor writable(const Tensor& t) { return t; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(NanTracer, NanInAWeightIsReportedAtTheFirstOpThatReadsIt) {
    CpuBackend backend;
    Trainer trainer(backend, small_config(10), {.trace_nan = true});
    for (int i = 0; i < 3; ++i) trainer.step();
    ASSERT_FALSE(trainer.nan_report().has_value()) << "clean steps reported a non-finite value";

    const Linear& fc2 = trainer.model().linears()[1];
    ASSERT_EQ(fc2.name(), "fc2");
    ASSERT_TRUE(fc2.weight.master.empty()) << "amp-fp16 keeps its FP32 weights in `value`";
    Tensor w = writable(fc2.weight.value);
    const int column = 5;  // weight is in x out: element [0, 5] feeds output column 5 of every row
    w.host()[column] = std::numeric_limits<float>::quiet_NaN();

    const StepRecord record = trainer.step();
    EXPECT_TRUE(record.found_inf);
    EXPECT_TRUE(record.skipped);

    const std::optional<NanReport>& r = trainer.nan_report();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->step, 4);
    EXPECT_EQ(r->phase, Phase::forward);
    EXPECT_EQ(r->layer, "fc2");
    EXPECT_EQ(r->op, "matmul");  // fc2's GEMM is the first op to read the weight
    EXPECT_EQ(r->format, FormatId::fp16);
    // x[r, 0] * NaN is NaN for every row, zeros included (0 * NaN = NaN):
    // exactly one output column per row, nothing else.
    const RunConfig& c = trainer.config();
    EXPECT_EQ(r->nans, c.batch_size);
    EXPECT_EQ(r->infs, 0);
    // fc2's input is fc1's activation, still held by the model after the step.
    EXPECT_EQ(r->input_amax, max_abs_finite(values(trainer.model().activation(0))));
    EXPECT_EQ(r->loss_scale, 1.0f);  // forward runs unscaled
    EXPECT_FALSE(r->diagnosis.empty());
    EXPECT_EQ(r->diagnosis, diagnose(*r));
    EXPECT_TRUE(contains(r->diagnosis, "fc2")) << r->diagnosis;
    EXPECT_TRUE(contains(r->diagnosis, "step 4")) << r->diagnosis;

    // Only the first non-finite value is kept: later steps do not replace it.
    trainer.step();
    ASSERT_TRUE(trainer.nan_report().has_value());
    EXPECT_EQ(trainer.nan_report()->step, 4);
    EXPECT_EQ(trainer.nan_report()->layer, "fc2");
}

// +Inf injected into the last layer's weights: its GEMM is the first op to
// write a non-finite value (x * Inf = +-Inf; a row whose input is 0 there
// gives 0 * Inf = NaN), in the forward phase at that layer.
TEST(NanTracer, InfInTheLastLayersWeightIsReportedAtItsMatmul) {
    CpuBackend backend;
    Trainer trainer(backend, small_config(10), {.trace_nan = true});
    for (int i = 0; i < 2; ++i) trainer.step();
    ASSERT_FALSE(trainer.nan_report().has_value());
    const Linear& last = trainer.model().linears().back();
    Tensor w = writable(last.weight.value);
    w.host()[0] = std::numeric_limits<float>::infinity();

    (void)trainer.step();
    const std::optional<NanReport>& r = trainer.nan_report();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->step, 3);
    EXPECT_EQ(r->phase, Phase::forward);
    EXPECT_EQ(r->layer, last.name());
    EXPECT_EQ(r->op, "matmul");
    // Column 0 of every row is +-Inf or NaN, and nothing else is.
    EXPECT_EQ(r->infs + r->nans, trainer.config().batch_size);
    EXPECT_GT(r->infs, 0);
    EXPECT_TRUE(contains(r->diagnosis, last.name())) << r->diagnosis;
}

TEST(NanTracer, WithoutTraceModeThereIsNoReportEvenAfterANan) {
    CpuBackend backend;
    Trainer trainer(backend, small_config(10));
    trainer.step();
    Tensor w = writable(trainer.model().linears()[1].weight.value);
    w.host()[0] = std::numeric_limits<float>::quiet_NaN();
    const StepRecord record = trainer.step();
    EXPECT_TRUE(record.found_inf);  // the NaN is there ...
    EXPECT_FALSE(trainer.nan_report().has_value());  // ... but nobody traced it
}

// fc3 (the last layer) with a static loss scale S = 2^22 and batches of 128:
// the loss gradient (p - onehot) * S / 128 stays within 2^15, so it fits FP16,
// but fc3's weight gradient, a sum of 128 such terms times activations, does
// not. The backward pass meets fc3's weight_grad first.
TEST(NanTracer, BackwardOverflowFromAHugeStaticLossScaleHitsTheLastLayerFirst) {
    RunConfig c = small_config(10);
    c.scaler.kind = ScalerKind::static_scale;
    c.scaler.init_scale = 4194304.0f;  // 2^22
    ASSERT_EQ(c.batch_size, 128);
    CpuBackend backend;
    Trainer trainer(backend, c, {.trace_nan = true});
    const StepRecord record = trainer.step();
    EXPECT_EQ(record.scale, c.scaler.init_scale);
    EXPECT_TRUE(record.found_inf);
    EXPECT_EQ(record.first_nonfinite_layer, 2);

    const std::optional<NanReport>& r = trainer.nan_report();
    ASSERT_TRUE(r.has_value());
    const Mlp& model = trainer.model();
    const int last = model.layer_count() - 1;
    EXPECT_EQ(r->step, 1);
    EXPECT_EQ(r->phase, Phase::backward);
    EXPECT_EQ(r->layer, trainer.layer_names().back());
    EXPECT_EQ(r->layer, "fc3");
    EXPECT_EQ(r->op, "weight_grad");
    EXPECT_EQ(r->format, FormatId::fp16);
    EXPECT_EQ(r->loss_scale, c.scaler.init_scale);
    EXPECT_EQ(r->nans, 0);

    // Independent FP64 reference of fc3's weight gradient x^T dy from the
    // model's held tensors (x: fc2's activation, dy: the scaled loss gradient).
    const std::vector<float> x = values(model.activation(last - 1));
    const std::vector<float> dy = values(model.activation_grad(last));
    const auto rows = static_cast<std::size_t>(model.activation(last).rows());
    const std::size_t in = x.size() / rows, out = dy.size() / rows;
    EXPECT_LE(max_abs_finite(dy), kFp16Max) << "the loss gradient itself must fit FP16";
    EXPECT_EQ(r->input_amax, max_abs_finite(dy));  // the tracer's input of weight_grad is dy
    // FP32 accumulation may land either side of the Inf edge where FP64 is
    // within 0.1% of it: count those as "may be either".
    std::int64_t surely = 0, maybe = 0;
    for (std::size_t i = 0; i < in; ++i)
        for (std::size_t j = 0; j < out; ++j) {
            double g = 0;
            for (std::size_t k = 0; k < rows; ++k) g += static_cast<double>(x[k * in + i]) * dy[k * out + j];
            surely += std::fabs(g) >= kFp16InfEdge * 1.001;
            maybe += std::fabs(g) >= kFp16InfEdge * 0.999;
        }
    EXPECT_GT(surely, 0);
    EXPECT_GE(r->infs, surely);
    EXPECT_LE(r->infs, maybe);

    EXPECT_TRUE(contains(r->diagnosis, "backward overflow")) << r->diagnosis;
    EXPECT_TRUE(contains(r->diagnosis, "loss scale")) << r->diagnosis;
    EXPECT_TRUE(contains(r->diagnosis, "2^22")) << r->diagnosis;
}

// Every fc1 weight set to 65504, FP16's largest finite value: y = 65504 *
// (x0 + x1) overflows FP16 for rows with |x0 + x1| a little over 1. One batch
// holds every training row (160 samples, 32 to test), so the op's input amax
// is the largest |input| of the training split.
TEST(NanTracer, ForwardOverflowInFp16IsReportedWithTheInputAmax) {
    RunConfig c = small_config(10);
    c.data.samples = 160;
    c.data.test_fraction = 0.2;
    c.batch_size = 128;
    CpuBackend backend;
    Trainer trainer(backend, c, {.trace_nan = true});
    ASSERT_EQ(trainer.data().train.rows, c.batch_size);

    const Linear& fc1 = trainer.model().linears()[0];
    Tensor w = writable(fc1.weight.value);
    std::fill(w.host(), w.host() + w.size(), static_cast<float>(kFp16Max));
    const std::vector<float> bias = values(fc1.bias.value);
    trainer.step();

    const std::optional<NanReport>& r = trainer.nan_report();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->step, 1);
    EXPECT_EQ(r->phase, Phase::forward);
    EXPECT_EQ(r->layer, "fc1");
    EXPECT_EQ(r->op, "matmul");
    EXPECT_EQ(r->format, FormatId::fp16);
    EXPECT_EQ(r->nans, 0);
    EXPECT_EQ(r->loss_scale, 1.0f);

    const std::vector<float>& inputs = trainer.data().train.inputs;
    EXPECT_EQ(r->input_amax, max_abs_finite(inputs));

    // Reference count: the GEMM rounds its inputs to FP16 and multiplies
    // exactly; an output is Inf where |65504 (x0 + x1) + b| passes the edge.
    const auto width = static_cast<std::size_t>(trainer.data().input_dim);
    std::int64_t surely = 0, maybe = 0;
    for (std::size_t row = 0; row < inputs.size() / width; ++row) {
        double sum = 0;
        for (std::size_t k = 0; k < width; ++k) sum += round_to(FormatId::fp16, inputs[row * width + k]);
        for (float b : bias) {
            const double y = std::fabs(kFp16Max * sum + round_to(FormatId::fp16, b));
            surely += y >= kFp16InfEdge * 1.001;
            maybe += y >= kFp16InfEdge * 0.999;
        }
    }
    EXPECT_GT(surely, 0);
    EXPECT_GE(r->infs, surely);
    EXPECT_LE(r->infs, maybe);
    EXPECT_TRUE(contains(r->diagnosis, "overflow")) << r->diagnosis;
    EXPECT_TRUE(contains(r->diagnosis, "65504")) << r->diagnosis;
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

void expect_same_stats(const TensorStats& a, const TensorStats& b, const std::string& where) {
    EXPECT_EQ(a.count, b.count) << where;
    EXPECT_EQ(a.zeros, b.zeros) << where;
    EXPECT_EQ(a.nans, b.nans) << where;
    EXPECT_EQ(a.pos_infs, b.pos_infs) << where;
    EXPECT_EQ(a.neg_infs, b.neg_infs) << where;
    EXPECT_TRUE(same_bits(a.amax, b.amax)) << where;
    EXPECT_TRUE(same_bits(a.mean_abs, b.mean_abs)) << where;
    EXPECT_TRUE(same_bits(a.rms, b.rms)) << where;
    for (std::size_t f = 0; f < a.ranges.size(); ++f) {
        EXPECT_TRUE(same_bits(a.ranges[f].underflow, b.ranges[f].underflow)) << where;
        EXPECT_TRUE(same_bits(a.ranges[f].subnormal, b.ranges[f].subnormal)) << where;
        EXPECT_TRUE(same_bits(a.ranges[f].overflow, b.ranges[f].overflow)) << where;
    }
}

void expect_same_optional(const std::optional<float>& a, const std::optional<float>& b, const std::string& where) {
    ASSERT_EQ(a.has_value(), b.has_value()) << where;
    if (a) {
        EXPECT_TRUE(same_bits(*a, *b)) << where;
    }
}

void expect_same_record(const StepRecord& a, const StepRecord& b) {
    const std::string at = "step " + std::to_string(a.step);
    EXPECT_EQ(a.step, b.step);
    EXPECT_TRUE(same_bits(a.loss, b.loss)) << at;
    EXPECT_TRUE(same_bits(a.loss_ref, b.loss_ref)) << at;
    EXPECT_TRUE(same_bits(a.scale, b.scale)) << at;
    EXPECT_EQ(a.growth_tracker, b.growth_tracker) << at;
    EXPECT_TRUE(same_bits(a.scale_after, b.scale_after)) << at;
    EXPECT_EQ(a.found_inf, b.found_inf) << at;
    EXPECT_EQ(a.skipped, b.skipped) << at;
    EXPECT_EQ(a.backoff, b.backoff) << at;
    EXPECT_EQ(a.growth, b.growth) << at;
    EXPECT_EQ(a.first_nonfinite_layer, b.first_nonfinite_layer) << at;
    EXPECT_TRUE(same_bits(a.grad_norm, b.grad_norm)) << at;
    EXPECT_EQ(a.clipped, b.clipped) << at;
    EXPECT_TRUE(same_bits(a.lost_update_frac, b.lost_update_frac)) << at;
    EXPECT_TRUE(same_bits(a.lr, b.lr)) << at;
    expect_same_optional(a.acc, b.acc, at + " acc");
    expect_same_optional(a.acc_ref, b.acc_ref, at + " acc_ref");
    expect_same_optional(a.test_loss, b.test_loss, at + " test_loss");
    expect_same_optional(a.test_loss_ref, b.test_loss_ref, at + " test_loss_ref");
    ASSERT_EQ(a.layers.size(), b.layers.size()) << at;
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        const LayerRecord& x = a.layers[i];
        const LayerRecord& y = b.layers[i];
        const std::string layer = at + " layer " + std::to_string(i);
        expect_same_stats(x.weight, y.weight, layer + " weight");
        expect_same_stats(x.grad, y.grad, layer + " grad");
        expect_same_stats(x.grad_unscaled, y.grad_unscaled, layer + " grad_unscaled");
        expect_same_stats(x.act, y.act, layer + " act");
        expect_same_stats(x.act_grad, y.act_grad, layer + " act_grad");
        expect_same_stats(x.act_grad_unscaled, y.act_grad_unscaled, layer + " act_grad_unscaled");
        EXPECT_TRUE(same_bits(x.weight_rel_dist, y.weight_rel_dist)) << layer;
        EXPECT_TRUE(same_bits(x.grad_rel_dist, y.grad_rel_dist)) << layer;
        EXPECT_TRUE(same_bits(x.grad_cos, y.grad_cos)) << layer;
    }
}

TEST(NanTracer, TracingDoesNotChangeAnyStepRecord) {
    RunConfig c = small_config(30);
    c.eval_every = 10;  // evaluation steps too
    CpuBackend traced_backend, plain_backend;
    Trainer traced(traced_backend, c, {.trace_nan = true});
    Trainer plain(plain_backend, c);
    for (int i = 0; i < c.steps; ++i) {
        const StepRecord a = traced.step();
        const StepRecord b = plain.step();
        ASSERT_FALSE(a.layers.empty());
        expect_same_record(a, b);
        if (HasFailure()) break;  // one step's differences are enough to read
    }
    EXPECT_FALSE(traced.nan_report().has_value());
    EXPECT_FALSE(plain.nan_report().has_value());
}

// The first non-finite value with finite inputs was described both as "from
// finite inputs" and "after an overflow upstream": the tracer stops at the
// first op that goes non-finite, so nothing upstream overflowed.
TEST(NanDiagnosis, NanFromFiniteInputsBlamesTheOpItself) {
    NanReport r;
    r.step = 1;
    r.phase = Phase::forward;
    r.layer = "attn";
    r.op = "softmax";
    r.format = FormatId::fp16;
    r.nans = 28;
    r.input_amax = 6.1445312f;
    r.loss_scale = 1.0f;
    EXPECT_EQ(diagnose(r),
              "forward softmax of attn at step 1: 28 NaN in fp16; NaN from finite inputs (input amax 6.14): an "
              "intermediate inside the op passed the largest finite fp16 value 65504, then Inf - Inf or 0 * Inf "
              "gave NaN; compute this op in FP32 (precision.fp32_ops) or use BF16");
    r.format = FormatId::bf16;
    EXPECT_TRUE(contains(diagnose(r), "largest finite bf16 value 3.38953e+38")) << diagnose(r);
}

}  // namespace
}  // namespace plab
