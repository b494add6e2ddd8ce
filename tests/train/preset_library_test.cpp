// The preset library: directories, listing, shadowing, loading by name and
// by path, and the errors for what is not there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

namespace fs = std::filesystem;

// Sets (or unsets) PLAB_PRESET_DIR for one test and puts the old value back.
class PresetDirEnv {
public:
    explicit PresetDirEnv(const std::optional<std::string>& value) {
        if (const char* old = std::getenv("PLAB_PRESET_DIR")) old_ = old;
        if (value)
            ::setenv("PLAB_PRESET_DIR", value->c_str(), 1);
        else
            ::unsetenv("PLAB_PRESET_DIR");
    }
    ~PresetDirEnv() {
        if (old_)
            ::setenv("PLAB_PRESET_DIR", old_->c_str(), 1);
        else
            ::unsetenv("PLAB_PRESET_DIR");
    }
    PresetDirEnv(const PresetDirEnv&) = delete;
    PresetDirEnv& operator=(const PresetDirEnv&) = delete;

private:
    std::optional<std::string> old_;
};

// A fresh directory, removed afterwards.
class TempDir {
public:
    TempDir() : path_(fs::temp_directory_path() / ("plab_preset_test_" + std::to_string(::getpid()) + "_" +
                                                   std::to_string(counter_++))) {
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }
    void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }

private:
    static inline int counter_ = 0;
    fs::path path_;
};

std::string error_of(const std::string& name_or_path) {
    try {
        load_preset(name_or_path);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

// The .json files of a directory, by name without the extension, sorted: the
// library as a directory listing, independent of list_presets().
std::vector<std::string> json_names(const fs::path& dir) {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// The presets the library started with; scenarios add more.
const std::vector<std::string> kFirstShipped = {"fp16-static-overflow", "scaler-sawtooth", "spirals-amp-fp16",
                                                "spirals-bf16", "spirals-fp32"};

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(PresetLibrary, FindsTheShippedFourInTheSourceTree) {
    PresetDirEnv env(std::nullopt);
    const std::vector<std::string> dirs = preset_dirs();
    ASSERT_EQ(dirs.size(), 1u);  // a build tree has no share/precision-lab next to it
    EXPECT_TRUE(ends_with(dirs[0], "assets/presets")) << dirs[0];
    const std::vector<PresetInfo> presets = list_presets();
    const std::vector<std::string> names = json_names(dirs[0]);  // sorted
    for (const std::string& first : kFirstShipped)
        EXPECT_NE(std::find(names.begin(), names.end(), first), names.end()) << first;
    ASSERT_EQ(presets.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(presets[i].name, names[i]);
        EXPECT_EQ(presets[i].path, (fs::path(dirs[0]) / (names[i] + ".json")).string());
        EXPECT_EQ(presets[i].error, "");
        EXPECT_EQ(presets[i].description, load_preset(names[i]).description);
    }
}

TEST(PresetLibrary, EnvDirComesFirstAndShadows) {
    TempDir dir;
    dir.write("spirals-fp32.json", R"({"name": "spirals-fp32", "description": "my own", "precision": {"recipe": "fp32"}})");
    dir.write("zz-custom.json", R"({"name": "zz-custom", "description": "custom one", "steps": 5})");
    dir.write("broken.json", R"({"steps": 0})");
    dir.write("notes.txt", "not a preset");
    PresetDirEnv env(dir.path().string());
    const std::vector<std::string> dirs = preset_dirs();
    ASSERT_EQ(dirs.size(), 2u);
    EXPECT_EQ(dirs[0], dir.path().string());

    const std::vector<PresetInfo> presets = list_presets();
    std::vector<std::string> names;
    for (const PresetInfo& p : presets) names.push_back(p.name);
    std::vector<std::string> expected = json_names(dirs[1]);
    expected.push_back("broken");
    expected.push_back("zz-custom");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(names, expected);
    // The broken file is listed with what is wrong with it.
    const std::size_t broken = static_cast<std::size_t>(std::find(names.begin(), names.end(), "broken") - names.begin());
    ASSERT_LT(broken, presets.size());
    EXPECT_EQ(presets[broken].error, (dir.path() / "broken.json").string() + ": steps: 0 is out of range; allowed 1..10000000");
    const std::size_t fp32 = static_cast<std::size_t>(std::find(names.begin(), names.end(), "spirals-fp32") - names.begin());
    ASSERT_LT(fp32, presets.size());
    EXPECT_EQ(presets[fp32].description, "my own");
    EXPECT_EQ(presets[fp32].path, (dir.path() / "spirals-fp32.json").string());

    EXPECT_EQ(load_preset("spirals-fp32").description, "my own");
    EXPECT_EQ(load_preset("zz-custom").steps, 5);
    EXPECT_EQ(error_of("broken"), (dir.path() / "broken.json").string() + ": steps: 0 is out of range; allowed 1..10000000");
}

TEST(PresetLibrary, LoadByPath) {
    TempDir dir;
    dir.write("mine.json", R"({"name": "mine", "steps": 7})");
    PresetDirEnv env(std::nullopt);
    EXPECT_EQ(load_preset((dir.path() / "mine.json").string()).steps, 7);
    // A path keeps its errors' source name.
    dir.write("bad.json", R"({"scaler": {"kind": "Dynamic"}})");
    EXPECT_EQ(error_of((dir.path() / "bad.json").string()),
              (dir.path() / "bad.json").string() +
                  ": scaler.kind: \"Dynamic\" is not allowed; allowed none|static|dynamic|hysteresis");
    EXPECT_EQ(error_of((dir.path() / "missing.json").string()),
              "preset file \"" + (dir.path() / "missing.json").string() +
                  "\": cannot be read (No such file or directory)");
    EXPECT_EQ(error_of(dir.path().string() + "/"),
              "preset file \"" + dir.path().string() + "/\": is a directory; allowed a .json file");
}

TEST(PresetLibrary, UnknownNameListsTheKnownOnes) {
    PresetDirEnv env(std::nullopt);
    const std::string message = error_of("spirals-fp64");
    std::string known;
    for (const std::string& n : json_names(preset_dirs().at(0))) known += (known.empty() ? "" : ", ") + n;
    EXPECT_EQ(message.rfind("unknown preset \"spirals-fp64\"; known presets: " + known + " (in ", 0), 0u) << message;
    EXPECT_TRUE(ends_with(message, "assets/presets), or a path to a .json file")) << message;
}

TEST(PresetLibrary, MissingEnvDirIsAnError) {
    PresetDirEnv env(std::string("/nonexistent/plab-presets"));
    EXPECT_THROW(preset_dirs(), Error);
    EXPECT_EQ(error_of("spirals-fp32"),
              "PLAB_PRESET_DIR: \"/nonexistent/plab-presets\" is not a directory; allowed ':'-separated directories "
              "of preset .json files");
}

}  // namespace
}  // namespace plab
