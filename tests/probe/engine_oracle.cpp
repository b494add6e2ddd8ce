// The engine's answers for tests that compare it with PyTorch, reading
// little-endian FP32 values from FILE:
//   engine_oracle stats FILE DIVISOR...   per divisor one JSON line: the
//       engine's TensorStats of x / divisor and its Log2Histogram (the
//       probe's agreement test, probe_engine_agreement.py)
//   engine_oracle cast FORMAT FILE        a JSON array: each value's code in
//       FORMAT (fp16, bf16, e4m3, e5m2), the shared cast's (torch_oracle_test.py)
//   engine_oracle gpt STEPS               the GPT trained STEPS steps (gpt_oracle.cpp)
//   engine_oracle scaler INIT GROWTH BACKOFF INTERVAL FLAGS
//       the dynamic loss scaler's [scale, growth tracker] after each update,
//       FLAGS a string of 0 (clean step) and 1 (found_inf), as a JSON array
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/amp/scaler_rule.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats.h"

namespace plab::oracle {
int gpt(int steps);
}

namespace {

std::vector<float> read_floats(const char* path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<float> values(bytes.size() / sizeof(float));
    std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(values.size() * sizeof(float)),
              reinterpret_cast<char*>(values.data()));
    return values;
}

nlohmann::json stats_json(const plab::TensorStats& s) {
    nlohmann::json j = {{"count", s.count},   {"zeros", s.zeros},       {"nans", s.nans},
                        {"pos_infs", s.pos_infs}, {"neg_infs", s.neg_infs}, {"amax", s.amax},
                        {"mean_abs", s.mean_abs}, {"rms", s.rms}};
    for (std::size_t i = 0; i < plab::kRangeFormats.size(); ++i) {
        const plab::RangeFractions& r = s.ranges[i];
        j[std::string(plab::format_name(plab::kRangeFormats[i]))] = {
            {"underflow", r.underflow}, {"subnormal", r.subnormal}, {"overflow", r.overflow}};
    }
    return j;
}

nlohmann::json histogram_json(const plab::Log2Histogram& h) {
    return {{"zeros", h.zeros},       {"nans", h.nans}, {"pos_infs", h.pos_infs},
            {"neg_infs", h.neg_infs}, {"bins", h.bins}};
}

int stats(const std::vector<float>& x, int count, char** divisors) {
    for (int i = 0; i < count; ++i) {
        const double divisor = std::strtod(divisors[i], nullptr);
        plab::Log2Histogram hist;
        plab::add_to_histogram(x.data(), x.size(), divisor, hist);
        const nlohmann::json line = {{"divisor", divisor},
                                     {"stats", stats_json(plab::compute_tensor_stats(x.data(), x.size(), divisor))},
                                     {"hist", histogram_json(hist)}};
        std::cout << line.dump() << '\n';
    }
    return 0;
}

int cast(plab::FormatId format, const std::vector<float>& x) {
    nlohmann::json codes = nlohmann::json::array();
    for (float v : x) codes.push_back(plab::encode(format, v));
    std::cout << codes.dump() << '\n';
    return 0;
}

int scaler(char** args) {
    using namespace plab;
    ScalerConfig config;
    config.kind = ScalerKind::dynamic;
    config.init_scale = std::strtof(args[0], nullptr);
    config.growth_factor = std::strtof(args[1], nullptr);
    config.backoff_factor = std::strtof(args[2], nullptr);
    config.growth_interval = std::atoi(args[3]);
    const ScalerRule rule = scaler_rule(config);
    ScalerState state{config.init_scale, 0, static_cast<float>(config.hysteresis)};
    nlohmann::json states = nlohmann::json::array();
    for (const char* flag = args[4]; *flag; ++flag) {
        state = next_scaler_state(rule, state, *flag == '1');
        states.push_back({state.scale, state.growth_tracker});
    }
    std::cout << states.dump() << '\n';
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "stats" && argc >= 4) return stats(read_floats(argv[2]), argc - 3, argv + 3);
    if (mode == "cast" && argc == 4) {
        if (const auto format = plab::parse_format(argv[2])) return cast(*format, read_floats(argv[3]));
    }
    if (mode == "scaler" && argc == 7) return scaler(argv + 2);
    if (mode == "gpt" && argc == 3) return plab::oracle::gpt(std::atoi(argv[2]));
    std::fprintf(stderr,
                 "usage: engine_oracle stats FILE DIVISOR... | cast FORMAT FILE | "
                 "scaler INIT GROWTH BACKOFF INTERVAL FLAGS | gpt STEPS\n");
    return 2;
}
