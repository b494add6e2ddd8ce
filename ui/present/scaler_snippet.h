#pragma once
// The loss-scaler settings of a run as code a person pastes into a training
// script: a PyTorch torch.amp.GradScaler(...) call and a DeepSpeed "fp16"
// config block. Where a setting has no counterpart there, the snippet says
// so in a comment (PyTorch) or the returned note (DeepSpeed JSON has none).
#include <string>

#include "engine/amp/scaler_config.h"

namespace plab {

struct ScalerSnippet {
    std::string code;  // ready to paste
    std::string note;  // what could not be expressed, or "" when everything was
};

ScalerSnippet pytorch_grad_scaler(const ScalerConfig& s);
ScalerSnippet deepspeed_fp16_block(const ScalerConfig& s);

}  // namespace plab
