#pragma once
// Ctrl-C (SIGINT) and SIGTERM while plab trains: the first asks the run to
// stop at the next step boundary, so the records written so far end on a
// whole line and can be kept; a second ends the process at once, as usual.
namespace plab {

class InterruptGuard {
public:
    InterruptGuard();   // installs the handlers
    ~InterruptGuard();  // puts back what was there
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    // The signal that asked the run to stop, or 0.
    static int requested();
};

// "SIGINT", "SIGTERM", or "signal N".
const char* signal_name(int signal);

}  // namespace plab
