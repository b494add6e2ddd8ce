#include "ui/cli/backend_option.h"

#include <CLI/CLI.hpp>

namespace plab {

CLI::Option* add_backend_option(CLI::App& cmd, std::string& backend) {
    return cmd
        .add_option("--backend", backend,
                    "Where to train: cpu (exact emulation), cuda (the GPU; see 'plab --version'), "
                    "auto (cuda when a GPU is present, else cpu)")
        ->default_val("cpu");
}

}  // namespace plab
