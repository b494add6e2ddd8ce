#include "engine/tensor/tensor.h"

#include "engine/common/error.h"

namespace plab {

std::string shape_text(Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

Tensor::Tensor(Shape shape, FormatId dtype, std::shared_ptr<Buffer> buffer)
    : shape_(shape), dtype_(dtype), buffer_(std::move(buffer)) {}

float* Tensor::host() {
    if (device() != Device::cpu) throw Error("tensor lives on the GPU; copy it to the host first");
    return static_cast<float*>(raw());
}

const float* Tensor::host() const { return const_cast<Tensor*>(this)->host(); }

}  // namespace plab
