#pragma once
// The commands a Session queues, as its worker applies them (session.h
// documents what each does).
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace plab {

struct PlayCommand {
    std::int64_t at_most = 0;  // steps of each live run before pausing; 0 = no limit
};
struct PauseCommand {};
struct StepCommand {
    std::int64_t count = 1;
};
struct ResetCommand {};
struct SetCommand {
    std::string assignment;
};
struct ForkCommand {
    std::int64_t at_step = 0;
    std::vector<std::string> changes;
};

struct TraceCommand {
    std::int64_t step = 1;
};

using SessionCommand =
    std::variant<PlayCommand, PauseCommand, StepCommand, ResetCommand, SetCommand, ForkCommand, TraceCommand>;

}  // namespace plab
