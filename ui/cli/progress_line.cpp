#include "ui/cli/progress_line.h"

#include <algorithm>
#include <ostream>

namespace plab {

void ProgressLine::update(double fraction, const std::string& what) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && fraction < 1.0) return;
    last_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * std::clamp(fraction, 0.0, 1.0));
    log_ << "\r[" << std::string(static_cast<std::size_t>(filled), '=')
         << std::string(static_cast<std::size_t>(kWidth - filled), ' ') << "] " << static_cast<int>(100 * fraction)
         << "%  " << what << "\033[K" << std::flush;
}

void ProgressLine::clear() {
    if (!drawn_) return;
    log_ << "\r\033[K" << std::flush;
    drawn_ = false;
}

}  // namespace plab
