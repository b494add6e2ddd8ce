#pragma once
// The optimizer step kept where it runs (Backend::norm_and_clip,
// sgd/adamw_update_gated, queue_download) against the host's rules,
// for any backend: the CPU test runs these on the defaults, the CUDA test on
// the device kernels. The references are the plain per-step ops on a
// CpuBackend (the updates) and a slow loop written here (the norm and clip).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/update_settings.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/optim/adamw_table.h"
#include "backend_scaler_checks.h"  // download_all

namespace plab::testing_support {

inline std::vector<float> random_floats(std::size_t n, std::mt19937& rng, float scale) {
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

inline Tensor tensor_on(Backend& be, Shape s, FormatId dtype, const std::vector<float>& values) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

inline float scalar_on(Backend& be, const Tensor& t) { return download_all(be, t).front(); }

// The tensors of a multi-tensor update, on one backend: an FP32 weight, an
// FP32 master with an FP16 copy, and FP16 weights without a master (whose
// small updates are lost), with their gradients and optimizer state.
struct UpdateSet {
    std::vector<Tensor> w, g, a, b, copy;
    std::vector<UpdateJob> jobs;

    UpdateSet(Backend& be, bool adamw, bool momentum) {
        const Shape shapes[] = {{3, 5}, {64, 33}, {16, 9}};
        const FormatId dtypes[] = {FormatId::fp32, FormatId::fp32, FormatId::fp16};
        std::mt19937 rng(11);
        for (int i = 0; i < 3; ++i) {
            w.push_back(tensor_on(be, shapes[i], dtypes[i], random_floats(shapes[i].size(), rng, 2.0f)));
            g.push_back(be.allocate(shapes[i], FormatId::fp32));
            a.push_back(be.allocate(shapes[i], FormatId::fp32));
            b.push_back(be.allocate(shapes[i], FormatId::fp32));
            copy.push_back(i == 1 ? be.allocate(shapes[i], FormatId::fp16) : Tensor());
        }
        for (std::size_t i = 0; i < w.size(); ++i)
            jobs.push_back({&w[i], &g[i], adamw || momentum ? &a[i] : nullptr, adamw ? &b[i] : nullptr,
                            copy[i].empty() ? nullptr : &copy[i]});
    }
    void set_grads(Backend& be, int step) {
        std::mt19937 rng(100 + static_cast<unsigned>(step));
        for (Tensor& t : g) {
            const std::vector<float> v = random_floats(t.size(), rng, 0.5f);
            be.upload(v.data(), t);
        }
    }
};

inline void expect_same_sets(Backend& be, UpdateSet& got, UpdateSet& want, const std::string& what) {
    const auto same = [&](const Tensor& x, const Tensor& y, const std::string& name) {
        const std::vector<float> gx = download_all(be, x), wy{y.host(), y.host() + y.size()};
        ASSERT_EQ(gx.size(), wy.size()) << what << " " << name;
        for (std::size_t i = 0; i < gx.size(); ++i)
            ASSERT_EQ(float_bits(gx[i]), float_bits(wy[i])) << what << " " << name << " element " << i;
    };
    for (std::size_t i = 0; i < got.w.size(); ++i) {
        const std::string n = std::to_string(i);
        same(got.w[i], want.w[i], "w" + n);
        same(got.a[i], want.a[i], "a" + n);
        same(got.b[i], want.b[i], "b" + n);
        if (!got.copy[i].empty()) same(got.copy[i], want.copy[i], "copy" + n);
    }
}

// 30 steps, one in three skipped by the gate's flag: weights, state, copies
// and counts equal the plain updates applied on the host's say, AdamW's t
// counting applied steps only; the step count on the backend counts them too.
// The hyper-parameters change at step 16 (a live edit): the settings on the
// backend are read at each call, and AdamW's table is rewritten where it is.
inline void expect_gated_updates_follow_the_host(Backend& be, bool adamw, float momentum) {
    CpuBackend ref;
    UpdateSet got(be, adamw, momentum != 0.0f), want(ref, adamw, momentum != 0.0f);
    Tensor skip = be.allocate({1, 1}, FormatId::fp32);
    Tensor count = be.allocate({1, 1}, FormatId::fp32);
    Tensor settings = be.allocate({1, adamw ? kAdamWSettingsWords : kSgdSettingsWords}, FormatId::fp32);
    AdamWTable table;
    const void* table_storage = nullptr;
    std::mt19937 rng(5);
    int applied = 0;
    for (int step = 1; step <= 30; ++step) {
        const std::string what = std::string(adamw ? "adamw" : "sgd") + " step " + std::to_string(step);
        got.set_grads(be, step);
        want.set_grads(ref, step);
        const bool skipped = rng() % 3 == 0;
        const float flag = skipped ? 1.0f : 0.0f;
        be.upload(&flag, skip);
        std::vector<UpdateCount> counts(got.jobs.size(), UpdateCount{-1, -1});
        UpdateGate gate{.settings = &settings, .skip = &skip, .step_count = &count, .counts = counts};
        const bool edited = step > 15;
        const SgdStep sgd = edited ? SgdStep{0.02f, momentum * 0.5f, 0.03f} : SgdStep{0.05f, momentum, 0.01f};
        // lr 1e-4: small enough that some FP16 weights lose their update.
        const AdamWStep adam = edited ? AdamWStep{3e-4f, 0.8f, 0.99f, 1e-6f, 0.02f, applied + 1}
                                      : AdamWStep{1e-4f, 0.9f, 0.999f, 1e-8f, 0.01f, applied + 1};
        float words[kAdamWSettingsWords];
        if (adamw) {
            store_update_settings(adam, words);
            be.upload(words, settings);
            gate.adamw_table = &table.cover(be, adam, applied + 1);
            if (step == 1) table_storage = gate.adamw_table->raw();
            ASSERT_EQ(gate.adamw_table->raw(), table_storage) << what << ": the table moved";
            be.adamw_update_gated(got.jobs, gate);
        } else {
            store_update_settings(sgd, words);
            be.upload(words, settings);
            be.sgd_update_gated(got.jobs, gate);
        }
        be.wait_for_queued();  // the counts land
        std::vector<UpdateCount> wanted(want.jobs.size());
        if (!skipped) {
            wanted = adamw ? ref.adamw_update_all(want.jobs, adam) : ref.sgd_update_all(want.jobs, sgd);
            ++applied;
        }
        expect_same_sets(be, got, want, what);
        for (std::size_t i = 0; i < counts.size(); ++i) {
            ASSERT_EQ(counts[i].nonzero, wanted[i].nonzero) << what << " job " << i;
            ASSERT_EQ(counts[i].lost, wanted[i].lost) << what << " job " << i;
        }
        ASSERT_EQ(scalar_on(be, count), static_cast<float>(applied)) << what;
    }
    EXPECT_GT(applied, 10);
}

// The norm and the clip, written out slowly: sums of squares in index order,
// the tensors' sums in order, both in FP32; coef = max / (norm + 1e-6).
struct ClipReference {
    float norm = 0;
    std::vector<std::vector<float>> clipped;
};
inline ClipReference clip_reference(const std::vector<std::vector<float>>& xs, float max_norm, bool skip) {
    ClipReference r;
    float total = 0.0f;
    for (const auto& x : xs) {
        float s = 0.0f;
        for (float v : x) s += v * v;
        total += s;
    }
    r.norm = std::sqrt(total);
    r.clipped = xs;
    const float coef = max_norm / (r.norm + 1e-6f);
    if (skip || max_norm <= 0.0f || !(coef < 1.0f)) return r;
    for (auto& x : r.clipped)
        for (float& v : x) v = v * coef;
    return r;
}

// Within rel of want (NaN where want is NaN); rel 0: bit for bit.
inline void expect_close(float got, float want, double rel, const std::string& what) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << what;
    } else if (rel == 0.0 || std::isinf(want)) {
        EXPECT_EQ(float_bits(got), float_bits(want)) << what << ": " << got << " vs " << want;
    } else {
        EXPECT_NEAR(got, want, rel * std::fabs(want)) << what;
    }
}

// Cases: no max norm given, a max norm of 0 on the backend (no clip either),
// a clip that does not bite, one that does, the same with the skip flag set
// (norm measured, nothing clipped), and an Inf gradient with no skip (coef 0:
// finite values become 0, the Inf NaN, as PyTorch's clip does).
// The CPU matches bit for bit (rel 0); a GPU sums in another order (rel > 0).
inline void expect_norm_and_clip_follow_the_host(Backend& be, double rel) {
    struct Case {
        float max_norm;  // NaN: none given
        bool skip;
        bool inf;
    };
    const Case cases[] = {{NAN, false, false},   {0.0f, false, false}, {1e6f, false, false},
                          {0.75f, false, false}, {0.75f, true, false}, {0.75f, false, true}};
    const Shape shapes[] = {{7, 3}, {1, 1}, {40, 41}};
    for (const Case& c : cases) {
        const std::string what = "max_norm " + std::to_string(c.max_norm) + (c.skip ? " skip" : "") +
                                 (c.inf ? " inf" : "");
        std::mt19937 rng(3);
        std::vector<std::vector<float>> host;
        std::vector<Tensor> xs;
        for (const Shape& s : shapes) {
            host.push_back(random_floats(s.size(), rng, 0.1f));
            if (c.inf && xs.size() == 2) host.back()[17] = INFINITY;
            xs.push_back(tensor_on(be, s, FormatId::fp32, host.back()));
        }
        std::vector<Tensor*> ptrs;
        for (Tensor& x : xs) ptrs.push_back(&x);
        Tensor norm = be.allocate({1, 1}, FormatId::fp32);
        const float flag = c.skip ? 1.0f : 0.0f;
        Tensor skip = tensor_on(be, {1, 1}, FormatId::fp32, {flag});
        const bool given = !std::isnan(c.max_norm);
        Tensor max_norm = tensor_on(be, {1, 1}, FormatId::fp32, {given ? c.max_norm : 0.0f});
        be.norm_and_clip(ptrs, given ? &max_norm : nullptr, &skip, norm);
        const ClipReference want = clip_reference(host, given ? c.max_norm : 0.0f, c.skip);
        expect_close(scalar_on(be, norm), want.norm, rel, what + " norm");
        for (std::size_t t = 0; t < xs.size(); ++t) {
            const std::vector<float> got = download_all(be, xs[t]);
            for (std::size_t i = 0; i < got.size(); ++i)
                expect_close(got[i], want.clipped[t][i], rel, what + " tensor " + std::to_string(t) + " element " +
                                                                  std::to_string(i));
        }
    }
}

// queue_download delivers the values as they were when it was queued, by the
// time wait_for_queued() returns, however the tensor changes after; and the
// other queued copies (queue_upload, queue_compare) keep the same order.
inline void expect_queued_downloads_land_at_the_finish(Backend& be) {
    Tensor t = tensor_on(be, {2, 3}, FormatId::fp32, {1, 2, 3, 4, 5, 6});
    std::vector<float> first(6, -1.0f), second(6, -1.0f);
    be.queue_download(t, first.data());
    const std::vector<float> next{7, 8, 9, 10, 11, 12};
    be.upload(next.data(), t);
    be.queue_download(t, second.data());
    be.wait_for_queued();
    EXPECT_EQ(first, (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(second, next);

    // A queued upload reads the host values at once and rounds as upload does.
    std::vector<float> source{0.1f, 1e-8f, 70000.0f, -3.0f};
    Tensor queued_fp16 = be.allocate({1, 4}, FormatId::fp16), uploaded_fp16 = be.allocate({1, 4}, FormatId::fp16);
    be.upload(source.data(), uploaded_fp16);
    be.queue_upload(source.data(), queued_fp16);
    source.assign(4, 0.0f);
    be.wait_for_queued();
    EXPECT_EQ(download_all(be, queued_fp16), download_all(be, uploaded_fp16));
    EXPECT_EQ(download_all(be, queued_fp16)[2], INFINITY);  // 70000 overflows FP16

    // A queued comparison: its sums are those of the tensors as they were when
    // it was queued, not when the step's wait comes (a lands a new value first).
    std::mt19937 rng(4);
    Tensor a = tensor_on(be, {33, 17}, FormatId::fp32, random_floats(33 * 17, rng, 1.0f));
    Tensor b = tensor_on(be, {33, 17}, FormatId::fp32, random_floats(33 * 17, rng, 1.0f));
    TensorComparison now{-1, -1, -1, -1};
    be.queue_compare(a, b, &now);
    be.wait_for_queued();
    EXPECT_GT(now.a_sq, 0.0);
    TensorComparison queued{-1, -1, -1, -1};
    be.queue_compare(a, b, &queued);
    be.upload(random_floats(33 * 17, rng, 1.0f).data(), a);
    be.wait_for_queued();
    EXPECT_EQ(queued.diff_sq, now.diff_sq);
    EXPECT_EQ(queued.a_sq, now.a_sq);
    EXPECT_EQ(queued.b_sq, now.b_sq);
    EXPECT_EQ(queued.dot, now.dot);
}

// The losses left on the backend are the values the plain ops return there
// (the same reduction, so bit for bit), with the same probabilities; a bad
// label is the plain op's error, by the time wait_for_queued() returns, and
// the backend works on after it.
// Be: CpuBackend or CudaBackend, whose losses returned to the host are not in Backend.
template <typename Be>
void expect_losses_into_tensors_are_the_returned_ones(Be& be) {
    std::mt19937 rng(9);
    const int rows = 300, classes = 5;
    Tensor logits = tensor_on(be, {rows, classes}, FormatId::fp32, random_floats(rows * classes, rng, 6.0f));
    std::vector<float> label_values(rows);
    for (float& l : label_values) l = static_cast<float>(rng() % classes);
    Tensor labels = tensor_on(be, {rows, 1}, FormatId::fp32, label_values);
    Tensor probs = be.allocate({rows, classes}, FormatId::fp16);
    Tensor probs_on_device = be.allocate({rows, classes}, FormatId::fp16);
    Tensor loss = be.allocate({1, 1}, FormatId::fp32);
    const float returned = be.softmax_cross_entropy(logits, labels, probs);
    float landed = -1;
    be.softmax_cross_entropy_into(logits, labels, FormatId::fp32, probs_on_device, loss);
    be.queue_download(loss, &landed);
    be.wait_for_queued();
    EXPECT_EQ(float_bits(landed), float_bits(returned));
    EXPECT_EQ(download_all(be, probs_on_device), download_all(be, probs));

    Tensor target = tensor_on(be, {rows, classes}, FormatId::fp32, random_floats(rows * classes, rng, 6.0f));
    be.mse_loss_into(logits, target, FormatId::fp32, loss);
    EXPECT_EQ(float_bits(scalar_on(be, loss)), float_bits(be.mse_loss(logits, target)));

    label_values[7] = 2.5f;
    label_values[40] = 9.0f;
    be.upload(label_values.data(), labels);
    std::string error = "(no error)";
    try {
        be.softmax_cross_entropy_into(logits, labels, FormatId::fp32, probs_on_device, loss);
        be.wait_for_queued();
    } catch (const Error& e) {
        error = e.what();
    }
    EXPECT_EQ(error, "softmax_cross_entropy: label 2.500000 in row 7 is not a class index 0..4");
    EXPECT_NO_THROW(be.wait_for_queued());
}

}  // namespace plab::testing_support
