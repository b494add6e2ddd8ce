// The claims table: every checkable claim of the seed articles, in their
// order, with the lab's verdict and what shows it.
#include <algorithm>
#include <iterator>

#include "engine/scenario/claim_checks.h"
#include "engine/scenario/claims.h"

namespace plab {

namespace {

constexpr std::string_view kWhatIs = "000_0bed5ce411c40f1d.txt";   // what mixed precision is, and why
constexpr std::string_view kNotes = "001_d2b6e0742d227f2d.txt";    // study notes
constexpr std::string_view kRevolution = "002_121bd13071da797d.txt";  // "a revolutionary breakthrough"
constexpr std::string_view kAdvantages = "003_6109cc8453afa5cf.txt";  // fp16 and bf16's advantages
constexpr std::string_view kBlog = "004_57bb2cefffc03978.txt";        // a blog post on the paper

using V = ClaimVerdict;
namespace cc = claim_checks;

const Claim kClaims[] = {
    {"speedup-2-3x", kWhatIs, "加速计算2-3倍", "Mixed precision speeds computation up 2-3 times.", V::needs_gpu, {}, nullptr,
     "plab bench --compare-recipes --backend cuda; tools/gpu-check",
     "A Tensor Core speed-up exists only on a GPU; the CPU emulation is slower in FP16 than in FP32 by design."},
    {"memory-half", kWhatIs, "减少显存占用50%", "It halves memory use.", V::shown_false, "memory-ledger", nullptr,
     "plab scenario memory-ledger",
     "The article's own BERT-Large sums give 35%, and a framework's layout with AdamW less: the parameter side grows "
     "under AMP, only the activations shrink."},
    {"fp16-overflow-65504", kWhatIs, "数值超过65504", "Values above 65504 overflow (to Inf, then NaN).", V::shown_true, {},
     cc::fp16_overflow_threshold, "plab bits 65519 65520 --format fp16; plab scenario overflow-nan",
     "Read from FP16's format constants through the lab's one cast routine."},
    {"fp16-underflow-6e-8", kWhatIs, "梯度太小（<6×10⁻⁸）变为0", "Gradients below 6e-8 become 0.", V::shown_true, {},
     cc::fp16_flush_threshold, "plab bits 3e-8 5e-8 --format fp16; the histograms' flush band",
     "True below 2^-25 (about 3e-8); between 3e-8 and 6e-8 a value rounds up to the smallest subnormal instead."},
    {"small-sums-lose-precision", kWhatIs, "累加多个小数时精度损失",
     "Accumulating many small numbers (in FP16) loses precision.", V::shown_true, "fp16-accumulate", nullptr,
     "plab scenario fp16-accumulate",
     "A K=4096 dot product of small terms summed in FP16 stalls once the sum's ULP passes the addend."},
    {"fp16-smallest-6.1e-5", kWhatIs, "FP16最小正数：6.1×10⁻⁵", "FP16's smallest positive number is 6.1e-5.",
     V::shown_false, {}, cc::fp16_smallest_positive, "plab ranges; plab bits 1e-6 --format fp16",
     "6.1e-5 is the smallest normal; subnormals reach down to 5.96e-8, a thousand times lower."},
    {"loss-in-fp32", kWhatIs, "Loss计算（FP32）", "Compute the loss in FP32 (to avoid numerical problems).",
     V::shown_true, "loss-off-fp32-list", nullptr, "plab scenario loss-off-fp32-list",
     "Off the FP32 list a large batch's losses, each finite, sum past 65504 in FP16 and the loss reads Inf; on it "
     "every loss is finite."},
    {"loss-scaling-lifts-gradients", kWhatIs, "scaled_loss = loss × 2¹⁶",
     "Small gradients underflow to 0; multiplying the loss by 2^16 lifts them into FP16's range.", V::shown_true,
     "underflow-no-scaling", nullptr, "plab scenario underflow-no-scaling; the Histograms panel",
     "Without a scaler the run stays at chance while its twin learns; with dynamic scaling it reaches its twin."},
    {"dynamic-scaling-rule", kWhatIs, "scale *= backoff_factor  # 缩小",
     "On Inf/NaN the scale is multiplied by the backoff factor and the step skipped; after growth_interval clean "
     "steps it grows.",
     V::shown_true, "scaler-sawtooth", nullptr, "plab scenario scaler-sawtooth; the Loss scale panel",
     "Every overflow step is skipped and backs the scale off; clean stretches grow it again."},
    {"tf32-automatic", kWhatIs, "无需任何代码修改，PyTorch自动使用",
     "TF32 needs no code change: PyTorch uses it automatically (on A100).", V::shown_false, {},
     cc::tf32_recipe_says_opt_in, "the tf32 recipe's description (plab run --help, the recipe menu)",
     "PyTorch has kept matmul TF32 off by default since 1.12 (allow_tf32 = False; only cuDNN convolutions default to "
     "TF32); the lab's recipe text says so, and a probe test reads torch's defaults."},
    {"tf32-fp32-range", kWhatIs, "| TF32 | 19   | 8      | 10     | ±3.4×10³⁸",
     "TF32: 19 bits, 8 exponent bits, 10 mantissa bits, FP32's range: no scaling needed.", V::shown_true, "tf32-drift",
     nullptr, "plab scenario tf32-drift; plab ranges",
     "TF32 drifts from its twin like AMP-FP16 (the same mantissa) and trains without a scaler where FP16 flushes."},
    {"bf16-same-speed", kWhatIs, "与FP16相当", "BF16's speed equals FP16's.", V::needs_gpu, {}, nullptr,
     "plab bench --compare-recipes --backend cuda", "Throughput is a property of the GPU's Tensor Cores."},
    {"bf16-needs-no-scaler", kWhatIs, "| 需要scaling | 是           | 否             | 否         |",
     "FP16 needs loss scaling; BF16 and TF32 do not.", V::shown_true, "bf16-no-scaling", nullptr,
     "plab scenario bf16-no-scaling",
     "The underflow lesson's net in AMP-BF16 without a scaler: nothing flushes and it reaches its twin."},
    {"unscale-before-clipping", kWhatIs, "scaler.unscale_(optimizer)",
     "Unscale the gradients before clipping them.", V::shown_true, "clip-before-unscale", nullptr,
     "plab scenario clip-before-unscale",
     "Clipping still-scaled gradients shrinks every update by the scale; unscaled first, training proceeds."},
    {"batch-norm-in-fp32", kWhatIs, "self.bn = nn.BatchNorm2d(...).float()  # 强制FP32",
     "Force normalisation layers (BatchNorm) to FP32.", V::shown_true, "batch-norm-fp16", nullptr,
     "plab scenario batch-norm-fp16",
     "BatchNorm's batch sums overflow FP16 on activations in the hundreds: the variance is NaN and every step is "
     "skipped; on the FP32 list the run tracks its twin."},
    {"dimension-alignment", kWhatIs, "矩阵维度未对齐（需要8/16倍数）",
     "Matrix dimensions must be multiples of 8/16 for the speed-up.", V::needs_gpu, {}, nullptr, "tools/gpu-check",
     "Tensor Core tile shapes are a GPU matter."},
    {"double-the-batch", kWhatIs, "混合精度显存减半，可以加倍batch", "Mixed precision halves memory, so the batch can double.",
     V::shown_false, "memory-ledger", nullptr, "plab scenario memory-ledger",
     "Only the activations halve; what they free depends on their share of the total."},
    {"v100-125-tflops", kWhatIs, "FP16 (Tensor Core): 125 TFLOPS (8.3×)",
     "A V100 gives 125 TFLOPS in FP16 on Tensor Cores, 8.3 times FP32.", V::needs_gpu, {}, nullptr, "tools/gpu-check",
     "A hardware figure (of a V100, which the lab is not lent)."},
    {"bert-large-9.36-to-6.04", kWhatIs, "节省: 35%",
     "BERT-Large: 9.36 GB in FP32, 6.04 GB mixed, 35% saved.", V::shown_true, "memory-ledger", nullptr,
     "plab scenario memory-ledger",
     "The article's arithmetic holds (and contradicts its own 50% headline)."},
    {"half-precision-narrow-range", kNotes, "精度较低，范围窄，但计算快且省内存",
     "FP16/BF16: lower precision and a narrow range.", V::shown_false, {}, cc::range_and_precision_order, "plab ranges",
     "FP16's range is narrow; BF16's is FP32's."},
    {"bf16-fp32-range", kNotes, "范围与 FP32 一致，精度略低",
     "BF16: 8 exponent bits, 7 mantissa bits, FP32's range, slightly less precision.", V::shown_true, {},
     cc::range_and_precision_order, "plab ranges; the Bit layout panel",
     "BF16's range and smallest normal are FP32's; its gap after 1 is 2^-7."},
    {"fp16-must-scale", kNotes, "范围窄，必须配合 **Loss Scaling**",
     "FP16's range is narrow: it must be used with loss scaling.", V::shown_true, "underflow-no-scaling", nullptr,
     "plab scenario underflow-no-scaling", "A net with small gradients learns nothing in FP16 until the loss is scaled."},
    {"fp32-for-weight-updates", kNotes, "在数值范围敏感的累计操作（如权重更新）中保留 FP32",
     "Keep FP32 for accumulations such as the weight update.", V::shown_true, "pure-fp16-lost-updates", nullptr,
     "plab scenario pure-fp16-lost-updates",
     "Without FP32 master weights updates below half an FP16 ULP vanish and the loss stalls."},
    {"speed-doubles-memory-halves", kNotes, "显存省一半，速度翻倍，效果几乎不变",
     "Half the memory, double the speed, nearly the same results.", V::shown_false, "memory-ledger", nullptr,
     "plab scenario memory-ledger",
     "The memory half is wrong (see memory-half); the speed half needs a GPU; the results half is shown true by "
     "loss-scaling-lifts-gradients."},
    {"fp16-8-16x", kRevolution, "FP16 | 16位 | 有限(±65,504) | 8-16x",
     "FP16 computes 8-16 times faster than FP32.", V::needs_gpu, {}, nullptr, "tools/gpu-check",
     "A GPU figure, and an optimistic one (see docs/perf.md for what was measured)."},
    {"int8-range", kRevolution, "INT8 | 8位 | 极小(0-255)", "INT8's range is 0-255.", V::out_of_scope, {}, nullptr, "-",
     "Integer formats are not in the lab (and signed INT8 is -128..127)."},
    {"tiny-product-underflows", kRevolution, "0.0001 * 0.0001 = 0.00000001 → FP16表示为0",
     "1e-4 x 1e-4 = 1e-8 is 0 in FP16.", V::shown_true, {}, cc::tiny_product_flushes, "plab bits 1e-8 --format fp16",
     "1e-8 is below half FP16's smallest subnormal."},
    {"grow-every-clean-step", kRevolution, "scale = min(scale * 2.0, max_scale)",
     "Grow the loss scale on every step without overflow.", V::shown_false, "growth-every-step", nullptr,
     "plab scenario growth-every-step",
     "Grown every clean step, the scale overflows on about every other step, and each overflow is a skipped step."},
    {"gpt3-18-days", kRevolution, "FP16混合精度 | 18天", "GPT-3 trained in 18 days with FP16 against 42 in FP32.",
     V::out_of_scope, {}, nullptr, "-", "No such FP32 run of GPT-3 was published; nothing here can check it."},
    {"nan-loss-scale-too-large", kRevolution, "损失值变成NaN | 损失缩放过大",
     "A NaN loss means the loss scale is too large.", V::shown_false, {}, cc::large_scale_skips_not_nan,
     "plab scenario scaler-sawtooth; plab scenario overflow-nan",
     "The loss is computed before it is scaled: too large a scale gives skipped steps, not a NaN loss."},
    {"keep-norms-in-fp32", kRevolution, "保持BN/LN层为FP32", "Keep BN/LN layers in FP32.", V::shown_true,
     "tiny-gpt-layer-norm-fp16", nullptr, "plab scenario tiny-gpt-layer-norm-fp16",
     "LayerNorm's statistics in FP16 overflow on large rows; on the FP32 list they do not."},
    {"fp8-e4m3-forward-e5m2-backward", kRevolution, "| E4M3 | 4位 | 3位 | 正向传播 |",
     "FP8: E4M3 for the forward pass, E5M2 for the backward pass.", V::shown_true, "fp8-delayed-scaling", nullptr,
     "plab scenario fp8-delayed-scaling",
     "With per-tensor delayed scaling the FP8 run tracks its twin."},
    {"fp8-1.3x", kRevolution, "相比FP16训练速度提升1.3倍", "FP8 trains 1.3 times faster than FP16.", V::needs_gpu, {},
     nullptr, "tools/gpu-check", "A Hopper Tensor Core figure."},
    {"clip-before-unscaling", kRevolution, "在取消缩放前执行梯度裁剪", "Clip the gradients before unscaling them.",
     V::shown_false, "clip-before-unscale", nullptr, "plab scenario clip-before-unscale",
     "Clipping still-scaled gradients divides every update by the scale: training stalls."},
    {"fp16-between-fp32-and-bf16", kAdvantages, "表示范围和精度介于float32和bf16之间",
     "FP16's range and precision lie between FP32's and BF16's.", V::shown_false, {}, cc::range_and_precision_order,
     "plab ranges", "Its precision does; its range is the smallest of the three."},
    {"bf16-narrower", kAdvantages, "位宽更低的bfloat16", "bfloat16 has a lower bit width.", V::shown_false, {},
     cc::half_formats_same_width, "plab bits 1 --format bf16", "Both are 16 bits."},
    {"bf16-more-precise", kAdvantages, "如bfloat16，其精度比float16更高", "bfloat16 is more precise than float16.",
     V::shown_false, {}, cc::range_and_precision_order, "plab ranges; plab scenario tf32-drift",
     "BF16 has 7 mantissa bits to FP16's 10: its rounding error is 8 times larger."},
    {"range-fp32-bf16-fp16", kBlog, "表示范围FP32=BF16>FP16；表示精度FP32>FP16>BF16",
     "Range: FP32 = BF16 > FP16; precision: FP32 > FP16 > BF16.", V::shown_true, {}, cc::range_and_precision_order,
     "plab ranges", "Read from the formats' constants."},
    {"bf16-better-in-every-way", kBlog, "BF16是全面优于FP16的", "BF16 is better than FP16 in every way.", V::shown_false,
     "bf16-precision-cost", nullptr, "plab scenario bf16-precision-cost",
     "BF16 loses more updates than FP16 with weights stored in it, and drifts further from the twin under "
     "autocast: its range costs precision."},
    {"bf16-same-throughput", kBlog, "两者吞吐量是相同的", "BF16 and FP16 have the same throughput.", V::needs_gpu, {},
     nullptr, "plab bench --compare-recipes --backend cuda", "A GPU figure."},
    {"67-percent-underflow", kBlog, "会有67%的值如果用FP16表示，会直接下溢变成0",
     "67% of the values would underflow to 0 in FP16.", V::shown_false, "gradient-census", nullptr,
     "plab scenario gradient-census",
     "The paper's 67% is its zero bin: mostly exact zeros from ReLU; the values FP16 flushes are a minority that a "
     "loss scale of 2^16 brings back nearly whole (8 brings back under half)."},
    {"scaling-loses-nothing", kBlog, "所以放大一般不会造成值的损失", "Scaling up usually loses no value.", V::shown_true,
     "power-of-two-scaling", nullptr, "plab scenario power-of-two-scaling",
     "By a power of two, scale-then-unscale is exact for every FP16 value that neither flushes nor overflows."},
    {"softmax-in-fp32", kBlog, "如BN、Softmax", "Operations that sum a large vector, such as BN and softmax, need FP32.",
     V::shown_true, "attention-softmax-overflow", nullptr, "plab scenario attention-softmax-overflow",
     "Off the FP32 list the softmax's scaled logits overflow FP16 and turn NaN; on it the block runs finite."},
    {"tensor-cores-accumulate-in-fp32", kBlog, "再另用一个FP32矩阵来补精度",
     "Tensor Cores multiply FP16 matrices and accumulate into FP32 to keep the precision.", V::shown_true,
     "fp16-accumulate", nullptr, "plab scenario fp16-accumulate",
     "FP32 accumulation keeps the same dot product within 1e-3 of its true value; FP16 accumulation does not."},
    {"train-in-bf16", kBlog, "直接用bf16来训练模型，也是完全可行", "Training directly in BF16 works fine.", V::shown_true,
     "bf16-no-scaling", nullptr, "plab scenario bf16-no-scaling",
     "AMP-BF16 without a loss scaler reaches its twin where FP16 without one learns nothing."},
};

}  // namespace

std::string_view claim_verdict_name(ClaimVerdict v) {
    switch (v) {
        case ClaimVerdict::shown_true: return "shown true";
        case ClaimVerdict::shown_false: return "shown false";
        case ClaimVerdict::needs_gpu: return "needs a GPU";
        case ClaimVerdict::out_of_scope: return "out of scope";
    }
    return "?";
}

std::span<const Claim> claims() { return kClaims; }

const Claim* find_claim(std::string_view id) {
    const auto it = std::find_if(std::begin(kClaims), std::end(kClaims), [&](const Claim& c) { return c.id == id; });
    return it == std::end(kClaims) ? nullptr : &*it;
}

}  // namespace plab
