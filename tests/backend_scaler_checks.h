#pragma once
// The loss scale kept by a backend (Backend::unscale_all_flagged,
// update_scaler) against the host's LossScaler, for any backend: the CPU
// test runs it on the defaults, the CUDA test on the device kernels.
#include <gtest/gtest.h>

#include <cfloat>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/amp/loss_scaler.h"
#include "engine/backend/backend.h"
#include "engine/numeric/scalar_cast.h"

namespace plab::testing_support {

inline std::vector<float> download_all(Backend& be, const Tensor& t) {
    std::vector<float> v(t.size());
    be.download(t, v.data());
    return v;
}

// Scalers that reach every branch of the rule within 400 steps: growth, a
// growth lost to FP32 overflow, backoff, hysteresis countdown and refill,
// the min_scale floor and the max_scale ceiling.
inline std::vector<ScalerConfig> scaler_cases() {
    std::vector<ScalerConfig> cases;
    ScalerConfig dynamic;
    dynamic.kind = ScalerKind::dynamic;
    dynamic.init_scale = 0x1p120f;  // grows into FP32 overflow, which is dropped
    dynamic.growth_interval = 3;
    cases.push_back(dynamic);
    ScalerConfig hysteresis = dynamic;
    hysteresis.kind = ScalerKind::hysteresis;
    hysteresis.init_scale = 4.0f;
    hysteresis.hysteresis = 3;
    hysteresis.min_scale = 1.0f;
    hysteresis.max_scale = 64.0f;
    hysteresis.growth_factor = 3.0f;
    hysteresis.backoff_factor = 0.25f;
    cases.push_back(hysteresis);
    ScalerConfig fixed = dynamic;
    fixed.kind = ScalerKind::static_scale;
    cases.push_back(fixed);
    return cases;
}

// The rule of a live edit at step 200: other factors, a shorter interval.
inline ScalerConfig edited(ScalerConfig c) {
    c.growth_factor = 4.0f;
    c.backoff_factor = 0.125f;
    c.growth_interval = 2;
    c.hysteresis = 1;
    c.min_scale = 2.0f;
    c.max_scale = c.max_scale > 0.0f ? 2.0f * c.max_scale : 0.0f;
    return c;
}

// For each case, a random found_inf sequence (one step in four overflows),
// the rule edited at step 200: the state update_scaler leaves on the backend,
// with the rule it holds, equals LossScaler's, bit for bit, after every step.
inline void expect_update_scaler_follows_loss_scaler(Backend& be) {
    for (const ScalerConfig& config : scaler_cases()) {
        const std::string what = std::string(scaler_kind_name(config.kind));
        LossScaler host(config);
        Tensor state = be.allocate({1, kScalerStateWords}, FormatId::fp32);
        Tensor found_inf = be.allocate({1, 1}, FormatId::fp32);
        Tensor rule = be.allocate({1, kScalerRuleWords}, FormatId::fp32);
        float initial[kScalerStateWords];
        store_scaler_state(host.state(), initial);
        be.upload(initial, state);
        std::mt19937 rng(7);
        for (int step = 0; step < 400; ++step) {
            if (step == 200) {  // as the trainer's live edit: the host's state, which the edit may move, goes up
                host.reconfigure(edited(config));
                float words[kScalerStateWords];
                store_scaler_state(host.state(), words);
                be.upload(words, state);
            }
            float words[kScalerRuleWords];
            store_scaler_rule(scaler_rule(host.config()), words);
            be.upload(words, rule);
            const bool overflow = rng() % 4 == 0;
            const float flag = overflow ? 1.0f : 0.0f;
            be.upload(&flag, found_inf);
            be.update_scaler(rule, found_inf, state);
            (void)host.update(overflow);
            const std::vector<float> got = download_all(be, state);
            ASSERT_EQ(float_bits(got[0]), float_bits(host.scale())) << what << " step " << step;
            ASSERT_EQ(got[1], static_cast<float>(host.growth_tracker())) << what << " step " << step;
            ASSERT_EQ(got[2], static_cast<float>(host.hysteresis_left())) << what << " step " << step;
        }
    }
}

// unscale_all_flagged reads the scale from the state, writes what
// unscale_all writes, and leaves found_inf 1 exactly when some output is not
// finite (a stale 1 from the step before is cleared). Scale 3 checks the
// inverse is PyTorch's, not a division.
// Be: CpuBackend or CudaBackend, whose unscale_all (not in Backend) returns the first non-finite job.
template <typename Be>
void expect_unscale_flagged_is_unscale_all(Be& be) {
    const std::vector<Shape> shapes = {{64, 2}, {64, 64}, {0, 5}, {1, 3}};
    for (float scale : {65536.0f, 3.0f}) {
        for (int dirty : {-1, 1, 3}) {
            std::vector<Tensor> src, dst, ref;
            std::vector<UnscaleJob> jobs, ref_jobs;
            std::mt19937 rng(static_cast<std::uint32_t>(dirty + 10));
            for (std::size_t t = 0; t < shapes.size(); ++t) {
                std::vector<float> v(shapes[t].size());
                for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 20001) - 10000);
                if (static_cast<int>(t) == dirty) v[v.size() / 2] = std::numeric_limits<float>::infinity();
                src.push_back(be.allocate(shapes[t], FormatId::fp16));
                be.upload(v.data(), src.back());
                dst.push_back(be.allocate(shapes[t], FormatId::fp32));
                ref.push_back(be.allocate(shapes[t], FormatId::fp32));
            }
            for (std::size_t t = 0; t < shapes.size(); ++t) {
                jobs.push_back({&src[t], &dst[t]});
                ref_jobs.push_back({&src[t], &ref[t]});
            }
            Tensor state = be.allocate({1, kScalerStateWords}, FormatId::fp32);
            Tensor found_inf = be.allocate({1, 1}, FormatId::fp32);
            const float s[kScalerStateWords] = {scale, 0, 1};
            const float stale = 1.0f;
            be.upload(s, state);
            be.upload(&stale, found_inf);
            be.unscale_all_flagged(jobs, state, found_inf);
            const int first = be.unscale_all(ref_jobs, inverse_scale(scale));
            EXPECT_EQ(first, dirty);
            EXPECT_EQ(download_all(be, found_inf)[0], dirty >= 0 ? 1.0f : 0.0f) << "dirty " << dirty;
            for (std::size_t t = 0; t < shapes.size(); ++t) {
                const std::vector<float> got = download_all(be, dst[t]), want = download_all(be, ref[t]);
                for (std::size_t i = 0; i < got.size(); ++i)
                    ASSERT_EQ(float_bits(got[i]), float_bits(want[i])) << "tensor " << t << " [" << i << "]";
            }
        }
    }
}

}  // namespace plab::testing_support
