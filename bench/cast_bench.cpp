// Throughput of the array casts, per format and path, with memcpy of the same
// bytes as the anchor: compare bytes_per_second within one run.
//   build/dev/bench/cast_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "bench/bench_inputs.h"
#include "engine/numeric/cast_array.h"
#include "engine/numeric/scalar_cast.h"

namespace {

const std::vector<float>& inputs() { return plab::bench::gradient_like_inputs(); }

void memcpy_anchor(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(in.size());
    for (auto _ : state) {
        std::memcpy(out.data(), in.data(), in.size() * sizeof(float));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(float)));
}

void encode(benchmark::State& state, plab::FormatId f, plab::CastPath path) {
    const auto& in = inputs();
    std::vector<float> out(in.size());
    for (auto _ : state) {
        plab::encode_array(f, in.data(), out.data(), in.size(), plab::Overflow::saturate, path);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(float)));
}

void decode(benchmark::State& state, plab::FormatId f, plab::CastPath path) {
    std::vector<float> codes(inputs().size());
    plab::encode_array(f, inputs().data(), codes.data(), codes.size(), plab::Overflow::saturate);
    std::vector<float> out(codes.size());
    for (auto _ : state) {
        plab::decode_array(f, codes.data(), out.data(), out.size(), path);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size() * sizeof(float)));
}

void round_trip(benchmark::State& state, plab::FormatId f, plab::CastPath path) {
    const auto& in = inputs();
    std::vector<float> out(in.size());
    for (auto _ : state) {
        plab::round_array(f, in.data(), out.data(), in.size(), plab::Overflow::saturate, path);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(float)));
}

// Bytes are counted on the FP32 side (4 per element) for every kernel.
void register_all() {
    benchmark::RegisterBenchmark("memcpy", memcpy_anchor);
    for (plab::FormatId f : plab::kAllFormats) {
        if (f == plab::FormatId::fp32) continue;
        for (plab::CastPath p : plab::available_paths(f)) {
            const std::string suffix = std::string(plab::format_name(f)) + "/" + std::string(plab::cast_path_name(p));
            benchmark::RegisterBenchmark(("encode/" + suffix).c_str(), encode, f, p);
            if (plab::storage_bytes(f) < 4) benchmark::RegisterBenchmark(("decode/" + suffix).c_str(), decode, f, p);
            benchmark::RegisterBenchmark(("round/" + suffix).c_str(), round_trip, f, p);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
