// The toy data sets: sizes, determinism, balance, and each shape checked
// against its closed form with the noise switched off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/data/dataset.h"
#include "engine/data/random.h"
#include "engine/data/shapes.h"

namespace plab {
namespace {

constexpr double kPi = std::numbers::pi;

DatasetSpec spec_of(DatasetKind kind, int samples = 1000, double noise = 0.0, int classes = 3) {
    DatasetSpec s;
    s.kind = kind;
    s.samples = samples;
    s.noise = noise;
    s.classes = classes;
    s.seed = 7;
    return s;
}

// Train and test rows together, train first.
struct Rows {
    std::vector<float> inputs;
    std::vector<int> labels;
    std::vector<float> targets;
};

Rows all_rows(const Dataset& ds) {
    Rows r;
    for (const Split* s : {&ds.train, &ds.test}) {
        r.inputs.insert(r.inputs.end(), s->inputs.begin(), s->inputs.end());
        r.labels.insert(r.labels.end(), s->labels.begin(), s->labels.end());
        r.targets.insert(r.targets.end(), s->targets.begin(), s->targets.end());
    }
    return r;
}

std::vector<int> class_counts(const Dataset& ds) {
    std::vector<int> counts(static_cast<std::size_t>(ds.num_classes), 0);
    for (int label : all_rows(ds).labels) ++counts.at(static_cast<std::size_t>(label));
    return counts;
}

// The message of the plab::Error that make_dataset throws, "" if none.
std::string error_of(const DatasetSpec& spec) {
    try {
        make_dataset(spec);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// FNV-1a over the bytes of a vector.
template <typename T>
std::uint64_t fnv1a(const std::vector<T>& v, std::uint64_t h = 14695981039346656037ull) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t i = 0; i < v.size() * sizeof(T); ++i) {
        h ^= bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

std::uint64_t dataset_hash(const Dataset& ds) {
    std::uint64_t h = 14695981039346656037ull;
    for (const Split* s : {&ds.train, &ds.test}) h = fnv1a(s->targets, fnv1a(s->labels, fnv1a(s->inputs, h)));
    return h;
}

// --- Rng -------------------------------------------------------------------

TEST(Rng, EngineIsTheStandardMt19937_64) {
    // The standard fixes the 10000th output of a default-seeded (5489) engine.
    Rng rng(5489);
    for (int i = 0; i < 9999; ++i) rng.next();
    EXPECT_EQ(rng.next(), 9981545732273789042ull);
}

TEST(Rng, UniformIsTheTop53BitsScaled) {
    Rng a(3), b(3);
    for (int i = 0; i < 1000; ++i) {
        const double u = a.uniform();
        EXPECT_EQ(u, std::ldexp(static_cast<double>(b.next() >> 11), -53));
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
    }
}

TEST(Rng, NormalHasUnitMoments) {
    Rng rng(11);
    const int n = 200000;
    double sum = 0.0, sum_sq = 0.0;
    for (int i = 0; i < n; ++i) {
        const double x = rng.normal();
        sum += x;
        sum_sq += x * x;
    }
    // Standard errors: 1/sqrt(n) = 0.0022 for the mean, sqrt(2/n) = 0.0032 for the variance.
    EXPECT_NEAR(sum / n, 0.0, 0.011);
    EXPECT_NEAR(sum_sq / n, 1.0, 0.016);
}

TEST(Rng, BelowStaysInRangeAndHitsEveryValue) {
    Rng rng(5);
    std::vector<int> counts(7, 0);
    for (int i = 0; i < 70000; ++i) ++counts.at(static_cast<std::size_t>(rng.below(7)));
    for (int c : counts) EXPECT_NEAR(c, 10000, 500);  // sd ~ 93
    EXPECT_EQ(rng.below(1), 0u);
}

// --- names -----------------------------------------------------------------

TEST(DatasetKind, NamesRoundTrip) {
    EXPECT_EQ(dataset_kind_choices(), "spirals|moons|circles|xor|blobs|sine|shakespeare|addition");
    for (DatasetKind k : kAllDatasetKinds) EXPECT_EQ(parse_dataset_kind(dataset_kind_name(k)), k);
    EXPECT_EQ(dataset_kind_name(DatasetKind::xor_gates), "xor");
    EXPECT_FALSE(parse_dataset_kind("xor_gates").has_value());
    EXPECT_FALSE(parse_dataset_kind("").has_value());
}

// --- shapes, sizes, determinism, balance -------------------------------------

TEST(Dataset, ShapesAndSizesForEveryKind) {
    for (DatasetKind k : kAllDatasetKinds) {
        SCOPED_TRACE(std::string(dataset_kind_name(k)));
        const Dataset ds = make_dataset(spec_of(k, 1000, 0.1, 4));
        const bool regression = k == DatasetKind::sine;
        const bool four = k == DatasetKind::spirals || k == DatasetKind::blobs;
        EXPECT_EQ(ds.input_dim, regression ? 1 : 2);
        EXPECT_EQ(ds.num_classes, regression ? 0 : four ? 4 : 2);
        EXPECT_EQ(ds.train.rows, 800);
        EXPECT_EQ(ds.test.rows, 200);
        for (const Split* s : {&ds.train, &ds.test}) {
            const auto rows = static_cast<std::size_t>(s->rows);
            EXPECT_EQ(s->inputs.size(), rows * static_cast<std::size_t>(ds.input_dim));
            EXPECT_EQ(s->labels.size(), regression ? 0u : rows);
            EXPECT_EQ(s->targets.size(), regression ? rows : 0u);
            for (float x : s->inputs) EXPECT_TRUE(std::isfinite(x));
            for (float y : s->targets) EXPECT_TRUE(std::isfinite(y));
            for (int label : s->labels) {
                EXPECT_GE(label, 0);
                EXPECT_LT(label, ds.num_classes);
            }
        }
    }
}

TEST(Dataset, SameSeedSameBitsOtherSeedOtherData) {
    for (DatasetKind k : kAllDatasetKinds) {
        SCOPED_TRACE(std::string(dataset_kind_name(k)));
        DatasetSpec spec = spec_of(k, 500, 0.2);
        const Dataset a = make_dataset(spec);
        const Dataset b = make_dataset(spec);
        EXPECT_EQ(a.train.inputs, b.train.inputs);
        EXPECT_EQ(a.train.labels, b.train.labels);
        EXPECT_EQ(a.train.targets, b.train.targets);
        EXPECT_EQ(a.test.inputs, b.test.inputs);
        EXPECT_EQ(a.test.labels, b.test.labels);
        EXPECT_EQ(a.test.targets, b.test.targets);
        spec.seed += 1;
        const Dataset c = make_dataset(spec);
        EXPECT_NE(a.train.inputs, c.train.inputs);
        EXPECT_NE(a.test.inputs, c.test.inputs);
    }
}

// The stream is part of the reproducibility contract: a preset's seed must
// give the same data on every platform and in every later version. These
// hashes change if the generator, a shape or the shuffle changes, or if a C
// library's sin/cos/log rounds differently enough to move a float (shapes.h).
TEST(Dataset, GoldenBits) {
    const std::pair<DatasetKind, std::uint64_t> golden[] = {
        {DatasetKind::spirals, 10089740686227249955ull}, {DatasetKind::moons, 13306957496343574079ull},
        {DatasetKind::circles, 2458001412545274500ull},  {DatasetKind::xor_gates, 1288096252691018425ull},
        {DatasetKind::blobs, 6592225500190826747ull},    {DatasetKind::sine, 7410940875322812683ull},
    };
    for (const auto& [kind, hash] : golden) {
        SCOPED_TRACE(std::string(dataset_kind_name(kind)));
        EXPECT_EQ(dataset_hash(make_dataset(spec_of(kind, 64, 0.1))), hash);
    }
}

TEST(Dataset, ClassesAreBalancedBeforeTheSplit) {
    for (DatasetKind k : kAllDatasetKinds) {
        if (k == DatasetKind::sine) continue;
        for (int classes : {2, 3, 7, 16}) {
            SCOPED_TRACE(std::string(dataset_kind_name(k)) + " classes " + std::to_string(classes));
            const Dataset ds = make_dataset(spec_of(k, 1001, 0.1, classes));
            const std::vector<int> counts = class_counts(ds);
            const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
            EXPECT_LE(*hi - *lo, 1);
            EXPECT_GE(*lo, 1001 / ds.num_classes);
        }
    }
}

TEST(Dataset, RowsAreShuffledBeforeTheSplit) {
    // Generation order is class 0, 1, 2, 0, 1, 2, ...; after the shuffle the
    // train split must not start with that pattern, and both splits hold
    // every class.
    const Dataset ds = make_dataset(spec_of(DatasetKind::spirals, 300));
    int in_generation_order = 0;
    for (int i = 0; i < 30; ++i) in_generation_order += ds.train.labels[static_cast<std::size_t>(i)] == i % 3;
    EXPECT_LT(in_generation_order, 20);
    for (const Split* s : {&ds.train, &ds.test})
        for (int c = 0; c < 3; ++c) EXPECT_NE(std::count(s->labels.begin(), s->labels.end(), c), 0);
}

TEST(Dataset, NoiseMovesPointsButKeepsLabelsAndOrder) {
    // Noise 0 still draws its normals, so the same seed gives the same rows.
    // (Sine: see SineNoiseGoesToTargetsOnly.)
    for (DatasetKind k : kAllDatasetKinds) {
        if (k == DatasetKind::sine) continue;
        SCOPED_TRACE(std::string(dataset_kind_name(k)));
        const Dataset clean = make_dataset(spec_of(k, 200, 0.0));
        const Dataset noisy = make_dataset(spec_of(k, 200, 0.3));
        EXPECT_EQ(clean.train.labels, noisy.train.labels);
        EXPECT_EQ(clean.test.labels, noisy.test.labels);
        EXPECT_NE(all_rows(clean).inputs, all_rows(noisy).inputs);
    }
}

// --- closed forms at noise 0 ------------------------------------------------

TEST(Dataset, SpiralPointsLieOnTheirArms) {
    for (int arms : {2, 3, 5, 16}) {
        SCOPED_TRACE("arms " + std::to_string(arms));
        const Dataset ds = make_dataset(spec_of(DatasetKind::spirals, 2000, 0.0, arms));
        const Rows rows = all_rows(ds);
        for (std::size_t i = 0; i < rows.labels.size(); ++i) {
            const double x = rows.inputs[2 * i], y = rows.inputs[2 * i + 1];
            const double r = std::hypot(x, y);
            ASSERT_LE(r, 1.0 + 1e-7);
            // Archimedean arm k: angle = 2*pi*(k/arms + turns*r). The float
            // rounding of x and y moves r by ~1e-7, the angle by 2*pi*turns
            // times that, the point by at most ~1e-6.
            const double angle = 2.0 * kPi * (static_cast<double>(rows.labels[i]) / arms + kSpiralTurns * r);
            ASSERT_NEAR(x, r * std::cos(angle), 2e-6) << "row " << i;
            ASSERT_NEAR(y, r * std::sin(angle), 2e-6) << "row " << i;
        }
    }
}

TEST(Dataset, MoonPointsLieOnTheirHalfCircles) {
    const Rows rows = all_rows(make_dataset(spec_of(DatasetKind::moons, 2000)));
    for (std::size_t i = 0; i < rows.labels.size(); ++i) {
        const double x = rows.inputs[2 * i], y = rows.inputs[2 * i + 1];
        if (rows.labels[i] == 0) {
            ASSERT_NEAR(std::hypot(x, y), 1.0, 1e-6) << "row " << i;
            ASSERT_GE(y, 0.0);
        } else {
            ASSERT_NEAR(std::hypot(x - 1.0, y - 0.5), 1.0, 1e-6) << "row " << i;
            ASSERT_LE(y, 0.5);
        }
    }
}

TEST(Dataset, CirclePointsHaveRadiusOneOrHalf) {
    const Rows rows = all_rows(make_dataset(spec_of(DatasetKind::circles, 2000)));
    for (std::size_t i = 0; i < rows.labels.size(); ++i) {
        const double r = std::hypot(rows.inputs[2 * i], rows.inputs[2 * i + 1]);
        ASSERT_NEAR(r, rows.labels[i] == 0 ? 1.0 : 0.5, 1e-6) << "row " << i;
    }
}

TEST(Dataset, XorLabelsFollowTheQuadrantRule) {
    const Rows rows = all_rows(make_dataset(spec_of(DatasetKind::xor_gates, 2000)));
    for (std::size_t i = 0; i < rows.labels.size(); ++i) {
        const float x = rows.inputs[2 * i], y = rows.inputs[2 * i + 1];
        ASSERT_NE(x, 0.0f);
        ASSERT_NE(y, 0.0f);
        ASSERT_LE(std::fabs(x), 1.0f);
        ASSERT_LE(std::fabs(y), 1.0f);
        ASSERT_EQ(rows.labels[i], (x > 0.0f) != (y > 0.0f) ? 1 : 0) << "row " << i;
    }
}

TEST(Dataset, SineTargetsAreSinOfTheFloatInput) {
    const Rows rows = all_rows(make_dataset(spec_of(DatasetKind::sine, 2000)));
    ASSERT_EQ(rows.targets.size(), rows.inputs.size());
    const auto pi_f = static_cast<float>(kPi);
    float lo = pi_f, hi = -pi_f;
    for (std::size_t i = 0; i < rows.targets.size(); ++i) {
        const float x = rows.inputs[i];
        ASSERT_LE(std::fabs(x), pi_f);
        ASSERT_EQ(rows.targets[i], static_cast<float>(std::sin(static_cast<double>(x)))) << "row " << i;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    // Uniform over the whole period: 2000 draws come within 0.05 of both ends.
    EXPECT_LT(lo, -pi_f + 0.05f);
    EXPECT_GT(hi, pi_f - 0.05f);
}

// Mean and std of each blob, over 2000 points per blob.
void expect_blob_moments(double noise) {
    const int blobs = 5;
    const Dataset ds = make_dataset(spec_of(DatasetKind::blobs, 2000 * blobs, noise, blobs));
    const Rows rows = all_rows(ds);
    const double std_dev = 0.5 + noise;
    for (int b = 0; b < blobs; ++b) {
        SCOPED_TRACE("blob " + std::to_string(b));
        double sx = 0, sy = 0, sq = 0;
        int n = 0;
        for (std::size_t i = 0; i < rows.labels.size(); ++i) {
            if (rows.labels[i] != b) continue;
            sx += rows.inputs[2 * i];
            sy += rows.inputs[2 * i + 1];
            ++n;
        }
        const double mx = sx / n, my = sy / n;
        for (std::size_t i = 0; i < rows.labels.size(); ++i) {
            if (rows.labels[i] != b) continue;
            sq += std::pow(rows.inputs[2 * i] - mx, 2) + std::pow(rows.inputs[2 * i + 1] - my, 2);
        }
        const double angle = 2.0 * kPi * b / blobs;
        // Standard error of a mean: std/sqrt(2000) = 0.022 * std; 5 of them allowed.
        EXPECT_NEAR(mx, 2.0 * std::cos(angle), 0.12 * std_dev);
        EXPECT_NEAR(my, 2.0 * std::sin(angle), 0.12 * std_dev);
        EXPECT_NEAR(std::sqrt(sq / (2.0 * n)), std_dev, 0.05 * std_dev);
    }
}

TEST(Dataset, BlobsAreGaussiansAroundCentresOnRadiusTwo) {
    expect_blob_moments(0.0);
    expect_blob_moments(0.5);
}

TEST(Dataset, NoiseHasTheRequestedStdDev) {
    // Circles: the radial residual of isotropic 2-D noise has the noise's std
    // (to first order in noise / radius).
    const double noise = 0.02;
    const Rows rows = all_rows(make_dataset(spec_of(DatasetKind::circles, 20000, noise)));
    double sq = 0.0;
    for (std::size_t i = 0; i < rows.labels.size(); ++i) {
        const double r = std::hypot(rows.inputs[2 * i], rows.inputs[2 * i + 1]);
        sq += std::pow(r - (rows.labels[i] == 0 ? 1.0 : 0.5), 2);
    }
    EXPECT_NEAR(std::sqrt(sq / static_cast<double>(rows.labels.size())), noise, 0.05 * noise);
}

TEST(Dataset, SineNoiseGoesToTargetsOnly) {
    const double noise = 0.1;
    const Rows clean = all_rows(make_dataset(spec_of(DatasetKind::sine, 20000, 0.0)));
    const Rows noisy = all_rows(make_dataset(spec_of(DatasetKind::sine, 20000, noise)));
    EXPECT_EQ(clean.inputs, noisy.inputs);
    double sq = 0.0;
    for (std::size_t i = 0; i < clean.targets.size(); ++i) sq += std::pow(noisy.targets[i] - clean.targets[i], 2);
    EXPECT_NEAR(std::sqrt(sq / static_cast<double>(clean.targets.size())), noise, 0.05 * noise);
}

// --- the split ---------------------------------------------------------------

TEST(Dataset, TestSplitIsTheRoundedFraction) {
    struct Case {
        int samples;
        double fraction;
        int test_rows;
    };
    const Case cases[] = {
        {1000, 0.2, 200}, {1024, 0.2, 205},   // 204.8 rounds up
        {10, 0.25, 3},                        // 2.5: halves away from zero
        {4, 0.01, 1},     {4, 0.99, 3},       // neither split may be empty
        {1000000, 0.5, 500000},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.samples) + " x " + std::to_string(c.fraction));
        DatasetSpec spec = spec_of(DatasetKind::moons, c.samples);
        spec.test_fraction = c.fraction;
        EXPECT_EQ(test_row_count(spec), c.test_rows);
        if (c.samples > 10000) continue;
        const Dataset ds = make_dataset(spec);
        EXPECT_EQ(ds.test.rows, c.test_rows);
        EXPECT_EQ(ds.train.rows, c.samples - c.test_rows);
    }
}

// --- validation ----------------------------------------------------------------

TEST(Dataset, InvalidFieldsThrowNamingTheField) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    struct Case {
        const char* field;
        DatasetSpec spec;
    };
    std::vector<Case> cases;
    auto add = [&](const char* field, auto change) {
        DatasetSpec s = spec_of(DatasetKind::spirals, 100, 0.1);
        change(s);
        cases.push_back({field, s});
    };
    add("data.samples: 0 is out of range; allowed 4..1000000", [](DatasetSpec& s) { s.samples = 0; });
    add("data.samples: 3 ", [](DatasetSpec& s) { s.samples = 3; });
    add("data.samples: 1000001 ", [](DatasetSpec& s) { s.samples = 1000001; });
    add("data.noise: -0.1 is out of range; allowed 0..10", [](DatasetSpec& s) { s.noise = -0.1; });
    add("data.noise: 10.5 ", [](DatasetSpec& s) { s.noise = 10.5; });
    add("data.noise: nan ", [&](DatasetSpec& s) { s.noise = nan; });
    add("data.classes: 1 is out of range; allowed 2..16", [](DatasetSpec& s) { s.classes = 1; });
    add("data.classes: 17 ", [](DatasetSpec& s) { s.classes = 17; });
    add("data.classes: 0 ", [](DatasetSpec& s) { s.kind = DatasetKind::blobs; s.classes = 0; });
    add("data.classes: 17 ", [](DatasetSpec& s) { s.kind = DatasetKind::blobs; s.classes = 17; });
    add("data.test_fraction: 0 is out of range; allowed > 0 and < 1", [](DatasetSpec& s) { s.test_fraction = 0; });
    add("data.test_fraction: 1 ", [](DatasetSpec& s) { s.test_fraction = 1.0; });
    add("data.test_fraction: -0.5 ", [](DatasetSpec& s) { s.test_fraction = -0.5; });
    add("data.test_fraction: nan ", [&](DatasetSpec& s) { s.test_fraction = nan; });
    add("data.kind: 99 ", [](DatasetSpec& s) { s.kind = static_cast<DatasetKind>(99); });
    add("data.garbled_steps: 3 is out of range; allowed 0 for data.kind spirals (only shakespeare and addition",
        [](DatasetSpec& s) { s.garbled_from = 5, s.garbled_steps = 3; });
    add("data.garbled_steps: -1 ", [](DatasetSpec& s) { s.kind = DatasetKind::shakespeare, s.garbled_steps = -1; });
    add("data.garbled_from: -2 ", [](DatasetSpec& s) { s.kind = DatasetKind::shakespeare, s.garbled_from = -2; });
    add("data.garbled_from: 0 is out of range; allowed 1..10000000, the first garbled step, when data.garbled_steps is 4",
        [](DatasetSpec& s) { s.kind = DatasetKind::shakespeare, s.garbled_steps = 4; });
    for (const Case& c : cases) {
        SCOPED_TRACE(c.field);
        EXPECT_NE(error_of(c.spec).find(c.field), std::string::npos) << error_of(c.spec);
    }
}

TEST(Dataset, ClassesIsIgnoredWhereTheKindFixesIt) {
    for (DatasetKind k : {DatasetKind::moons, DatasetKind::circles, DatasetKind::xor_gates, DatasetKind::sine}) {
        SCOPED_TRACE(std::string(dataset_kind_name(k)));
        const Dataset ds = make_dataset(spec_of(k, 100, 0.1, 0));
        EXPECT_EQ(ds.num_classes, k == DatasetKind::sine ? 0 : 2);
    }
}

TEST(Dataset, RangeEndsAreAccepted) {
    DatasetSpec spec = spec_of(DatasetKind::blobs, 4, 10.0, 16);
    EXPECT_EQ(error_of(spec), "");
    spec.classes = 2;
    spec.noise = 0.0;
    EXPECT_EQ(error_of(spec), "");
}

}  // namespace
}  // namespace plab
