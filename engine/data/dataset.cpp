#include "engine/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/common/enum_names.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/data/random.h"
#include "engine/data/shapes.h"
#include "engine/data/token_data.h"

namespace plab {

namespace {
constexpr EnumNames<DatasetKind, 8> kDatasetKindNames({{{DatasetKind::spirals, "spirals"},
                                                        {DatasetKind::moons, "moons"},
                                                        {DatasetKind::circles, "circles"},
                                                        {DatasetKind::xor_gates, "xor"},
                                                        {DatasetKind::blobs, "blobs"},
                                                        {DatasetKind::sine, "sine"},
                                                        {DatasetKind::shakespeare, "shakespeare"},
                                                        {DatasetKind::addition, "addition"}}});
}  // namespace

std::string_view dataset_kind_name(DatasetKind kind) { return kDatasetKindNames.name(kind); }
std::optional<DatasetKind> parse_dataset_kind(std::string_view name) { return kDatasetKindNames.parse(name); }
std::string dataset_kind_choices() { return kDatasetKindNames.choices(); }

namespace {

void check_int(std::string_view field, int x, int lo, int hi) { check_int_field("data." + std::string(field), x, lo, hi); }

void check_double(std::string_view field, double x, bool ok, std::string_view allowed) {
    check_number_field("data." + std::string(field), x, ok, allowed);
}

bool reads_classes(DatasetKind kind) { return kind == DatasetKind::spirals || kind == DatasetKind::blobs; }

}  // namespace

namespace {

// A garbled stretch needs text to garble and a first step to start on.
void validate_garbled(const DatasetSpec& spec) {
    constexpr long long kMostSteps = 10'000'000;
    check_int_field("data.garbled_from", spec.garbled_from, 0, kMostSteps);
    check_int_field("data.garbled_steps", spec.garbled_steps, 0, kMostSteps);
    if (spec.garbled_steps == 0) return;
    if (!is_token_data(spec.kind))
        reject_field("data.garbled_steps", std::to_string(spec.garbled_steps),
                     "0 for data.kind " + std::string(dataset_kind_name(spec.kind)) +
                         " (only shakespeare and addition, the token data, can be garbled)");
    if (spec.garbled_from == 0)
        reject_field("data.garbled_from", "0", "1.." + std::to_string(kMostSteps) + ", the first garbled step, when "
                     "data.garbled_steps is " + std::to_string(spec.garbled_steps));
}

}  // namespace

void validate(const DatasetSpec& spec) {
    if (dataset_kind_name(spec.kind) == "?")
        reject_field("data.kind", std::to_string(static_cast<int>(spec.kind)), dataset_kind_choices());
    validate_garbled(spec);
    if (is_token_data(spec.kind)) {
        validate(token_data_spec(spec));
        return;
    }
    check_int("samples", spec.samples, 4, 1000000);
    check_double("noise", spec.noise, spec.noise >= 0.0 && spec.noise <= 10.0, "0..10");
    if (reads_classes(spec.kind)) check_int("classes", spec.classes, 2, 16);
    check_double("test_fraction", spec.test_fraction, spec.test_fraction > 0.0 && spec.test_fraction < 1.0,
                 "> 0 and < 1");
}

int dataset_num_classes(const DatasetSpec& spec) {
    if (spec.kind == DatasetKind::sine) return 0;
    return reads_classes(spec.kind) ? spec.classes : 2;
}

int test_row_count(const DatasetSpec& spec) {
    const long rows = std::lround(spec.samples * spec.test_fraction);
    return static_cast<int>(std::clamp<long>(rows, 1, spec.samples - 1));
}

namespace {

Point sample_point(const DatasetSpec& spec, int label, Rng& rng) {
    switch (spec.kind) {
        case DatasetKind::spirals: return spiral_point(label, spec.classes, spec.noise, rng);
        case DatasetKind::moons: return moon_point(label, spec.noise, rng);
        case DatasetKind::circles: return circle_point(label, spec.noise, rng);
        case DatasetKind::xor_gates: return xor_point(label, spec.noise, rng);
        case DatasetKind::blobs: return blob_point(label, spec.classes, spec.noise, rng);
        case DatasetKind::sine: return sine_point(spec.noise, rng);
        case DatasetKind::shakespeare:
        case DatasetKind::addition: break;  // token data: make_token_data
    }
    return {};
}

// Every row in generation order. Row i gets class i mod num_classes, which
// balances the classes to within one row.
Split generate_rows(const DatasetSpec& spec, int num_classes, Rng& rng) {
    Split all;
    all.rows = spec.samples;
    const auto rows = static_cast<std::size_t>(spec.samples);
    all.inputs.reserve(num_classes > 0 ? 2 * rows : rows);
    all.labels.reserve(num_classes > 0 ? rows : 0);
    all.targets.reserve(num_classes > 0 ? 0 : rows);
    for (int i = 0; i < spec.samples; ++i) {
        const int label = num_classes > 0 ? i % num_classes : 0;
        const Point p = sample_point(spec, label, rng);
        all.inputs.push_back(static_cast<float>(p.x));
        if (num_classes > 0) {
            all.inputs.push_back(static_cast<float>(p.y));
            all.labels.push_back(label);
        } else {
            all.targets.push_back(static_cast<float>(p.y));
        }
    }
    return all;
}

// Fisher-Yates with Rng::below, so the order is portable too (std::shuffle's
// use of the engine is implementation-defined).
std::vector<int> shuffled_order(int rows, Rng& rng) {
    std::vector<int> order(static_cast<std::size_t>(rows));
    std::iota(order.begin(), order.end(), 0);
    for (int i = rows - 1; i > 0; --i) {
        const auto j = static_cast<int>(rng.below(static_cast<std::uint64_t>(i) + 1));
        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    }
    return order;
}

// The rows order[first, first + count) of `all`.
Split gather(const Split& all, int input_dim, const std::vector<int>& order, int first, int count) {
    Split out;
    out.rows = count;
    const auto dim = static_cast<std::size_t>(input_dim);
    for (int k = first; k < first + count; ++k) {
        const auto row = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
        const auto in = all.inputs.begin() + static_cast<std::ptrdiff_t>(row * dim);
        out.inputs.insert(out.inputs.end(), in, in + static_cast<std::ptrdiff_t>(dim));
        if (!all.labels.empty()) out.labels.push_back(all.labels[row]);
        if (!all.targets.empty()) out.targets.push_back(all.targets[row]);
    }
    return out;
}

}  // namespace

Dataset make_dataset(const DatasetSpec& spec) {
    validate(spec);
    if (is_token_data(spec.kind))
        throw Error("data.kind " + std::string(dataset_kind_name(spec.kind)) +
                    " is token data for model.kind gpt (engine/data/token_data.h), not rows of points");
    Dataset ds;
    ds.num_classes = dataset_num_classes(spec);
    ds.input_dim = ds.num_classes > 0 ? 2 : 1;
    // One generator for the points and then the shuffle: the seed alone fixes both.
    Rng rng(spec.seed);
    const Split all = generate_rows(spec, ds.num_classes, rng);
    const std::vector<int> order = shuffled_order(spec.samples, rng);
    const int test_rows = test_row_count(spec);
    const int train_rows = spec.samples - test_rows;
    ds.train = gather(all, ds.input_dim, order, 0, train_rows);
    ds.test = gather(all, ds.input_dim, order, train_rows, test_rows);
    return ds;
}

}  // namespace plab
