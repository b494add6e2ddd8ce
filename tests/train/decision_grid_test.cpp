// The decision grid (engine/train/decision_grid.h): its cells hold what each
// model predicts at the cell centre in its own precision (checked against an
// FP64 forward of the weights, and against a one-point forward through the
// public Mlp API), its bounds enclose the data, it is taken on the asked
// steps only, never for regression, and taking it changes no record.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/amp/precision_policy.h"
#include "engine/train/session.h"
#include "engine/train/trainer_factory.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::error_message;
using trainer_test::histograms_difference;
using trainer_test::host_values;
using trainer_test::preset_with;
using trainer_test::record_difference;

TrainerOptions grids_every(int k, int resolution = 64) {
    TrainerOptions o;
    o.boundary_every = k;
    o.boundary_resolution = resolution;
    return o;
}

// Steps the trainer `steps` times; the last grid it recorded.
std::shared_ptr<const DecisionGrid> last_grid(Trainer& trainer, int steps) {
    std::shared_ptr<const DecisionGrid> grid;
    for (int s = 0; s < steps; ++s) {
        const StepRecord r = trainer.step();
        if (r.boundary) grid = r.boundary;
    }
    return grid;
}

// The centre of a cell as the spec states it: the plane cut into
// resolution equal columns and rows, row 0 at y_min; rounded to the FP32 a
// batch holds.
float centre(double lo, double hi, int resolution, int index) {
    return static_cast<float>(lo + (index + 0.5) * (hi - lo) / resolution);
}

// An FP64 forward of a ReLU MLP without layer norm from host copies of its
// weights (in x out, row-major) and biases: the softmax of the logits.
struct Fp64Mlp {
    std::vector<std::vector<float>> weights, biases;
    std::vector<int> widths;

    std::vector<double> softmax(double x, double y) const {
        std::vector<double> a = {x, y};
        for (std::size_t l = 0; l < weights.size(); ++l) {
            const auto in = static_cast<std::size_t>(widths[l]);
            const auto out = static_cast<std::size_t>(widths[l + 1]);
            std::vector<double> z(out);
            for (std::size_t j = 0; j < out; ++j) {
                double s = biases[l][j];
                for (std::size_t i = 0; i < in; ++i) s += a[i] * weights[l][i * out + j];
                z[j] = l + 1 < weights.size() ? std::max(s, 0.0) : s;
            }
            a = std::move(z);
        }
        const double top = *std::max_element(a.begin(), a.end());
        double sum = 0;
        for (double& v : a) sum += (v = std::exp(v - top));
        for (double& v : a) v /= sum;
        return a;
    }
};

Fp64Mlp fp64_copy(Backend& backend, const Mlp& model) {
    Fp64Mlp m;
    m.widths.push_back(model.linears().front().in_features());
    for (const Linear& l : model.linears()) {
        m.weights.push_back(host_values(backend, l.weight.value));
        m.biases.push_back(host_values(backend, l.bias.value));
        m.widths.push_back(l.out_features());
    }
    return m;
}

// Every cell of an FP32 model's grid against the FP64 forward: the same class
// wherever the two best probabilities are apart by more than FP32 rounding
// can bridge, and the confidence to FP32 accuracy.
void expect_fp64_classes(const DecisionGrid& g, const std::vector<std::uint8_t>& classes,
                         const std::vector<float>& confidence, const Fp64Mlp& reference) {
    const auto n = static_cast<std::size_t>(g.resolution);
    ASSERT_EQ(classes.size(), n * n);
    ASSERT_EQ(confidence.size(), n * n);
    int near_ties = 0;
    std::vector<int> seen(static_cast<std::size_t>(g.classes), 0);
    for (int row = 0; row < g.resolution; ++row)
        for (int col = 0; col < g.resolution; ++col) {
            const std::size_t cell = static_cast<std::size_t>(row) * n + static_cast<std::size_t>(col);
            std::vector<double> p = reference.softmax(centre(g.x_min, g.x_max, g.resolution, col),
                                                      centre(g.y_min, g.y_max, g.resolution, row));
            const auto best = static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
            EXPECT_NEAR(confidence[cell], p[best], 1e-5) << "cell " << col << "," << row;
            const double top = p[best];
            p[best] = -1;
            if (top - *std::max_element(p.begin(), p.end()) < 1e-5) {
                ++near_ties;
                continue;
            }
            EXPECT_EQ(classes[cell], best) << "cell " << col << "," << row;
            ++seen[best];
        }
    EXPECT_LE(near_ties, 4);
    // A trained spiral model predicts every class somewhere on the plane.
    for (int c = 0; c < g.classes; ++c) EXPECT_GT(seen[static_cast<std::size_t>(c)], 100) << "class " << c;
}

TEST(DecisionGrid, Fp32RecipeCellsAreTheFp64ArgmaxOfItsWeights) {
    CpuBackend backend;
    Trainer trainer(backend, preset_with("spirals-fp32", {"steps=300"}), grids_every(100));
    const auto grid = last_grid(trainer, 300);
    ASSERT_NE(grid, nullptr);
    EXPECT_EQ(grid->step, 300);
    expect_fp64_classes(*grid, grid->amp, grid->amp_confidence, fp64_copy(backend, trainer.model()));
}

TEST(DecisionGrid, TwinCellsAreTheFp64ArgmaxOfTheTwinWeights) {
    CpuBackend backend;
    Trainer trainer(backend, preset_with("spirals-amp-fp16", {"steps=300"}), grids_every(100));
    const auto grid = last_grid(trainer, 300);
    ASSERT_NE(grid, nullptr);
    ASSERT_NE(trainer.twin(), nullptr);
    expect_fp64_classes(*grid, grid->twin, grid->twin_confidence, fp64_copy(backend, *trainer.twin()));
}

// The AMP side computes in FP16: its cells must be what a forward of the same
// weights in the same PassFormats says for the cell centre alone.
TEST(DecisionGrid, AmpCellsMatchAOnePointForwardInTheRunsFormats) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-amp-fp16", {"steps=300"});
    Trainer trainer(backend, config, grids_every(100, 50));  // 2500 cells: the last chunk of 128 rows is partial
    const auto grid = last_grid(trainer, 300);
    ASSERT_NE(grid, nullptr);
    ASSERT_EQ(grid->resolution, 50);

    Mlp copy(backend, trainer.model().spec());
    for (std::size_t l = 0; l < copy.linears().size(); ++l) {
        const Linear& from = trainer.model().linears()[l];
        set_parameter(backend, copy.linears()[l].weight, host_values(backend, from.weight.target()).data());
        set_parameter(backend, copy.linears()[l].bias, host_values(backend, from.bias.target()).data());
    }
    const PassFormats formats = mixed_pass_formats(config.precision, copy.layer_count());
    ASSERT_EQ(formats.layer_compute.front(), FormatId::fp16);
    Tensor x = backend.allocate({1, 2}, FormatId::fp32);
    Tensor y = backend.allocate({1, 1}, FormatId::fp32);
    const float zero = 0;
    backend.upload(&zero, y);
    const int n = grid->resolution;
    int checked = 0, disagreements = 0;
    for (int cell = 0; cell < n * n; cell += 5) {
        const float point[2] = {centre(grid->x_min, grid->x_max, n, cell % n),
                                centre(grid->y_min, grid->y_max, n, cell / n)};
        backend.upload(point, x);
        copy.forward(backend, x, y, formats);
        const std::vector<float> p = host_values(backend, copy.outputs());
        const auto best = static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
        const auto u = static_cast<std::size_t>(cell);
        EXPECT_EQ(grid->amp[u], best) << "cell " << cell;
        EXPECT_EQ(grid->amp_confidence[u], p[best]) << "cell " << cell;
        disagreements += grid->amp[u] != grid->twin[u];
        ++checked;
    }
    EXPECT_EQ(checked, (n * n + 4) / 5);
    // AMP and its twin agree on most of the plane after 300 steps.
    EXPECT_LT(disagreements, checked / 10);
}

TEST(DecisionGrid, BoundsEncloseTheDataWithATenPercentMargin) {
    const Dataset data = make_dataset({DatasetKind::moons, 4000, 0.1, 2, 0.2, 7});
    const DecisionGrid g = make_empty_grid(data, 32);
    double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
    for (const Split* s : {&data.train, &data.test})
        for (int i = 0; i < s->rows; ++i) {
            x0 = std::min(x0, static_cast<double>(s->inputs[2 * i]));
            x1 = std::max(x1, static_cast<double>(s->inputs[2 * i]));
            y0 = std::min(y0, static_cast<double>(s->inputs[2 * i + 1]));
            y1 = std::max(y1, static_cast<double>(s->inputs[2 * i + 1]));
        }
    EXPECT_DOUBLE_EQ(g.x_min, x0 - 0.1 * (x1 - x0));
    EXPECT_DOUBLE_EQ(g.x_max, x1 + 0.1 * (x1 - x0));
    EXPECT_DOUBLE_EQ(g.y_min, y0 - 0.1 * (y1 - y0));
    EXPECT_DOUBLE_EQ(g.y_max, y1 + 0.1 * (y1 - y0));
    EXPECT_EQ(g.resolution, 32);
    EXPECT_EQ(g.classes, 2);
    EXPECT_TRUE(g.amp.empty());
    // 800 test rows: every second one, 400 points, each a test row with its label.
    ASSERT_EQ(data.test.rows, 800);
    ASSERT_EQ(g.points.size(), 400u);
    for (std::size_t k = 0; k < g.points.size(); ++k) {
        const GridPoint& p = g.points[k];
        EXPECT_EQ(p.x, data.test.inputs[4 * k]);
        EXPECT_EQ(p.y, data.test.inputs[4 * k + 1]);
        EXPECT_EQ(p.label, data.test.labels[2 * k]);
        EXPECT_GT(p.x, g.x_min);
        EXPECT_LT(p.x, g.x_max);
        EXPECT_GT(p.y, g.y_min);
        EXPECT_LT(p.y, g.y_max);
    }
    // Cell centres: the first and last half a cell in from the edges, row 0 at the bottom.
    const std::vector<float> in = grid_inputs(g);
    ASSERT_EQ(in.size(), 2u * 32 * 32);
    EXPECT_EQ(in[0], centre(g.x_min, g.x_max, 32, 0));
    EXPECT_EQ(in[1], centre(g.y_min, g.y_max, 32, 0));
    EXPECT_EQ(in[2], centre(g.x_min, g.x_max, 32, 1));
    EXPECT_EQ(in[2 * 32 + 1], centre(g.y_min, g.y_max, 32, 1));
    EXPECT_EQ(in.back(), centre(g.y_min, g.y_max, 32, 31));
}

TEST(DecisionGrid, NoGridForTheSineSet) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-fp32", {"data.kind=sine", "steps=4"});
    Trainer trainer(backend, config, grids_every(1));
    for (int s = 0; s < 4; ++s) EXPECT_EQ(trainer.step().boundary, nullptr) << "step " << s + 1;
    const Dataset sine = make_dataset({DatasetKind::sine, 100, 0.1, 3, 0.2, 1});
    EXPECT_FALSE(has_decision_grid(sine));
    EXPECT_THROW(make_empty_grid(sine, 8), Error);
}

TEST(DecisionGrid, TakenEveryKStepsAndOnTheLastStep) {
    CpuBackend backend;
    Trainer trainer(backend, preset_with("spirals-amp-fp16", {"steps=25"}), grids_every(10, 16));
    std::vector<std::int64_t> at;
    for (int s = 0; s < 27; ++s) {
        const StepRecord r = trainer.step();
        if (!r.boundary) continue;
        at.push_back(r.step);
        EXPECT_EQ(r.boundary->step, r.step);
        EXPECT_EQ(r.boundary->amp.size(), 256u);
        EXPECT_EQ(r.boundary->twin.size(), 256u);
        EXPECT_EQ(r.boundary->classes, 3);
    }
    EXPECT_EQ(at, (std::vector<std::int64_t>{10, 20, 25}));

    Trainer no_twin(backend, preset_with("spirals-amp-fp16", {"steps=5", "twin=false"}), grids_every(5, 16));
    const auto grid = last_grid(no_twin, 5);
    ASSERT_NE(grid, nullptr);
    EXPECT_EQ(grid->amp.size(), 256u);
    EXPECT_TRUE(grid->twin.empty());
    EXPECT_TRUE(grid->twin_confidence.empty());

    Trainer off(backend, preset_with("spirals-amp-fp16", {"steps=5"}));
    EXPECT_EQ(last_grid(off, 5), nullptr);
}

TEST(DecisionGrid, BadOptionsNameTheField) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-amp-fp16", {});
    EXPECT_NE(error_message([&] { Trainer t(backend, config, grids_every(10, 1)); }).find("boundary_resolution"),
              std::string::npos);
    EXPECT_NE(error_message([&] { Trainer t(backend, config, grids_every(-1)); }).find("boundary_every"),
              std::string::npos);
}

// The grid's forwards overwrite the models' activation buffers (and resize
// them): every number of the run must stay as it is without grids. Evaluations
// at 15 and 30 and grids at 10, 20, 30 interleave both kinds of extra forward.
TEST(DecisionGrid, RecordsAreIdenticalWithAndWithoutGrids) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-amp-fp16", {"steps=30", "eval_every=15"});
    Trainer plain(backend, config), gridded(backend, config, grids_every(10));
    int grids = 0;
    for (int s = 1; s <= 30; ++s) {
        const StepRecord a = plain.step();
        const StepRecord b = gridded.step();
        ASSERT_EQ(record_difference(a, b), "") << "step " << s;
        ASSERT_EQ(histograms_difference(plain.histograms(), gridded.histograms()), "") << "step " << s;
        EXPECT_EQ(a.boundary, nullptr);
        grids += b.boundary != nullptr;
    }
    EXPECT_EQ(grids, 3);
}

// A clone (a Session checkpoint or fork) keeps the options: it takes the same
// grids as the original.
TEST(DecisionGrid, CloneTakesTheSameGrids) {
    CpuBackend backend;
    Trainer original(backend, preset_with("spirals-amp-fp16", {}), grids_every(4, 16));
    for (int s = 0; s < 3; ++s) original.step();
    const std::unique_ptr<plab::Run> copy = original.clone();
    for (int s = 4; s <= 8; ++s) {
        const StepRecord a = original.step();
        const StepRecord b = copy->step();
        ASSERT_EQ(a.boundary != nullptr, s % 4 == 0) << "step " << s;
        ASSERT_EQ(b.boundary != nullptr, s % 4 == 0) << "step " << s;
        if (!a.boundary) continue;
        EXPECT_EQ(a.boundary->amp, b.boundary->amp);
        EXPECT_EQ(a.boundary->twin, b.boundary->twin);
        EXPECT_EQ(a.boundary->amp_confidence, b.boundary->amp_confidence);
    }
}

// The workbench's path: a Session over trainer_factory(backend, options).
TEST(DecisionGrid, SessionRecordsCarryTheGrids) {
    Session session(preset_with("spirals-amp-fp16", {}), trainer_factory(std::make_shared<CpuBackend>(), grids_every(5, 8)));
    session.step(12);
    session.wait_until_idle();
    const auto snapshot = session.snapshot();
    std::vector<std::int64_t> at;
    for (const auto& r : snapshot->main.log.recent)
        if (r->boundary) at.push_back(r->boundary->step);
    EXPECT_EQ(at, (std::vector<std::int64_t>{5, 10}));
}

}  // namespace
}  // namespace plab
