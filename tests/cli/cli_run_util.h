#pragma once
// Runs the plab executable as a user would and captures what it printed.
// Each test binary that includes this defines PLAB_EXE (the path to plab).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace plab::cli_test {

struct Result {
    int exit_code = -1;  // -1: killed by a signal (a crash)
    std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A fresh, empty directory under the system's temporary directory, unique to
// this process; the caller removes it.
inline std::filesystem::path scratch_dir() {
    static int counter = 0;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("plab_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    return dir;
}

// Runs `plab ARGS` (ARGS as a shell would split them) with `input` on
// standard input and PLAB_PRESET_DIR unset, so only the shipped presets are seen.
inline Result run_plab(const std::string& args, const std::string& input = "") {
    const std::filesystem::path dir = scratch_dir();
    std::ofstream(dir / "in") << input;
    const std::string cmd = "env -u PLAB_PRESET_DIR '" + std::string(PLAB_EXE) + "' " + args + " < '" +
                            (dir / "in").string() + "' > '" + (dir / "out").string() + "' 2> '" +
                            (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    std::filesystem::remove_all(dir);
    return r;
}

}  // namespace plab::cli_test
