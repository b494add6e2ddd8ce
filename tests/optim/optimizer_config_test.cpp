// Optimizer settings: kind names, defaults, and one rejection per field with
// the exact message shape of engine/common/field_check.h.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "engine/common/error.h"
#include "engine/optim/optimizer_config.h"

namespace plab {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The message validate() throws for c, or "" when it accepts it.
std::string rejection(const OptimizerConfig& c) {
    try {
        validate(c);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(OptimizerKind, NamesParseAndChoices) {
    EXPECT_EQ(optimizer_kind_name(OptimizerKind::sgd), "sgd");
    EXPECT_EQ(optimizer_kind_name(OptimizerKind::adamw), "adamw");
    EXPECT_EQ(parse_optimizer_kind("sgd"), OptimizerKind::sgd);
    EXPECT_EQ(parse_optimizer_kind("adamw"), OptimizerKind::adamw);
    EXPECT_EQ(parse_optimizer_kind("AdamW"), std::nullopt);
    EXPECT_EQ(parse_optimizer_kind("adam"), std::nullopt);
    EXPECT_EQ(parse_optimizer_kind(""), std::nullopt);
    EXPECT_EQ(optimizer_kind_choices(), "sgd|adamw");
}

TEST(OptimizerConfig, DefaultsAndBoundariesAreAccepted) {
    EXPECT_EQ(rejection(OptimizerConfig{}), "");
    OptimizerConfig c;
    c.kind = OptimizerKind::sgd;
    c.momentum = 0.0f;
    c.beta1 = 0.0f;
    c.beta2 = 0.0f;
    c.weight_decay = 0.0f;
    c.clip_norm = 0.0f;
    c.accumulation = 1;
    EXPECT_EQ(rejection(c), "");
    c.momentum = 0.99999994f;  // the float just below 1
    c.beta1 = 0.99999994f;
    c.beta2 = 0.99999994f;
    c.clip_norm = 1e-30f;
    c.accumulation = 1024;
    c.lr = std::numeric_limits<float>::denorm_min();
    c.eps = std::numeric_limits<float>::max();
    EXPECT_EQ(rejection(c), "");
}

struct Case {
    const char* what;
    void (*edit)(OptimizerConfig&);
    const char* message;
};

TEST(OptimizerConfig, EveryFieldIsRejectedWithItsPathValueAndRange) {
    const Case cases[] = {
        {"lr 0", [](OptimizerConfig& c) { c.lr = 0.0f; }, "optimizer.lr: 0 is out of range; allowed finite and > 0"},
        {"lr < 0", [](OptimizerConfig& c) { c.lr = -0.1f; },
         "optimizer.lr: -0.1 is out of range; allowed finite and > 0"},
        {"lr inf", [](OptimizerConfig& c) { c.lr = kInf; },
         "optimizer.lr: inf is out of range; allowed finite and > 0"},
        {"lr nan", [](OptimizerConfig& c) { c.lr = kNaN; },
         "optimizer.lr: nan is out of range; allowed finite and > 0"},
        {"momentum 1", [](OptimizerConfig& c) { c.momentum = 1.0f; },
         "optimizer.momentum: 1 is out of range; allowed in [0, 1)"},
        {"momentum < 0", [](OptimizerConfig& c) { c.momentum = -0.5f; },
         "optimizer.momentum: -0.5 is out of range; allowed in [0, 1)"},
        {"momentum nan", [](OptimizerConfig& c) { c.momentum = kNaN; },
         "optimizer.momentum: nan is out of range; allowed in [0, 1)"},
        {"beta1 1", [](OptimizerConfig& c) { c.beta1 = 1.0f; },
         "optimizer.beta1: 1 is out of range; allowed in [0, 1)"},
        {"beta1 < 0", [](OptimizerConfig& c) { c.beta1 = -0.1f; },
         "optimizer.beta1: -0.1 is out of range; allowed in [0, 1)"},
        {"beta2 1.5", [](OptimizerConfig& c) { c.beta2 = 1.5f; },
         "optimizer.beta2: 1.5 is out of range; allowed in [0, 1)"},
        {"beta2 nan", [](OptimizerConfig& c) { c.beta2 = kNaN; },
         "optimizer.beta2: nan is out of range; allowed in [0, 1)"},
        {"eps 0", [](OptimizerConfig& c) { c.eps = 0.0f; },
         "optimizer.eps: 0 is out of range; allowed finite and > 0"},
        {"eps inf", [](OptimizerConfig& c) { c.eps = kInf; },
         "optimizer.eps: inf is out of range; allowed finite and > 0"},
        {"weight_decay < 0", [](OptimizerConfig& c) { c.weight_decay = -0.01f; },
         "optimizer.weight_decay: -0.01 is out of range; allowed finite and >= 0"},
        {"weight_decay inf", [](OptimizerConfig& c) { c.weight_decay = kInf; },
         "optimizer.weight_decay: inf is out of range; allowed finite and >= 0"},
        {"clip_norm < 0", [](OptimizerConfig& c) { c.clip_norm = -1.0f; },
         "optimizer.clip_norm: -1 is out of range; allowed 0 (no clipping) or finite and > 0"},
        {"clip_norm inf", [](OptimizerConfig& c) { c.clip_norm = kInf; },
         "optimizer.clip_norm: inf is out of range; allowed 0 (no clipping) or finite and > 0"},
        {"clip_norm nan", [](OptimizerConfig& c) { c.clip_norm = kNaN; },
         "optimizer.clip_norm: nan is out of range; allowed 0 (no clipping) or finite and > 0"},
        {"accumulation 0", [](OptimizerConfig& c) { c.accumulation = 0; },
         "optimizer.accumulation: 0 is out of range; allowed 1..1024"},
        {"accumulation 1025", [](OptimizerConfig& c) { c.accumulation = 1025; },
         "optimizer.accumulation: 1025 is out of range; allowed 1..1024"},
    };
    for (const Case& k : cases) {
        OptimizerConfig c;
        k.edit(c);
        EXPECT_EQ(rejection(c), k.message) << k.what;
    }
}

TEST(OptimizerConfig, EveryFieldIsCheckedWhateverTheKind) {
    // An AdamW run still rejects a bad momentum (kept valid for a switch to SGD) ...
    OptimizerConfig adamw;
    adamw.kind = OptimizerKind::adamw;
    adamw.momentum = 1.0f;
    EXPECT_EQ(rejection(adamw), "optimizer.momentum: 1 is out of range; allowed in [0, 1)");
    // ... and an SGD run a bad beta2.
    OptimizerConfig sgd;
    sgd.kind = OptimizerKind::sgd;
    sgd.beta2 = -1.0f;
    EXPECT_EQ(rejection(sgd), "optimizer.beta2: -1 is out of range; allowed in [0, 1)");
}

TEST(OptimizerConfig, TheFirstBadFieldIsNamed) {
    OptimizerConfig c;
    c.lr = -1.0f;
    c.accumulation = 0;
    EXPECT_EQ(rejection(c), "optimizer.lr: -1 is out of range; allowed finite and > 0");
}

}  // namespace
}  // namespace plab
