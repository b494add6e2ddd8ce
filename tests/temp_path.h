#pragma once
// A path in the system's temporary directory named for this process: two
// checkouts testing side by side, or two suites at once, never write the
// same file. The caller removes it.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace plab::testing_support {

// temp_path("plab-shot", ".png") -> /tmp/plab-shot-<pid>.png
inline std::filesystem::path temp_path(const std::string& stem, const std::string& extension = "") {
    return std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + extension);
}

}  // namespace plab::testing_support
