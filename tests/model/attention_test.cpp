// The self-attention block: its hand-written backward against central finite
// differences of an independent FP64 implementation, and the softmax's
// precision policy on a case small enough to work out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/attention.h"

namespace plab {
namespace {

// y = x + softmax_j(scale * q_i . k_j) v_j Wo + bo per row, in FP64; the
// loss is sum(y * r) for a fixed r, so dL/dy = r.
struct DoubleAttention {
    int width, tokens;
    double scale;
    // q, k, v, out: weight (width x width, row-major in x out) and bias.
    std::vector<double> w[4], b[4];

    std::vector<double> project(const std::vector<double>& x, int which) const {
        std::vector<double> y(b[which]);
        for (int j = 0; j < width; ++j)
            for (int p = 0; p < width; ++p) y[j] += x[p] * w[which][p * width + j];
        return y;
    }

    double loss(const std::vector<double>& x, const std::vector<double>& r, int rows) const {
        const int tw = width / tokens;
        double total = 0;
        for (int row = 0; row < rows; ++row) {
            const std::vector<double> xr(x.begin() + row * width, x.begin() + (row + 1) * width);
            const std::vector<double> q = project(xr, 0), k = project(xr, 1), v = project(xr, 2);
            std::vector<double> mixed(width, 0.0);
            for (int i = 0; i < tokens; ++i) {
                std::vector<double> z(tokens);
                for (int j = 0; j < tokens; ++j) {
                    double dot = 0;
                    for (int c = 0; c < tw; ++c) dot += q[i * tw + c] * k[j * tw + c];
                    z[j] = scale * dot;
                }
                double top = z[0], sum = 0;
                for (double zj : z) top = std::max(top, zj);
                for (double zj : z) sum += std::exp(zj - top);
                for (int j = 0; j < tokens; ++j)
                    for (int c = 0; c < tw; ++c) mixed[i * tw + c] += std::exp(z[j] - top) / sum * v[j * tw + c];
            }
            const std::vector<double> o = project(mixed, 3);
            for (int j = 0; j < width; ++j) total += (xr[j] + o[j]) * r[row * width + j];
        }
        return total;
    }
};

TEST(AttentionGradient, MatchesFiniteDifferences) {
    const int rows = 3, width = 6, tokens = 3;
    const float scale = 0.7f;
    CpuBackend be;
    SelfAttention attn(be, "attn", width, tokens, scale, FormatId::fp32, true);
    std::mt19937 rng(11);
    auto draw = [&] { return static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 1000.0f; };

    DoubleAttention ref{width, tokens, scale, {}, {}};
    const std::vector<Linear*> projections = attn.projections();
    for (std::size_t l = 0; l < projections.size(); ++l) {
        std::vector<float> w(static_cast<std::size_t>(width * width)), b(static_cast<std::size_t>(width));
        for (auto& v : w) v = draw();
        for (auto& v : b) v = 0.2f * draw();
        be.upload(w.data(), projections[l]->weight.value);
        be.upload(b.data(), projections[l]->bias.value);
        ref.w[l].assign(w.begin(), w.end());
        ref.b[l].assign(b.begin(), b.end());
    }
    std::vector<float> xs(rows * width), rs(rows * width);
    for (auto& v : xs) v = 1.5f * draw();
    for (auto& v : rs) v = draw();
    Tensor x = be.allocate({rows, width}, FormatId::fp32), y = be.allocate({rows, width}, FormatId::fp32);
    Tensor dy = be.allocate({rows, width}, FormatId::fp32), dx = be.allocate({rows, width}, FormatId::fp32);
    be.upload(xs.data(), x);
    be.upload(rs.data(), dy);

    attn.forward(be, x, y, {FormatId::fp32, true});
    attn.backward(be, x, dy, dx, 1.0f);
    std::vector<double> xd(xs.begin(), xs.end());
    const std::vector<double> rd(rs.begin(), rs.end());
    double forward_loss = 0;
    for (int i = 0; i < rows * width; ++i) forward_loss += static_cast<double>(y.host()[i]) * rd[i];
    EXPECT_NEAR(forward_loss, ref.loss(xd, rd, rows), 1e-5);

    const double h = 1e-6;
    auto numeric = [&](double& param) {
        const double saved = param;
        param = saved + h;
        const double up = ref.loss(xd, rd, rows);
        param = saved - h;
        const double down = ref.loss(xd, rd, rows);
        param = saved;
        return (up - down) / (2 * h);
    };
    const char* names[] = {"q", "k", "v", "out"};
    for (std::size_t l = 0; l < projections.size(); ++l) {
        for (auto [params, grads] : {std::pair{&ref.w[l], projections[l]->weight.grad.host()},
                                     std::pair{&ref.b[l], projections[l]->bias.grad.host()}})
            for (std::size_t k = 0; k < params->size(); ++k) {
                const double n = numeric((*params)[k]);
                ASSERT_NEAR(grads[k], n, 2e-5 + 1e-4 * std::fabs(n)) << names[l] << " parameter " << k;
            }
    }
    for (std::size_t k = 0; k < xd.size(); ++k) {
        const double n = numeric(xd[k]);
        ASSERT_NEAR(dx.host()[k], n, 2e-5 + 1e-4 * std::fabs(n)) << "dx " << k;
    }
}

// Two tokens of width 1, Wq = Wk = identity, x = (3, 4): scores Q.K are
// [[9, 12], [12, 16]]; at logit_scale 5000 the scaled logits are
// [[45000, 60000], [60000, 80000]]. 80000 is beyond FP16's 65504: an FP16
// softmax turns the second row into Inf - Inf = NaN, while in FP32 both rows
// are softmax = (exp(-15000), 1) and (exp(-20000), 1) = (0, 1).
TEST(AttentionSoftmax, OverflowsInFp16StaysFiniteInFp32) {
    CpuBackend be;
    SelfAttention attn(be, "attn", 2, 2, 5000.0f, FormatId::fp32, true);
    const std::vector<float> identity = {1, 0, 0, 1};
    for (Linear* l : attn.projections()) be.upload(identity.data(), l->weight.value);
    const std::vector<float> xs = {3, 4};
    Tensor x = be.allocate({1, 2}, FormatId::fp32), y = be.allocate({1, 2}, FormatId::fp16);
    be.upload(xs.data(), x);

    attn.forward(be, x, y, {FormatId::fp16, true});
    EXPECT_EQ(attn.scores().host()[3], 16.0f);
    const std::vector<float> want = {0, 1, 0, 1};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(attn.probs().host()[i], want[static_cast<std::size_t>(i)]) << i;
    EXPECT_EQ(attn.probs().dtype(), FormatId::fp32);
    // y = x + P V Wo = (3, 4) + (4, 4): token 1 attends to token 2 (v = 4).
    EXPECT_EQ(y.host()[0], 7.0f);
    EXPECT_EQ(y.host()[1], 8.0f);

    attn.forward(be, x, y, {FormatId::fp16, false});
    EXPECT_EQ(attn.probs().dtype(), FormatId::fp16);
    EXPECT_EQ(attn.probs().host()[0], 0.0f);  // 45000 and 60000 still fit FP16
    EXPECT_EQ(attn.probs().host()[1], 1.0f);
    EXPECT_TRUE(std::isnan(attn.probs().host()[2]));
    EXPECT_TRUE(std::isnan(attn.probs().host()[3]));
    EXPECT_TRUE(std::isnan(y.host()[1]));
}

}  // namespace
}  // namespace plab
