#pragma once
// The x86 MXCSR's sticky status flags that say an SSE/AVX operation read a
// subnormal operand (DE) or produced a tiny result (UE): the operations that
// take the slow microcode path on many cores. Tests clear them, run code,
// and read them back. Elsewhere available() is false.
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace plab::mxcsr {

#if defined(__x86_64__) || defined(__i386__)
constexpr std::uint32_t kDenormalOperand = 1u << 1;
constexpr std::uint32_t kUnderflow = 1u << 4;
constexpr std::uint32_t kStatusFlags = 0x3fu;

inline bool available() { return true; }
inline void clear() { _mm_setcsr(_mm_getcsr() & ~kStatusFlags); }
inline std::uint32_t subnormal_flags() { return _mm_getcsr() & (kDenormalOperand | kUnderflow); }
#else
inline bool available() { return false; }
inline void clear() {}
inline std::uint32_t subnormal_flags() { return 0; }
#endif

}  // namespace plab::mxcsr
