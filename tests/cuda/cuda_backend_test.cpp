// The CUDA backend op by op against the CPU backend (the exact emulation),
// on the same random inputs (fixed seeds). Each comparison states its
// tolerance:
//  * bit for bit where the GPU runs the CPU's formula in the CPU's order
//    (elementwise ops, casts, GEMMs on the fixed-order route, LayerNorm, the
//    token matmuls, softmax with the shared exp and log of portable_math.h,
//    the optimizers, column sums, counts and maxima): any difference is a bug;
//  * for CUDA's tanh / erf (within 2 ULPs of glibc's): a few FP32 ULPs of the
//    quantities involved, plus one ULP of the output format, since two nearly
//    equal values may round to neighbours;
//  * for sums in another order (GEMMs on the tensor cores, whole-tensor
//    reductions, the loss values): the classic bound of recursive summation,
//    |error| <= n u sum |terms| with u = 2^-24 (2^-53 in FP64), for each
//    backend, so 2n u sum |terms| between them.
// Every test skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend_scaler_checks.h"
#include "backend_step_checks.h"
#include "error_text.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "kernels/cuda_backend.h"
#include "kernels/device_info.h"

namespace plab {
namespace {

constexpr double kU32 = 0x1p-24;  // FP32 unit roundoff
constexpr double kU64 = 0x1p-53;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

// Integers in -4..4: their products and sums are exact in FP32 in any order,
// and exact in FP16 up to 2048, so a GEMM of them has one right answer.
std::vector<float> integers(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 9) - 4);
    return v;
}

// Spacing of format f's values at |v|: one ULP of the output format.
double ulp_of(FormatId f, double v) {
    const FormatParams p = format_params(f);
    const double a = std::fabs(v);
    int e = a > 0 && std::isfinite(a) ? std::ilogb(a) : p.min_exponent();
    if (e < p.min_exponent()) e = p.min_exponent();
    return std::ldexp(1.0, e - p.man_bits);
}

// Passes when a == b bit for bit or both are NaN, or |a - b| <= tolerance(i).
// Names the first few elements that differ.
template <typename Tolerance>
void expect_within(const std::vector<float>& cpu, const std::vector<float>& gpu, Tolerance tolerance,
                   const std::string& what) {
    ASSERT_EQ(cpu.size(), gpu.size()) << what;
    int failures = 0;
    for (std::size_t i = 0; i < cpu.size() && failures < 5; ++i) {
        if (float_bits(cpu[i]) == float_bits(gpu[i]) || (std::isnan(cpu[i]) && std::isnan(gpu[i]))) continue;
        const double diff = std::fabs(static_cast<double>(gpu[i]) - cpu[i]);
        if (diff <= tolerance(i)) continue;
        ADD_FAILURE() << what << " [" << i << "]: cpu " << cpu[i] << " gpu " << gpu[i] << " (diff " << diff
                      << ", tolerance " << tolerance(i) << ")";
        ++failures;
    }
}

void expect_identical(const std::vector<float>& cpu, const std::vector<float>& gpu, const std::string& what) {
    expect_within(cpu, gpu, [](std::size_t) { return -1.0; }, what);
}

class CudaBackendTest : public testing::Test {
protected:
    void SetUp() override {
        if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
        gpu_ = std::make_unique<CudaBackend>();
    }

    // One tensor on each backend, holding the same values.
    struct Both {
        Tensor cpu, gpu;
    };
    Both make(Shape s, FormatId dtype, const std::vector<float>& values) {
        Both t{cpu_.allocate(s, dtype), gpu_->allocate(s, dtype)};
        cpu_.upload(values.data(), t.cpu);
        gpu_->upload(values.data(), t.gpu);
        return t;
    }
    Both random(Shape s, FormatId dtype, std::uint32_t seed, float scale = 1.0f) {
        return make(s, dtype, random_values(s.size(), seed, scale));
    }
    Both zeros(Shape s, FormatId dtype) { return {cpu_.allocate(s, dtype), gpu_->allocate(s, dtype)}; }
    // One GEMM on each backend, each side reading its own copy of the bias (none when null).
    void gemm_both(const Both& a, const Both& b, Both& c, const GemmSpec& spec, const Both* bias = nullptr) {
        GemmSpec cpu_spec = spec, gpu_spec = spec;
        if (bias) {
            cpu_spec.row_bias = &bias->cpu;
            gpu_spec.row_bias = &bias->gpu;
        }
        cpu_.gemm(a.cpu, b.cpu, c.cpu, cpu_spec);
        gpu_->gemm(a.gpu, b.gpu, c.gpu, gpu_spec);
    }

    static std::vector<float> host(const Tensor& cpu) { return {cpu.host(), cpu.host() + cpu.size()}; }
    std::vector<float> host_gpu(const Tensor& gpu) {
        std::vector<float> v(gpu.size());
        gpu_->download(gpu, v.data());
        return v;
    }
    void expect_identical(const Both& t, const std::string& what) {
        plab::expect_identical(host(t.cpu), host_gpu(t.gpu), what);
    }
    template <typename Tolerance>
    void expect_within(const Both& t, Tolerance tolerance, const std::string& what) {
        plab::expect_within(host(t.cpu), host_gpu(t.gpu), tolerance, what);
    }
    // Random inputs through one GEMM on each backend: on the tensor cores
    // within the summation bound, on the fixed-order route bit for bit.
    void check_gemm(const GemmSpec& base, FormatId out_dtype, const std::string& label,
                    CudaBackend::GemmRoute route = CudaBackend::GemmRoute::tensor_cores);

    CpuBackend cpu_;
    std::unique_ptr<CudaBackend> gpu_;
};

// ---- device, storage, casts --------------------------------------------------

TEST_F(CudaBackendTest, NamesTheDeviceItRunsOn) {
    EXPECT_EQ(gpu_->device(), Device::cuda);
    EXPECT_EQ(gpu_->name(), cuda::list_devices().at(0).name);
    EXPECT_EQ(gpu_->allocate({2, 3}, FormatId::fp16).device(), Device::cuda);
}

// Bit for bit: uploads and conversions round each value with the one RNE cast
// (scalar_cast.h), value by value.
TEST_F(CudaBackendTest, AllocatesZerosAndRoundsUploadsAndConversionsAsTheCpu) {
    std::vector<float> values = random_values(999, 1, 1000.0f);
    const std::vector<float> special = {0.0f, -0.0f, kInf, -kInf, kNan, 65519.0f, 65520.0f, 1e-8f, -3e-38f, 1e-45f,
                                        448.0f, 464.0f, 0.1f, 1.0f + 0x1p-11f};
    values.insert(values.end(), special.begin(), special.end());
    const Shape s{1, static_cast<int>(values.size())};
    expect_identical(zeros(s, FormatId::bf16), "allocate");
    for (FormatId f : kAllFormats) {
        const Both up = make(s, f, values);
        expect_identical(up, std::string("upload ") + std::string(format_name(f)));
        const Both wide = make(s, FormatId::fp32, values);
        Both narrow = zeros(s, f);
        cpu_.convert(wide.cpu, narrow.cpu);
        gpu_->convert(wide.gpu, narrow.gpu);
        expect_identical(narrow, std::string("convert to ") + std::string(format_name(f)));
    }
}

// Native storage: FP16 and BF16 tensors take two bytes per value (their own
// codes), the rest four; the values read back, queued back and viewed are the
// CPU's bit for bit. A backend told to keep FP32 words keeps four for all.
TEST_F(CudaBackendTest, SixteenBitTensorsTakeTwoBytesAndHoldTheCpusValues) {
    const std::vector<float> values = {0.0f, -0.0f, kInf, -kInf, kNan, 65519.0f, 65520.0f, 1e-8f, 6e-8f, -3e-38f,
                                       1e-45f, 0.1f, 1.0f + 0x1p-11f, -2.5f, 3.0e38f, 300.0f};
    const Shape s{4, 4};
    for (FormatId f : kAllFormats) {
        const bool two = f == FormatId::fp16 || f == FormatId::bf16;
        const Both t = make(s, f, values);
        EXPECT_EQ(t.gpu.element_bytes(), two ? 2u : 4u) << format_name(f);
        expect_identical(t, std::string("native upload and download ") + std::string(format_name(f)));
        std::vector<float> queued(s.size(), -1.0f);
        gpu_->queue_download(t.gpu, queued.data());
        gpu_->wait_for_queued();
        plab::expect_identical(host(t.cpu), queued, std::string("queued download ") + std::string(format_name(f)));
        const Tensor row = t.gpu.view(8, {1, 4});  // elements 8..11, whatever their width
        const std::vector<float> all = host(t.cpu);
        plab::expect_identical(std::vector<float>(all.begin() + 8, all.begin() + 12), host_gpu(row),
                               std::string("view ") + std::string(format_name(f)));
    }
    CudaBackend words;
    words.set_native_16bit(false);
    EXPECT_EQ(words.allocate(s, FormatId::fp16).element_bytes(), 4u);
    EXPECT_THROW(words.set_native_16bit(true), Error);  // chosen before the first tensor
}

// Every op between tensors of the two storages gives the same values: an
// FP16 tensor converted to BF16 and back, and scaled, in either storage.
TEST_F(CudaBackendTest, ConversionsBetweenStoragesAreTheCpus) {
    const std::vector<float> values = random_values(257, 40, 70000.0f);
    const Shape s{1, 257};
    for (FormatId from : {FormatId::fp32, FormatId::fp16, FormatId::bf16, FormatId::e4m3})
        for (FormatId to : {FormatId::fp32, FormatId::fp16, FormatId::bf16, FormatId::tf32}) {
            const Both a = make(s, from, values);
            Both b = zeros(s, to);
            cpu_.convert(a.cpu, b.cpu);
            gpu_->convert(a.gpu, b.gpu);
            cpu_.scale_in_place(b.cpu, 0.75f);
            gpu_->scale_in_place(b.gpu, 0.75f);
            expect_identical(b, std::string("convert ") + std::string(format_name(from)) + " to " +
                                    std::string(format_name(to)) + ", scaled");
        }
}

// The message word for word; after it, scale_in_place bit for bit (one
// rounded multiply per value).
TEST_F(CudaBackendTest, OutOfMemoryNamesTheSizeAndTheDevice) {
    try {
        gpu_->allocate({1 << 20, 1 << 20}, FormatId::fp32);  // 4 TiB
        FAIL() << "4 TiB allocated";
    } catch (const OutOfMemory& e) {  // the type the trainer adds the model's size to
        EXPECT_EQ(std::string(e.what()), "cannot allocate 4194304.0 MiB on " + gpu_->name() + ": out of device memory");
    }
    // The failure leaves the backend usable.
    Both x = random({4, 4}, FormatId::fp32, 2);
    cpu_.scale_in_place(x.cpu, 3.0f);
    gpu_->scale_in_place(x.gpu, 3.0f);
    expect_identical(x, "scale_in_place after a failed allocation");
}

// The checks the backends share (op_checks.h): the same messages.
TEST_F(CudaBackendTest, RejectsCpuTensorsAndBadShapesWithTheCpuMessages) {
    Tensor on_cpu = cpu_.allocate({2, 2}, FormatId::fp32);
    Tensor on_gpu = gpu_->allocate({2, 2}, FormatId::fp32);
    EXPECT_THROW(gpu_->scale_in_place(on_cpu, 2.0f), Error);
    EXPECT_THROW(gpu_->accumulate(on_cpu, on_gpu, true), Error);
    // Shapes that do not chain: the CPU's message, word for word.
    const Both a = random({3, 4}, FormatId::fp32, 3), b = random({5, 2}, FormatId::fp32, 4);
    Both c = zeros({3, 2}, FormatId::fp32);
    std::string cpu_message, gpu_message;
    try {
        cpu_.gemm(a.cpu, b.cpu, c.cpu, {});
    } catch (const Error& e) {
        cpu_message = e.what();
    }
    try {
        gpu_->gemm(a.gpu, b.gpu, c.gpu, {});
    } catch (const Error& e) {
        gpu_message = e.what();
    }
    EXPECT_FALSE(cpu_message.empty());
    EXPECT_EQ(gpu_message, cpu_message);
}

// ---- GEMM ------------------------------------------------------------------

using Route = CudaBackend::GemmRoute;
constexpr Route kRoutes[] = {Route::fixed_order, Route::tensor_cores};
const char* route_name(Route r) { return r == Route::fixed_order ? " (fixed order)" : " (tensor cores)"; }

// A single product per output (k = 1) is exact in FP32 for every compute
// format's rounded inputs (FP32: rounded once, the same way): so the GPU's
// result is the CPU's bit for bit, which checks the input rounding.
TEST_F(CudaBackendTest, GemmRoundsItsInputsAsTheCpuDoes) {
    for (Route route : kRoutes) {
        gpu_->set_gemm_route(route);
        for (FormatId compute : {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16, FormatId::e4m3}) {
            const Both a = random({16, 1}, FormatId::fp32, 5, 3.0f), b = random({1, 16}, FormatId::fp32, 6, 3.0f);
            Both c = zeros({16, 16}, FormatId::fp32);
            cpu_.gemm(a.cpu, b.cpu, c.cpu, {.compute = compute});
            gpu_->gemm(a.gpu, b.gpu, c.gpu, {.compute = compute});
            expect_identical(c, std::string("gemm k=1 compute ") + std::string(format_name(compute)) + route_name(route));
        }
    }
}

// Small integers multiply and add exactly in any order: every layout, compute
// format, alpha, beta and bias must give the CPU's bits (this catches a wrong
// transpose or leading dimension exactly).
TEST_F(CudaBackendTest, GemmOfSmallIntegersIsExactForEveryLayout) {
    const int m = 13, k = 64, n = 7;
    for (Route route : kRoutes) {
        gpu_->set_gemm_route(route);
        for (FormatId compute : {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16, FormatId::e4m3}) {
            for (bool ta : {false, true}) {
                for (bool tb : {false, true}) {
                    const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
                    const Both a = make(as, FormatId::fp32, integers(as.size(), 7));
                    const Both b = make(bs, FormatId::fp32, integers(bs.size(), 8));
                    const Both bias = make({1, n}, FormatId::fp32, integers(n, 9));
                    // beta 0 takes cuBLASLt with the bias in its epilogue; beta -1 cublasGemmEx.
                    for (float beta : {-1.0f, 0.0f}) {
                        Both c = make({m, n}, FormatId::fp32, integers(m * n, 10));
                        gemm_both(a, b, c,
                                  {.compute = compute, .trans_a = ta, .trans_b = tb, .alpha = 2.0f, .beta = beta},
                                  &bias);
                        expect_identical(c, "integer gemm " + std::string(format_name(compute)) + (ta ? " a^T" : " a") +
                                                (tb ? " b^T" : " b") + " beta " + std::to_string(beta) + route_name(route));
                    }
                }
            }
        }
    }
}

// The same exact integer products with every tensor in 16-bit storage (the
// operands, the bias, c), as the recipes hold them: cuBLAS reads the codes
// where they are and writes c's codes itself (cuBLASLt adding the bias
// before the one rounding), and the CPU's bits come out, FP32 bias or not.
TEST_F(CudaBackendTest, GemmOfSixteenBitTensorsReadsAndWritesTheirCodes) {
    const int m = 40, k = 96, n = 24;
    for (Route route : kRoutes) {
        gpu_->set_gemm_route(route);
        for (FormatId f : {FormatId::fp16, FormatId::bf16})
            for (FormatId bias_dtype : {f, FormatId::fp32})
                for (FormatId c_dtype : {f, FormatId::fp32})
                    for (bool ta : {false, true})
                        for (bool tb : {false, true})
                            for (float beta : {-1.0f, 0.0f}) {
                                const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
                                const Both a = make(as, f, integers(as.size(), 17));
                                const Both b = make(bs, f, integers(bs.size(), 18));
                                const Both bias = make({1, n}, bias_dtype, integers(n, 19));
                                Both c = make({m, n}, c_dtype, integers(m * n, 20));
                                gemm_both(a, b, c, {.compute = f, .trans_a = ta, .trans_b = tb, .beta = beta},
                                          &bias);
                                expect_identical(c, "16-bit gemm " + std::string(format_name(f)) + " bias " +
                                                        std::string(format_name(bias_dtype)) + " c " +
                                                        std::string(format_name(c_dtype)) + (ta ? " a^T" : " a") +
                                                        (tb ? " b^T" : " b") + " beta " + std::to_string(beta) +
                                                        route_name(route));
                            }
    }
}

// A Linear's forward at tensor-core size with every tensor in 16 bits: one
// cuBLASLt call with the bias in its epilogue (none refused), and the CPU's
// bits for exact integer products.
TEST_F(CudaBackendTest, SixteenBitLinearForwardsFuseTheirBiasInCublasLt) {
    gpu_->set_gemm_route(Route::tensor_cores);
    const int m = 512, k = 256, n = 384;
    for (FormatId f : {FormatId::fp16, FormatId::bf16}) {
        const Both x = make({m, k}, f, integers(static_cast<std::size_t>(m) * k, 21));
        const Both w = make({k, n}, f, integers(static_cast<std::size_t>(k) * n, 22));
        const Both bias = make({1, n}, f, integers(n, 23));
        Both y = zeros({m, n}, f);
        cpu_.gemm(x.cpu, w.cpu, y.cpu, {.compute = f, .row_bias = &bias.cpu});
        gpu_->gemm(x.gpu, w.gpu, y.gpu, {.compute = f, .row_bias = &bias.gpu});
        expect_identical(y, "16-bit linear forward " + std::string(format_name(f)));
        EXPECT_EQ(gpu_->lt_refusal(), "") << format_name(f);
    }
}

// An empty sum (k = 0) leaves beta * c plus the bias, rounded.
TEST_F(CudaBackendTest, GemmWithAnEmptySumKeepsBetaTimesCAndTheBias) {
    const Both a = zeros({3, 0}, FormatId::fp32), b = zeros({0, 4}, FormatId::fp32);
    const Both bias = random({1, 4}, FormatId::fp32, 11);
    for (Route route : kRoutes) {
        gpu_->set_gemm_route(route);
        for (float beta : {0.0f, 0.5f}) {
            Both c = random({3, 4}, FormatId::fp16, 12);
            cpu_.gemm(a.cpu, b.cpu, c.cpu, {.beta = beta, .row_bias = &bias.cpu});
            gpu_->gemm(a.gpu, b.gpu, c.gpu, {.beta = beta, .row_bias = &bias.gpu});
            expect_identical(c, std::string("k=0 gemm") + route_name(route));
        }
    }
}

struct GemmOperandRead {
    std::optional<GemmSpec::ScaledInput> scaled;
    FormatId compute;
    // The value the GEMM multiplies, unscaled: what the FP32 product sees, over the scale.
    double operator()(float v) const {
        if (scaled) return round_to(scaled->format, v * scaled->scale, Overflow::saturate) / scaled->scale;
        return round_to(compute, v);
    }
};

// Random inputs (k = 300), alpha, beta and bias. On the tensor cores within
// the summation bound with n = k + 3 terms, plus one ULP of the output
// format; on the fixed-order route the CPU's bits.
void CudaBackendTest::check_gemm(const GemmSpec& base, FormatId out_dtype, const std::string& label, Route route) {
    gpu_->set_gemm_route(route);
    const int m = 37, k = 300, n = 29;
    const Shape as = base.trans_a ? Shape{k, m} : Shape{m, k}, bs = base.trans_b ? Shape{n, k} : Shape{k, n};
    const std::vector<float> av = random_values(as.size(), 13, 2.0f), bv = random_values(bs.size(), 14, 2.0f);
    const std::vector<float> cv = random_values(static_cast<std::size_t>(m) * n, 15, 4.0f);
    const std::vector<float> biasv = random_values(n, 16, 1.0f);
    const Both a = make(as, FormatId::fp32, av), b = make(bs, FormatId::fp32, bv);
    const Both bias = make({1, n}, FormatId::fp32, biasv);
    Both c = make({m, n}, out_dtype, cv);
    const std::vector<float> c0 = host(c.cpu);  // as stored in the output format
    gemm_both(a, b, c, base, &bias);

    const GemmOperandRead read_a{base.a_input, base.compute}, read_b{base.b_input, base.compute};
    std::vector<double> magnitude(c0.size());
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int p = 0; p < k; ++p) {
                const float x = base.trans_a ? av[p * m + i] : av[i * k + p];
                const float y = base.trans_b ? bv[j * k + p] : bv[p * n + j];
                sum += std::fabs(read_a(x) * read_b(y));
            }
            const std::size_t at = static_cast<std::size_t>(i) * n + j;
            magnitude[at] = std::fabs(base.alpha) * sum + std::fabs(base.beta * c0[at]) + std::fabs(biasv[j]);
        }
    const std::vector<float> cpu = host(c.cpu);
    const std::string what = "gemm " + label + (base.trans_a ? " a^T" : " a") + (base.trans_b ? " b^T" : " b") + route_name(route);
    if (route == Route::fixed_order) return plab::expect_identical(cpu, host_gpu(c.gpu), what);
    plab::expect_within(
        cpu, host_gpu(c.gpu),
        [&](std::size_t i) { return 2.0 * (k + 3) * kU32 * magnitude[i] + ulp_of(out_dtype, cpu[i]); }, what);
}

// The tensor cores sum the k products in their own order: within the
// recursive-summation bound of check_gemm (above).
TEST_F(CudaBackendTest, GemmOnTheTensorCoresMatchesTheCpuWithinTheSummationBound) {
    for (FormatId compute : {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16})
        for (FormatId out : {FormatId::fp32, FormatId::fp16})
            for (bool ta : {false, true})
                for (bool tb : {false, true})
                    check_gemm({.compute = compute, .trans_a = ta, .trans_b = tb, .alpha = 0.75f, .beta = 0.5f}, out,
                               std::string(format_name(compute)) + " -> " + std::string(format_name(out)));
}

// The fixed-order route: every compute format, layout, alpha, beta, bias and
// FP8-scaled input gives the CPU's bits.
TEST_F(CudaBackendTest, GemmInTheFixedOrderIsTheCpusBitForBit) {
    for (FormatId compute : {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16})
        for (FormatId out : {FormatId::fp32, FormatId::fp16, FormatId::bf16})
            for (bool ta : {false, true})
                for (bool tb : {false, true})
                    for (float beta : {0.0f, 0.5f})
                        check_gemm({.compute = compute, .trans_a = ta, .trans_b = tb, .alpha = beta ? 0.75f : 1.0f,
                                    .beta = beta},
                                   out, std::string(format_name(compute)) + " -> " + std::string(format_name(out)),
                                   Route::fixed_order);
    GemmSpec spec{.compute = FormatId::fp16, .alpha = 1.0f, .beta = 0.0f};
    spec.a_input = GemmSpec::ScaledInput{FormatId::e4m3, 256.0f};
    spec.b_input = GemmSpec::ScaledInput{FormatId::e5m2, 0.25f};
    check_gemm(spec, FormatId::bf16, "fp8 e4m3 x e5m2", Route::fixed_order);
}

// The automatic route takes the fixed order for the lab's toy models.
TEST_F(CudaBackendTest, SmallGemmsTakeTheFixedOrderByDefault) {
    const Both a = random({128, 64}, FormatId::fp32, 26), b = random({64, 64}, FormatId::fp32, 27);
    Both c = zeros({128, 64}, FormatId::fp16);
    cpu_.gemm(a.cpu, b.cpu, c.cpu, {.compute = FormatId::fp16});
    gpu_->gemm(a.gpu, b.gpu, c.gpu, {.compute = FormatId::fp16});
    expect_identical(c, "a 128 x 64 x 64 product");
}

// FP16 accumulation has one order, the CPU's: whatever the route, the GPU
// sums in the fixed-order kernel and gives the CPU's bits for every layout,
// epilogue and output format, the stall of a K=4096 sum of small terms and
// FP16's overflow to Inf included. A spec it cannot take fails with the
// CPU's message.
TEST_F(CudaBackendTest, GemmAccumulatingInFp16IsTheCpusBitForBit) {
    const int m = 37, k = 517, n = 29;
    for (Route route : kRoutes) {
        gpu_->set_gemm_route(route);
        for (FormatId out : {FormatId::fp32, FormatId::fp16})
            for (bool ta : {false, true})
                for (bool tb : {false, true}) {
                    const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
                    const Both a = random(as, FormatId::fp16, 31, 8.0f), b = random(bs, FormatId::fp16, 32, 8.0f);
                    const Both bias = random({1, n}, FormatId::fp32, 33);
                    Both c = random({m, n}, out, 34);
                    gemm_both(a, b, c,
                              {.compute = FormatId::fp16, .trans_a = ta, .trans_b = tb, .alpha = 0.75f, .beta = 0.5f,
                               .accumulate = FormatId::fp16},
                              &bias);
                    expect_identical(c, "fp16 sums -> " + std::string(format_name(out)) + (ta ? " a^T" : " a") +
                                            (tb ? " b^T" : " b") + route_name(route));
                }
        const Both small = make({1, 4096}, FormatId::fp16, std::vector<float>(4096, 0.1f));
        const Both column = make({4096, 1}, FormatId::fp16, std::vector<float>(4096, 0.1f));
        const Both large = make({1, 4096}, FormatId::fp16, std::vector<float>(4096, 200.0f));
        for (const Both* x : {&small, &large}) {
            Both c = zeros({1, 1}, FormatId::fp32);
            gemm_both(*x, column, c, {.compute = FormatId::fp16, .accumulate = FormatId::fp16});
            expect_identical(c, std::string(x == &small ? "a stalled" : "an overflowing") + " K=4096 sum" +
                                    route_name(route));
        }
    }
    const Both a = random({3, 4}, FormatId::fp32, 35), b = random({4, 2}, FormatId::fp32, 36);
    Both c = zeros({3, 2}, FormatId::fp32);
    const GemmSpec bf16_inputs{.compute = FormatId::bf16, .accumulate = FormatId::fp16};
    const std::string cpu_message = testing_support::error_of([&] { cpu_.gemm(a.cpu, b.cpu, c.cpu, bf16_inputs); });
    EXPECT_NE(cpu_message, "(no error)");
    EXPECT_EQ(testing_support::error_of([&] { gpu_->gemm(a.gpu, b.gpu, c.gpu, bf16_inputs); }), cpu_message);
}

// FP8-scaled inputs on the tensor cores: the same bound, with the inputs read
// as the CPU reads them (scaled, rounded saturating, the scale folded into alpha).
TEST_F(CudaBackendTest, Fp8ScaledGemmMatchesTheCpuWithinTheSummationBound) {
    GemmSpec spec{.compute = FormatId::fp16, .alpha = 1.0f, .beta = 0.0f};
    spec.a_input = GemmSpec::ScaledInput{FormatId::e4m3, 256.0f};  // |a| * 256 > 448 saturates
    spec.b_input = GemmSpec::ScaledInput{FormatId::e5m2, 0.25f};
    check_gemm(spec, FormatId::fp32, "fp8 e4m3 x e5m2");
    spec.trans_b = true;
    check_gemm(spec, FormatId::bf16, "fp8 e4m3 x e5m2^T -> bf16");
}

// ---- elementwise -------------------------------------------------------------

// Identity and ReLU bit for bit (the same select); tanh and GELU within a few
// ULPs, since CUDA's tanhf and erff are not glibc's (bound below).
TEST_F(CudaBackendTest, ActivationsMatchTheCpu) {
    for (Activation act : {Activation::identity, Activation::relu, Activation::tanh, Activation::gelu}) {
        for (FormatId f : {FormatId::fp32, FormatId::fp16, FormatId::bf16}) {
            const std::string label = std::string(activation_name(act)) + " " + std::string(format_name(f));
            const Both x = random({31, 33}, f, 17, 6.0f), dy = random({31, 33}, f, 18, 2.0f);
            Both y = zeros(x.cpu.shape(), f), dx = zeros(x.cpu.shape(), f);
            cpu_.activation_forward(act, x.cpu, y.cpu);
            gpu_->activation_forward(act, x.gpu, y.gpu);
            cpu_.activation_backward(act, x.cpu, dy.cpu, dx.cpu);
            gpu_->activation_backward(act, x.gpu, dy.gpu, dx.gpu);
            if (act == Activation::identity || act == Activation::relu) {
                expect_identical(y, "forward " + label);
                expect_identical(dx, "backward " + label);
                continue;
            }
            // tanh, erf, exp: a few ULPs apart between CUDA and glibc, of
            // quantities up to |x| (GELU's x * cdf) or |dy| (1 + |x|) (the slopes).
            const std::vector<float> xs = host(x.cpu), dys = host(dy.cpu), ys = host(y.cpu), dxs = host(dx.cpu);
            expect_within(y, [&](std::size_t i) { return 8 * kU32 * (1 + std::fabs(xs[i])) + ulp_of(f, ys[i]); },
                          "forward " + label);
            expect_within(dx,
                          [&](std::size_t i) {
                              return 8 * kU32 * std::fabs(dys[i]) * (1 + std::fabs(xs[i])) + ulp_of(f, dxs[i]);
                          },
                          "backward " + label);
        }
    }
}

// Bit for bit: one rounded add or multiply per value, then the dtype's rounding.
TEST_F(CudaBackendTest, AccumulateAndScaleRoundLikeTheCpu) {
    const Both src = random({17, 19}, FormatId::fp32, 19, 3.0f);
    for (FormatId f : {FormatId::fp32, FormatId::fp16, FormatId::bf16}) {
        Both dst = random({17, 19}, f, 20, 3.0f);
        cpu_.accumulate(src.cpu, dst.cpu, false);
        gpu_->accumulate(src.gpu, dst.gpu, false);
        expect_identical(dst, "accumulate add " + std::string(format_name(f)));
        cpu_.accumulate(src.cpu, dst.cpu, true);
        gpu_->accumulate(src.gpu, dst.gpu, true);
        expect_identical(dst, "accumulate overwrite " + std::string(format_name(f)));
        cpu_.scale_in_place(dst.cpu, 40000.0f);  // FP16 overflows to Inf
        gpu_->scale_in_place(dst.gpu, 40000.0f);
        expect_identical(dst, "scale_in_place " + std::string(format_name(f)));
    }
}

// ---- losses ------------------------------------------------------------------

std::vector<float> labels_for(int rows, int classes, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(rows);
    for (float& x : v) x = static_cast<float>(rng() % static_cast<unsigned>(classes));
    return v;
}

// Probabilities and gradients bit for bit: a warp folds each row's max and
// sum in the CPU's index order with the shared exp and log (portable_math.h).
// The loss is the same row terms summed in another order: the summation bound.
TEST_F(CudaBackendTest, SoftmaxCrossEntropyMatchesTheCpu) {
    const int rows = 128, classes = 5;
    const std::vector<float> zv = random_values(rows * classes, 21, 8.0f);
    const Both logits = make({rows, classes}, FormatId::fp16, zv);
    const Both labels = make({rows, 1}, FormatId::fp32, labels_for(rows, classes, 22));
    for (FormatId f : {FormatId::fp32, FormatId::fp16}) {
        Both probs = zeros({rows, classes}, f);
        const float cpu_loss = cpu_.softmax_cross_entropy(logits.cpu, labels.cpu, probs.cpu);
        const float gpu_loss = gpu_->softmax_cross_entropy(logits.gpu, labels.gpu, probs.gpu);
        const std::vector<float> ps = host(probs.cpu);
        expect_identical(probs, "softmax probs " + std::string(format_name(f)));
        // The loss: the same row terms, summed over rows in another order.
        // Row terms are bounded by log(sum) + |z_label - max|.
        const std::vector<float> zs = host(logits.cpu), ls = host(labels.cpu);
        double terms = 0;
        for (int r = 0; r < rows; ++r) {
            double top = zs[r * classes], sum = 0;
            for (int j = 1; j < classes; ++j) top = std::max<double>(top, zs[r * classes + j]);
            for (int j = 0; j < classes; ++j) sum += std::exp(zs[r * classes + j] - top);
            terms += std::log(sum) + std::fabs(zs[r * classes + static_cast<int>(ls[r])] - top);
        }
        EXPECT_NEAR(gpu_loss, cpu_loss, (2.0 * rows + 16) * kU32 * terms / rows) << format_name(f);

        // The gradient from the same probabilities is elementwise: identical.
        const Both same_probs = make({rows, classes}, f, ps);
        Both dlogits = zeros({rows, classes}, FormatId::fp16);
        cpu_.softmax_cross_entropy_backward(same_probs.cpu, labels.cpu, 1024.0f, dlogits.cpu);
        gpu_->softmax_cross_entropy_backward(same_probs.gpu, labels.gpu, 1024.0f, dlogits.gpu);
        expect_identical(dlogits, "softmax cross-entropy backward");
    }
}

// The first bad row named with the CPU's words.
TEST_F(CudaBackendTest, SoftmaxCrossEntropyRejectsABadLabelWithTheCpuMessage) {
    const Both logits = random({6, 3}, FormatId::fp32, 23);
    const Both labels = make({6, 1}, FormatId::fp32, {0, 1, 2, 1.5f, 7, 0});  // first bad: row 3
    Both probs = zeros({6, 3}, FormatId::fp32);
    std::string cpu_message, gpu_message;
    try {
        cpu_.softmax_cross_entropy(logits.cpu, labels.cpu, probs.cpu);
    } catch (const Error& e) {
        cpu_message = e.what();
    }
    try {
        gpu_->softmax_cross_entropy(logits.gpu, labels.gpu, probs.gpu);
    } catch (const Error& e) {
        gpu_message = e.what();
    }
    EXPECT_NE(cpu_message.find("row 3"), std::string::npos) << cpu_message;
    EXPECT_EQ(gpu_message, cpu_message);
}

// The mean: the squares summed in another order, within the summation bound;
// the gradient value by value, bit for bit.
TEST_F(CudaBackendTest, MseMatchesTheCpu) {
    const std::size_t n = 4099;
    const std::vector<float> pv = random_values(n, 24, 3.0f), tv = random_values(n, 25, 3.0f);
    const Both pred = make({1, static_cast<int>(n)}, FormatId::fp16, pv);
    const Both target = make({1, static_cast<int>(n)}, FormatId::fp32, tv);
    const std::vector<float> ps = host(pred.cpu);
    double squares = 0;
    for (std::size_t i = 0; i < n; ++i) squares += (static_cast<double>(ps[i]) - tv[i]) * (ps[i] - tv[i]);
    EXPECT_NEAR(gpu_->mse_loss(pred.gpu, target.gpu), cpu_.mse_loss(pred.cpu, target.cpu),
                (2.0 * n + 8) * kU32 * squares / n);
    Both dpred = zeros(pred.cpu.shape(), FormatId::fp16);
    cpu_.mse_loss_backward(pred.cpu, target.cpu, 65536.0f, dpred.cpu);
    gpu_->mse_loss_backward(pred.gpu, target.gpu, 65536.0f, dpred.gpu);
    expect_identical(dpred, "mse backward");
}

// Off the FP32 list both losses walk the CPU's order with every step
// rounded (loss_math.h): probabilities and loss values bit for bit, an
// overflowing sum included.
TEST_F(CudaBackendTest, LossesOffTheFp32ListAreTheCpusBitForBit) {
    const int rows = 300, classes = 7;
    const Both logits = random({rows, classes}, FormatId::fp16, 41, 300.0f);  // per-row losses in the hundreds
    const Both labels = make({rows, 1}, FormatId::fp32, labels_for(rows, classes, 42));
    const Both target = random({rows, classes}, FormatId::fp32, 43, 20.0f);
    for (FormatId compute : {FormatId::fp16, FormatId::bf16}) {
        SCOPED_TRACE(std::string("compute ") + std::string(format_name(compute)));
        Both probs = zeros({rows, classes}, compute);
        Both loss = zeros({1, 1}, FormatId::fp32);
        cpu_.softmax_cross_entropy_into(logits.cpu, labels.cpu, compute, probs.cpu, loss.cpu);
        gpu_->softmax_cross_entropy_into(logits.gpu, labels.gpu, compute, probs.gpu, loss.gpu);
        expect_identical(probs, "softmax probs");
        expect_identical(loss, "cross-entropy");
        cpu_.mse_loss_into(logits.cpu, target.cpu, compute, loss.cpu);
        gpu_->mse_loss_into(logits.gpu, target.gpu, compute, loss.gpu);
        expect_identical(loss, "mse");
    }
}

// ---- layer norm --------------------------------------------------------------

// Bit for bit: a warp per row folds the mean, the squares and dx's two sums
// in the CPU's index order, a thread per column sums dgamma and dbeta over
// the rows in order; sqrt and division are IEEE, no FMA. In FP32 (on the
// FP32 list) and with every step rounded to FP16 or BF16 (off it).
TEST_F(CudaBackendTest, LayerNormIsTheCpusBitForBit) {
    for (FormatId compute : {FormatId::fp32, FormatId::fp16, FormatId::bf16}) {
        SCOPED_TRACE(std::string("compute ") + std::string(format_name(compute)));
        const int rows = 37, cols = 64;
        const Both x = random({rows, cols}, FormatId::fp16, 26, 4.0f);
        const Both gamma = random({1, cols}, FormatId::fp32, 27), beta = random({1, cols}, FormatId::fp32, 28);
        Both y = zeros({rows, cols}, FormatId::fp16);
        Both mean = zeros({rows, 1}, FormatId::fp32), rstd = zeros({rows, 1}, FormatId::fp32);
        cpu_.layer_norm_forward(x.cpu, gamma.cpu, beta.cpu, 1e-5f, compute, y.cpu, mean.cpu, rstd.cpu);
        gpu_->layer_norm_forward(x.gpu, gamma.gpu, beta.gpu, 1e-5f, compute, y.gpu, mean.gpu, rstd.gpu);
        expect_identical(y, "layer norm y");
        expect_identical(mean, "layer norm mean");
        expect_identical(rstd, "layer norm rstd");

        const Both dy = random({rows, cols}, FormatId::fp16, 29, 100.0f);
        Both dx = zeros({rows, cols}, FormatId::fp16);
        Both dgamma = zeros({1, cols}, FormatId::fp32), dbeta = zeros({1, cols}, FormatId::bf16);
        cpu_.layer_norm_backward(x.cpu, gamma.cpu, mean.cpu, rstd.cpu, dy.cpu, compute, dx.cpu, dgamma.cpu,
                                 dbeta.cpu);
        gpu_->layer_norm_backward(x.gpu, gamma.gpu, mean.gpu, rstd.gpu, dy.gpu, compute, dx.gpu, dgamma.gpu,
                                  dbeta.gpu);
        expect_identical(dx, "layer norm dx");
        expect_identical(dgamma, "layer norm dgamma");
        expect_identical(dbeta, "layer norm dbeta");

        // dx may alias dy (the interface allows it): the same result in place.
        Both in_place = make({rows, cols}, FormatId::fp16, host(dy.cpu));
        cpu_.layer_norm_backward(x.cpu, gamma.cpu, mean.cpu, rstd.cpu, in_place.cpu, compute, in_place.cpu,
                                 dgamma.cpu, dbeta.cpu);
        gpu_->layer_norm_backward(x.gpu, gamma.gpu, mean.gpu, rstd.gpu, in_place.gpu, compute, in_place.gpu,
                                  dgamma.gpu, dbeta.gpu);
        expect_identical(in_place, "layer norm dx aliasing dy");
        expect_identical(dgamma, "layer norm dgamma, dx aliasing dy");
    }
}

// ---- batch norm --------------------------------------------------------------

// Bit for bit: a thread per column sums its rows in the CPU's order (the
// column sums, the squares, and the backward's four sums), sqrt and division
// are IEEE, no FMA. In FP32 (on the FP32 list) and with every step rounded to
// FP16 or BF16 (off it); the columns offset by 300 overflow FP16's squares
// (NaN there), and the running statistics and the evaluation follow too.
TEST_F(CudaBackendTest, BatchNormIsTheCpusBitForBit) {
    const int rows = 37, cols = 70;
    std::vector<float> values = random_values(static_cast<std::size_t>(rows) * cols, 44, 4.0f);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; j += 9) values[static_cast<std::size_t>(i) * cols + j] += 300.0f;
    for (FormatId compute : {FormatId::fp32, FormatId::fp16, FormatId::bf16}) {
        SCOPED_TRACE(std::string("compute ") + std::string(format_name(compute)));
        const Both x = make({rows, cols}, FormatId::fp16, values);
        const Both gamma = random({1, cols}, FormatId::fp32, 45), beta = random({1, cols}, FormatId::fp32, 46);
        Both y = zeros({rows, cols}, FormatId::fp16);
        Both mean = zeros({1, cols}, FormatId::fp32), rstd = zeros({1, cols}, FormatId::fp32);
        Both running_mean = random({1, cols}, FormatId::fp32, 47);
        Both running_var = make({1, cols}, FormatId::fp32, std::vector<float>(cols, 1.0f));
        for (int pass = 0; pass < 2; ++pass) {  // the second blends into the first's running statistics
            cpu_.batch_norm_forward(x.cpu, gamma.cpu, beta.cpu, 1e-5f, 0.1f, compute, y.cpu, mean.cpu, rstd.cpu,
                                    running_mean.cpu, running_var.cpu);
            gpu_->batch_norm_forward(x.gpu, gamma.gpu, beta.gpu, 1e-5f, 0.1f, compute, y.gpu, mean.gpu, rstd.gpu,
                                     running_mean.gpu, running_var.gpu);
        }
        expect_identical(y, "batch norm y");
        expect_identical(mean, "batch norm mean");
        expect_identical(rstd, "batch norm rstd");
        expect_identical(running_mean, "batch norm running mean");
        expect_identical(running_var, "batch norm running var");

        Both eval = zeros({rows, cols}, FormatId::bf16);
        cpu_.batch_norm_inference(x.cpu, gamma.cpu, beta.cpu, running_mean.cpu, running_var.cpu, 1e-5f, compute,
                                  eval.cpu);
        gpu_->batch_norm_inference(x.gpu, gamma.gpu, beta.gpu, running_mean.gpu, running_var.gpu, 1e-5f, compute,
                                   eval.gpu);
        expect_identical(eval, "batch norm evaluation y");

        const Both dy = random({rows, cols}, FormatId::fp16, 48, 100.0f);
        Both dx = zeros({rows, cols}, FormatId::fp16);
        Both dgamma = zeros({1, cols}, FormatId::fp32), dbeta = zeros({1, cols}, FormatId::bf16);
        cpu_.batch_norm_backward(x.cpu, gamma.cpu, mean.cpu, rstd.cpu, dy.cpu, compute, dx.cpu, dgamma.cpu,
                                 dbeta.cpu);
        gpu_->batch_norm_backward(x.gpu, gamma.gpu, mean.gpu, rstd.gpu, dy.gpu, compute, dx.gpu, dgamma.gpu,
                                  dbeta.gpu);
        expect_identical(dx, "batch norm dx");
        expect_identical(dgamma, "batch norm dgamma");
        expect_identical(dbeta, "batch norm dbeta");

        // y may alias x and dx may alias dy (the interface allows both).
        Both in_place = make({rows, cols}, FormatId::fp16, host(dy.cpu));
        cpu_.batch_norm_backward(x.cpu, gamma.cpu, mean.cpu, rstd.cpu, in_place.cpu, compute, in_place.cpu,
                                 dgamma.cpu, dbeta.cpu);
        gpu_->batch_norm_backward(x.gpu, gamma.gpu, mean.gpu, rstd.gpu, in_place.gpu, compute, in_place.gpu,
                                  dgamma.gpu, dbeta.gpu);
        expect_identical(in_place, "batch norm dx aliasing dy");
        Both x_in_place = make({rows, cols}, FormatId::fp16, values);
        cpu_.batch_norm_forward(x_in_place.cpu, gamma.cpu, beta.cpu, 1e-5f, 0.1f, compute, x_in_place.cpu, mean.cpu,
                                rstd.cpu, running_mean.cpu, running_var.cpu);
        gpu_->batch_norm_forward(x_in_place.gpu, gamma.gpu, beta.gpu, 1e-5f, 0.1f, compute, x_in_place.gpu,
                                 mean.gpu, rstd.gpu, running_mean.gpu, running_var.gpu);
        expect_identical(x_in_place, "batch norm y aliasing x");
    }
}

TEST_F(CudaBackendTest, BatchNormRejectsWhatTheCpuRejects) {
    const Both x = zeros({1, 3}, FormatId::fp32), gamma = zeros({1, 3}, FormatId::fp32);
    Both y = zeros({1, 3}, FormatId::fp32), stat = zeros({1, 3}, FormatId::fp32);
    const std::string want =
        "batch_norm_forward: x 1x3 has fewer than 2 rows; batch statistics need a batch of 2 or more";
    EXPECT_EQ(testing_support::error_of([&] {
                  cpu_.batch_norm_forward(x.cpu, gamma.cpu, gamma.cpu, 1e-5f, 0.1f, FormatId::fp32, y.cpu, stat.cpu,
                                          stat.cpu, stat.cpu, stat.cpu);
              }),
              want);
    EXPECT_EQ(testing_support::error_of([&] {
                  gpu_->batch_norm_forward(x.gpu, gamma.gpu, gamma.gpu, 1e-5f, 0.1f, FormatId::fp32, y.gpu, stat.gpu,
                                           stat.gpu, stat.gpu, stat.gpu);
              }),
              want);
}

// ---- attention ---------------------------------------------------------------

// Bit for bit: every dot product in the CPU's index order (a warp per product
// for the scores and dprobs), no FMA.
TEST_F(CudaBackendTest, TokenMatmulsAreTheCpusBitForBit) {
    const int rows = 5, tokens = 4, width = 8;
    const Shape values{rows, tokens * width}, pairs{rows, tokens * tokens};
    const Both q = random(values, FormatId::fp16, 30), k = random(values, FormatId::fp16, 31);
    const Both v = random(values, FormatId::fp16, 32), probs = random(pairs, FormatId::fp16, 33);
    const Both dscores = random(pairs, FormatId::fp16, 34), dout = random(values, FormatId::fp16, 35);
    Both scores = zeros(pairs, FormatId::fp16), out = zeros(values, FormatId::bf16);
    Both dq = zeros(values, FormatId::fp16), dk = zeros(values, FormatId::fp32);
    Both dprobs = zeros(pairs, FormatId::fp16), dv = zeros(values, FormatId::fp16);
    cpu_.token_scores(q.cpu, k.cpu, tokens, scores.cpu);
    gpu_->token_scores(q.gpu, k.gpu, tokens, scores.gpu);
    cpu_.token_scores_backward(q.cpu, k.cpu, dscores.cpu, tokens, dq.cpu, dk.cpu);
    gpu_->token_scores_backward(q.gpu, k.gpu, dscores.gpu, tokens, dq.gpu, dk.gpu);
    cpu_.token_mix(probs.cpu, v.cpu, tokens, out.cpu);
    gpu_->token_mix(probs.gpu, v.gpu, tokens, out.gpu);
    cpu_.token_mix_backward(probs.cpu, v.cpu, dout.cpu, tokens, dprobs.cpu, dv.cpu);
    gpu_->token_mix_backward(probs.gpu, v.gpu, dout.gpu, tokens, dprobs.gpu, dv.gpu);
    expect_identical(scores, "token_scores");
    expect_identical(dq, "token_scores_backward dq");
    expect_identical(dk, "token_scores_backward dk");
    expect_identical(out, "token_mix");
    expect_identical(dprobs, "token_mix_backward dprobs");
    expect_identical(dv, "token_mix_backward dv");
}

// Bit for bit: each group's max and sum folded in the CPU's order with the
// shared exp; a group whose FP16 logit overflows is NaN on both.
TEST_F(CudaBackendTest, ScaledSoftmaxMatchesTheCpuAndLosesAnOverflowingRowAlike) {
    const int rows = 6, tokens = 5;
    std::vector<float> xv = random_values(rows * tokens * tokens, 36, 20.0f);
    xv[7] = 1e5f;  // row 0, group 1: 1e5 * 0.7 overflows FP16 to Inf, the group becomes NaN
    const Both x = make({rows, tokens * tokens}, FormatId::fp32, xv);
    for (FormatId compute : {FormatId::fp32, FormatId::fp16})
        for (bool causal : {false, true}) {
            Both probs = zeros(x.cpu.shape(), FormatId::fp16);
            cpu_.scaled_softmax(x.cpu, 0.7f, tokens, compute, causal, probs.cpu);
            gpu_->scaled_softmax(x.gpu, 0.7f, tokens, compute, causal, probs.gpu);
            const std::vector<float> ps = host(probs.cpu), gs = host_gpu(probs.gpu);
            plab::expect_identical(ps, gs,
                                   "scaled_softmax " + std::string(format_name(compute)) + (causal ? " causal" : ""));
            // Causal, query 1 keeps keys 0 and 1: the overflowing key 2 is masked out.
            EXPECT_EQ(std::isnan(gs[5]), compute == FormatId::fp16 && !causal);
        }
    const Both probs = random(x.cpu.shape(), FormatId::fp16, 37), dprobs = random(x.cpu.shape(), FormatId::fp16, 38);
    Both dx = zeros(x.cpu.shape(), FormatId::fp16);
    cpu_.scaled_softmax_backward(probs.cpu, dprobs.cpu, 0.7f, tokens, dx.cpu);
    gpu_->scaled_softmax_backward(probs.gpu, dprobs.gpu, 0.7f, tokens, dx.gpu);
    expect_identical(dx, "scaled_softmax_backward");
}

// Bit for bit: heads move exactly, embeddings add in FP32, and each table
// row's gradient sums the rows in order on both.
TEST_F(CudaBackendTest, EmbeddingsAndHeadsAreTheCpusBitForBit) {
    const int sequences = 3, context = 4, heads = 2, width = 5, vocabulary = 7;
    const int rows = sequences * context, model = heads * width;
    std::vector<float> idv(rows);
    for (int r = 0; r < rows; ++r) idv[static_cast<std::size_t>(r)] = static_cast<float>((r * 5 + 2) % vocabulary);
    const Both ids = make({rows, 1}, FormatId::fp32, idv);
    const Both tokens = random({vocabulary, model}, FormatId::fp32, 60), positions = random({context, model}, FormatId::fp32, 61);
    Both out = zeros({rows, model}, FormatId::fp16);
    cpu_.embedding_forward(ids.cpu, tokens.cpu, positions.cpu, out.cpu);
    gpu_->embedding_forward(ids.gpu, tokens.gpu, positions.gpu, out.gpu);
    expect_identical(out, "embedding_forward");
    const Both dout = random({rows, model}, FormatId::fp32, 62, 1e4f);
    Both dtokens = random({vocabulary, model}, FormatId::bf16, 63), dpositions = zeros({context, model}, FormatId::fp32);
    cpu_.embedding_backward(ids.cpu, dout.cpu, dtokens.cpu, dpositions.cpu);
    gpu_->embedding_backward(ids.gpu, dout.gpu, dtokens.gpu, dpositions.gpu);
    expect_identical(dtokens, "embedding_backward dtokens");
    expect_identical(dpositions, "embedding_backward dpositions");
    Both split = zeros({sequences * heads, context * width}, FormatId::fp16), merged = zeros({rows, model}, FormatId::fp32);
    cpu_.split_heads(dout.cpu, context, heads, split.cpu);
    gpu_->split_heads(dout.gpu, context, heads, split.gpu);
    expect_identical(split, "split_heads");
    cpu_.merge_heads(split.cpu, context, heads, merged.cpu);
    gpu_->merge_heads(split.gpu, context, heads, merged.gpu);
    expect_identical(merged, "merge_heads");
}

// ---- reductions --------------------------------------------------------------

// Bit for bit: a thread per column adds the rows in row order, as the CPU does.
TEST_F(CudaBackendTest, ColumnSumsAreTheCpusBitForBit) {
    // Row counts below, at and past the kernel's tiles of rows; column counts off a warp's width.
    for (const Shape s : {Shape{300, 45}, Shape{1, 3}, Shape{256, 64}, Shape{1000, 97}, Shape{0, 5}}) {
        for (FormatId in : {FormatId::fp16, FormatId::fp32}) {
            const Both x = random(s, in, 39, 50.0f);
            for (FormatId f : {FormatId::fp32, FormatId::bf16}) {
                Both sums = random({1, s.cols}, f, 41);  // every column written, none kept
                cpu_.column_sums(x.cpu, sums.cpu);
                gpu_->column_sums(x.gpu, sums.gpu);
                expect_identical(sums, "column_sums of " + shape_text(s) + " " + std::string(format_name(in)) +
                                           " into " + std::string(format_name(f)));
            }
        }
    }
}

// Bit for bit: one rounded multiply per value; found_inf is an OR, in any order.
TEST_F(CudaBackendTest, UnscaleAndCheckFindsTheSameInfs) {
    std::vector<float> values = random_values(100000, 40, 60000.0f);
    const Both clean = make({100, 1000}, FormatId::fp16, values);
    values[77777] = kInf;
    const Both dirty = make({100, 1000}, FormatId::fp16, values);
    values[77777] = 1.0f;
    values[99999] = kNan;
    const Both nan = make({100, 1000}, FormatId::fp16, values);
    for (const Both* src : {&clean, &dirty, &nan}) {
        Both dst = zeros({100, 1000}, FormatId::fp32);
        const bool cpu_found = cpu_.unscale_and_check(src->cpu, 1.0f / 65536.0f, dst.cpu);
        const bool gpu_found = gpu_->unscale_and_check(src->gpu, 1.0f / 65536.0f, dst.gpu);
        EXPECT_EQ(gpu_found, cpu_found);
        expect_identical(dst, "unscaled gradient");
    }
    Both dst = zeros({100, 1000}, FormatId::fp32);
    EXPECT_FALSE(gpu_->unscale_and_check(clean.gpu, 1.0f, dst.gpu));
    EXPECT_TRUE(gpu_->unscale_and_check(dirty.gpu, 1.0f, dst.gpu));
    EXPECT_TRUE(gpu_->unscale_and_check(nan.gpu, 1.0f, dst.gpu));
}

// All gradients in one launch: the same outputs as the CPU, bit for bit, and
// the same first non-finite tensor, for tensors of unequal sizes (one empty).
TEST_F(CudaBackendTest, UnscaleAllIsTheCpusInOneLaunch) {
    const std::vector<Shape> shapes = {{64, 2}, {64, 64}, {0, 5}, {3, 64}, {1, 300001}, {1, 3}};
    for (int dirty : {-1, 1, 4, 5}) {
        std::vector<Both> src, dst;
        for (std::size_t t = 0; t < shapes.size(); ++t) {
            std::vector<float> values = random_values(shapes[t].size(), 50 + static_cast<std::uint32_t>(t), 60000.0f);
            if (static_cast<int>(t) == dirty) values[values.size() / 2] = kInf;
            if (static_cast<int>(t) == 5 && dirty >= 0) values[0] = kNan;  // a later one too: the first still counts
            src.push_back(make(shapes[t], FormatId::fp16, values));
            dst.push_back(zeros(shapes[t], FormatId::fp32));
        }
        std::vector<UnscaleJob> cpu_jobs, gpu_jobs;
        for (std::size_t t = 0; t < shapes.size(); ++t) {
            cpu_jobs.push_back({&src[t].cpu, &dst[t].cpu});
            gpu_jobs.push_back({&src[t].gpu, &dst[t].gpu});
        }
        const int cpu_first = cpu_.unscale_all(cpu_jobs, 1.0f / 65536.0f);
        EXPECT_EQ(cpu_first, dirty);
        EXPECT_EQ(gpu_->unscale_all(gpu_jobs, 1.0f / 65536.0f), cpu_first);
        for (std::size_t t = 0; t < shapes.size(); ++t) expect_identical(dst[t], "unscaled gradient");
    }
    EXPECT_EQ(gpu_->unscale_all({}, 1.0f), -1);
}

// Views of a device tensor (the step's settings block) point into its
// storage: one upload fills them, and a write through one lands in it.
TEST_F(CudaBackendTest, ViewsShareTheirTensorsStorage) {
    Tensor block = gpu_->allocate({1, 6}, FormatId::fp32);
    Tensor tail = block.view(2, {2, 2});
    const float values[] = {1, 2, 3, 4, 5, 6};
    gpu_->upload(values, block);
    EXPECT_EQ(testing_support::download_all(*gpu_, tail), (std::vector<float>{3, 4, 5, 6}));
    const float seven = 7;
    Tensor fifth = block.view(4, {1, 1});
    gpu_->queue_upload(&seven, fifth);
    gpu_->wait_for_queued();
    EXPECT_EQ(testing_support::download_all(*gpu_, block), (std::vector<float>{1, 2, 3, 4, 7, 6}));
}

// The scaler's state and found_inf kept on the device (no host round trip):
// the same state as the host's LossScaler after every step, and the same
// unscaled gradients as unscale_all.
TEST_F(CudaBackendTest, UpdateScalerOnTheDeviceIsTheHostsRule) {
    testing_support::expect_update_scaler_follows_loss_scaler(*gpu_);
}

TEST_F(CudaBackendTest, UnscaleOnDeviceReadsTheScaleThereAndLeavesTheFlag) {
    testing_support::expect_unscale_flagged_is_unscale_all(*gpu_);
}

// The optimizer step on the device (backend_step_checks.h): gated updates
// bit for bit (the update arithmetic is the CPU's, the AdamW scalars the
// host's table), the norm within FP32 summation-order error (a tree, not the
// CPU's index order), and readbacks that land at the finish.
TEST_F(CudaBackendTest, GatedUpdatesOnTheDeviceAreTheCpusOnAppliedSteps) {
    testing_support::expect_gated_updates_follow_the_host(*gpu_, false, 0.0f);
    testing_support::expect_gated_updates_follow_the_host(*gpu_, false, 0.9f);
    testing_support::expect_gated_updates_follow_the_host(*gpu_, true, 0.0f);
}

// The global norm sums squares in another order: within the relative bound
// that backend_step_checks.h states; the clip is then one multiply per value.
TEST_F(CudaBackendTest, NormAndClipOnTheDeviceAreTheCpusWithinSummationError) {
    testing_support::expect_norm_and_clip_follow_the_host(*gpu_, 2e-6);
}

// The same kernels as the returning calls: the same values; the bad label
// raised at the finish with the CPU's words.
TEST_F(CudaBackendTest, LossesLeftOnTheDeviceAreTheReturnedOnesAndBadLabelsFailAtTheFinish) {
    testing_support::expect_losses_into_tensors_are_the_returned_ones(*gpu_);
}

// Copies: the values as they were when queued, bit for bit.
TEST_F(CudaBackendTest, QueuedDownloadsLandAtTheFinishWithTheirMomentsValues) {
    testing_support::expect_queued_downloads_land_at_the_finish(*gpu_);
}

// The sum of squares in another order: within 2 n u of the sum; counts and
// maxima are order-free and exact.
TEST_F(CudaBackendTest, ScansMatchTheCpu) {
    const std::size_t n = 300001;  // more than one reduction pass per thread
    std::vector<float> values = random_values(n, 41, 7.0f);
    const Both finite = make({1, static_cast<int>(n)}, FormatId::bf16, values);
    double squares = 0;
    for (float x : host(finite.cpu)) squares += static_cast<double>(x) * x;
    EXPECT_NEAR(gpu_->sum_of_squares(finite.gpu), cpu_.sum_of_squares(finite.cpu), 2.0 * n * kU32 * squares);
    values[5] = kNan;
    values[n - 1] = kInf;
    values[1000] = -kInf;
    values[2000] = 1e30f;  // the finite maximum
    const Both mixed = make({1, static_cast<int>(n)}, FormatId::fp32, values);
    EXPECT_EQ(gpu_->count_non_finite(mixed.gpu), 3);
    EXPECT_EQ(cpu_.count_non_finite(mixed.cpu), 3);
    EXPECT_EQ(gpu_->finite_amax(mixed.gpu), 1e30f);
    EXPECT_EQ(gpu_->finite_amax(finite.gpu), cpu_.finite_amax(finite.cpu));
    EXPECT_EQ(gpu_->count_non_finite(gpu_->allocate({0, 3}, FormatId::fp32)), 0);
}

// FP64 sums (squared differences, squares, the dot product) in another order:
// within the FP64 summation bound, 2 n u64 of each sum of magnitudes.
TEST_F(CudaBackendTest, CompareMatchesTheCpuInFp64) {
    const std::size_t n = 70001;
    const std::vector<float> av = random_values(n, 42, 2.0f), bv = random_values(n, 43, 2.0f);
    const Both x = make({1, static_cast<int>(n)}, FormatId::fp16, av);
    const Both y = make({1, static_cast<int>(n)}, FormatId::fp32, bv);
    const TensorComparison c = cpu_.compare(x.cpu, y.cpu), g = gpu_->compare(x.gpu, y.gpu);
    double diff = 0, xs = 0, ys = 0, dot = 0;
    const std::vector<float> hx = host(x.cpu);
    for (std::size_t i = 0; i < n; ++i) {
        const double u = hx[i], v = bv[i];
        diff += (u - v) * (u - v);
        xs += u * u;
        ys += v * v;
        dot += std::fabs(u * v);
    }
    const double bound = 2.0 * n * kU64;
    EXPECT_NEAR(g.diff_sq, c.diff_sq, bound * diff);
    EXPECT_NEAR(g.a_sq, c.a_sq, bound * xs);
    EXPECT_NEAR(g.b_sq, c.b_sq, bound * ys);
    EXPECT_NEAR(g.dot, c.dot, bound * dot);
}

// ---- optimizers ----------------------------------------------------------------

// Weights of mixed magnitudes: an update of ~1e-4 is lost on FP16 weights near
// 1 (half an ULP there is 2^-12) and kept on small ones.
std::vector<float> weights(std::size_t n, std::uint32_t seed) {
    std::vector<float> w = random_values(n, seed, 1.0f);
    for (std::size_t i = 0; i < n; i += 2) w[i] = w[i] > 0 ? 1.0f + w[i] / 8 : -1.0f + w[i] / 8;
    return w;
}

// Bit for bit: the same update formula per value (update_math.h, compiled
// for both), no FMA; the lost-update counts are order-free.
TEST_F(CudaBackendTest, SgdUpdatesAreTheCpusBitForBitWithTheSameLostUpdates) {
    const Shape s{33, 65};
    for (FormatId f : {FormatId::fp32, FormatId::fp16}) {
        for (float momentum : {0.0f, 0.9f}) {
            const std::string label = std::string(format_name(f)) + " momentum " + std::to_string(momentum);
            Both w = make(s, f, weights(s.size(), 44));
            Both velocity = zeros(s, FormatId::fp32);
            std::int64_t lost = 0;
            for (int step = 0; step < 3; ++step) {
                const Both g = random(s, FormatId::fp32, 45 + step, 2.0f);
                const SgdStep rule{.lr = 1e-4f, .momentum = momentum, .weight_decay = 0.01f};
                const UpdateCount c = cpu_.sgd_update(w.cpu, g.cpu, velocity.cpu, rule);
                const UpdateCount d = gpu_->sgd_update(w.gpu, g.gpu, velocity.gpu, rule);
                EXPECT_EQ(d.nonzero, c.nonzero) << label;
                EXPECT_EQ(d.lost, c.lost) << label;
                lost += c.lost;
            }
            expect_identical(w, "sgd weights " + label);
            expect_identical(velocity, "sgd velocity " + label);
            if (f == FormatId::fp16) {
                EXPECT_GT(lost, 0) << label;  // the case is exercised
            }
        }
    }
}

// Bit for bit: AdamW's formula per value (update_math.h) with the host's
// step-dependent scalars, no FMA.
TEST_F(CudaBackendTest, AdamWUpdatesAreTheCpusBitForBit) {
    const Shape s{40, 70};
    for (FormatId f : {FormatId::fp32, FormatId::fp16}) {
        Both w = make(s, f, weights(s.size(), 50));
        Both m = zeros(s, FormatId::fp32), v = zeros(s, FormatId::fp32);
        for (int step = 1; step <= 3; ++step) {
            const Both g = random(s, FormatId::fp32, 50 + step, 0.5f);
            const AdamWStep rule{.lr = 1e-3f, .weight_decay = 0.01f, .step = step};
            const UpdateCount c = cpu_.adamw_update(w.cpu, g.cpu, m.cpu, v.cpu, rule);
            const UpdateCount d = gpu_->adamw_update(w.gpu, g.gpu, m.gpu, v.gpu, rule);
            EXPECT_EQ(d.nonzero, c.nonzero);
            EXPECT_EQ(d.lost, c.lost);
        }
        expect_identical(w, "adamw weights " + std::string(format_name(f)));
        expect_identical(m, "adamw m " + std::string(format_name(f)));
        expect_identical(v, "adamw v " + std::string(format_name(f)));
    }
}

// The multi-tensor updates: the CPU's single updates (plus the copy of each
// master into its FP16 value) for every job at once, in one launch. Jobs of
// every kind side by side: FP32 masters with FP16 copies, FP16 weights with
// no master (lost updates), an empty tensor, one over many blocks.
class CudaUpdateAll : public CudaBackendTest {
protected:
    struct Job {
        Both w, g, a, b, copy;
        bool has_copy = false;
    };
    std::vector<Job> make_jobs() {
        const std::vector<Shape> shapes = {{64, 2}, {0, 5}, {33, 65}, {1, 300001}};
        std::vector<Job> jobs;
        for (std::size_t t = 0; t < shapes.size(); ++t) {
            const bool master = t % 2 == 0;
            const auto seed = static_cast<std::uint32_t>(60 + t);
            Job j{make(shapes[t], master ? FormatId::fp32 : FormatId::fp16, weights(shapes[t].size(), seed)),
                  random(shapes[t], FormatId::fp32, seed + 10, 0.5f), zeros(shapes[t], FormatId::fp32),
                  zeros(shapes[t], FormatId::fp32), zeros(shapes[t], FormatId::fp16), master};
            jobs.push_back(std::move(j));
        }
        return jobs;
    }
    static std::vector<UpdateJob> table(std::vector<Job>& jobs, bool on_gpu, bool adamw, bool momentum) {
        std::vector<UpdateJob> t;
        for (Job& j : jobs) {
            auto side = [on_gpu](Both& b) -> Tensor* { return on_gpu ? &b.gpu : &b.cpu; };
            t.push_back({side(j.w), side(j.g), adamw || momentum ? side(j.a) : nullptr, adamw ? side(j.b) : nullptr,
                         j.has_copy ? side(j.copy) : nullptr});
        }
        return t;
    }
    // The GPU's counts per job are the CPU's; returns the CPU's lost updates.
    static std::int64_t expect_same_counts(const std::vector<UpdateCount>& c, const std::vector<UpdateCount>& d) {
        EXPECT_EQ(d.size(), c.size());
        std::int64_t lost = 0;
        for (std::size_t t = 0; t < c.size() && t < d.size(); ++t) {
            EXPECT_EQ(d[t].nonzero, c[t].nonzero) << "job " << t;
            EXPECT_EQ(d[t].lost, c[t].lost) << "job " << t;
            lost += c[t].lost;
        }
        return lost;
    }
        void expect_jobs_identical(std::vector<Job>& jobs, const std::string& what) {
        for (std::size_t t = 0; t < jobs.size(); ++t) {
            const std::string label = what + " job " + std::to_string(t);
            expect_identical(jobs[t].w, label + " weights");
            expect_identical(jobs[t].a, label + " state a");
            expect_identical(jobs[t].b, label + " state b");
            expect_identical(jobs[t].copy, label + " copy");
        }
    }
};

// Bit for bit: the single-tensor updates, in one launch.
TEST_F(CudaUpdateAll, SgdIsTheCpusSingleUpdatesInOneLaunch) {
    for (bool momentum : {false, true}) {
        std::vector<Job> jobs = make_jobs();
        const std::vector<UpdateJob> on_cpu = table(jobs, false, false, momentum);
        const std::vector<UpdateJob> on_gpu = table(jobs, true, false, momentum);
        std::int64_t lost = 0;
        for (int step = 0; step < 3; ++step) {
            const SgdStep rule{.lr = 1e-4f, .momentum = momentum ? 0.9f : 0.0f, .weight_decay = 0.01f};
            const std::vector<UpdateCount> c = cpu_.sgd_update_all(on_cpu, rule);
            const std::vector<UpdateCount> d = gpu_->sgd_update_all(on_gpu, rule);
            lost += expect_same_counts(c, d);
        }
        EXPECT_GT(lost, 0);  // the FP16 weights without a master lose updates: the case is exercised
        expect_jobs_identical(jobs, momentum ? "sgd momentum" : "sgd");
    }
    EXPECT_TRUE(gpu_->sgd_update_all({}, SgdStep{}).empty());
}

// Bit for bit: the single-tensor updates, in one launch.
TEST_F(CudaUpdateAll, AdamWIsTheCpusSingleUpdatesInOneLaunch) {
    std::vector<Job> jobs = make_jobs();
    const std::vector<UpdateJob> on_cpu = table(jobs, false, true, false);
    const std::vector<UpdateJob> on_gpu = table(jobs, true, true, false);
    for (int step = 1; step <= 3; ++step) {
        const AdamWStep rule{.lr = 1e-3f, .weight_decay = 0.01f, .step = step};
        const std::vector<UpdateCount> c = cpu_.adamw_update_all(on_cpu, rule);
        const std::vector<UpdateCount> d = gpu_->adamw_update_all(on_gpu, rule);
        expect_same_counts(c, d);
    }
    expect_jobs_identical(jobs, "adamw");
}

// Each tensor summed as sum_of_squares sums it alone (the same tree: the same
// bits), within the FP32 bound of the CPU's index-order sum.
TEST_F(CudaBackendTest, SumOfSquaresAllIsEachTensorsSum) {
    const std::vector<Shape> shapes = {{1, 300001}, {0, 4}, {64, 64}, {1, 1}};
    std::vector<Both> xs;
    for (std::size_t t = 0; t < shapes.size(); ++t)
        xs.push_back(random(shapes[t], FormatId::fp32, 80 + static_cast<std::uint32_t>(t), 3.0f));
    std::vector<const Tensor*> on_gpu;
    for (const Both& x : xs) on_gpu.push_back(&x.gpu);
    const std::vector<float> sums = gpu_->sum_of_squares_all(on_gpu);
    ASSERT_EQ(sums.size(), xs.size());
    for (std::size_t t = 0; t < xs.size(); ++t) {
        EXPECT_EQ(float_bits(sums[t]), float_bits(gpu_->sum_of_squares(xs[t].gpu))) << "tensor " << t;
        double exact = 0;
        for (float x : host(xs[t].cpu)) exact += static_cast<double>(x) * x;
        EXPECT_NEAR(sums[t], cpu_.sum_of_squares(xs[t].cpu), 2.0 * static_cast<double>(xs[t].cpu.size()) * kU32 * exact)
            << "tensor " << t;
    }
    EXPECT_TRUE(gpu_->sum_of_squares_all({}).empty());
}

// ---- telemetry -----------------------------------------------------------------

bool within_one_ulp(float a, float b) {
    return a == b || a == std::nextafter(b, kInf) || a == std::nextafter(b, -kInf);
}

void expect_same_stats(const TensorStats& c, const TensorStats& g, const std::string& what) {
    EXPECT_EQ(g.count, c.count) << what;
    EXPECT_EQ(g.zeros, c.zeros) << what;
    EXPECT_EQ(g.nans, c.nans) << what;
    EXPECT_EQ(g.pos_infs, c.pos_infs) << what;
    EXPECT_EQ(g.neg_infs, c.neg_infs) << what;
    EXPECT_EQ(g.amax, c.amax) << what;
    // The FP64 sums fold in another order on the device: the float may move by one ulp.
    EXPECT_TRUE(within_one_ulp(g.mean_abs, c.mean_abs)) << what << ": " << g.mean_abs << " vs " << c.mean_abs;
    EXPECT_TRUE(within_one_ulp(g.rms, c.rms)) << what << ": " << g.rms << " vs " << c.rms;
    for (std::size_t k = 0; k < c.ranges.size(); ++k) {
        EXPECT_EQ(g.ranges[k].underflow, c.ranges[k].underflow) << what << " range " << k;
        EXPECT_EQ(g.ranges[k].subnormal, c.ranges[k].subnormal) << what << " range " << k;
        EXPECT_EQ(g.ranges[k].overflow, c.ranges[k].overflow) << what << " range " << k;
    }
}

void expect_same_histogram(const Log2Histogram& c, const Log2Histogram& g, const std::string& what) {
    EXPECT_EQ(g.bins, c.bins) << what;
    EXPECT_EQ(g.zeros, c.zeros) << what;
    EXPECT_EQ(g.nans, c.nans) << what;
    EXPECT_EQ(g.pos_infs, c.pos_infs) << what;
    EXPECT_EQ(g.neg_infs, c.neg_infs) << what;
}

// The telemetry kernels count with the CPU's thresholds and edges: the same
// numbers exactly, but for the last bit of mean |x| and RMS.
TEST_F(CudaBackendTest, TelemetryIsTheCpus) {
    std::vector<float> values = random_values(5000, 60, 1e-3f);
    values[3] = kNan;
    values[4] = 0.0f;
    values[5] = -kInf;
    const Both x = make({50, 100}, FormatId::fp16, values);
    expect_same_stats(cpu_.tensor_stats(x.cpu, 1024.0), gpu_->tensor_stats(x.gpu, 1024.0), "tensor_stats");
    const TensorStatsPair cp = cpu_.tensor_stats_pair(x.cpu, 512.0), gp = gpu_->tensor_stats_pair(x.gpu, 512.0);
    expect_same_stats(cp.held, gp.held, "pair held");
    expect_same_stats(cp.divided, gp.divided, "pair divided");

    Log2Histogram ch, gh, ch2, gh2;
    cpu_.add_to_histogram(x.cpu, 1.0, ch);
    gpu_->add_to_histogram(x.gpu, 1.0, gh);
    expect_same_histogram(ch, gh, "histogram");
    cpu_.add_to_histogram_pair(x.cpu, 4096.0, ch, ch2);
    gpu_->add_to_histogram_pair(x.gpu, 4096.0, gh, gh2);
    expect_same_histogram(ch, gh, "histogram pair held");
    expect_same_histogram(ch2, gh2, "histogram pair divided");

    TensorStats cs, cd, gs, gd;
    Log2Histogram chq, chd, ghq, ghd;
    cpu_.queue_telemetry({&x.cpu, 256.0, &cs, &cd, &chq, &chd});
    cpu_.wait_for_queued();
    gpu_->queue_telemetry({&x.gpu, 256.0, &gs, &gd, &ghq, &ghd});
    const Both y = random({3, 3}, FormatId::fp32, 61);  // a second request before finishing
    TensorStats cy, gy;
    cpu_.queue_telemetry({&y.cpu, 1.0, &cy, nullptr, nullptr, nullptr});
    gpu_->queue_telemetry({&y.gpu, 1.0, &gy, nullptr, nullptr, nullptr});
    gpu_->wait_for_queued();
    expect_same_stats(cs, gs, "queued stats");
    expect_same_stats(cd, gd, "queued stats divided");
    expect_same_histogram(chq, ghq, "queued histogram");
    expect_same_histogram(chd, ghd, "queued histogram divided");
    expect_same_stats(cy, gy, "second queued request");
}

// Every size the grid handles differently (empty, one partial warp, many
// blocks with a grid-stride loop), more requests queued than one result chunk
// holds (64), and the same bits from a second run (a fixed fold order).
TEST_F(CudaBackendTest, TelemetryKernelsAtEverySizeAndManyQueuedRequests) {
    const std::vector<int> sizes = {0, 1, 31, 1000, 70'000, 300'000};
    std::vector<Both> tensors;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::vector<float> values = random_values(static_cast<std::size_t>(sizes[i]), 70 + static_cast<int>(i), 1e-6f);
        for (std::size_t j = 0; j < values.size(); ++j)  // magnitudes over 60 binades, every format's edges
            values[j] = std::ldexp(values[j], static_cast<int>(j * 7 % 60) - 30);
        for (std::size_t j = 0; j < values.size(); j += 997) values[j] = j % 3 == 0 ? kInf : (j % 3 == 1 ? kNan : 0.0f);
        tensors.push_back(make({1, sizes[i]}, FormatId::fp32, values));
    }
    constexpr int kRounds = 12;  // 6 tensors x 12 = 72 requests before one finish
    const std::size_t requests = tensors.size() * kRounds;
    std::vector<TensorStats> cs(requests), cd(requests), gs(requests), gd(requests), again(requests);
    std::vector<Log2Histogram> ch(requests), gh(requests);
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t r = 0; r < requests; ++r) {
            const Both& t = tensors[r % tensors.size()];
            const double divisor = std::ldexp(1.0, static_cast<int>(r % 20)) * (r % 7 == 0 ? 3.0 : 1.0);
            if (pass == 0) {
                cpu_.queue_telemetry({&t.cpu, divisor, &cs[r], &cd[r], nullptr, &ch[r]});
                gpu_->queue_telemetry({&t.gpu, divisor, &gs[r], &gd[r], nullptr, &gh[r]});
            } else {
                gpu_->queue_telemetry({&t.gpu, divisor, &again[r], nullptr, nullptr, nullptr});
            }
        }
        cpu_.wait_for_queued();
        gpu_->wait_for_queued();
    }
    for (std::size_t r = 0; r < requests; ++r) {
        const std::string what = "request " + std::to_string(r) + " of " + std::to_string(sizes[r % sizes.size()]);
        expect_same_stats(cs[r], gs[r], what + " held");
        expect_same_stats(cd[r], gd[r], what + " divided");
        expect_same_histogram(ch[r], gh[r], what + " histogram");
        EXPECT_EQ(again[r].mean_abs, gs[r].mean_abs) << what << ": not deterministic";
        EXPECT_EQ(again[r].rms, gs[r].rms) << what << ": not deterministic";
    }
}

}  // namespace
}  // namespace plab
