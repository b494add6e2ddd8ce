#include "ui/records/init_export.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/common/error.h"
#include "engine/train/batch_sampler.h"
#include "engine/train/run_seeds.h"

namespace plab {

namespace {

// A .npy file, format version 1.0: the magic, a header dict padded so the
// data starts on a 64-byte boundary, then the values little-endian.
void write_npy(const std::filesystem::path& path, const char* descr, const std::vector<std::int64_t>& shape,
               const void* data, std::size_t bytes) {
    std::string dims;
    for (std::int64_t d : shape) dims += std::to_string(d) + ",";
    if (shape.size() > 1) dims.pop_back();
    std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    out.write(reinterpret_cast<const char*>(magic), sizeof magic);
    out.put(static_cast<char>(length & 0xff)).put(static_cast<char>(length >> 8));
    out << header;
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw Error("--export-init: cannot write " + path.string());
}

void write_floats(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const std::vector<float>& v) {
    write_npy(path, "<f4", shape, v.data(), v.size() * sizeof(float));
}

void write_ints(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const std::vector<std::int32_t>& v) {
    write_npy(path, "<i4", shape, v.data(), v.size() * sizeof(std::int32_t));
}

std::vector<float> values_of(Backend& backend, const Tensor& t) {
    std::vector<float> host(static_cast<std::size_t>(t.size()));
    backend.download(t, host.data());
    return host;
}

}  // namespace

void export_initial_state(const Trainer& trainer, Backend& backend, const RunConfig& config, const std::string& dir) {
    if (config.model.layer_norm || config.model.batch_norm || config.model.attention_tokens > 0)
        throw Error(
            "--export-init: exports plain MLPs only (model.layer_norm=false, model.batch_norm=false, "
            "model.attention_tokens=0)");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw Error("--export-init: '" + dir + "' is not a folder that can be created or written");
    const std::filesystem::path root(dir);
    for (const Linear& l : trainer.model().linears()) {
        write_floats(root / (l.name() + ".weight.npy"), {l.in_features(), l.out_features()}, values_of(backend, l.weight.value));
        write_floats(root / (l.name() + ".bias.npy"), {l.out_features()}, values_of(backend, l.bias.value));
    }
    const Dataset data = make_dataset(seeded(config.data, config.seed));
    write_floats(root / "train_x.npy", {data.train.rows, data.input_dim}, data.train.inputs);
    if (data.num_classes > 0)
        write_ints(root / "train_y.npy", {data.train.rows}, std::vector<std::int32_t>(data.train.labels.begin(), data.train.labels.end()));
    else
        write_floats(root / "train_y.npy", {data.train.rows}, data.train.targets);
    // The trainer's own sampler, drawn again from the same seed: one batch per micro-batch of every step.
    BatchSampler sampler(data.train.rows, config.batch_size, batch_seed(config.seed));
    const std::int64_t batches = config.steps * config.optimizer.accumulation;
    std::vector<std::int32_t> rows;
    rows.reserve(static_cast<std::size_t>(batches * config.batch_size));
    for (std::int64_t b = 0; b < batches; ++b)
        for (int r : sampler.next()) rows.push_back(r);
    write_ints(root / "batches.npy", {batches, config.batch_size}, rows);
}

}  // namespace plab
