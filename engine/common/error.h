#pragma once
// plab::Error is the one exception type that crosses the engine boundary.
// It carries what went wrong and what the user can do about it; the CLI prints
// it as one line and exits with code 2, the GUIs show it in a dialog.
#include <stdexcept>
#include <string>

namespace plab {

// What a message may print of the text it was given: control characters
// (a NUL would end the C string what() returns, an escape sequence would
// reach the terminal) written as \0, \t, \x1b...; a message longer than a
// few screens cut in its middle, keeping its start and its reason at the end.
std::string printable_message(const std::string& text);

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(printable_message(what)) {}
};

// An allocation the machine could not satisfy, in host or device memory. An
// Error like any other, so every front end reports it in its usual way; the
// trainer catches it to add the size of the model that did not fit.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

}  // namespace plab
