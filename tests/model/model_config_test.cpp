// ModelConfig names and validation messages.
#include <gtest/gtest.h>

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
}

TEST(ModelConfig, RejectionsNameTheFieldTheValueAndTheRange) {
    EXPECT_EQ(error_of(ModelConfig{.hidden = std::vector<int>(9, 16)}),
              "model.hidden: 9 widths is out of range; allowed 0..8 widths");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {64, 0}}), "model.hidden[1]: 0 is out of range; allowed 1..4096");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {4097}}), "model.hidden[0]: 4097 is out of range; allowed 1..4096");
    EXPECT_EQ(error_of(ModelConfig{.hidden = {8, 8, -3}}), "model.hidden[2]: -3 is out of range; allowed 1..4096");
}

}  // namespace
}  // namespace plab
