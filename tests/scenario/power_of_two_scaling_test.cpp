// power-of-two-scaling: the round trip over every FP16 value again, with the
// compiler's _Float16 conversion in place of the lab's cast.
#include "scenario/scenario_test_util.h"

#include <cmath>
#include <cstring>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioPowerOfTwoScaling, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_power_of_two_scaling(backend, {}), "power-of-two-scaling");
}

struct Trips {
    int fitting = 0, exact = 0;
};

Trips trips_by_compiler(float scale) {
    const auto inverse = static_cast<float>(1.0 / static_cast<double>(scale));
    Trips t;
    for (unsigned code = 1; code < 0x7c00u; ++code) {
        _Float16 h;
        const auto bits = static_cast<unsigned short>(code);
        std::memcpy(&h, &bits, sizeof h);
        const float x = static_cast<float>(h);
        const float scaled = static_cast<float>(static_cast<_Float16>(x * scale));
        if (scaled == 0.0f || !(scaled <= 65504.0f)) continue;
        ++t.fitting;
        t.exact += scaled * inverse == x;
    }
    return t;
}

TEST(ScenarioPowerOfTwoScaling, PowersOfTwoRoundTripEveryFittingValue) {
    for (int k : {1, 10, 16}) {
        const Trips t = trips_by_compiler(std::ldexp(1.0f, k));
        EXPECT_EQ(t.exact, t.fitting) << "2^" << k;
        // The 31743 positive finite codes less the top k binades (1024 codes
        // each), whose values times 2^k pass 65504.
        EXPECT_EQ(t.fitting, 31743 - 1024 * k) << "2^" << k;
    }
    const Trips round = trips_by_compiler(1000.0f);
    std::printf("[ measured ] scale 1000: %d of %d fitting FP16 values come back exactly\n", round.exact,
                round.fitting);
    EXPECT_LT(2 * round.exact, round.fitting);
}

}  // namespace
}  // namespace plab
