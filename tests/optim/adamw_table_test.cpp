// AdamWTable: the t-dependent AdamW scalars a device reads by its own step
// count, against adamw_scalars computed for each t directly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/optim/adamw_table.h"
#include "engine/optim/update_math.h"

namespace plab {
namespace {

// What a device reads for step t (count t - 1): the table's row, or its last.
AdamWScalars read_back(const AdamWTable& table, int t) {
    AdamWScalars k;
    const int row = adamw_table_row(static_cast<float>(t - 1), table.rows());
    load_adamw_row(table.host().data() + static_cast<std::size_t>(row) * kAdamWTableWords, k);
    return k;
}

void expect_step(const AdamWTable& table, AdamWStep settings, int t) {
    settings.step = t;
    const AdamWScalars want = adamw_scalars(settings), got = read_back(table, t);
    ASSERT_EQ(float_bits(got.step_size), float_bits(want.step_size)) << "step " << t;
    ASSERT_EQ(float_bits(got.bias_correction2_sqrt), float_bits(want.bias_correction2_sqrt)) << "step " << t;
}

TEST(AdamWTable, EveryStepReadsItsOwnScalarsUpToTheLimitAndBeyond) {
    CpuBackend be;
    struct Settings {
        float lr, beta1, beta2;
    };
    const Settings cases[] = {{1e-3f, 0.9f, 0.999f}, {0.01f, 0.0f, 0.5f}, {3e-4f, 0.95f, 0.98f}};
    for (const Settings& c : cases) {
        AdamWTable table;
        const AdamWStep settings{c.lr, c.beta1, c.beta2, 1e-8f, 0.0f, 1};
        int covered = 1;
        while (!table.complete()) {  // grow it as a run would, step by step
            table.cover(be, settings, covered);
            ASSERT_GE(table.rows(), covered);
            covered = table.rows() + 1;
            ASSERT_LT(table.rows(), 100000) << "beta2 " << c.beta2 << ": no limit";
        }
        for (int t = 1; t <= table.rows(); ++t) expect_step(table, settings, t);
        // Past the end every step reads the last row: it must be their value too.
        for (int t : {table.rows() + 1, table.rows() + 977, 1000000, 16777215}) expect_step(table, settings, t);
    }
}

TEST(AdamWTable, StaysWithinTheRowsItNeedsAndIsRebuiltForNewSettings) {
    CpuBackend be;
    AdamWTable table;
    AdamWStep settings{1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 1};
    table.cover(be, settings, 1);
    EXPECT_EQ(table.rows(), 1024);  // a first block
    const Tensor& grown = table.cover(be, settings, 1500);
    EXPECT_EQ(table.rows(), 2048);  // doubled
    EXPECT_EQ(grown.rows(), 2048);
    EXPECT_EQ(grown.cols(), kAdamWTableWords);
    EXPECT_FALSE(table.complete());
    // With beta2 = 0.999 the limit comes near t = 17,000: the table stops there.
    const void* storage = table.cover(be, settings, 1000000).raw();
    EXPECT_TRUE(table.complete());
    EXPECT_LT(table.rows(), 20000);
    // A live edit rewrites the rows for the new settings, as many as before,
    // where they were (a recorded step holds the table's storage).
    const int rows = table.rows();
    for (const AdamWStep edit : {AdamWStep{2e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 1},   // lr: same limit
                                 AdamWStep{2e-3f, 0.8f, 0.99f, 1e-8f, 0.0f, 1}}) {  // betas: an earlier limit
        const Tensor& rewritten = table.cover(be, edit, 10);
        EXPECT_EQ(table.rows(), rows);
        EXPECT_EQ(rewritten.raw(), storage);
        EXPECT_TRUE(table.complete());
        for (int t = 1; t <= rows + 1; ++t) expect_step(table, edit, t);
        std::vector<float> on_backend(rewritten.size());
        be.download(rewritten, on_backend.data());
        EXPECT_EQ(on_backend, table.host());
    }
}

}  // namespace
}  // namespace plab
