// plab: the Precision Lab command line. Thin: the commands live in ui/cli.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <iostream>

#include "engine/common/error.h"
#include "engine/numeric/cast_path.h"
#include "ui/cli/commands.h"
#include "ui/cli/stdout_errors.h"
#include "ui/records/output_file.h"

#ifndef PLAB_VERSION
#define PLAB_VERSION "0.0.0"
#endif
#if PLAB_HAVE_CUDA
#include "kernels/cuda_backend_factory.h"
#include "kernels/device_info.h"
#endif

namespace {

std::string version_text() {
    std::string text = "plab " PLAB_VERSION "\ncast paths on this CPU: " + plab::cpu_cast_features();
#if PLAB_HAVE_CUDA
    text += "\nCUDA: built; " + plab::cuda::describe_devices();
#else
    text += "\nCUDA: not built";
#endif
    return text;
}

// Names an unknown command plainly (CLI11 would only say that one is required).
void reject_unknown_command(CLI::App& app, const std::string& name) {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->get_name() == name;
        names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) throw plab::Error("unknown command '" + name + "'; commands: " + names + " (see plab --help)");
}

}  // namespace

int main(int argc, char** argv) {
    plab::remember_stdout_write_errors();
    CLI::App app{"Precision Lab: watch mixed-precision training, number formats and loss scaling up close", "plab"};
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    app.footer("Run 'plab COMMAND --help' for a command's options and examples.");
#if PLAB_HAVE_CUDA
    plab::set_cuda_backend_factory(plab::cuda_backend_factory());
#endif
    plab::add_bits_command(app);
    plab::add_ranges_command(app);
    plab::add_run_command(app);
    plab::add_bench_command(app);
    plab::add_presets_command(app);
    plab::add_scenario_command(app);
    plab::add_summary_command(app);
    plab::add_replay_command(app);
    plab::add_sweep_command(app);
    plab::add_claims_command(app);
    try {
        if (argc > 1 && argv[1][0] != '-') reject_unknown_command(app, argv[1]);
        std::vector<std::string> args(argv + 1, argv + argc);
        if (!args.empty() && args[0] == "bits") {
            std::vector<std::string> rest = plab::bits_arguments({args.begin() + 1, args.end()});
            args.resize(1);
            args.insert(args.end(), rest.begin(), rest.end());
        }
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first
        app.parse(args);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "plab: " << e.what() << "; see plab --help\n";
        return 2;
    } catch (const plab::CommandExit& e) {
        return e.code;
    } catch (const plab::WriteError& e) {
        std::cerr << "plab: " << e.what() << '\n';
        return 4;
    } catch (const plab::Error& e) {
        std::cerr << "plab: " << e.what() << '\n';
        return 2;
    }
    // Whatever the command, what it printed must have reached its destination.
    // Output longer than the stream's buffer fails mid-command: the reason is
    // the first failed write's, whatever the command did after it.
    if (std::cout) {
        errno = 0;
        std::cout.flush();
    }
    if (!std::cout) {
        if (plab::stdout_write_errno() != 0) errno = plab::stdout_write_errno();
        std::cerr << "plab: could not write standard output" << plab::write_failure_reason() << '\n';
        return 4;
    }
    return 0;
}
