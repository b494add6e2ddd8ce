#pragma once
// The CPU backend: exact emulation of every format on FP32 storage. GEMMs run
// through OpenBLAS sgemm on inputs pre-rounded to the compute format (their
// products are exact in FP32: at most 11 x 11 significant bits), elementwise
// ops round their outputs with engine/numeric's array casts.
#include <vector>

#include "engine/backend/backend.h"

namespace plab {

class CpuBackend final : public Backend {
public:
    Device device() const override { return Device::cpu; }
    std::string name() const override { return "CPU (exact emulation)"; }

    Tensor allocate(Shape shape, FormatId dtype) override;
    void upload(const float* host, Tensor& t) override;
    void download(const Tensor& t, float* host) override;
    void convert(const Tensor& src, Tensor& dst) override;

    void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) override;
    void column_sums(const Tensor& x, Tensor& sums) override;
    void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
    void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) override;
    float softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs) override;
    void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                        Tensor& dlogits) override;

private:
    // GEMM inputs rounded to the compute format, kept between calls.
    std::vector<float> scratch_a_, scratch_b_;
};

}  // namespace plab
