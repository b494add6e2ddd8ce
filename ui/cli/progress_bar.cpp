#include "ui/cli/progress_bar.h"

#include <ostream>

namespace plab {

namespace {
constexpr int kWidth = 30;
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(std::ostream& out, std::int64_t total, bool enabled)
    : out_(out), total_(total > 0 ? total : 1), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::int64_t done, const std::string& detail) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_draw_ < kRedrawEvery && done < total_) return;
    last_draw_ = now;
    drawn_ = true;
    const auto filled = static_cast<int>(kWidth * done / total_);
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    std::string line = "\r[" + std::string(static_cast<std::size_t>(filled), '=') +
                       std::string(static_cast<std::size_t>(kWidth - filled), ' ') + "] " + std::to_string(done) +
                       "/" + std::to_string(total_) + "  " + std::to_string(static_cast<long>(rate)) + " steps/s  " +
                       detail;
    out_ << line << "\033[K" << std::flush;  // erase what a longer previous line left
}

void ProgressBar::finish() {
    if (!enabled_ || !drawn_) return;
    out_ << "\r\033[K" << std::flush;
    drawn_ = false;
}

}  // namespace plab
