#pragma once
// A one-line progress bar for long commands, redrawn in place on a terminal
// at most ten times a second; silent when disabled (not a terminal).
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace plab {

class ProgressBar {
public:
    ProgressBar(std::ostream& out, std::int64_t total, bool enabled);
    ~ProgressBar();  // clears the line
    // `done` of total finished; `detail` is shown after the counts.
    void update(std::int64_t done, const std::string& detail);
    void finish();

private:
    std::ostream& out_;
    std::int64_t total_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace plab
