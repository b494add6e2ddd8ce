// Weight initialisation: seeded and repeatable, drawn from a normal whose
// standard deviation is the He / Glorot closed form with PyTorch's gains.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/init.h"

namespace plab {
namespace {

constexpr Activation kActivations[] = {Activation::identity, Activation::relu, Activation::tanh, Activation::gelu};
constexpr InitKind kKinds[] = {InitKind::kaiming, InitKind::xavier};

// torch.nn.init.calculate_gain's table (gelu: the relu gain, see init.cpp).
double gain(Activation a) {
    switch (a) {
        case Activation::identity: return 1.0;
        case Activation::relu: return std::sqrt(2.0);
        case Activation::tanh: return 5.0 / 3.0;
        case Activation::gelu: return std::sqrt(2.0);
    }
    return 0.0;
}

double expected_std(InitKind kind, Activation a, int fan_in, int fan_out) {
    return kind == InitKind::kaiming ? gain(a) / std::sqrt(fan_in) : gain(a) * std::sqrt(2.0 / (fan_in + fan_out));
}

TEST(Init, GainsArePyTorchs) {
    EXPECT_EQ(activation_gain(Activation::identity), 1.0f);
    EXPECT_EQ(activation_gain(Activation::relu), static_cast<float>(std::sqrt(2.0)));
    EXPECT_EQ(activation_gain(Activation::tanh), static_cast<float>(5.0 / 3.0));
    EXPECT_EQ(activation_gain(Activation::gelu), static_cast<float>(std::sqrt(2.0)));
}

TEST(Init, SameSeedGivesIdenticalWeights) {
    for (InitKind kind : kKinds) {
        Rng a(42), b(42);
        const std::vector<float> wa = init_weights(kind, Activation::relu, 33, 17, a);
        const std::vector<float> wb = init_weights(kind, Activation::relu, 33, 17, b);
        ASSERT_EQ(wa.size(), 33u * 17u);
        EXPECT_EQ(wa, wb);
        // and the stream continues identically for the next layer
        EXPECT_EQ(init_weights(kind, Activation::relu, 17, 5, a), init_weights(kind, Activation::relu, 17, 5, b));
    }
}

TEST(Init, DifferentSeedsGiveDifferentWeights) {
    Rng a(1), b(2);
    const std::vector<float> wa = init_weights(InitKind::kaiming, Activation::tanh, 64, 64, a);
    const std::vector<float> wb = init_weights(InitKind::kaiming, Activation::tanh, 64, 64, b);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < wa.size(); ++k) differ += wa[k] != wb[k];
    EXPECT_EQ(differ, wa.size());
}

// Platform independence: the values follow from the standard-fixed
// mt19937_64 sequence through Box-Muller written out here, element k taking
// the k-th normal (cos of pair k/2 for even k, sin for odd k).
TEST(Init, ValuesFollowTheSeededEngine) {
    std::mt19937_64 engine(7);
    std::vector<double> normals;
    for (int pair = 0; pair < 6; ++pair) {
        const double u1 = 1.0 - static_cast<double>(engine() >> 11) * 0x1.0p-53;
        const double u2 = static_cast<double>(engine() >> 11) * 0x1.0p-53;
        normals.push_back(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
        normals.push_back(std::sqrt(-2.0 * std::log(u1)) * std::sin(2.0 * std::numbers::pi * u2));
    }
    Rng rng(7);
    const std::vector<float> w = init_weights(InitKind::xavier, Activation::identity, 3, 4, rng);
    const double std_dev = std::sqrt(2.0 / 7.0);
    ASSERT_EQ(w.size(), normals.size());
    for (std::size_t k = 0; k < w.size(); ++k) EXPECT_EQ(w[k], static_cast<float>(std_dev * normals[k])) << k;
}

// init_gain scales the standard deviation, not the draws: the same normals
// times gain * std, rounded once (Box-Muller as above, seed 7).
TEST(Init, GainScalesTheStandardDeviation) {
    std::mt19937_64 engine(7);
    const double u1 = 1.0 - static_cast<double>(engine() >> 11) * 0x1.0p-53;
    const double u2 = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    const double first = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    const double std_dev = 1.0 / std::sqrt(5.0);  // kaiming, identity (gain 1), fan_in 5
    for (double gain : {1.0, 0.01, 3.0, 100.0}) {
        Rng rng(7);
        const std::vector<float> w = init_weights(InitKind::kaiming, Activation::identity, 5, 2, rng, gain);
        EXPECT_EQ(w[0], static_cast<float>(gain * std_dev * first)) << gain;
    }
    Rng a(7), b(7);
    EXPECT_EQ(init_weights(InitKind::xavier, Activation::tanh, 9, 4, a),
              init_weights(InitKind::xavier, Activation::tanh, 9, 4, b, 1.0));  // gain 1 is the plain init
}

struct Moments {
    double mean = 0, std_dev = 0, within_one_std = 0;
};

Moments moments(const std::vector<float>& w, double sigma) {
    double sum = 0, squares = 0, inside = 0;
    for (float v : w) sum += v;
    const double n = static_cast<double>(w.size());
    const double mean = sum / n;
    for (float v : w) {
        squares += (v - mean) * (v - mean);
        inside += std::abs(v) <= sigma;
    }
    return {mean, std::sqrt(squares / (n - 1)), inside / n};
}

// 2^18 draws per case. Central-limit bounds at 5 standard errors: the mean's
// is sigma / sqrt(n); the sample std's is sigma / sqrt(2n) (normal data);
// the fraction within +-sigma (0.6827 for a normal, 0.577 for a uniform of
// the same std) has sqrt(p (1 - p) / n). 128 x 2048 separates kaiming's
// fan_in from xavier's fan_in + fan_out, which 512 x 512 cannot.
TEST(Init, SampleMomentsMatchTheClosedForm) {
    const double p_inside = std::erf(1.0 / std::sqrt(2.0));
    for (auto [fan_in, fan_out] : {std::pair{512, 512}, std::pair{128, 2048}})
        for (InitKind kind : kKinds)
            for (Activation a : kActivations) {
                Rng rng(1234);
                const std::vector<float> w = init_weights(kind, a, fan_in, fan_out, rng);
                const double sigma = expected_std(kind, a, fan_in, fan_out);
                const double n = static_cast<double>(w.size());
                const Moments m = moments(w, sigma);
                const std::string label = std::string(init_kind_name(kind)) + " " +
                                          std::string(activation_name(a)) + " " + std::to_string(fan_in) + "x" +
                                          std::to_string(fan_out);
                EXPECT_NEAR(m.mean, 0.0, 5 * sigma / std::sqrt(n)) << label;
                EXPECT_NEAR(m.std_dev, sigma, 5 * sigma / std::sqrt(2 * n)) << label;
                EXPECT_NEAR(m.within_one_std, p_inside, 5 * std::sqrt(p_inside * (1 - p_inside) / n)) << label;
            }
}

TEST(Init, RejectsEmptyFans) {
    Rng rng(1);
    EXPECT_THROW(init_weights(InitKind::kaiming, Activation::relu, 0, 4, rng), Error);
    EXPECT_THROW(init_weights(InitKind::xavier, Activation::relu, 4, -1, rng), Error);
}

}  // namespace
}  // namespace plab
