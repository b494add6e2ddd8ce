#include "kernels/device_info.h"

#include <cuda_runtime.h>

#include <cstdio>

namespace plab::cuda {

namespace {
int device_count(cudaError_t* error) {
    int count = 0;
    *error = cudaGetDeviceCount(&count);
    return *error == cudaSuccess ? count : 0;
}
}  // namespace

std::vector<DeviceInfo> list_devices() {
    cudaError_t error;
    const int count = device_count(&error);
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        devices.push_back({i, prop.name, prop.major, prop.minor, prop.totalGlobalMem});
    }
    return devices;
}

std::string describe_devices() {
    cudaError_t error;
    if (device_count(&error) == 0)
        return std::string("no CUDA device found (") +
               (error == cudaSuccess ? "no device" : cudaGetErrorString(error)) + ")";
    std::string out;
    for (const DeviceInfo& d : list_devices()) {
        char line[256];
        std::snprintf(line, sizeof line, "%s%s (sm_%d%d, %.1f GiB)", out.empty() ? "" : "; ", d.name.c_str(),
                      d.compute_major, d.compute_minor, d.memory_bytes / 1073741824.0);
        out += line;
    }
    return out;
}

}  // namespace plab::cuda
