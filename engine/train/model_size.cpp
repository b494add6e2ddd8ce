#include "engine/train/model_size.h"

#include <cstdio>

namespace plab {

namespace {

std::int64_t linear_parameters(std::int64_t in, std::int64_t out) { return in * out + out; }

// "4.5 k", "134.3 M": three significant figures are enough to size a model.
std::string count_text(std::int64_t n) {
    char text[32];
    if (n < 1000)
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(n));
    else if (n < 1'000'000)
        std::snprintf(text, sizeof text, "%.1f k", static_cast<double>(n) / 1e3);
    else if (n < 1'000'000'000)
        std::snprintf(text, sizeof text, "%.1f M", static_cast<double>(n) / 1e6);
    else
        std::snprintf(text, sizeof text, "%.2f G", static_cast<double>(n) / 1e9);
    return text;
}

}  // namespace

std::int64_t parameter_count(const ModelConfig& model, int inputs, int outputs) {
    std::int64_t total = 0;
    std::int64_t in = inputs;
    for (const int width : model.hidden) {
        total += linear_parameters(in, width);
        if (model.layer_norm || model.batch_norm) total += 2 * static_cast<std::int64_t>(width);  // gamma and beta
        in = width;
    }
    total += linear_parameters(in, outputs);
    if (model.attention_tokens > 0 && !model.hidden.empty())  // q, k, v and the output projection
        total += 4 * linear_parameters(model.hidden.front(), model.hidden.front());
    return total;
}

std::string model_size_text(const RunConfig& config, int inputs, int outputs) {
    std::string widths = std::to_string(inputs);
    for (const int width : config.model.hidden) widths += "-" + std::to_string(width);
    widths += "-" + std::to_string(outputs);
    return "a " + widths + " MLP (" + count_text(parameter_count(config.model, inputs, outputs)) +
           " parameters, batch " + std::to_string(config.batch_size) +
           (config.twin ? ", with its FP32 twin)" : ")");
}

}  // namespace plab
