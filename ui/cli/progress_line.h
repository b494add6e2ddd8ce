#pragma once
// A progress line for work measured as a fraction (a scenario's or the
// claims' checks), redrawn in place on a terminal at most ten times a
// second; silent when disabled (not a terminal). ProgressBar is its
// counterpart for work counted in steps.
#include <chrono>
#include <iosfwd>
#include <string>

namespace plab {

class ProgressLine {
public:
    ProgressLine(std::ostream& log, bool enabled) : log_(log), enabled_(enabled) {}
    ~ProgressLine() { clear(); }
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(double fraction, const std::string& what);
    void clear();

private:
    std::ostream& log_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace plab
