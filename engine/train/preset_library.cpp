// The preset library: which directories hold presets, what is in them, and
// loading one by name or path.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"

#ifndef PLAB_PRESET_DIR_DEFAULT
#define PLAB_PRESET_DIR_DEFAULT ""
#endif

namespace plab {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxPresetBytes = 1 << 20;  // a preset is a few hundred bytes; refuse a stray big file

std::vector<fs::path> env_dirs() {
    std::vector<fs::path> dirs;
    const char* env = std::getenv("PLAB_PRESET_DIR");
    if (env == nullptr) return dirs;
    std::stringstream list(env);
    for (std::string dir; std::getline(list, dir, ':');) {
        if (dir.empty()) continue;
        std::error_code ec;
        // The user asked for this directory: a typo must not fall back silently.
        if (!fs::is_directory(dir, ec))
            throw Error("PLAB_PRESET_DIR: \"" + dir + "\" is not a directory; allowed ':'-separated directories of preset .json files");
        dirs.emplace_back(dir);
    }
    return dirs;
}

// <prefix>/bin/plab -> <prefix>/share/precision-lab/presets (an installed tree).
fs::path installed_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().parent_path() / "share" / "precision-lab" / "presets";
}

std::string read_file(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw Error("preset file \"" + path.string() + "\": is a directory; allowed a .json file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) throw Error("preset file \"" + path.string() + "\": cannot be read (" + ec.message() + ")");
    if (size > kMaxPresetBytes)
        throw Error("preset file \"" + path.string() + "\": " + std::to_string(size) + " bytes; allowed at most " +
                    std::to_string(kMaxPresetBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("preset file \"" + path.string() + "\": cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

RunConfig load_file(const fs::path& path) { return parse_run_config(read_file(path), path.string()); }

// The .json files of one directory, by name.
std::vector<fs::path> preset_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

bool looks_like_path(std::string_view s) {
    return s.find('/') != std::string_view::npos || (s.size() >= 5 && s.substr(s.size() - 5) == ".json");
}

}  // namespace

std::vector<std::string> preset_dirs() {
    std::vector<fs::path> candidates = env_dirs();
    candidates.push_back(installed_dir());
    candidates.emplace_back(PLAB_PRESET_DIR_DEFAULT);
    std::vector<std::string> dirs;
    std::vector<fs::path> seen;
    for (const fs::path& dir : candidates) {
        std::error_code ec;
        if (dir.empty() || !fs::is_directory(dir, ec)) continue;
        const fs::path canonical = fs::weakly_canonical(dir, ec);
        if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
        seen.push_back(canonical);
        dirs.push_back(dir.lexically_normal().string());
    }
    return dirs;
}

std::vector<PresetInfo> list_presets() {
    std::vector<PresetInfo> presets;
    for (const std::string& dir : preset_dirs()) {
        for (const fs::path& file : preset_files(dir)) {
            PresetInfo info{file.stem().string(), "", file.string(), ""};
            const bool shadowed = std::any_of(presets.begin(), presets.end(),
                                              [&](const PresetInfo& p) { return p.name == info.name; });
            if (shadowed) continue;
            try {
                info.description = load_file(file).description;
            } catch (const Error& e) {
                info.error = e.what();  // listed, not hidden: the list shows what is broken
            }
            presets.push_back(std::move(info));
        }
    }
    std::sort(presets.begin(), presets.end(), [](const PresetInfo& a, const PresetInfo& b) { return a.name < b.name; });
    return presets;
}

RunConfig load_preset(std::string_view name_or_path) {
    if (looks_like_path(name_or_path)) return load_file(fs::path(name_or_path));
    const std::vector<std::string> dirs = preset_dirs();
    for (const std::string& dir : dirs) {
        const fs::path file = fs::path(dir) / (std::string(name_or_path) + ".json");
        std::error_code ec;
        if (fs::is_regular_file(file, ec)) return load_file(file);
    }
    std::string known, searched;
    for (const PresetInfo& p : list_presets()) known += (known.empty() ? "" : ", ") + p.name;
    for (const std::string& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
    throw Error("unknown preset \"" + std::string(name_or_path) + "\"; known presets: " +
                (known.empty() ? "(none)" : known) + " (in " + (searched.empty() ? "no preset directory" : searched) +
                "), or a path to a .json file");
}

}  // namespace plab
