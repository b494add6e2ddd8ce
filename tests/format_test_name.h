#pragma once
// Names parameterised tests after the format: "AllFormats/CudaRound.X/fp16".
#include <gtest/gtest.h>

#include <string>

#include "engine/numeric/format.h"

namespace plab::test {

inline std::string format_test_name(const testing::TestParamInfo<FormatId>& param) {
    return std::string(format_name(param.param));
}

}  // namespace plab::test
