#pragma once
// Blocking for the SIMD cast kernels: included by each ISA-specific file.
//
// Everything here has internal linkage on purpose (unnamed namespace): every
// file compiled with its own -m flags gets its own copy, so the linker can
// never hand the AVX-512 copy of a shared inline function to an AVX2 caller.
#include <cstddef>
#include <cstring>

namespace plab::detail {
namespace {

// Runs `block(in, out)` on each full group of Lanes elements, then once on a
// zero-padded copy of the tail, so kernels never need a scalar fallback.
template <int Lanes, int InBytes, int OutBytes, typename Block>
void for_each_block(const void* in, void* out, std::size_t n, Block block) {
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    std::size_t i = 0;
    for (; i + Lanes <= n; i += Lanes) block(src + i * InBytes, dst + i * OutBytes);
    if (i == n) return;
    alignas(64) unsigned char in_tail[Lanes * InBytes] = {};
    alignas(64) unsigned char out_tail[Lanes * OutBytes];
    std::memcpy(in_tail, src + i * InBytes, (n - i) * InBytes);
    block(in_tail, out_tail);
    std::memcpy(dst + i * OutBytes, out_tail, (n - i) * OutBytes);
}

}  // namespace
}  // namespace plab::detail
