#pragma once
// Which CUDA devices this process can use. Plain C++ interface: callers need
// no CUDA headers, and every function copes with a machine without a GPU.
#include <string>
#include <vector>

namespace plab::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int compute_major = 0, compute_minor = 0;
    std::size_t memory_bytes = 0;
};

// Devices found; empty when there is no driver, no device, or CUDA fails.
std::vector<DeviceInfo> list_devices();
// One line: "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" or "no CUDA device found (reason)".
std::string describe_devices();

}  // namespace plab::cuda
