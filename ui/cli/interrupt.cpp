#include "ui/cli/interrupt.h"

#include <csignal>

namespace plab {

namespace {

volatile std::sig_atomic_t g_requested = 0;
using Handler = void (*)(int);
Handler g_previous_int = SIG_DFL, g_previous_term = SIG_DFL;

extern "C" void ask_to_stop(int signal) {
    g_requested = signal;
    std::signal(signal, SIG_DFL);  // the next one is not caught: it ends the process
}

}  // namespace

InterruptGuard::InterruptGuard() {
    g_requested = 0;
    g_previous_int = std::signal(SIGINT, ask_to_stop);
    g_previous_term = std::signal(SIGTERM, ask_to_stop);
}

InterruptGuard::~InterruptGuard() {
    std::signal(SIGINT, g_previous_int == SIG_ERR ? SIG_DFL : g_previous_int);
    std::signal(SIGTERM, g_previous_term == SIG_ERR ? SIG_DFL : g_previous_term);
}

int InterruptGuard::requested() { return g_requested; }

const char* signal_name(int signal) {
    if (signal == SIGINT) return "SIGINT";
    if (signal == SIGTERM) return "SIGTERM";
    return "a signal";
}

}  // namespace plab
