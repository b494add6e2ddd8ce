#pragma once
// The --backend option of the commands that train (plab run, plab sweep):
// declared and worded once, so every command offers the same choices under
// the same words. The value is checked by check_backend_choice
// (engine/backend/backend_choice.h), which gives every front end one message.
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace plab {

// Adds `--backend cpu|cuda|auto` to `cmd`, written into `backend`, by
// default cpu: the exact emulation, whose runs are the same on every machine.
CLI::Option* add_backend_option(CLI::App& cmd, std::string& backend);

}  // namespace plab
