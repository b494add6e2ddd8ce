// Every FP32 input, every format, every cast path this CPU has: the array
// casts must give the scalar reference's bits exactly, and the CPU's own
// conversion instructions must agree with the reference too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/numeric/cast_array.h"
#include "engine/numeric/fast_cast.h"
#include "engine/numeric/scalar_cast.h"
#include "hardware_convert.h"

namespace plab {
namespace {

constexpr std::uint64_t kAllInputs = 1ull << 32;
constexpr std::uint32_t kChunk = 1u << 16;

// Runs check(first_bits, inputs, n) over the first `count` bit patterns
// (2^32: every input; 2^31: the non-negative ones) on every core.
// `check` returns a description of the first mismatch in its chunk, or "".
std::string sweep_inputs(std::uint64_t count,
                         const std::function<std::string(std::uint32_t, const float*, std::size_t)>& check) {
    std::atomic<std::uint64_t> next{0};
    std::mutex mutex;
    std::string first_failure;
    std::uint64_t failures = 0;
    auto worker = [&] {
        std::vector<float> inputs(kChunk);
        for (;;) {
            const std::uint64_t start = next.fetch_add(kChunk);
            if (start >= count) return;
            for (std::uint32_t i = 0; i < kChunk; ++i)
                inputs[i] = bits_float(static_cast<std::uint32_t>(start + i));
            std::string failure = check(static_cast<std::uint32_t>(start), inputs.data(), kChunk);
            if (!failure.empty()) {
                std::lock_guard lock(mutex);
                ++failures;
                if (first_failure.empty() || failure < first_failure) first_failure = failure;
            }
        }
    };
    std::vector<std::thread> threads(std::max(1u, std::thread::hardware_concurrency()));
    for (auto& t : threads) t = std::thread(worker);
    for (auto& t : threads) t.join();
    if (failures == 0) return "";
    return std::to_string(failures) + " chunk(s) of 65536 inputs differ; first: " + first_failure;
}

std::string sweep_all_inputs(const std::function<std::string(std::uint32_t, const float*, std::size_t)>& check) {
    return sweep_inputs(kAllInputs, check);
}

std::string hex32(std::uint32_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

// The scalar reference over an array, written in the format's storage words
// (TF32: its FP32 container), with the format fixed at compile time so the
// harness spends its time in the code under test.
template <FormatId F>
void reference_cast(const float* in, void* storage, float* rounded, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    auto* words = static_cast<StorageWord<F>*>(storage);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t code = encode(p, in[i], mode);
        words[i] = static_cast<StorageWord<F>>(code_to_storage(F, code));
        rounded[i] = decode(p, code);
    }
}

void reference_cast(FormatId f, const float* in, void* storage, float* rounded, std::size_t n, Overflow mode) {
    switch (f) {
        case FormatId::fp32: return reference_cast<FormatId::fp32>(in, storage, rounded, n, mode);
        case FormatId::tf32: return reference_cast<FormatId::tf32>(in, storage, rounded, n, mode);
        case FormatId::fp16: return reference_cast<FormatId::fp16>(in, storage, rounded, n, mode);
        case FormatId::bf16: return reference_cast<FormatId::bf16>(in, storage, rounded, n, mode);
        case FormatId::e4m3: return reference_cast<FormatId::e4m3>(in, storage, rounded, n, mode);
        case FormatId::e5m2: return reference_cast<FormatId::e5m2>(in, storage, rounded, n, mode);
    }
}

// First element where two storage arrays differ, described; "" when equal.
std::string first_storage_difference(const char* what, const float* inputs, const unsigned char* expected,
                                     const unsigned char* got, std::size_t n, int bytes) {
    if (std::memcmp(expected, got, n * bytes) == 0) return "";
    std::size_t i = 0;
    while (std::memcmp(expected + i * bytes, got + i * bytes, bytes) == 0) ++i;
    std::uint32_t want = 0, have = 0;
    std::memcpy(&want, expected + i * bytes, bytes);
    std::memcpy(&have, got + i * bytes, bytes);
    return std::string(what) + ": input " + hex32(float_bits(inputs[i])) + " expected " + hex32(want) + " got " +
           hex32(have);
}

template <typename Word>
std::string first_difference(const char* what, const float* inputs, const Word* expected, const Word* got,
                             std::size_t n) {
    return first_storage_difference(what, inputs, reinterpret_cast<const unsigned char*>(expected),
                                    reinterpret_cast<const unsigned char*>(got), n, sizeof(Word));
}

struct Case {
    FormatId format;
    Overflow mode;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
    return std::string(format_name(info.param.format)) + "_" + std::string(overflow_name(info.param.mode));
}

class ExhaustiveCast : public testing::TestWithParam<Case> {};

// -x from x by the sign bit alone: the reference takes the sign aside before
// anything else (NaN keeps its sign too), so a negative chunk's reference is
// its positive twin's with the top bit of every word set. Halves the scalar
// reference's time; every kSymmetryEvery-th negative chunk is still encoded
// by the reference itself and must agree. The portable path, the
// reference's own scalar code in a loop (the sweep's largest part), is
// checked on those negative chunks only; the vector paths on every input.
constexpr std::uint32_t kSymmetryEvery = 16;
constexpr std::uint32_t kNegative = 0x80000000u;

void negate_words(const unsigned char* in, unsigned char* out, std::size_t n, int bytes) {
    std::memcpy(out, in, n * bytes);
    for (std::size_t i = 0; i < n; ++i) out[i * bytes + bytes - 1] ^= 0x80;  // little-endian: the top byte
}

void negate_floats(const float* in, float* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = bits_float(float_bits(in[i]) ^ kNegative);
}

struct CastResults {
    std::vector<unsigned char> storage;
    std::vector<float> rounded;
    void resize(std::size_t n) { storage.resize(n * 4), rounded.resize(n); }
};

// Every path's encode (but the portable one's unless `portable`) and
// round_array on `in` against the expected results.
std::string compare_paths(const Case& c, const std::vector<CastPath>& paths, const float* in, std::size_t n,
                          const CastResults& expected, bool portable = true) {
    thread_local CastResults got;
    got.resize(n);
    const int bytes = storage_bytes(c.format);
    for (CastPath path : paths) {
        if (path == CastPath::portable && !portable) continue;
        encode_array(c.format, in, got.storage.data(), n, c.mode, path);
        std::string diff = first_storage_difference(cast_path_name(path).data(), in, expected.storage.data(),
                                                    got.storage.data(), n, bytes);
        if (!diff.empty()) return diff;
    }
    round_array(c.format, in, got.rounded.data(), n, c.mode);
    const auto* want = reinterpret_cast<const std::uint32_t*>(expected.rounded.data());
    const auto* have = reinterpret_cast<const std::uint32_t*>(got.rounded.data());
    return first_difference("round_array", in, want, have, n);
}

// All paths' encode, and the best path's decode and round, against the reference.
TEST_P(ExhaustiveCast, EveryPathMatchesScalarReferenceOnAllInputs) {
    const Case c = GetParam();
    const std::vector<CastPath> paths = available_paths(c.format);
    const int bytes = storage_bytes(c.format);
    std::cout << "paths checked for " << format_name(c.format) << ":";
    for (CastPath p : paths) std::cout << ' ' << cast_path_name(p);
    std::cout << '\n';

    const std::string failure =
        sweep_inputs(kAllInputs / 2, [&](std::uint32_t first, const float* in, std::size_t n) -> std::string {
            // Per-thread buffers: allocating 256 KiB per chunk would be an mmap each time.
            thread_local CastResults reference, negated, direct;
            thread_local std::vector<float> negative;
            reference.resize(n), negated.resize(n), direct.resize(n), negative.resize(n);
            reference_cast(c.format, in, reference.storage.data(), reference.rounded.data(), n, c.mode);
            std::string diff = compare_paths(c, paths, in, n, reference);
            if (!diff.empty()) return diff;

            negate_floats(in, negative.data(), n);
            negate_words(reference.storage.data(), negated.storage.data(), n, bytes);
            negate_floats(reference.rounded.data(), negated.rounded.data(), n);
            const bool direct_check = (first / kChunk) % kSymmetryEvery == 0;
            if (direct_check) {
                reference_cast(c.format, negative.data(), direct.storage.data(), direct.rounded.data(), n, c.mode);
                diff = first_storage_difference("reference's sign symmetry", negative.data(), direct.storage.data(),
                                                negated.storage.data(), n, bytes);
                if (!diff.empty()) return diff;
            }
            return compare_paths(c, paths, negative.data(), n, negated, direct_check);
        });
    EXPECT_EQ(failure, "");
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ExhaustiveCast,
                         testing::Values(Case{FormatId::fp32, Overflow::saturate},
                                         Case{FormatId::tf32, Overflow::saturate},
                                         Case{FormatId::fp16, Overflow::saturate},
                                         Case{FormatId::bf16, Overflow::saturate},
                                         Case{FormatId::e4m3, Overflow::saturate}, Case{FormatId::e4m3, Overflow::nan},
                                         Case{FormatId::e5m2, Overflow::saturate}, Case{FormatId::e5m2, Overflow::nan}),
                         case_name);

TEST(HardwareInstructions, Fp16ReferenceMatchesVcvtps2phOnAllInputs) {
    if (!test::cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C";
    const std::string failure = sweep_all_inputs([](std::uint32_t, const float* in, std::size_t n) {
        thread_local std::vector<std::uint16_t> hardware, reference;
        hardware.resize(n), reference.resize(n);
        test::hardware_fp32_to_fp16(in, hardware.data(), n);
        constexpr FormatParams fp16 = format_params(FormatId::fp16);
        for (std::size_t i = 0; i < n; ++i) reference[i] = static_cast<std::uint16_t>(encode(fp16, in[i]));
        return first_difference("vcvtps2ph", in, hardware.data(), reference.data(), n);
    });
    EXPECT_EQ(failure, "");
}

// vcvtneps2bf16 treats FP32 subnormal inputs as zero (the Intel SDM says so);
// the reference rounds them into BF16's subnormals. Everywhere else the two
// must agree, and on subnormal inputs the instruction must give a signed zero.
TEST(HardwareInstructions, Bf16ReferenceMatchesVcvtneps2bf16OnAllInputs) {
    if (!test::cpu_has_avx512_bf16()) GTEST_SKIP() << "this CPU has no AVX-512 BF16";
    const std::string failure = sweep_all_inputs([](std::uint32_t, const float* in, std::size_t n) {
        thread_local std::vector<std::uint16_t> hardware, reference;
        hardware.resize(n), reference.resize(n);
        test::hardware_fp32_to_bf16(in, hardware.data(), n);
        constexpr FormatParams bf16 = format_params(FormatId::bf16);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t u = float_bits(in[i]);
            const bool subnormal = (u & 0x7f800000u) == 0;
            reference[i] = subnormal ? static_cast<std::uint16_t>(u >> 16 & 0x8000u)
                                     : static_cast<std::uint16_t>(encode(bf16, in[i]));
        }
        return first_difference("vcvtneps2bf16", in, hardware.data(), reference.data(), n);
    });
    EXPECT_EQ(failure, "");
}

TEST(HardwareInstructions, Fp16DecodeMatchesVcvtph2psOnAllCodes) {
    if (!test::cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C";
    std::vector<std::uint16_t> codes(1u << 16);
    for (std::uint32_t c = 0; c < codes.size(); ++c) codes[c] = static_cast<std::uint16_t>(c);
    std::vector<float> hardware(codes.size()), engine(codes.size());
    test::hardware_fp16_to_fp32(codes.data(), hardware.data(), codes.size());
    for (CastPath path : available_paths(FormatId::fp16)) {
        decode_array(FormatId::fp16, codes.data(), engine.data(), codes.size(), path);
        for (std::uint32_t c = 0; c < codes.size(); ++c) {
            ASSERT_EQ(float_bits(engine[c]), float_bits(hardware[c])) << "code " << hex32(c) << " path "
                                                                     << cast_path_name(path);
            ASSERT_EQ(float_bits(decode(FormatId::fp16, c)), float_bits(hardware[c])) << "code " << hex32(c);
        }
    }
}

// The GPU's fast casts (fast_cast.h) against the array casts, which the
// test above holds to the scalar reference on every input.
TEST(FastCast, EncodeAndRoundMatchTheSharedCastOnAllInputs) {
    const std::string failure = sweep_all_inputs([](std::uint32_t, const float* in, std::size_t n) -> std::string {
        thread_local std::vector<std::uint16_t> reference, fast;
        reference.resize(n), fast.resize(n);
        encode_array(FormatId::fp16, in, reference.data(), n);
        for (std::size_t i = 0; i < n; ++i) fast[i] = encode_fp16(in[i]);
        std::string diff = first_difference("encode_fp16", in, reference.data(), fast.data(), n);
        if (!diff.empty()) return diff;
        encode_array(FormatId::bf16, in, reference.data(), n);
        for (std::size_t i = 0; i < n; ++i) fast[i] = encode_bf16(in[i]);
        std::string diff_bf16 = first_difference("encode_bf16", in, reference.data(), fast.data(), n);
        if (!diff_bf16.empty()) return diff_bf16;
        thread_local std::vector<float> rounded, fast_rounded;
        rounded.resize(n), fast_rounded.resize(n);
        round_array(FormatId::tf32, in, rounded.data(), n);
        for (std::size_t i = 0; i < n; ++i) fast_rounded[i] = round_tf32(in[i]);
        return first_difference("round_tf32", in, reinterpret_cast<const std::uint32_t*>(rounded.data()),
                                reinterpret_cast<const std::uint32_t*>(fast_rounded.data()), n);
    });
    EXPECT_EQ(failure, "");
}

TEST(FastCast, DecodeMatchesTheSharedCastOnAllCodes) {
    for (std::uint32_t c = 0; c < (1u << 16); ++c) {
        const auto code = static_cast<std::uint16_t>(c);
        ASSERT_EQ(float_bits(decode_fp16(code)), float_bits(decode(FormatId::fp16, c))) << "fp16 code " << hex32(c);
        ASSERT_EQ(float_bits(decode_bf16(code)), float_bits(decode(FormatId::bf16, c))) << "bf16 code " << hex32(c);
    }
}

}  // namespace
}  // namespace plab
