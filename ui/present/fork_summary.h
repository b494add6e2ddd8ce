#pragma once
// One sentence on the fork that trains beside the main run (a remedy, a
// scenario's variant): where it branched and how it compares now.
#include <string>

#include "engine/train/session.h"

namespace plab {

// "" when the snapshot has no fork.
std::string fork_summary(const SessionSnapshot& snapshot);

}  // namespace plab
