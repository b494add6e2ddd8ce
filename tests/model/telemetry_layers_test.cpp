// What the telemetry calls a layer (engine/model/telemetry_layers.h): the
// matmul layers keep their indices, and the GPT's embedding tables that no
// matmul layer holds follow them, as the preset's layer names say.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/mlp.h"
#include "engine/model/telemetry_layers.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/preset_rules.h"

namespace plab {
namespace {

GptSpec small_spec(bool tied) {
    return {.vocabulary = 7, .context = 4, .width = 8, .heads = 2, .layers = 2, .tied_head = tied};
}

ModelConfig gpt_config(bool tied) {
    ModelConfig c;
    c.kind = ModelKind::gpt;
    c.gpt.context = 4;
    c.gpt.width = 8;
    c.gpt.heads = 2;
    c.gpt.layers = 2;
    c.gpt.tied_head = tied;
    return c;
}

std::vector<std::string> with(std::vector<std::string> names, const std::vector<std::string>& tables) {
    names.insert(names.end(), tables.begin(), tables.end());
    return names;
}

// A tied head's weight is wte and shows as "head": only wpe is added.
TEST(TelemetryLayers, ATiedGptAddsThePositionTable) {
    CpuBackend be;
    const TinyGpt gpt(be, small_spec(true));
    ASSERT_EQ(gpt.layer_count(), 13);
    EXPECT_EQ(telemetry_layer_count(gpt), 14);
    EXPECT_EQ(telemetry_layer_names(gpt), with(gpt.layer_names(), {"wpe"}));
    EXPECT_EQ(telemetry_layer_names(gpt), telemetry_layer_names(gpt_config(true)));
    EXPECT_EQ(&telemetry_layer_weight(gpt, 13), &gpt.position_embedding());
    EXPECT_EQ(&telemetry_layer_weight(gpt, 12), &gpt.token_embedding());  // the head's
    EXPECT_EQ(&telemetry_layer_weight(gpt, 0), &gpt.layer_weight(0));
    EXPECT_EQ(telemetry_activation(gpt, 13), nullptr);
    EXPECT_EQ(telemetry_activation_grad(gpt, 13), nullptr);
    EXPECT_THROW(telemetry_layer_weight(gpt, 14), Error);
    EXPECT_EQ(telemetry_layer_of(gpt, gpt.position_embedding()), 13);
    EXPECT_EQ(telemetry_layer_of(gpt, gpt.token_embedding()), 12);
}

TEST(TelemetryLayers, AnUntiedGptAddsBothTablesInForwardOrder) {
    CpuBackend be;
    TinyGpt gpt(be, small_spec(false));
    EXPECT_EQ(telemetry_layer_names(gpt), with(gpt.layer_names(), {"wte", "wpe"}));
    EXPECT_EQ(telemetry_layer_names(gpt), telemetry_layer_names(gpt_config(false)));
    EXPECT_EQ(&telemetry_layer_weight(gpt, 13), &gpt.token_embedding());
    EXPECT_EQ(&telemetry_layer_weight(gpt, 14), &gpt.position_embedding());
    EXPECT_EQ(&telemetry_layer_weight(gpt, 12), &gpt.head()->weight);
    EXPECT_EQ(telemetry_layer_of(gpt, gpt.token_embedding()), 13);
    EXPECT_EQ(telemetry_layer_of(gpt, gpt.position_embedding()), 14);
    EXPECT_EQ(telemetry_layer_of(gpt, gpt.head()->bias), 12);
}

TEST(TelemetryLayers, AnMlpHasOnlyItsMatmulLayers) {
    CpuBackend be;
    const Mlp mlp(be, {.widths = {2, 16, 3}});
    EXPECT_EQ(telemetry_layer_count(mlp), mlp.layer_count());
    EXPECT_EQ(telemetry_layer_names(mlp), mlp.layer_names());
    ModelConfig config;
    config.hidden = {16};
    EXPECT_EQ(telemetry_layer_names(config), model_layer_names(config));
}

TEST(TelemetryLayers, OnlyTheTablesNamesAreTables) {
    EXPECT_TRUE(is_table_layer("wte"));
    EXPECT_TRUE(is_table_layer("wpe"));
    for (const std::string& name : model_layer_names(gpt_config(false))) EXPECT_FALSE(is_table_layer(name)) << name;
}

}  // namespace
}  // namespace plab
