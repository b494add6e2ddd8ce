#pragma once
// plab::Error is the one exception type that crosses the engine boundary.
// It carries what went wrong and what the user can do about it; the CLI prints
// it as one line and exits with code 2, the GUIs show it in a dialog.
#include <stdexcept>
#include <string>

namespace plab {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace plab
