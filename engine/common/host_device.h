#pragma once
// PLAB_HD marks functions that must compile for both the CPU and the GPU, so
// the CUDA kernels reuse the exact same scalar code as the CPU engine.
#if defined(__CUDACC__)
#define PLAB_HD __host__ __device__ __forceinline__
#else
#define PLAB_HD inline
#endif
