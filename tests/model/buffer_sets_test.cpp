// Per-batch buffer sets (buffer_sets.h): a model that alternates between the
// training batch and the test set keeps both, so its tensors stay where they
// are (a recorded step holds them) and it allocates nothing after the first
// round; and a pass on the training batch after one on the test set gives the
// gradients of a model that never saw the test set, bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/mlp.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

TEST(BufferSets, KeepsASetPerKeyAtItsAddressAndDropsTheLeastRecentlyUsed) {
    BufferSets<int, std::vector<int>> sets;
    int made = 0;
    const auto make = [&](int key) {
        ++made;
        return std::vector<int>(static_cast<std::size_t>(key), key);
    };
    std::vector<int>* eight = &sets.use(8, make);
    std::vector<int>* twenty = &sets.use(20, make);
    EXPECT_EQ(made, 2);
    EXPECT_EQ(&sets.use(8, make), eight);  // kept, not made again
    EXPECT_EQ(made, 2);
    EXPECT_EQ(sets.current(), eight);
    EXPECT_EQ(*sets.current_key(), 8);
    (void)twenty;
    static_assert(kBufferSets == 3);       // the training batch, the test set and a sampled window
    (void)sets.use(30, make);              // a third key fits beside them
    EXPECT_EQ(made, 3);
    EXPECT_EQ(&sets.use(8, make), eight);
    (void)sets.use(5, make);               // a fourth drops 20, the least recently used
    EXPECT_EQ(made, 4);
    EXPECT_EQ(&sets.use(8, make), eight);
    EXPECT_EQ(made, 4);
    (void)sets.use(20, make);              // made again
    EXPECT_EQ(made, 5);
    EXPECT_EQ(sets.current()->size(), 20u);
}

TEST(BufferSets, AMakeThatThrowsLeavesNoCurrentSetAndKeepsNothing) {
    BufferSets<int, int> sets;
    (void)sets.use(1, [](int k) { return k; });
    EXPECT_THROW((void)sets.use(2, [](int) -> int { throw std::runtime_error("out of memory"); }), std::runtime_error);
    EXPECT_EQ(sets.current(), nullptr);
    EXPECT_EQ(sets.current_key(), nullptr);
    int made = 0;
    EXPECT_EQ(sets.use(2, [&](int k) { return ++made, 10 * k; }), 20);
    EXPECT_EQ(made, 1);
}

// A 3-6-6-3 MLP with layer norm and the attention block, its weights drawn from a seed.
std::unique_ptr<Mlp> seeded_mlp(Backend& be) {
    MlpSpec spec;
    spec.widths = {3, 6, 6, 3};
    spec.layer_norm = true;
    spec.attention_tokens = 2;
    auto mlp = std::make_unique<Mlp>(be, spec);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    for (Parameter* p : mlp->parameters()) {
        std::vector<float> v(p->value.size());
        for (float& x : v) x = u(rng);
        set_parameter(be, *p, v.data());
    }
    return mlp;
}

struct Batch {
    Tensor x, y;
};
Batch batch(Backend& be, int rows, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(rows) * 3), y(static_cast<std::size_t>(rows));
    for (float& v : x) v = u(rng);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(i % 3);
    Batch b{be.allocate({rows, 3}, FormatId::fp32), be.allocate({rows, 1}, FormatId::fp32)};
    be.upload(x.data(), b.x);
    be.upload(y.data(), b.y);
    return b;
}

std::vector<float> grads_of(Backend& be, Mlp& mlp) {
    std::vector<float> all;
    for (Parameter* p : mlp.parameters()) {
        std::vector<float> g(p->grad.size());
        be.download(p->grad, g.data());
        all.insert(all.end(), g.begin(), g.end());
    }
    return all;
}

TEST(MlpPassBuffers, TrainingAndTestPassesAlternateWithoutAllocating) {
    CpuBackend be;
    const PassFormats formats = PassFormats::uniform(FormatId::fp16, 3);
    const Batch train = batch(be, 8, 1), test = batch(be, 20, 2);
    auto mlp = seeded_mlp(be), fresh = seeded_mlp(be);
    // A first round makes both sets (and the parameters' gradients).
    (void)mlp->forward(be, train.x, train.y, formats);
    mlp->backward(be, train.x, train.y, 1024.0f);
    (void)mlp->forward(be, test.x, test.y, formats);
    const Tensor* first_logits = &mlp->activation(2);
    const void* test_storage = first_logits->raw();
    const std::uint64_t allocated = be.allocations();
    for (int round = 0; round < 3; ++round) {
        (void)mlp->forward(be, train.x, train.y, formats);
        mlp->backward(be, train.x, train.y, 1024.0f);
        EXPECT_EQ(mlp->activation(2).rows(), 8);
        (void)mlp->forward(be, test.x, test.y, formats);
        EXPECT_EQ(mlp->activation(2).raw(), test_storage) << "round " << round;
    }
    EXPECT_EQ(be.allocations(), allocated);
    // The training pass after the test pass is the pass of a model that only trained.
    (void)mlp->forward(be, train.x, train.y, formats);
    mlp->backward(be, train.x, train.y, 1024.0f);
    (void)fresh->forward(be, train.x, train.y, formats);
    fresh->backward(be, train.x, train.y, 1024.0f);
    const std::vector<float> got = grads_of(be, *mlp), want = grads_of(be, *fresh);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(float_bits(got[i]), float_bits(want[i])) << "grad " << i;
    // A backward on a batch whose forward was not the last is an error, not a read of the wrong buffers.
    (void)mlp->forward(be, test.x, test.y, formats);
    EXPECT_THROW(mlp->backward(be, train.x, train.y, 1.0f), Error);
}

}  // namespace
}  // namespace plab
