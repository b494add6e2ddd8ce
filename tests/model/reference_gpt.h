#pragma once
// An independent FP64 forward of the GPT of engine/model/tiny_gpt.h, written
// from its definition (plain loops, no shared code with the engine), for
// finite-difference checks of the engine's backward.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/model/tiny_gpt.h"

namespace plab::test {

class ReferenceGpt {
public:
    // Parameters by the engine's names, in its layouts (Linear weights in x out).
    std::map<std::string, std::vector<double>> params;

    explicit ReferenceGpt(const GptSpec& spec, double logit_scale) : s_(spec), scale_(logit_scale) {}

    // Mean next-token cross-entropy of windows of ids against targets.
    double loss(const std::vector<int>& ids, const std::vector<int>& targets) const {
        const int rows = static_cast<int>(ids.size()), d = s_.width;
        Matrix x(rows, d);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < d; ++c)
                x.at(r, c) = p("wte")[ids[r] * d + c] + p("wpe")[(r % s_.context) * d + c];
        for (int l = 0; l < s_.layers; ++l) x = block(x, "h" + std::to_string(l));
        const Matrix h = norm(x, "ln_f");
        const Matrix logits = s_.tied_head ? times_transposed(h, p("wte"), s_.vocabulary)
                                           : linear(h, "head", s_.vocabulary);
        double total = 0;
        for (int r = 0; r < rows; ++r) {
            double top = logits.at(r, 0);
            for (int v = 1; v < s_.vocabulary; ++v) top = std::max(top, logits.at(r, v));
            double sum = 0;
            for (int v = 0; v < s_.vocabulary; ++v) sum += std::exp(logits.at(r, v) - top);
            total += std::log(sum) + top - logits.at(r, targets[r]);
        }
        return total / rows;
    }

private:
    struct Matrix {
        int rows, cols;
        std::vector<double> v;
        Matrix(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r) * c) {}
        double& at(int r, int c) { return v[static_cast<std::size_t>(r) * cols + c]; }
        double at(int r, int c) const { return v[static_cast<std::size_t>(r) * cols + c]; }
    };

    const std::vector<double>& p(const std::string& name) const { return params.at(name); }

    Matrix linear(const Matrix& x, const std::string& name, int out) const {
        const std::vector<double>& w = p(name + ".weight");
        const std::vector<double>& b = p(name + ".bias");
        Matrix y(x.rows, out);
        for (int r = 0; r < x.rows; ++r)
            for (int j = 0; j < out; ++j) {
                double s = b[j];
                for (int i = 0; i < x.cols; ++i) s += x.at(r, i) * w[i * out + j];
                y.at(r, j) = s;
            }
        return y;
    }

    // y = x w^T for w held rows x x.cols (the tied head).
    static Matrix times_transposed(const Matrix& x, const std::vector<double>& w, int rows) {
        Matrix y(x.rows, rows);
        for (int r = 0; r < x.rows; ++r)
            for (int j = 0; j < rows; ++j) {
                double s = 0;
                for (int i = 0; i < x.cols; ++i) s += x.at(r, i) * w[j * x.cols + i];
                y.at(r, j) = s;
            }
        return y;
    }

    Matrix norm(const Matrix& x, const std::string& name) const {
        const std::vector<double>& g = p(name + ".gamma");
        const std::vector<double>& b = p(name + ".beta");
        Matrix y(x.rows, x.cols);
        for (int r = 0; r < x.rows; ++r) {
            double mean = 0, var = 0;
            for (int c = 0; c < x.cols; ++c) mean += x.at(r, c);
            mean /= x.cols;
            for (int c = 0; c < x.cols; ++c) var += (x.at(r, c) - mean) * (x.at(r, c) - mean);
            var /= x.cols;
            const double rstd = 1.0 / std::sqrt(var + LayerNorm::kEps);
            for (int c = 0; c < x.cols; ++c) y.at(r, c) = (x.at(r, c) - mean) * rstd * g[c] + b[c];
        }
        return y;
    }

    static double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

    Matrix attention(const Matrix& h, const std::string& name) const {
        const Matrix q = linear(h, name + ".q", s_.width), k = linear(h, name + ".k", s_.width),
                     v = linear(h, name + ".v", s_.width);
        const int t_max = s_.context, dh = s_.width / s_.heads;
        Matrix out(h.rows, s_.width);
        for (int seq = 0; seq < h.rows / t_max; ++seq)
            for (int head = 0; head < s_.heads; ++head)
                for (int i = 0; i < t_max; ++i) {
                    const int qi = seq * t_max + i;
                    std::vector<double> z(static_cast<std::size_t>(i) + 1);
                    for (int j = 0; j <= i; ++j) {
                        double dot = 0;
                        for (int c = 0; c < dh; ++c) dot += q.at(qi, head * dh + c) * k.at(seq * t_max + j, head * dh + c);
                        z[j] = scale_ * dot;
                    }
                    double top = z[0], sum = 0;
                    for (double zj : z) top = std::max(top, zj);
                    for (double& zj : z) sum += (zj = std::exp(zj - top));
                    for (int c = 0; c < dh; ++c) {
                        double mixed = 0;
                        for (int j = 0; j <= i; ++j) mixed += z[j] / sum * v.at(seq * t_max + j, head * dh + c);
                        out.at(qi, head * dh + c) = mixed;
                    }
                }
        return linear(out, name + ".proj", s_.width);
    }

    Matrix block(const Matrix& x, const std::string& name) const {
        const Matrix a = attention(norm(x, name + ".ln1"), name + ".attn");
        Matrix mid = x;
        for (std::size_t i = 0; i < mid.v.size(); ++i) mid.v[i] += a.v[i];
        Matrix f = linear(norm(mid, name + ".ln2"), name + ".mlp.fc", 4 * s_.width);
        for (double& value : f.v) value = gelu(value);
        const Matrix m = linear(f, name + ".mlp.proj", s_.width);
        for (std::size_t i = 0; i < mid.v.size(); ++i) mid.v[i] += m.v[i];
        return mid;
    }

    GptSpec s_;
    double scale_;
};

}  // namespace plab::test
