#include <gtest/gtest.h>

#include "kernels/device_info.h"

namespace plab {
namespace {

TEST(CudaDeviceInfo, DescribesDevicesOrTheirAbsence) {
    const auto devices = cuda::list_devices();
    const std::string text = cuda::describe_devices();
    if (devices.empty()) {
        EXPECT_EQ(text.rfind("no CUDA device found", 0), 0u) << text;
        GTEST_SKIP() << text;
    }
    EXPECT_NE(text.find(devices[0].name), std::string::npos);
    EXPECT_GT(devices[0].memory_bytes, 0u);
}

}  // namespace
}  // namespace plab
