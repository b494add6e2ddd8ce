// The optimizer step kept where it runs, on the CPU backend's multi-tensor
// step ops (cpu_step_ops.cpp): the shared checks the CUDA kernels also meet,
// and the gate's argument errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "backend_step_checks.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "error_text.h"

namespace plab {
namespace {

using namespace testing_support;

TEST(CpuStepOps, GatedSgdIsThePlainUpdateOnAppliedSteps) {
    CpuBackend be;
    expect_gated_updates_follow_the_host(be, false, 0.0f);
    expect_gated_updates_follow_the_host(be, false, 0.9f);
}

TEST(CpuStepOps, GatedAdamWCountsAppliedStepsOnly) {
    CpuBackend be;
    expect_gated_updates_follow_the_host(be, true, 0.0f);
}

TEST(CpuStepOps, NormAndClipAreTheHostsRuleBitForBit) {
    CpuBackend be;
    expect_norm_and_clip_follow_the_host(be, 0.0);
}

TEST(CpuStepOps, LossesOnTheBackendAreTheReturnedOnes) {
    CpuBackend be;
    expect_losses_into_tensors_are_the_returned_ones(be);
}

TEST(CpuStepOps, QueuedDownloadsHoldTheValuesOfTheirMoment) {
    CpuBackend be;
    expect_queued_downloads_land_at_the_finish(be);
}

TEST(CpuStepOps, ABadGateIsAnErrorNamingWhatIsWrong) {
    CpuBackend be;
    Tensor w = be.allocate({2, 2}, FormatId::fp32), g = be.allocate({2, 2}, FormatId::fp32);
    Tensor m = be.allocate({2, 2}, FormatId::fp32), v = be.allocate({2, 2}, FormatId::fp32);
    Tensor count = be.allocate({1, 1}, FormatId::fp32), wide = be.allocate({1, 2}, FormatId::fp32);
    Tensor table3 = be.allocate({4, 3}, FormatId::fp32);
    Tensor sgd = be.allocate({1, kSgdSettingsWords}, FormatId::fp32);
    Tensor adam = be.allocate({1, kAdamWSettingsWords}, FormatId::fp32);
    const UpdateJob jobs[] = {{&w, &g, &m, &v, nullptr}};
    std::vector<UpdateCount> one(1), two(2);
    EXPECT_EQ(error_of([&] { be.sgd_update_gated(jobs, UpdateGate{.step_count = &count, .counts = one}); }),
              "sgd_update_gated: the gate has no settings");
    EXPECT_EQ(error_of([&] {
                  be.sgd_update_gated(jobs, UpdateGate{.settings = &adam, .step_count = &count, .counts = one});
              }),
              "sgd_update_gated: the SGD settings holds 3 floats (lr, momentum, weight decay), not 5");
    EXPECT_EQ(error_of([&] { be.sgd_update_gated(jobs, UpdateGate{.settings = &sgd, .counts = one}); }),
              "sgd_update_gated: the gate has no step count");
    EXPECT_EQ(error_of([&] {
                  be.sgd_update_gated(jobs, UpdateGate{.settings = &sgd, .step_count = &wide, .counts = one});
              }),
              "sgd_update_gated: the step count is one float, not 2");
    EXPECT_EQ(error_of([&] {
                  be.sgd_update_gated(jobs, UpdateGate{.settings = &sgd, .step_count = &count, .counts = two});
              }),
              "sgd_update_gated: 1 jobs but room for 2 counts");
    EXPECT_EQ(error_of([&] {
                  be.sgd_update_gated(
                      jobs, UpdateGate{.settings = &sgd, .skip = &wide, .step_count = &count, .counts = one});
              }),
              "sgd_update_gated: the skip flag is one float, not 2");
    EXPECT_EQ(error_of([&] {
                  be.adamw_update_gated(jobs,
                                        UpdateGate{.settings = &sgd, .step_count = &count, .counts = one});
              }),
              "adamw_update_gated: the AdamW settings holds 5 floats (lr, beta1, beta2, eps, weight decay), "
              "not 3");
    EXPECT_EQ(error_of([&] {
                  be.adamw_update_gated(jobs,
                                        UpdateGate{.settings = &adam, .step_count = &count, .counts = one});
              }),
              "adamw_update_gated: the gate has no AdamW step table");
    EXPECT_EQ(error_of([&] {
                  be.adamw_update_gated(jobs, UpdateGate{.settings = &adam, .step_count = &count,
                                                                 .adamw_table = &table3, .counts = one});
              }),
              "adamw_update_gated: the AdamW step table is 4x3, want rows x 2 with at least one row");
    Tensor norm = be.allocate({1, 1}, FormatId::fp32);
    Tensor* xs[] = {&g};
    EXPECT_EQ(error_of([&] { be.norm_and_clip(xs, nullptr, nullptr, wide); }),
              "norm_and_clip: the norm is one float, not 2");
    EXPECT_EQ(error_of([&] { be.norm_and_clip(xs, &wide, nullptr, norm); }),
              "norm_and_clip: the max norm is one float, not 2");
    EXPECT_EQ(error_of([&] { be.norm_and_clip(xs, nullptr, &wide, norm); }),
              "norm_and_clip: the skip flag is one float, not 2");
}

// A table whose row does not hold step t's scalars (here: built for another
// lr) is caught by the CPU default before it updates anything.
TEST(CpuStepOps, AnAdamWTableForOtherSettingsIsCaught) {
    CpuBackend be;
    Tensor w = be.allocate({2, 2}, FormatId::fp32), g = be.allocate({2, 2}, FormatId::fp32);
    Tensor m = be.allocate({2, 2}, FormatId::fp32), v = be.allocate({2, 2}, FormatId::fp32);
    Tensor count = be.allocate({1, 1}, FormatId::fp32);
    const UpdateJob jobs[] = {{&w, &g, &m, &v, nullptr}};
    std::vector<UpdateCount> counts(1);
    AdamWTable table;
    AdamWStep step;
    step.lr = 0.5f;
    const Tensor& other = table.cover(be, step, 1);
    step.lr = 0.25f;
    float words[kAdamWSettingsWords];
    store_update_settings(step, words);
    Tensor settings = tensor_on(be, {1, kAdamWSettingsWords}, FormatId::fp32, {words, words + kAdamWSettingsWords});
    EXPECT_EQ(error_of([&] {
                  be.adamw_update_gated(jobs, UpdateGate{.settings = &settings, .step_count = &count,
                                                                 .adamw_table = &other, .counts = counts});
              }),
              "adamw_update_gated: the AdamW step table's row 0 is not step 1's scalars");
    EXPECT_EQ(scalar_on(be, count), 0.0f);
}

}  // namespace
}  // namespace plab
