#include "engine/tensor/tensor.h"

#include "engine/common/error.h"

namespace plab {

std::string shape_text(Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

Tensor::Tensor(Shape shape, FormatId dtype, std::shared_ptr<Buffer> buffer)
    : shape_(shape), dtype_(dtype), buffer_(std::move(buffer)) {}

namespace {

// Part of another buffer, elements as wide as the base's.
class ViewBuffer final : public Buffer {
public:
    ViewBuffer(std::shared_ptr<Buffer> base, std::size_t first) : base_(std::move(base)), first_(first) {}
    Device device() const override { return base_->device(); }
    void* data() override { return static_cast<unsigned char*>(base_->data()) + first_ * element_bytes(); }
    std::size_t element_bytes() const override { return base_->element_bytes(); }

private:
    std::shared_ptr<Buffer> base_;
    std::size_t first_;
};

}  // namespace

Tensor Tensor::view(std::size_t first, Shape shape) const {
    if (!buffer_ || first + shape.size() > size())
        throw Error("a view of " + std::to_string(shape.size()) + " values from element " + std::to_string(first) +
                    " does not fit in a " + shape_text(shape_) + " tensor");
    return Tensor(shape, dtype_, std::make_shared<ViewBuffer>(buffer_, first));
}

float* Tensor::host() {
    if (device() != Device::cpu) throw Error("tensor lives on the GPU; copy it to the host first");
    return static_cast<float*>(raw());
}

const float* Tensor::host() const { return const_cast<Tensor*>(this)->host(); }

}  // namespace plab
