// Telemetry statistics (engine/telemetry/tensor_stats*) against slow references
// written plainly here:
//  * divisor 1: every element cast with round_to() and classified by the result;
//  * any divisor: y = x / d classified by exact comparisons of |x| with T * d in
//    long double (exact for the divisors used), T the format's rounding midpoints
//    taken from docs/DESIGN.md's table, with the tie-to-even direction reasoned out
//    by hand (the two references are also checked against each other);
//  * histogram: floor(4 log2 y) in long double away from the edges, and exact
//    integer comparisons x^4 >= d^4 2^t around every edge 2^(t/4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats.h"
#include "engine/telemetry/tensor_stats_exact.h"
#include "engine/telemetry/tensor_stats_path.h"

namespace plab {
namespace {

// ---------------------------------------------------------------------------
// Format facts, from docs/DESIGN.md's table ("Number formats").

struct FormatFacts {
    FormatId format;
    long double min_subnormal;
    long double min_normal;
    long double max;
    long double top_spacing;  // gap below the largest finite value
    bool max_is_odd;          // largest mantissa odd: the tie above max rounds away (overflows)
};

const FormatFacts kFacts[] = {
    {FormatId::fp16, 0x1p-24L, 0x1p-14L, 65504.0L, 32.0L, true},
    {FormatId::bf16, 0x1p-133L, 0x1p-126L, 0x1.fep127L, 0x1p120L, true},
    {FormatId::e4m3, 0x1p-9L, 0x1p-6L, 448.0L, 32.0L, false},  // 448 = 1.110b x 2^8
    {FormatId::e5m2, 0x1p-16L, 0x1p-14L, 57344.0L, 8192.0L, true},
};

enum class RangeClass { none, underflow, subnormal, overflow };

// Reference 1 (divisor 1): cast the element and look at what it became.
RangeClass class_by_cast(const FormatFacts& f, float x) {
    if (!std::isfinite(x) || x == 0) return RangeClass::none;
    const float r = round_to(f.format, x, Overflow::nan);  // nan mode: E4M3 overflow shows as NaN
    if (!std::isfinite(r)) return RangeClass::overflow;
    if (r == 0) return RangeClass::underflow;
    if (std::fabs(static_cast<long double>(r)) < f.min_normal) return RangeClass::subnormal;
    return RangeClass::none;
}

// Reference 2 (any divisor): y = |x| / d against the rounding midpoints, as
// |x| against midpoint * d, exact in long double for the divisors used here.
// Ties go to even: zero below the smallest subnormal, the smallest normal
// above the largest subnormal, and above max to whichever neighbour is even.
RangeClass class_by_bounds(const FormatFacts& f, float x, long double d) {
    if (!std::isfinite(x) || x == 0) return RangeClass::none;
    const long double ax = std::fabs(static_cast<long double>(x));
    const long double zero_mid = f.min_subnormal / 2 * d;
    const long double normal_mid = (f.min_normal - f.min_subnormal / 2) * d;
    const long double over_mid = (f.max + f.top_spacing / 2) * d;
    if (ax <= zero_mid) return RangeClass::underflow;
    if (ax < normal_mid) return RangeClass::subnormal;
    if (f.max_is_odd ? ax >= over_mid : ax > over_mid) return RangeClass::overflow;
    return RangeClass::none;
}

struct Reference {
    std::int64_t count = 0, zeros = 0, nans = 0, pos_infs = 0, neg_infs = 0, finite = 0;
    long double sum_abs = 0, sum_sq = 0, amax = 0;
    std::int64_t classes[4][4] = {};  // [format][RangeClass]
};

Reference reference(const std::vector<float>& x, long double d, bool by_cast) {
    Reference r;
    r.count = static_cast<std::int64_t>(x.size());
    for (float v : x) {
        if (std::isnan(v)) {
            ++r.nans;
        } else if (std::isinf(v)) {
            ++(v > 0 ? r.pos_infs : r.neg_infs);
        } else {
            if (v == 0) ++r.zeros;
            ++r.finite;
            const long double a = std::fabs(static_cast<long double>(v));
            r.sum_abs += a;
            r.sum_sq += a * a;
            r.amax = std::max(r.amax, a);
        }
        for (int i = 0; i < 4; ++i) {
            const RangeClass c = by_cast ? class_by_cast(kFacts[i], v) : class_by_bounds(kFacts[i], v, d);
            ++r.classes[i][static_cast<int>(c)];
        }
    }
    return r;
}

float fraction(std::int64_t part, std::int64_t n) {
    return n == 0 ? 0.0f : static_cast<float>(static_cast<double>(part) / static_cast<double>(n));
}

void expect_matches(const TensorStats& s, const Reference& r, long double d, const std::string& where) {
    SCOPED_TRACE(where);
    EXPECT_EQ(s.count, r.count);
    EXPECT_EQ(s.zeros, r.zeros);
    EXPECT_EQ(s.nans, r.nans);
    EXPECT_EQ(s.pos_infs, r.pos_infs);
    EXPECT_EQ(s.neg_infs, r.neg_infs);
    const long double m = static_cast<long double>(r.finite);
    EXPECT_FLOAT_EQ(s.amax, r.finite ? static_cast<float>(r.amax / d) : 0.0f);
    EXPECT_FLOAT_EQ(s.mean_abs, r.finite ? static_cast<float>(r.sum_abs / m / d) : 0.0f);
    EXPECT_FLOAT_EQ(s.rms, r.finite ? static_cast<float>(std::sqrt(r.sum_sq / m) / d) : 0.0f);
    for (int i = 0; i < 4; ++i) {
        SCOPED_TRACE(std::string(format_name(kFacts[i].format)));
        EXPECT_EQ(s.ranges[i].underflow, fraction(r.classes[i][1], r.count));
        EXPECT_EQ(s.ranges[i].subnormal, fraction(r.classes[i][2], r.count));
        EXPECT_EQ(s.ranges[i].overflow, fraction(r.classes[i][3], r.count));
    }
}

// Every field, bit for bit.
void expect_identical(const TensorStats& a, const TensorStats& b, const std::string& where) {
    SCOPED_TRACE(where);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.zeros, b.zeros);
    EXPECT_EQ(a.nans, b.nans);
    EXPECT_EQ(a.pos_infs, b.pos_infs);
    EXPECT_EQ(a.neg_infs, b.neg_infs);
    EXPECT_EQ(float_bits(a.amax), float_bits(b.amax));
    EXPECT_EQ(float_bits(a.mean_abs), float_bits(b.mean_abs));
    EXPECT_EQ(float_bits(a.rms), float_bits(b.rms));
    for (std::size_t i = 0; i < a.ranges.size(); ++i) {
        EXPECT_EQ(a.ranges[i].underflow, b.ranges[i].underflow);
        EXPECT_EQ(a.ranges[i].subnormal, b.ranges[i].subnormal);
        EXPECT_EQ(a.ranges[i].overflow, b.ranges[i].overflow);
    }
}

std::string describe(float v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a (0x%08x)", static_cast<double>(v), float_bits(v));
    return buf;
}

// Values around every class boundary of every format, for divisor d: each
// midpoint (and the format values beside it) times d, rounded to FP32, +-3
// ulps, both signs; plus FP32's own special and extreme values.
std::vector<float> edge_values(long double d) {
    std::vector<float> centres;
    for (const FormatFacts& f : kFacts) {
        for (long double c : {f.min_subnormal / 2, f.min_subnormal, f.min_normal - f.min_subnormal,
                              f.min_normal - f.min_subnormal / 2, f.min_normal, f.max - f.top_spacing, f.max,
                              f.max + f.top_spacing / 2, f.max + f.top_spacing})
            centres.push_back(static_cast<float>(c * d));
    }
    std::vector<float> out;
    for (float c : centres) {
        float lo = c;
        for (int i = 0; i < 3; ++i) lo = std::nextafter(lo, 0.0f);
        float v = lo;
        for (int i = 0; i < 7; ++i, v = std::nextafter(v, FLT_MAX)) {
            out.push_back(v);
            out.push_back(-v);
        }
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (float v : {0.0f, -0.0f, nan, -nan, bits_float(0x7f800001u), inf, -inf, FLT_MAX, -FLT_MAX, FLT_MIN,
                    FLT_TRUE_MIN, -FLT_TRUE_MIN, bits_float(0x007fffffu), bits_float(0x00400000u), 1e38f, 1.0f,
                    -3.0f, 65504.0f, 65520.0f, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f})
        out.push_back(v);
    return out;
}

// Random FP32 bit patterns (every exponent, NaN and Inf included) and
// log-uniform magnitudes from 2^-150 to 2^128, with random signs.
std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> exponent(-150.0, 128.0);
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 2 == 0) {
            out[i] = bits_float(static_cast<std::uint32_t>(rng()));
        } else {
            const float v = static_cast<float>(std::exp2(exponent(rng)));
            out[i] = rng() % 2 ? v : -v;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// Range classes and summary statistics

TEST(TensorStats, FactsMatchTheFormatsTelemetryUses) {
    ASSERT_EQ(kRangeFormats.size(), std::size(kFacts));
    for (std::size_t i = 0; i < kRangeFormats.size(); ++i) EXPECT_EQ(kRangeFormats[i], kFacts[i].format);
}

// The two references agree at divisor 1 on every edge: the hand-reasoned tie
// directions in class_by_bounds are those of the casts.
TEST(TensorStats, ReferencesAgreeWithEachOther) {
    for (float v : edge_values(1.0L))
        for (const FormatFacts& f : kFacts)
            ASSERT_EQ(class_by_cast(f, v), class_by_bounds(f, v, 1.0L)) << format_name(f.format) << " " << describe(v);
}

TEST(TensorStats, EachEdgeValueIsClassifiedLikeItsCast) {
    for (StatsPath path : available_stats_paths()) {
        for (float v : edge_values(1.0L)) {
            const std::vector<float> one = {v};
            const TensorStats s = compute_tensor_stats(one.data(), 1, 1.0, path);
            expect_matches(s, reference(one, 1.0L, true), 1.0L,
                           std::string(stats_path_name(path)) + " value " + describe(v));
            if (HasFailure()) return;
        }
    }
}

TEST(TensorStats, RandomValuesOverTheWholeRangeMatchTheCastReference) {
    const std::vector<float> x = random_values(300000, 7);
    const Reference ref = reference(x, 1.0L, true);
    const TensorStats best = compute_tensor_stats(x.data(), x.size());
    expect_matches(best, ref, 1.0L, "best path");
    for (StatsPath path : available_stats_paths()) {
        const TensorStats s = compute_tensor_stats(x.data(), x.size(), 1.0, path);
        expect_identical(s, best, stats_path_name(path).data());
    }
}

TEST(TensorStats, GradientLikeValuesGiveTheExpectedFractions) {
    // Half of these flush to zero in FP16 (below 2^-25), none in BF16.
    std::vector<float> x;
    for (int i = 0; i < 1000; ++i) x.push_back(i % 2 ? 1e-8f : 1e-3f);
    const TensorStats s = compute_tensor_stats(x.data(), x.size());
    EXPECT_EQ(s.ranges[0].underflow, 0.5f);
    EXPECT_EQ(s.ranges[0].subnormal, 0.0f);
    EXPECT_EQ(s.ranges[1].underflow, 0.0f);
    EXPECT_EQ(s.ranges[2].underflow, 0.5f);  // E4M3: 1e-8 is below 2^-10, 1e-3 just above it
    EXPECT_EQ(s.ranges[2].subnormal, 0.5f);
    EXPECT_FLOAT_EQ(s.amax, 1e-3f);
    EXPECT_FLOAT_EQ(s.mean_abs, static_cast<float>((1e-8 * 500 + 1e-3 * 500) / 1000));
}

TEST(TensorStats, EveryLengthAndEveryPathMatchTheReference) {
    const std::vector<float> all = random_values(5000, 11);
    for (std::size_t n : {0u, 1u, 7u, 15u, 16u, 17u, 31u, 33u, 2047u, 2048u, 2049u, 4097u, 5000u}) {
        const std::vector<float> x(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
        const Reference ref = reference(x, 1.0L, true);
        for (StatsPath path : available_stats_paths())
            expect_matches(compute_tensor_stats(x.data(), n, 1.0, path), ref, 1.0L,
                           std::string(stats_path_name(path)) + " n=" + std::to_string(n));
    }
}

TEST(TensorStats, EmptyAndNonFiniteOnlyTensorsHaveZeroMagnitudes) {
    const TensorStats empty = compute_tensor_stats(nullptr, 0);
    EXPECT_EQ(empty.count, 0);
    EXPECT_EQ(empty.amax, 0.0f);
    EXPECT_EQ(empty.ranges[0].underflow, 0.0f);
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> x = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, -inf};
    const TensorStats s = compute_tensor_stats(x.data(), x.size(), 65536.0);
    EXPECT_EQ(s.nans, 1);
    EXPECT_EQ(s.pos_infs, 1);
    EXPECT_EQ(s.neg_infs, 2);
    EXPECT_EQ(s.amax, 0.0f);
    EXPECT_EQ(s.mean_abs, 0.0f);
    EXPECT_EQ(s.rms, 0.0f);
    EXPECT_EQ(s.ranges[0].overflow, 0.0f);  // Inf is not a finite value that overflows
}

class DivisorTest : public ::testing::TestWithParam<long double> {};

TEST_P(DivisorTest, EdgeValuesMatchTheExactReference) {
    const long double d = GetParam();
    for (StatsPath path : available_stats_paths()) {
        for (float v : edge_values(d)) {
            const std::vector<float> one = {v};
            const TensorStats s = compute_tensor_stats(one.data(), 1, static_cast<double>(d), path);
            expect_matches(s, reference(one, d, false), d,
                           std::string(stats_path_name(path)) + " value " + describe(v));
            if (HasFailure()) return;
        }
    }
}

TEST_P(DivisorTest, RandomValuesMatchTheExactReference) {
    const long double d = GetParam();
    std::vector<float> x = random_values(200000, 13);
    const std::vector<float> edges = edge_values(d);
    x.insert(x.end(), edges.begin(), edges.end());
    const Reference ref = reference(x, d, false);
    const TensorStats best = compute_tensor_stats(x.data(), x.size(), static_cast<double>(d));
    expect_matches(best, ref, d, "best path");
    for (StatsPath path : available_stats_paths())
        expect_identical(compute_tensor_stats(x.data(), x.size(), static_cast<double>(d), path), best,
                         stats_path_name(path).data());
}

std::string divisor_name(const ::testing::TestParamInfo<long double>& p) {
    if (p.param == 65536.0L) return "d65536";
    if (p.param == 3.0L) return "d3";
    if (p.param == 1.0L / 1024) return "d1_1024";
    if (p.param == 1.0L / 16777216) return "d1_2p24";
    return "d1";
}

// 2^-24: a gradient times the default initial loss scale, as the twin's scaled view takes it.
INSTANTIATE_TEST_SUITE_P(Divisors, DivisorTest,
                         ::testing::Values(1.0L, 65536.0L, 3.0L, 1.0L / 1024, 1.0L / 16777216), divisor_name);

// Unscaling by an exact power of two is the same as scaling the data.
TEST(TensorStats, PowerOfTwoDivisorEqualsDividingTheData) {
    for (long double d : {65536.0L, 1.0L / 1024}) {
        std::vector<float> x, y;
        for (float v : random_values(20000, 17)) {
            const float q = static_cast<float>(v / d);
            if (std::isfinite(v) && q != 0 && static_cast<long double>(q) * d == v) {  // exact quotients only
                x.push_back(v);
                y.push_back(q);
            }
        }
        EXPECT_GT(x.size(), 1000u);
        const TensorStats a = compute_tensor_stats(x.data(), x.size(), static_cast<double>(d));
        const TensorStats b = compute_tensor_stats(y.data(), y.size());
        for (std::size_t i = 0; i < a.ranges.size(); ++i) {
            EXPECT_EQ(a.ranges[i].underflow, b.ranges[i].underflow);
            EXPECT_EQ(a.ranges[i].subnormal, b.ranges[i].subnormal);
            EXPECT_EQ(a.ranges[i].overflow, b.ranges[i].overflow);
        }
    }
}

// Tensors like the ones telemetry sees, whose chunks cover only part of the
// FP32 range, so that the scans resolve most thresholds from a chunk's range
// and count the rest: gradients (normal * 1e-3, some exact zeros), post-ReLU
// activations (half zeros), a chunk of zeros among values, and non-finite
// values in one chunk only. Then the same held in FP16 and BF16, whose low
// bits are zero, so that the AVX-512 path counts them on 16-bit keys: scaled
// FP16 gradients with zeros, FP16 post-ReLU activations, BF16 values over
// most of the range (too wide for keys in places), and FP16 gradients with
// one FP32 value just above a threshold (keys refused once built).
std::vector<std::vector<float>> narrow_tensors() {
    std::mt19937 rng(29);
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    std::uniform_real_distribution<float> exponent(-130.0f, 127.0f);
    std::vector<std::vector<float>> out;
    for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{2048}, std::size_t{2049}, std::size_t{9000}}) {
        std::vector<float> grad(n), relu(n), mixed(n), fp16_grad(n), fp16_relu(n), bf16_wide(n);
        for (std::size_t i = 0; i < n; ++i) {
            grad[i] = i % 97 == 3 ? 0.0f : gauss(rng) * 1e-3f;
            relu[i] = std::max(gauss(rng), 0.0f);
            mixed[i] = i < 2048 ? 0.0f : gauss(rng) * 3e4f;  // fp16 and e5m2 overflow in places
            fp16_grad[i] = i % 3 == 1 ? 0.0f : round_to(FormatId::fp16, gauss(rng) * std::exp2(4.0f * gauss(rng)));
            fp16_relu[i] = round_to(FormatId::fp16, std::max(gauss(rng), 0.0f));
            bf16_wide[i] = round_to(FormatId::bf16, (i % 2 ? 1.0f : -1.0f) * std::exp2(exponent(rng)));
        }
        if (n > 4000) {
            mixed[5000] = std::numeric_limits<float>::infinity();
            mixed[5001] = -std::numeric_limits<float>::infinity();
            mixed[5002] = std::numeric_limits<float>::quiet_NaN();
        }
        std::vector<float> fp16_one_fp32 = fp16_grad;
        fp16_one_fp32[n / 2] = std::nextafter(0x1p-10f, 1.0f);  // just above E4M3's midpoint to zero, 2^-10
        for (const std::vector<float>& x : {grad, relu, mixed, std::vector<float>(n, 0.0f), fp16_grad, fp16_relu,
                                             bf16_wide, fp16_one_fp32})
            out.push_back(x);
    }
    return out;
}

TEST(TensorStats, NarrowTensorsMatchTheExactReference) {
    for (long double d : {1.0L, 65536.0L, 3.0L}) {
        for (const std::vector<float>& x : narrow_tensors()) {
            const std::string where = "n " + std::to_string(x.size()) + " divisor " + std::to_string(double(d));
            const TensorStats best = compute_tensor_stats(x.data(), x.size(), static_cast<double>(d));
            expect_matches(best, reference(x, d, false), d, where);
            for (StatsPath path : available_stats_paths())
                expect_identical(compute_tensor_stats(x.data(), x.size(), static_cast<double>(d), path), best,
                                 where + " " + std::string(stats_path_name(path)));
            if (HasFailure()) return;
        }
    }
}

// The one-pass pair gives exactly what two single scans give, on every path.
TEST(TensorStats, PairEqualsTwoScans) {
    std::vector<std::vector<float>> tensors = narrow_tensors();
    tensors.push_back(random_values(5000, 31));
    for (double d : {65536.0, 3.0, 1.0 / 1024, 1.0}) {
        for (const std::vector<float>& x : tensors) {
            const std::string where = "n " + std::to_string(x.size()) + " divisor " + std::to_string(d);
            const TensorStats held = compute_tensor_stats(x.data(), x.size(), 1.0);
            const TensorStats divided = compute_tensor_stats(x.data(), x.size(), d);
            for (StatsPath path : available_stats_paths()) {
                const TensorStatsPair pair = compute_tensor_stats_pair(x.data(), x.size(), d, path);
                expect_identical(pair.held, held, where + " held " + std::string(stats_path_name(path)));
                expect_identical(pair.divided, divided, where + " divided " + std::string(stats_path_name(path)));
            }
            if (HasFailure()) return;
        }
    }
}

TEST(TensorStats, BadDivisorsAreRejected) {
    const float x = 1.0f;
    for (double d : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
        try {
            compute_tensor_stats(&x, 1, d);
            ADD_FAILURE() << "accepted divisor " << d;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("telemetry.divisor"), std::string::npos) << e.what();
        }
        Log2Histogram h;
        EXPECT_THROW(add_to_histogram(&x, 1, d, h), Error);
    }
}

TEST(TensorStats, PathsAreChosenFromTheCpu) {
    const std::vector<StatsPath> paths = available_stats_paths();
    ASSERT_FALSE(paths.empty());
    EXPECT_EQ(paths.front(), StatsPath::portable);
    EXPECT_NE(std::find(paths.begin(), paths.end(), best_stats_path()), paths.end());
    for (StatsPath p : kAllStatsPaths) {
        if (std::find(paths.begin(), paths.end(), p) != paths.end()) continue;
        const float x = 1.0f;
        EXPECT_THROW(compute_tensor_stats(&x, 1, 1.0, p), Error) << stats_path_name(p);
    }
}

TEST(TensorStats, FiniteAmaxSkipsWhatIsNotFinite) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x = random_values(10001, 19);
    std::int64_t non_finite = 0;
    float amax = 0;
    for (float v : x) {
        if (!std::isfinite(v))
            ++non_finite;
        else
            amax = std::max(amax, std::fabs(v));
    }
    EXPECT_GT(non_finite, 0);
    EXPECT_EQ(finite_amax(x.data(), x.size()), amax);
    const std::vector<float> bad = {nan, -inf, inf};
    EXPECT_EQ(finite_amax(bad.data(), bad.size()), 0.0f);
    const std::vector<float> few = {-2.5f, 0.0f, 1.0f};
    EXPECT_EQ(finite_amax(few.data(), few.size()), 2.5f);
}

// ---------------------------------------------------------------------------
// Histogram

__extension__ typedef unsigned __int128 U128;

// A divisor D * 2^b with a small odd D, so that D^4 stays small.
struct Divisor {
    unsigned significand;
    int exponent;
    long double value() const { return std::ldexp(static_cast<long double>(significand), exponent); }
};

// Sign of |x|^4 - d^4 2^t, i.e. whether |x| / d is at or above the edge 2^(t/4). Integers only.
int compare_with_edge(float x, Divisor d, int t) {
    int e = 0;
    const double m = std::frexp(std::fabs(static_cast<double>(x)), &e);
    const U128 sig = static_cast<std::uint64_t>(std::ldexp(m, 24));  // |x| = sig * 2^(e - 24)
    U128 lhs = sig * sig * sig * sig;                                 // < 2^96
    const U128 d4 = static_cast<U128>(d.significand) * d.significand * d.significand * d.significand;
    const int shift = 4 * d.exponent + t - 4 * (e - 24);  // compare lhs with d4 * 2^shift
    U128 rhs = d4;
    if (shift >= 0) {
        if (shift > 120) return -1;
        rhs <<= shift;
    } else {
        if (-shift > 31) return 1;
        lhs <<= -shift;
    }
    return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

int clamp_bin(long long b) { return static_cast<int>(std::clamp<long long>(b, 0, Log2Histogram::kBins - 1)); }

// The bin of |x| / d by exact comparisons alone: the largest t with |x| / d >= 2^(t/4).
int exact_bin(float x, Divisor d) {
    if (!std::isfinite(x) || x == 0) return -1;  // counted apart from the bins
    int t = static_cast<int>(
            std::floor(4 * (std::log2(std::fabs(static_cast<long double>(x))) - std::log2(d.value()))));
    while (compare_with_edge(x, d, t + 1) >= 0) ++t;
    while (compare_with_edge(x, d, t) < 0) --t;
    return clamp_bin(t + 256LL);
}

// The bin add_to_histogram() puts x in, the same on every path (-1: none).
int bin_of(float x, double divisor) {
    int bin = -2;
    for (StatsPath path : available_stats_paths()) {
        Log2Histogram h;
        add_to_histogram(&x, 1, divisor, h, path);
        int found = -1;
        for (int i = 0; i < Log2Histogram::kBins; ++i)
            if (h.bins[static_cast<std::size_t>(i)] == 1) found = i;
        if (bin != -2 && found != bin) return -3;  // paths disagree
        bin = found;
    }
    return bin;
}

const Divisor kHistogramDivisors[] = {{1, 0}, {1, 16}, {3, 0}, {1, -10}, {1, -100}};

TEST(Log2Histogram, EveryEdgeIsExact) {
    for (const Divisor& d : kHistogramDivisors) {
        const long double dv = d.value();
        for (int t = -262; t <= 132; ++t) {
            const long double edge_log2 = std::log2(dv) + t / 4.0L;
            if (edge_log2 < -147 || edge_log2 > 127) continue;  // x and two floats below it are non-zero
            // The smallest float at or above the edge, found with the exact comparison.
            float x = static_cast<float>(std::exp2(edge_log2));
            while (compare_with_edge(std::nextafter(x, 0.0f), d, t) >= 0) x = std::nextafter(x, 0.0f);
            while (compare_with_edge(x, d, t) < 0) x = std::nextafter(x, FLT_MAX);
            const float below = std::nextafter(x, 0.0f);
            const int upper = clamp_bin(t + 256LL);
            const std::string where = "divisor " + std::to_string(static_cast<double>(dv)) + " edge 2^(" +
                                      std::to_string(t) + "/4) at " + describe(x);
            ASSERT_EQ(bin_of(x, static_cast<double>(dv)), upper) << where;
            ASSERT_EQ(bin_of(-x, static_cast<double>(dv)), upper) << where;
            // The float below the edge: in the bin below (or further down, where FP32 subnormals are sparse).
            ASSERT_EQ(bin_of(below, static_cast<double>(dv)), exact_bin(below, d)) << where;
            if (edge_log2 > -126) {
                ASSERT_EQ(exact_bin(below, d), clamp_bin(t + 255LL)) << where;
            }
            // One ulp further out on each side.
            const float above = std::nextafter(x, FLT_MAX), further_below = std::nextafter(below, 0.0f);
            ASSERT_EQ(bin_of(above, static_cast<double>(dv)), exact_bin(above, d)) << where;
            ASSERT_EQ(bin_of(further_below, static_cast<double>(dv)), exact_bin(further_below, d)) << where;
        }
    }
}

TEST(Log2Histogram, RandomValuesMatchLog2AwayFromEdges) {
    std::mt19937 rng(23);
    for (const Divisor& d : kHistogramDivisors) {
        const long double dv = d.value();
        std::vector<float> x;
        for (int i = 0; i < 100000; ++i) {
            std::uint32_t u = static_cast<std::uint32_t>(rng());
            if (d.exponent == -100) u &= 0x807fffffu;  // FP32 subnormals, brought into range by 2^100
            x.push_back(bits_float(u));
        }
        Log2Histogram got;
        add_to_histogram(x.data(), x.size(), static_cast<double>(dv), got);
        for (StatsPath path : available_stats_paths()) {  // every path counts the same
            Log2Histogram on_path;
            add_to_histogram(x.data(), x.size(), static_cast<double>(dv), on_path, path);
            ASSERT_EQ(on_path.bins, got.bins) << stats_path_name(path);
            ASSERT_EQ(on_path.nans, got.nans) << stats_path_name(path);
        }
        Log2Histogram want;
        int near_edge = 0;
        for (float v : x) {
            if (v == 0) {
                ++want.zeros;
            } else if (std::isnan(v)) {
                ++want.nans;
            } else if (std::isinf(v)) {
                ++(v > 0 ? want.pos_infs : want.neg_infs);
            } else {
                const long double q = 4 * (std::log2(std::fabs(static_cast<long double>(v))) - std::log2(dv));
                if (std::fabs(q - std::round(q)) < 1e-9L) {  // too close to an edge for log2: exact check
                    ++near_edge;
                    ++want.bins[static_cast<std::size_t>(exact_bin(v, d))];
                } else {
                    ++want.bins[static_cast<std::size_t>(clamp_bin(static_cast<long long>(std::floor(q)) + 256))];
                }
            }
        }
        SCOPED_TRACE("divisor " + std::to_string(static_cast<double>(dv)) +
                     ", near edges: " + std::to_string(near_edge));
        EXPECT_EQ(got.zeros, want.zeros);
        EXPECT_EQ(got.nans, want.nans);
        EXPECT_EQ(got.pos_infs, want.pos_infs);
        EXPECT_EQ(got.neg_infs, want.neg_infs);
        for (int i = 0; i < Log2Histogram::kBins; ++i)
            ASSERT_EQ(got.bins[static_cast<std::size_t>(i)], want.bins[static_cast<std::size_t>(i)]) << "bin " << i;
    }
}

TEST(Log2Histogram, ClampsAndCountsSpecialsAndAccumulates) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> x = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), inf, -inf, -inf,
                                  FLT_TRUE_MIN, 0x1p-64f, 0x1p31f, 0x1p32f, FLT_MAX, 1.0f};
    Log2Histogram h;
    add_to_histogram(x.data(), x.size(), 1.0, h);
    add_to_histogram(x.data(), x.size(), 1.0, h);
    EXPECT_EQ(h.zeros, 4);
    EXPECT_EQ(h.nans, 2);
    EXPECT_EQ(h.pos_infs, 2);
    EXPECT_EQ(h.neg_infs, 4);
    EXPECT_EQ(h.bins[0], 4u);    // 2^-149 (clamped) and 2^-64
    EXPECT_EQ(h.bins[380], 2u);  // 2^31 = 2^(-64 + 380/4)
    EXPECT_EQ(h.bins[383], 4u);  // 2^32 and FLT_MAX clamp into the top bin
    EXPECT_EQ(h.bins[256], 2u);  // 1.0
    EXPECT_EQ(Log2Histogram::bin_low_log2(256), 0.0);
}

void expect_same_histogram(const Log2Histogram& a, const Log2Histogram& b, const std::string& where) {
    EXPECT_EQ(a.bins, b.bins) << where;
    EXPECT_EQ(a.zeros, b.zeros) << where;
    EXPECT_EQ(a.nans, b.nans) << where;
    EXPECT_EQ(a.pos_infs, b.pos_infs) << where;
    EXPECT_EQ(a.neg_infs, b.neg_infs) << where;
}

// The pair equals two single histograms: through the wide histogram and a
// shift for powers of two (down to FP32 subnormals and up to clamping at both
// ends), through two scans otherwise; and it adds to what the histograms hold.
TEST(Log2Histogram, PairEqualsTwoHistograms) {
    std::vector<std::vector<float>> tensors = narrow_tensors();
    tensors.push_back(random_values(6000, 37));
    tensors.push_back(random_values(100, 41));
    for (double d : {65536.0, 0x1p-100, 0x1p100, 0x1p127, 3.0, 1.0}) {
        for (const std::vector<float>& x : tensors) {
            const std::string where = "n " + std::to_string(x.size()) + " divisor " + std::to_string(d);
            Log2Histogram held, divided;
            add_to_histogram(x.data(), x.size(), 1.0, held);
            add_to_histogram(x.data(), x.size(), d, divided);
            for (StatsPath path : available_stats_paths()) {
                Log2Histogram pair_held, pair_divided;
                add_to_histogram_pair(x.data(), x.size(), d, pair_held, pair_divided, path);
                expect_same_histogram(pair_held, held, where + " held " + std::string(stats_path_name(path)));
                expect_same_histogram(pair_divided, divided, where + " divided " + std::string(stats_path_name(path)));
            }
            Log2Histogram twice_held = held, twice_divided = divided;
            add_to_histogram_pair(x.data(), x.size(), d, twice_held, twice_divided);
            for (std::size_t i = 0; i < held.bins.size(); ++i) {
                ASSERT_EQ(twice_held.bins[i], 2 * held.bins[i]) << where;
                ASSERT_EQ(twice_divided.bins[i], 2 * divided.bins[i]) << where;
            }
            if (HasFailure()) return;
        }
    }
}

// ---------------------------------------------------------------------------
// Exact arithmetic helpers

TEST(TensorStatsExact, CompareScaled) {
    EXPECT_EQ(compare_scaled(WideUint(3), 5, WideUint(96), 0), 0);
    EXPECT_EQ(compare_scaled(WideUint(3), 5, WideUint(97), 0), -1);
    EXPECT_EQ(compare_scaled(WideUint(97), 0, WideUint(3), 5), 1);
    EXPECT_EQ(compare_scaled(WideUint(0), 100, WideUint(1), -100), -1);
    const WideUint big = WideUint(0xffffffffffffffffull) * WideUint(0xffffffffffffffffull);  // 2^128 - 2^65 + 1
    EXPECT_EQ(big.bit_length(), 128);
    // (2^64 - 1)^2 vs 2^128: smaller by 2^65 - 1
    EXPECT_EQ(compare_scaled(big, 0, WideUint(1), 128), -1);
    EXPECT_EQ(compare_scaled(big, 3, WideUint(1), 131), -1);
    const WideUint p = big * big;  // < 2^256
    EXPECT_EQ(p.bit_length(), 256);
    EXPECT_THROW(p * WideUint(2), std::logic_error);
    EXPECT_EQ(compare(WideUint(5).shifted_left(200), WideUint(5).shifted_left(200)), 0);
    EXPECT_EQ(compare_scaled(WideUint(5).shifted_left(200), 0, WideUint(5), 200), 0);
    const Dyadic third = to_dyadic(1.0 / 3.0);
    EXPECT_EQ(std::ldexp(static_cast<double>(third.significand), third.exponent), 1.0 / 3.0);
}

// ---------------------------------------------------------------------------
// The CPU backend's ops on tensors

TEST(CpuStatsOps, TensorsGiveTheArrayResults) {
    CpuBackend be;
    std::vector<float> values = random_values(3000, 29);
    Tensor t = be.allocate({30, 100}, FormatId::fp32);
    be.upload(values.data(), t);
    for (double d : {1.0, 65536.0, 3.0}) {
        const TensorStats s = be.tensor_stats(t, d);
        const long double dl = d;
        expect_matches(s, reference(values, dl, d == 1.0), dl, "tensor, divisor " + std::to_string(d));
        Log2Histogram from_tensor, from_array;
        be.add_to_histogram(t, d, from_tensor);
        add_to_histogram(values.data(), values.size(), d, from_array);
        EXPECT_EQ(from_tensor.bins, from_array.bins);
        EXPECT_EQ(from_tensor.nans, from_array.nans);
    }
    std::int64_t non_finite = 0;
    float amax = 0;
    for (float v : values) {
        if (!std::isfinite(v))
            ++non_finite;
        else
            amax = std::max(amax, std::fabs(v));
    }
    EXPECT_EQ(be.count_non_finite(t), non_finite);
    EXPECT_EQ(be.finite_amax(t), amax);
}

// An FP16 tensor holds FP16 values: nothing in it underflows or overflows
// FP16 (its Infs are not finite), and its values are exactly what was uploaded
// after rounding.
TEST(CpuStatsOps, Fp16TensorHasNoFp16RangeLoss) {
    CpuBackend be;
    const std::vector<float> values = {1e-8f, 3e-8f, 1e-6f, 0.5f, 65519.0f, 70000.0f, -2e-5f};
    Tensor t = be.allocate({1, static_cast<int>(values.size())}, FormatId::fp16);
    be.upload(values.data(), t);
    const TensorStats s = be.tensor_stats(t, 1.0);
    EXPECT_EQ(s.ranges[0].underflow, 0.0f);
    EXPECT_EQ(s.ranges[0].overflow, 0.0f);
    EXPECT_EQ(s.zeros, 1);     // 1e-8 flushed on upload
    EXPECT_EQ(s.pos_infs, 1);  // 70000 overflowed on upload
    // 3e-8 -> 2^-25 rounds up to 2^-24, 1e-6 and -2e-5 are subnormal in FP16.
    EXPECT_EQ(s.ranges[0].subnormal, fraction(3, 7));
    EXPECT_EQ(be.count_non_finite(t), 1);
    EXPECT_EQ(be.finite_amax(t), 65504.0f);
}

}  // namespace
}  // namespace plab
