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

// An allocation the machine could not satisfy, in host or device memory. An
// Error like any other, so every front end reports it in its usual way; the
// trainer catches it to add the size of the model that did not fit.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

}  // namespace plab
