#!/usr/bin/env bash
# Renders the README's workbench and live-view screenshots from the current
# build (./lab build first), each scenario after its preset's steps, the
# four whose captions name a fork with that fork from step 0 trained alongside.
#   docs/make_screenshots.sh [BUILD_DIR]      (default build/dev)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build/dev}
out=docs/images
qt() { QT_QPA_PLATFORM=offscreen "$build/app/precision-lab" "$@" 2>/dev/null; }
steps_of() { sed -n 's/^  "steps": \([0-9]*\),$/\1/p' "assets/presets/$1.json"; }

qt --preset scaler-sawtooth --steps 600 --screenshot "$out/workbench.png"
qt --preset fp16-static-overflow --steps 300 --fork 260 --fork-set scaler.scale=4096 --after-fork 200 \
   --screenshot "$out/fork-remedy.png"
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/precision-lab-imgui" --preset scaler-sawtooth --steps 600 \
   --screenshot "$out/imgui-live-view.png"
# A PyTorch run recorded by plab_probe (Debian's torch on the CPU), opened with a GradScaler what-if.
record=$(mktemp --suffix=.jsonl)
/usr/bin/python3 examples/record_a_pytorch_run.py --out "$record" --steps 300 --device cpu > /dev/null 2>&1
qt --open "$record" --what-if scaler.kind=dynamic --what-if scaler.init_scale=16777216 \
   --what-if scaler.growth_interval=50 --screenshot "$out/own-run.png"
rm -f "$record"

for scenario in attention-softmax-overflow bf16-no-scaling clip-before-unscale fp8-delayed-scaling \
                grad-accumulation gradient-census growth-interval-tradeoff loss-off-fp32-list scaler-sawtooth; do
  qt --preset "$scenario" --steps "$(steps_of "$scenario")" --screenshot "$out/scenario-$scenario.png"
done
# Scenarios whose README caption shows the fix beside the failure.
with_fork() {
  local scenario=$1; shift
  qt --preset "$scenario" --steps 0 --fork 0 "$@" --after-fork "$(steps_of "$scenario")" \
     --screenshot "$out/scenario-$scenario.png"
}
with_fork underflow-no-scaling --fork-set scaler.kind=dynamic
with_fork overflow-nan --fork-set precision.layer_overrides.fc4=fp32
with_fork pure-fp16-lost-updates --fork-set precision.master_weights=true
with_fork fp16-accumulate --fork-set precision.accumulate=fp32
with_fork batch-norm-fp16 --fork-set 'precision.fp32_ops=["layer_norm","batch_norm","softmax_cross_entropy","mse","softmax"]'
with_fork bf16-precision-cost --fork-set precision.recipe=fp16-pure --fork-set scaler.kind=dynamic
