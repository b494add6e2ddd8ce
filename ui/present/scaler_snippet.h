#pragma once
// The loss-scaler settings of a run as code a person pastes into a training
// script: a PyTorch torch.amp.GradScaler(...) call, a DeepSpeed "fp16"
// config block, and the Hugging Face TrainingArguments(...) flags of its
// recipe. Where a setting has no counterpart there, the snippet says so in a
// comment (Python) or the returned note (DeepSpeed JSON has none).
#include <string>

#include "engine/amp/precision_config.h"
#include "engine/amp/scaler_config.h"

namespace plab {

struct ScalerSnippet {
    std::string code;  // ready to paste
    std::string note;  // what could not be expressed, or "" when everything was
};

ScalerSnippet pytorch_grad_scaler(const ScalerConfig& s);
ScalerSnippet deepspeed_fp16_block(const ScalerConfig& s);
// TrainingArguments has switches for the recipe (fp16, bf16, tf32, Apex's
// fp16_opt_level; none for BF16 weights, which the note says how to get) but
// none for the scaler: its Trainer builds PyTorch's default GradScaler, so
// other scaler settings go into the note.
ScalerSnippet huggingface_training_arguments(const PrecisionConfig& p, const ScalerConfig& s);

}  // namespace plab
