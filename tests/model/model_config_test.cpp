// ModelConfig names and validation messages.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "engine/common/error.h"
#include "engine/model/model_config.h"

namespace plab {
namespace {

std::string error_of(const ModelConfig& c) {
    try {
        validate(c);
    } catch (const Error& e) {
        return e.what();
    }
    return "(valid)";
}

TEST(ModelConfig, InitKindNamesRoundTrip) {
    EXPECT_EQ(init_kind_name(InitKind::kaiming), "kaiming");
    EXPECT_EQ(init_kind_name(InitKind::xavier), "xavier");
    EXPECT_EQ(parse_init_kind("kaiming"), InitKind::kaiming);
    EXPECT_EQ(parse_init_kind("xavier"), InitKind::xavier);
    EXPECT_EQ(parse_init_kind("he"), std::nullopt);
    EXPECT_EQ(parse_init_kind("Kaiming"), std::nullopt);
    EXPECT_EQ(init_kind_choices(), "kaiming|xavier");
}

TEST(ModelConfig, AcceptsTheDefaultsAndTheLimits) {
    EXPECT_EQ(error_of(ModelConfig{}), "(valid)");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {}}), "(valid)");  // a linear model
    EXPECT_EQ(error_of(ModelConfig{.hidden = std::vector<int>(8, 1)}), "(valid)");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {4096, 1}}), "(valid)");
    EXPECT_EQ(error_of(ModelConfig{.init_gain = 100.0f}), "(valid)");
    EXPECT_EQ(error_of(ModelConfig{.init_gain = 1e-30f}), "(valid)");
}

TEST(ModelConfig, RejectionsNameTheFieldTheValueAndTheRange) {
    EXPECT_EQ(error_of(ModelConfig{.hidden = std::vector<int>(9, 16)}),
              "model.hidden: 9 widths is out of range; allowed 0..8 widths");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {64, 0}}), "model.hidden[1]: 0 is out of range; allowed 1..4096");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {4097}}), "model.hidden[0]: 4097 is out of range; allowed 1..4096");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {8, 8, -3}}), "model.hidden[2]: -3 is out of range; allowed 1..4096");
    const std::string gain_range = " is out of range; allowed > 0 and <= 100";
    EXPECT_EQ(error_of(ModelConfig{.init_gain = 0.0f}), "model.init_gain: 0" + gain_range);
    EXPECT_EQ(error_of(ModelConfig{.init_gain = -1.0f}), "model.init_gain: -1" + gain_range);
    EXPECT_EQ(error_of(ModelConfig{.init_gain = 100.00001f}), "model.init_gain: 100.00001" + gain_range);
    EXPECT_EQ(error_of(ModelConfig{.init_gain = std::numeric_limits<float>::infinity()}),
              "model.init_gain: inf" + gain_range);
    EXPECT_EQ(error_of(ModelConfig{.init_gain = std::numeric_limits<float>::quiet_NaN()}),
              "model.init_gain: nan" + gain_range);
}

}  // namespace
}  // namespace plab
