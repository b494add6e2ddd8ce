// Hand-written backward passes against central finite differences of an
// independent FP64 implementation of the same network.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/mlp.h"
#include "engine/numeric/scalar_cast.h"
#include "reference_activation.h"

namespace plab {
namespace {

struct DoubleNet {
    std::vector<int> widths;
    Activation activation;
    std::vector<std::vector<double>> weights, biases;  // weights[l]: in x out, row-major

    double loss(const std::vector<double>& x, const std::vector<int>& labels, int rows) const {
        std::vector<double> h = x;
        for (std::size_t l = 0; l < weights.size(); ++l) {
            const int in = widths[l], out = widths[l + 1];
            std::vector<double> next(static_cast<std::size_t>(rows) * out);
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j < out; ++j) {
                    double s = biases[l][j];
                    for (int p = 0; p < in; ++p) s += h[i * in + p] * weights[l][p * out + j];
                    next[i * out + j] = l + 1 < weights.size() ? test::reference_activation(activation, s) : s;
                }
            h = std::move(next);
        }
        const int classes = widths.back();
        double total = 0;
        for (int i = 0; i < rows; ++i) {
            double top = h[i * classes];
            for (int j = 1; j < classes; ++j) top = std::max(top, h[i * classes + j]);
            double sum = 0;
            for (int j = 0; j < classes; ++j) sum += std::exp(h[i * classes + j] - top);
            total += std::log(sum) + top - h[i * classes + labels[i]];
        }
        return total / rows;
    }
};

class GradientCheck : public testing::TestWithParam<Activation> {};

TEST_P(GradientCheck, MlpGradientsMatchFiniteDifferences) {
    const Activation activation = GetParam();
    const MlpSpec spec{{3, 5, 4, 3}, activation};
    const int rows = 6;
    CpuBackend be;
    Mlp mlp(be, spec);
    std::mt19937 rng(42);
    auto draw = [&] { return static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 1000.0f; };

    DoubleNet ref{spec.widths, activation, {}, {}};
    for (Linear& layer : mlp.linears()) {
        std::vector<float> w(layer.weight.value.size()), b(layer.bias.value.size());
        for (auto& v : w) v = draw();
        for (auto& v : b) v = 0.1f * draw();
        be.upload(w.data(), layer.weight.value);
        be.upload(b.data(), layer.bias.value);
        ref.weights.emplace_back(w.begin(), w.end());
        ref.biases.emplace_back(b.begin(), b.end());
    }
    std::vector<float> xs(rows * 3), ys(rows);
    for (auto& v : xs) v = 2.0f * draw();
    std::vector<int> labels(rows);
    for (int i = 0; i < rows; ++i) labels[i] = i % 3, ys[i] = static_cast<float>(i % 3);
    Tensor x = be.allocate({rows, 3}, FormatId::fp32), y = be.allocate({rows, 1}, FormatId::fp32);
    be.upload(xs.data(), x);
    be.upload(ys.data(), y);

    const float loss = mlp.forward(be, x, y, PassFormats::uniform(FormatId::fp32, 3));
    const std::vector<double> xd(xs.begin(), xs.end());
    EXPECT_NEAR(loss, ref.loss(xd, labels, rows), 2e-6);
    mlp.backward(be, x, y, 1.0f);

    const double h = 1e-6;
    for (std::size_t l = 0; l < ref.weights.size(); ++l) {
        for (auto [params, grads] : {std::pair{&ref.weights[l], mlp.linears()[l].weight.grad.host()},
                                     std::pair{&ref.biases[l], mlp.linears()[l].bias.grad.host()}}) {
            for (std::size_t k = 0; k < params->size(); ++k) {
                const double saved = (*params)[k];
                (*params)[k] = saved + h;
                const double up = ref.loss(xd, labels, rows);
                (*params)[k] = saved - h;
                const double down = ref.loss(xd, labels, rows);
                (*params)[k] = saved;
                const double numeric = (up - down) / (2 * h);
                ASSERT_NEAR(grads[k], numeric, 2e-5 + 1e-4 * std::fabs(numeric))
                    << mlp.linears()[l].name() << " parameter " << k << " (" << activation_name(activation) << ")";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Activations, GradientCheck,
                         testing::Values(Activation::relu, Activation::tanh, Activation::gelu, Activation::identity),
                         [](const testing::TestParamInfo<Activation>& param) {
                             return std::string(activation_name(param.param));
                         });

// An FP16 step with loss scale 1024 gives, once unscaled, the FP32 gradients
// up to FP16 rounding of its inputs and activations.
TEST(MlpAutocast, UnscaledFp16GradientsTrackFp32) {
    CpuBackend be;
    Mlp half(be, {{2, 8, 3}, Activation::relu});
    Mlp full(be, {{2, 8, 3}, Activation::relu});
    std::mt19937 rng(7);
    for (std::size_t l = 0; l < half.linears().size(); ++l) {
        std::vector<float> w(half.linears()[l].weight.value.size());
        for (auto& v : w) v = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 997.0f;
        be.upload(w.data(), half.linears()[l].weight.value);
        be.upload(w.data(), full.linears()[l].weight.value);
    }
    const std::vector<float> xs = {0.3f, -0.7f, 1.1f, 0.25f}, ys = {0, 2};
    Tensor x = be.allocate({2, 2}, FormatId::fp32), y = be.allocate({2, 1}, FormatId::fp32);
    be.upload(xs.data(), x);
    be.upload(ys.data(), y);

    half.forward(be, x, y, PassFormats::uniform(FormatId::fp16, 2));
    half.backward(be, x, y, 1024.0f);
    full.forward(be, x, y, PassFormats::uniform(FormatId::fp32, 2));
    full.backward(be, x, y, 1.0f);
    for (std::size_t l = 0; l < half.linears().size(); ++l)
        for (std::size_t k = 0; k < half.linears()[l].weight.grad.size(); ++k) {
            const double scaled = half.linears()[l].weight.grad.host()[k] / 1024.0;
            const double exact = full.linears()[l].weight.grad.host()[k];
            EXPECT_NEAR(scaled, exact, 2e-3 * (1 + std::fabs(exact))) << "layer " << l << " k " << k;
        }
}

}  // namespace
}  // namespace plab
