#pragma once
// Reading a value the way a person types it, as the FP32 number a tensor
// would hold: decimal or scientific notation (correctly rounded to FP32),
// inf / -inf / nan, or raw FP32 bits written 0x plus 8 hex digits.
#include <string>
#include <string_view>

namespace plab {

// Throws plab::Error naming the text and what is accepted.
float parse_fp32_value(std::string_view text);

// What parse_fp32_value accepts, for help texts and error messages.
std::string fp32_value_syntax();

}  // namespace plab
