#pragma once
// How the CPU backend's optimizer updates meet FP32 subnormals. Both ways
// give the same bits; they differ only in speed, and which is faster depends
// on the core:
//  * hardware: plain float arithmetic. Cores such as AMD's Zen handle
//    subnormal operands at full speed.
//  * exact_lanes: elements near the subnormal range go through SoftFp32
//    (engine/numeric/soft_fp32.h), never touching a subnormal. Cores such as
//    Intel's take a microcode assist of ~100+ cycles per instruction that
//    reads or makes one, and a long run's optimizer state fills with them
//    (moments of units that stopped learning decay there and stay).
// The default, automatic, times both kinds of operand once per process.
namespace plab::cpu {

enum class SubnormalArithmetic { automatic, hardware, exact_lanes };

// The way in use (never automatic: the measured choice once made).
SubnormalArithmetic subnormal_arithmetic();
// Forces a way (automatic: measure again); for tests and benchmarks.
void set_subnormal_arithmetic(SubnormalArithmetic way);
// True when subnormal operands cost this core several times normal ones.
bool subnormals_are_slow();
const char* subnormal_arithmetic_name(SubnormalArithmetic way);

}  // namespace plab::cpu
