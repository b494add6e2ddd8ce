// Array casts on lengths that exercise every tail, aliasing and path selection.
// (All 2^32 inputs are covered by the exhaustive suite.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/common/error.h"
#include "engine/numeric/cast_array.h"
#include "engine/numeric/fast_cast.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = bits_float(static_cast<std::uint32_t>(rng()));
    return v;
}

TEST(CastArray, EveryPathEveryTailLengthMatchesReference) {
    const std::vector<float> in = random_floats(100, 7);
    for (FormatId f : kAllFormats) {
        for (CastPath path : available_paths(f)) {
            for (std::size_t n = 0; n <= in.size(); ++n) {
                std::vector<unsigned char> out(in.size() * 4 + 64, 0xAB);
                encode_array(f, in.data(), out.data(), n, Overflow::nan, path);
                const int bytes = storage_bytes(f);
                for (std::size_t i = 0; i < n; ++i) {
                    std::uint32_t word = 0;
                    std::memcpy(&word, out.data() + i * bytes, bytes);
                    const std::uint32_t want = encode(f, in[i], Overflow::nan);
                    ASSERT_EQ(storage_to_code(f, word), want)
                        << format_name(f) << " " << cast_path_name(path) << " n=" << n << " i=" << i;
                }
                EXPECT_EQ(out[n * bytes], 0xAB) << "wrote past the end: " << cast_path_name(path) << " n=" << n;
            }
        }
    }
}

TEST(CastArray, EveryPathDecodesEveryCodeExactly) {
    for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2}) {
        const std::uint32_t count = 1u << format_params(f).total_bits();
        std::vector<std::uint16_t> codes16(count);
        std::vector<std::uint8_t> codes8(count);
        for (std::uint32_t c = 0; c < count; ++c) codes16[c] = static_cast<std::uint16_t>(c), codes8[c] = static_cast<std::uint8_t>(c);
        const void* codes = storage_bytes(f) == 1 ? static_cast<const void*>(codes8.data()) : codes16.data();
        for (CastPath path : available_paths(f)) {
            std::vector<float> out(count);
            decode_array(f, codes, out.data(), count, path);
            for (std::uint32_t c = 0; c < count; ++c)
                ASSERT_EQ(float_bits(out[c]), float_bits(decode(f, c)))
                    << format_name(f) << " " << cast_path_name(path) << " code 0x" << std::hex << c;
        }
    }
}

TEST(CastArray, DecodeAndRoundAgreeWithReference) {
    const std::vector<float> in = random_floats(5000, 11);
    for (FormatId f : kAllFormats) {
        std::vector<float> rounded(in.size()), in_place = in;
        round_array(f, in.data(), rounded.data(), in.size());
        round_array(f, in_place.data(), in_place.data(), in_place.size());  // aliasing is allowed
        for (std::size_t i = 0; i < in.size(); ++i) {
            const std::uint32_t want = float_bits(round_to(f, in[i]));
            ASSERT_EQ(float_bits(rounded[i]), want) << format_name(f) << " i=" << i;
            ASSERT_EQ(float_bits(in_place[i]), want) << format_name(f) << " i=" << i;
        }
    }
}

// round_fast picks each format's fast cast (exhaustively checked against the
// shared cast for FP16, BF16 and TF32) or the shared cast itself: the same
// value as round_to for every format, NaN payloads and overflow included.
TEST(FastCast, RoundFastIsRoundToForEveryFormat) {
    std::vector<float> in = random_floats(20000, 9);
    for (float v : {0.0f, -0.0f, 65504.0f, 65520.0f, 1e-8f, 3e38f, INFINITY, -INFINITY, NAN}) in.push_back(v);
    for (FormatId f : kAllFormats)
        for (float x : in)
            ASSERT_EQ(float_bits(round_fast(f, x)), float_bits(round_to(f, x)))
                << format_name(f) << " " << float_bits(x);
}

TEST(CastArray, PathsAreChosenFromTheCpu) {
    for (FormatId f : kAllFormats) {
        const auto paths = available_paths(f);
        ASSERT_FALSE(paths.empty());
        EXPECT_EQ(paths.front(), CastPath::portable);
        EXPECT_TRUE(cpu_supports(best_path(f)));
        EXPECT_TRUE(path_handles(best_path(f), f));
    }
    EXPECT_FALSE(path_handles(CastPath::f16c, FormatId::bf16));
    EXPECT_FALSE(path_handles(CastPath::avx512_bf16, FormatId::fp16));
}

TEST(CastArray, AskingForAPathThatCannotRunIsAnError) {
    const float x = 1.0f;
    std::uint16_t out = 0;
    EXPECT_THROW(encode_array(FormatId::bf16, &x, &out, 1, Overflow::saturate, CastPath::f16c), Error);
}

}  // namespace
}  // namespace plab
