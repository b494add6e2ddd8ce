// StepRecorder: CUDA graph semantics on the host. Recording runs nothing;
// a replay runs the ops with the arguments they were recorded with, reads
// queued uploads' host memory as it is at the replay, and lands queued
// downloads at the finish after it. Ops that read back, wait or allocate are
// refused while recording, and a replay after a tensor moved is an error.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "engine/amp/scaler_rule.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/step_recorder.h"

namespace plab {
namespace {

TEST(StepRecorder, RecordingRunsNothingAndAReplayReadsTheHostBuffersOfItsMoment) {
    CpuBackend cpu;
    StepRecorder recorder(cpu);
    Tensor t = recorder.allocate({1, 3}, FormatId::fp16);
    std::vector<float> in = {1.0f, 2.0f, 3.0f}, out(3, -1.0f);
    const std::unique_ptr<StepGraph> graph = recorder.capture([&] {
        recorder.queue_upload(in.data(), t);
        recorder.accumulate(t, t, false);  // doubled
        recorder.queue_download(t, out.data());
    });
    ASSERT_NE(graph, nullptr);
    recorder.wait_for_queued();
    EXPECT_EQ(out, std::vector<float>(3, -1.0f)) << "recording ran an op";

    in = {10.0f, 1.0f / 3.0f, 65504.0f};
    graph->replay();
    recorder.wait_for_queued();
    // FP16: 1/3 rounds to 0x3555 = 0.333251953125 on upload and doubles
    // exactly; twice 65504, FP16's largest, overflows to Inf.
    EXPECT_EQ(out, (std::vector<float>{20.0f, 0.66650390625f, std::numeric_limits<float>::infinity()}));

    in = {-4.0f, 0.0f, 7.0f};
    graph->replay();
    recorder.wait_for_queued();
    EXPECT_EQ(out, (std::vector<float>{-8.0f, 0.0f, 14.0f}));
}

TEST(StepRecorder, OpsThatReadBackWaitOrAllocateAreRefusedByName) {
    CpuBackend cpu;
    StepRecorder recorder(cpu);
    Tensor t = recorder.allocate({1, 2}, FormatId::fp32);
    const std::vector<float> ones = {1.0f, 1.0f};
    recorder.upload(ones.data(), t);
    const auto refusal = [&](const std::function<void()>& op) -> std::string {
        try {
            (void)recorder.capture([&] {
                recorder.accumulate(t, t, false);  // kept, then dropped with the refused recording
                op();
            });
        } catch (const CaptureRefused& e) {
            return e.what();
        }
        return "not refused";
    };
    float host[2];
    EXPECT_NE(refusal([&] { recorder.download(t, host); }).find("download"), std::string::npos);
    EXPECT_NE(refusal([&] { (void)recorder.finite_amax(t); }).find("finite_amax"), std::string::npos);
    EXPECT_NE(refusal([&] { (void)recorder.allocate({1, 1}, FormatId::fp32); }).find("allocate"), std::string::npos);
    EXPECT_NE(refusal([&] { recorder.wait_for_queued(); }).find("wait_for_queued"), std::string::npos);
    // Backend's read-back helpers queue a request and wait: the wait is refused.
    EXPECT_NE(refusal([&] { (void)recorder.count_non_finite(t); }).find("wait_for_queued"), std::string::npos);
    // Nothing of the refused recordings ran, and the recorder passes ops on again.
    recorder.download(t, host);
    EXPECT_EQ(std::vector<float>(host, host + 2), ones);
    recorder.accumulate(t, t, false);
    recorder.download(t, host);
    EXPECT_EQ(std::vector<float>(host, host + 2), (std::vector<float>{2.0f, 2.0f}));
}

TEST(StepRecorder, AReplayAfterOneOfItsTensorsWasReallocatedIsAnError) {
    CpuBackend cpu;
    StepRecorder recorder(cpu);
    Tensor t = recorder.allocate({1, 2}, FormatId::fp32);
    const std::unique_ptr<StepGraph> graph = recorder.capture([&] { recorder.accumulate(t, t, false); });
    graph->replay();
    const std::uint64_t before = recorder.allocations();
    t = recorder.allocate({1, 2}, FormatId::fp32);
    EXPECT_EQ(recorder.allocations(), before + 1);  // what tells the trainer its graphs are stale
    try {
        graph->replay();
        FAIL() << "a stale graph replayed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("reallocated"), std::string::npos) << e.what();
    }
}

// A span's elements are copied when recorded: the caller's job list is gone
// by the replay.
TEST(StepRecorder, SpansAreKeptByValue) {
    CpuBackend cpu;
    StepRecorder recorder(cpu);
    Tensor g = recorder.allocate({1, 2}, FormatId::fp16), u = recorder.allocate({1, 2}, FormatId::fp32);
    Tensor state = recorder.allocate({1, kScalerStateWords}, FormatId::fp32);
    Tensor found_inf = recorder.allocate({1, 1}, FormatId::fp32);
    float words[kScalerStateWords];
    store_scaler_state(ScalerState{.scale = 4.0f}, words);
    recorder.upload(words, state);
    const std::vector<float> grads = {2.0f, 6.0f};
    recorder.upload(grads.data(), g);
    std::unique_ptr<StepGraph> graph;
    {
        std::vector<UnscaleJob> jobs = {{&g, &u}};
        graph = recorder.capture([&] { recorder.unscale_all_flagged(jobs, state, found_inf); });
        jobs.assign(4, UnscaleJob{});  // gone, as a caller's temporary list would be
    }
    graph->replay();
    std::vector<float> unscaled(2);
    recorder.download(u, unscaled.data());
    EXPECT_EQ(unscaled, (std::vector<float>{0.5f, 1.5f}));
}

}  // namespace
}  // namespace plab
