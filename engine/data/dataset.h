#pragma once
// Toy data sets: small 2-D classification problems and a 1-D regression,
// generated from a seed, split into train and test rows.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plab {

// The toy sets, then the token sets the GPT trains on (token_data.h).
enum class DatasetKind { spirals, moons, circles, xor_gates, blobs, sine, shakespeare, addition };
inline constexpr DatasetKind kAllDatasetKinds[] = {DatasetKind::spirals, DatasetKind::moons,
                                                   DatasetKind::circles, DatasetKind::xor_gates,
                                                   DatasetKind::blobs,   DatasetKind::sine};
inline constexpr DatasetKind kTokenDatasetKinds[] = {DatasetKind::shakespeare, DatasetKind::addition};
inline bool is_token_data(DatasetKind kind) {
    return kind == DatasetKind::shakespeare || kind == DatasetKind::addition;
}

std::string_view dataset_kind_name(DatasetKind kind);                  // "spirals", "moons", ..., "xor"
std::optional<DatasetKind> parse_dataset_kind(std::string_view name);  // accepts dataset_kind_name()
std::string dataset_kind_choices();  // "spirals|moons|circles|xor|blobs|sine|shakespeare|addition"

struct DatasetSpec {
    DatasetKind kind = DatasetKind::spirals;
    int samples = 1024;  // total, before the split
    double noise = 0.1;  // std-dev of Gaussian noise added to inputs (for sine: to targets)
    int classes = 3;     // spirals: arms; blobs: number of blobs; ignored by moons/circles/xor (2 classes)
                         // and sine (regression)
    double test_fraction = 0.2;
    int digits = 3;  // addition: digits of each operand
    // Token data only: the optimizer steps garbled_from .. garbled_from +
    // garbled_steps - 1 train on windows of random characters instead of
    // the text, a corrupted stretch of data (both runs see it); 0 = none.
    int garbled_from = 0;
    int garbled_steps = 0;
    std::uint64_t seed = 0;

    bool operator==(const DatasetSpec&) const = default;
};

struct Split {
    int rows = 0;
    std::vector<float> inputs;   // rows x input_dim, row-major
    std::vector<int> labels;     // rows (classification), empty for regression
    std::vector<float> targets;  // rows (regression: y), empty for classification
};

struct Dataset {
    int input_dim = 2;    // 2 for the 2-D sets, 1 for sine
    int num_classes = 0;  // 0 for regression
    Split train, test;
};

// Throws plab::Error naming the first bad field ("data.samples"), its value
// and the allowed range. `classes` is checked only for the kinds that read it.
void validate(const DatasetSpec& spec);

// Classes the spec produces: `classes` for spirals and blobs, 2 for moons,
// circles and xor, 0 for sine (regression).
int dataset_num_classes(const DatasetSpec& spec);

// Rows that go to the test split: round(samples * test_fraction), halves away
// from zero, kept within 1..samples-1 so neither split is empty.
int test_row_count(const DatasetSpec& spec);

// Validates, then generates: classes balanced (counts differ by at most one),
// rows shuffled with the seed, the first rows to train, the rest to test.
// The same spec gives the same data on every platform.
Dataset make_dataset(const DatasetSpec& spec);

}  // namespace plab
