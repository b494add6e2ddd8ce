// engine_oracle gpt STEPS: the engine's TinyGpt trained in FP32 with plain
// SGD on windows of the corpus, as one JSON object on stdout: the spec, the
// initial parameters, each step's batch and loss, and the first step's
// gradients. torch_gpt_test.py trains its own model from the same numbers.
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/data/random.h"
#include "engine/data/token_data.h"
#include "engine/model/tiny_gpt.h"

namespace plab::oracle {

namespace {

constexpr float kLearningRate = 0.05f;

std::vector<float> values_of(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

// GPT-2's init, roughly: N(0, 0.02) weights and embeddings; biases and the
// norms' gains and shifts drawn too, so that every parameter's path is checked.
std::vector<float> initial_values(const Parameter& p, Rng& rng) {
    std::vector<float> v(p.value.size());
    const bool gain = p.name.ends_with(".gamma");
    const bool shift = p.name.ends_with(".beta") || p.name.ends_with(".bias");
    for (float& x : v) {
        const double n = rng.normal();
        x = static_cast<float>(gain ? 1.0 + 0.1 * n : shift ? 0.01 * n : 0.02 * n);
    }
    return v;
}

}  // namespace

int gpt(int steps) {
    const TokenData data = make_token_data({}, 1);
    const GptSpec spec{.vocabulary = data.vocabulary(), .context = 16, .width = 32, .heads = 4, .layers = 2};
    const int windows = 8, rows = windows * spec.context;
    CpuBackend be;
    TinyGpt model(be, spec);
    Rng rng(2);
    nlohmann::json out;
    out["spec"] = {{"vocabulary", spec.vocabulary}, {"context", spec.context}, {"width", spec.width},
                   {"heads", spec.heads},           {"layers", spec.layers},   {"tied_head", spec.tied_head},
                   {"logit_scale", model.logit_scale()}, {"learning_rate", kLearningRate}};
    nlohmann::json params = nlohmann::json::object();
    for (Parameter* p : model.parameters()) {
        const std::vector<float> v = initial_values(*p, rng);
        set_parameter(be, *p, v.data());
        params[p->name] = {{"shape", {p->value.rows(), p->value.cols()}}, {"values", v}};
    }
    out["params"] = params;
    const PassFormats formats = PassFormats::uniform(FormatId::fp32, model.matmul_count());
    WindowSampler sampler(data, spec.context, windows, 3);
    Tensor ids = be.allocate({rows, 1}, FormatId::fp32), targets = be.allocate({rows, 1}, FormatId::fp32);
    nlohmann::json records = nlohmann::json::array();
    for (int step = 0; step < steps; ++step) {
        const TokenBatch& batch = sampler.next();
        be.upload(batch.ids.data(), ids);
        be.upload(batch.targets.data(), targets);
        const float loss = model.forward(be, ids, targets, formats);
        model.backward(be, ids, targets, 1.0f);
        if (step == 0) {
            nlohmann::json grads = nlohmann::json::object();
            for (Parameter* p : model.parameters()) grads[p->name] = values_of(p->grad);
            out["grads"] = grads;
        }
        for (Parameter* p : model.parameters()) {
            std::vector<float> w = values_of(p->value);
            const float* g = p->grad.host();
            for (std::size_t i = 0; i < w.size(); ++i) w[i] -= kLearningRate * g[i];
            set_parameter(be, *p, w.data());
        }
        records.push_back({{"ids", batch.ids}, {"targets", batch.targets}, {"loss", loss}});
    }
    out["steps"] = records;
    std::cout << out.dump() << '\n';
    return 0;
}

}  // namespace plab::oracle
