#include "engine/model/parameter.h"

namespace plab {

Parameter make_parameter(Backend& backend, std::string name, Shape shape, FormatId value_format,
                         bool master_weights) {
    Parameter p;
    p.name = std::move(name);
    p.value = backend.allocate(shape, value_format);
    if (master_weights && value_format != FormatId::fp32) p.master = backend.allocate(shape, FormatId::fp32);
    p.grad_sum = backend.allocate(shape, value_format);
    p.master_grad = backend.allocate(shape, FormatId::fp32);
    return p;
}

void ensure_grad(Backend& backend, Parameter& p, FormatId compute) {
    if (p.grad.empty() || p.grad.dtype() != compute) p.grad = backend.allocate(p.value.shape(), compute);
}

void set_parameter(Backend& backend, Parameter& p, const float* host) {
    backend.upload(host, p.target());
    if (!p.master.empty()) backend.convert(p.master, p.value);
}

}  // namespace plab
