#include "kernels/device_gate.h"

namespace plab::gpu {

namespace {

std::mutex& gate() {
    static std::mutex m;
    return m;
}

thread_local int scopes_held = 0;  // this thread's open scopes: the gate is held while > 0

}  // namespace

DeviceGateScope::DeviceGateScope() {
    if (scopes_held == 0) lock_ = std::unique_lock(gate());
    ++scopes_held;
}

DeviceGateScope::~DeviceGateScope() { --scopes_held; }

}  // namespace plab::gpu
