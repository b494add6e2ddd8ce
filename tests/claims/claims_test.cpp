// The claims table is well formed, quotes its articles verbatim, and its
// direct checks hold for the reasons they state: the format facts against
// the compiler's own _Float16 conversion (and its IEEE bit patterns) and closed forms, the memory sums
// against the article's arithmetic done here again.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/scenario/claim_checks.h"
#include "engine/scenario/claim_runner.h"
#include "engine/scenario/claims.h"

namespace plab {
namespace {

const std::set<std::string_view> kArticles = {"000_0bed5ce411c40f1d.txt", "001_d2b6e0742d227f2d.txt",
                                              "002_121bd13071da797d.txt", "003_6109cc8453afa5cf.txt",
                                              "004_57bb2cefffc03978.txt"};

bool kebab_case(std::string_view id) {
    return !id.empty() && id.front() != '-' && id.back() != '-' &&
           std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; });
}

TEST(Claims, EveryClaimIsComplete) {
    std::set<std::string_view> ids;
    ASSERT_GE(claims().size(), 40u);
    for (const Claim& c : claims()) {
        SCOPED_TRACE(std::string(c.id));
        EXPECT_TRUE(kebab_case(c.id));
        EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id";
        EXPECT_TRUE(kArticles.count(c.article));
        EXPECT_FALSE(c.quote.empty());
        EXPECT_FALSE(c.english.empty());
        EXPECT_FALSE(c.shown_by.empty());
        EXPECT_FALSE(c.why.empty());
        EXPECT_EQ(find_claim(c.id), &c);
    }
    EXPECT_EQ(find_claim("no-such-claim"), nullptr);
}

TEST(Claims, ShownClaimsHaveExactlyOneCheckAndTheOthersNone) {
    for (const Claim& c : claims()) {
        SCOPED_TRACE(std::string(c.id));
        const bool shown = c.verdict == ClaimVerdict::shown_true || c.verdict == ClaimVerdict::shown_false;
        const int checks = !c.scenario.empty() + (c.check != nullptr);
        EXPECT_EQ(checks, shown ? 1 : 0);
        if (!c.scenario.empty()) {
            EXPECT_NE(find_scenario_check(c.scenario), nullptr) << c.scenario;
        }
    }
}

TEST(Claims, KnownWrongClaimsAreJudgedFalse) {
    for (const char* id : {"fp16-smallest-6.1e-5", "bf16-narrower", "fp16-between-fp32-and-bf16", "bf16-more-precise",
                           "bf16-better-in-every-way", "tf32-automatic", "nan-loss-scale-too-large",
                           "grow-every-clean-step", "memory-half", "67-percent-underflow"}) {
        const Claim* c = find_claim(id);
        ASSERT_NE(c, nullptr) << id;
        EXPECT_EQ(c->verdict, ClaimVerdict::shown_false) << id;
    }
}

// The seed articles live beside the repository in the lab's own checkout
// (../shared/seeds); a clone without them skips.
TEST(Claims, QuotesAreTheArticlesWordsVerbatim) {
    const std::filesystem::path seeds = std::filesystem::path(PLAB_SOURCE_DIR) / ".." / "shared" / "seeds";
    if (!std::filesystem::is_directory(seeds)) GTEST_SKIP() << "no seed articles at " << seeds;
    for (const Claim& c : claims()) {
        std::ifstream file(seeds / std::string(c.article), std::ios::binary);
        ASSERT_TRUE(file) << c.article;
        std::stringstream text;
        text << file.rdbuf();
        EXPECT_NE(text.str().find(c.quote), std::string::npos) << c.id << ": " << c.quote;
    }
}

Verdict run_check(ClaimCheck check) {
    CpuBackend backend;
    return check(backend, {});
}

float fp16(float x) { return static_cast<float>(static_cast<_Float16>(x)); }  // the compiler's conversion

// The compiler's _Float16 of an IEEE binary16 bit pattern, widened.
double from_bits(std::uint16_t bits) { return static_cast<double>(std::bit_cast<_Float16>(bits)); }

bool contains(const Verdict& v, const std::string& part) { return v.text.find(part) != std::string::npos; }

TEST(ClaimChecks, Fp16SmallestPositiveAgreesWithTheCompilersFloat16) {
    const Verdict v = run_check(claim_checks::fp16_smallest_positive);
    EXPECT_TRUE(v.holds) << v.text;
    EXPECT_EQ(from_bits(0x0001), std::ldexp(1.0, -24));
    EXPECT_EQ(from_bits(0x0400), std::ldexp(1.0, -14));
    EXPECT_TRUE(contains(v, "5.96e-08 (2^-24")) << v.text;
    EXPECT_TRUE(contains(v, "6.1e-05 (2^-14)")) << v.text;
    EXPECT_GT(fp16(1e-6f), 0.0f);
    EXPECT_TRUE(contains(v, "1e-06 is stored as 1.013e-06")) << v.text;
    EXPECT_NEAR(fp16(1e-6f), 1.013e-6f, 5e-10f);
}

TEST(ClaimChecks, Fp16FlushThresholdAgreesWithTheCompilersFloat16) {
    const Verdict v = run_check(claim_checks::fp16_flush_threshold);
    EXPECT_TRUE(v.holds) << v.text;
    const float half_smallest = std::ldexp(1.0f, -25);
    EXPECT_EQ(fp16(half_smallest), 0.0f);
    EXPECT_EQ(fp16(std::nextafter(half_smallest, 1.0f)), std::ldexp(1.0f, -24));
    EXPECT_EQ(fp16(5.9e-8f), std::ldexp(1.0f, -24));
    EXPECT_TRUE(contains(v, "up to 2.98e-08")) << v.text;
}

TEST(ClaimChecks, Fp16OverflowThresholdAgreesWithTheCompilersFloat16) {
    const Verdict v = run_check(claim_checks::fp16_overflow_threshold);
    EXPECT_TRUE(v.holds) << v.text;
    EXPECT_EQ(from_bits(0x7bff), 65504.0);
    EXPECT_EQ(fp16(std::nextafter(65520.0f, 0.0f)), 65504.0f);
    EXPECT_TRUE(std::isinf(fp16(65520.0f)));
    EXPECT_TRUE(contains(v, "largest value is 65504; up to 65519.996")) << v.text;
}

TEST(ClaimChecks, TinyProductIsZeroInFloat16Arithmetic) {
    const Verdict v = run_check(claim_checks::tiny_product_flushes);
    EXPECT_TRUE(v.holds) << v.text;
    const _Float16 a = static_cast<_Float16>(1e-4f);
    EXPECT_EQ(static_cast<float>(static_cast<_Float16>(a * a)), 0.0f);  // the product in _Float16 arithmetic
    EXPECT_TRUE(contains(v, "stored as 0")) << v.text;
}

TEST(ClaimChecks, RangeAndPrecisionOrderFromClosedForms) {
    const Verdict v = run_check(claim_checks::range_and_precision_order);
    EXPECT_TRUE(v.holds) << v.text;
    const double bf16_max = (2 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127);
    EXPECT_NEAR(bf16_max, 3.39e38, 0.005e38);
    EXPECT_TRUE(contains(v, "BF16 up to 3.39e+38")) << v.text;
    EXPECT_TRUE(contains(v, "FP32 2^-23 < FP16 2^-10 < BF16 2^-7")) << v.text;
}

TEST(ClaimChecks, HalfFormatsAreBothSixteenBits) {
    const Verdict v = run_check(claim_checks::half_formats_same_width);
    EXPECT_TRUE(v.holds) << v.text;
    EXPECT_TRUE(contains(v, "1+5+10 = 16 bits, BF16 1+8+7 = 16 bits")) << v.text;
}

TEST(ClaimChecks, Tf32RecipeTextSaysOptIn) {
    const Verdict v = run_check(claim_checks::tf32_recipe_says_opt_in);
    EXPECT_TRUE(v.holds) << v.text;
}

TEST(ClaimChecks, HugeLossScaleSkipsStepsAndKeepsTheLossFinite) {
    const Verdict v = run_check(claim_checks::large_scale_skips_not_nan);
    EXPECT_TRUE(v.holds) << v.text;
    EXPECT_TRUE(contains(v, "0 losses are NaN or Inf")) << v.text;
}

TEST(ClaimRunner, ClaimsWithoutACheckRunNothingAndDoNotFail) {
    CpuBackend backend;
    const Claim* gpu = find_claim("speedup-2-3x");
    const Claim* fact = find_claim("bf16-narrower");
    ASSERT_TRUE(gpu && fact);
    const std::vector<const Claim*> which = {gpu, fact};
    double last = -1;
    const auto outcomes = check_claims(backend, which, [&last](double f, const std::string&) {
        EXPECT_GE(f, last);
        last = f;
    });
    ASSERT_EQ(outcomes.size(), 2u);
    EXPECT_FALSE(outcomes[0].verdict.has_value());
    ASSERT_TRUE(outcomes[1].verdict.has_value());
    EXPECT_TRUE(outcomes[1].verdict->holds);
    EXPECT_TRUE(all_hold(outcomes));
    EXPECT_EQ(last, 1.0);
    ClaimOutcome failed{fact, Verdict{"x", false}, {}};
    EXPECT_FALSE(all_hold({outcomes[0], failed}));
}

}  // namespace
}  // namespace plab
