#include "ui/present/run_progress.h"

namespace plab {

std::string run_progress_text(std::int64_t step, std::int64_t planned) {
    const std::string head = "step " + std::to_string(step);
    if (planned <= 0) return head;
    if (step > planned) return head + " (" + std::to_string(planned) + " planned)";
    return head + " / " + std::to_string(planned);
}

}  // namespace plab
