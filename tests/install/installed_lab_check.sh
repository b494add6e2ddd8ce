#!/usr/bin/env bash
# The lab as installed, away from its source tree:
#   installed_lab_check.sh ROOT PREFIX [--only-installed-presets]
# where ROOT/PREFIX holds bin/plab (cmake --install --prefix ROOT/PREFIX, or a
# .deb unpacked into ROOT). Checks the installed files, plab --version, that
# plab finds its presets in PREFIX/share (first, or only with the flag), and
# one short run by preset name from an unrelated folder.
set -euo pipefail
root=$1 prefix=$2 only=${3:-}
dir=$root$prefix
fail() { echo "installed_lab_check: $*" >&2; exit 1; }

for f in bin/plab share/applications/precision-lab.desktop share/icons/hicolor/scalable/apps/precision-lab.svg \
         share/precision-lab/presets/spirals-amp-fp16.json share/man/man1/plab.1.gz; do
  [[ -f $dir/$f ]] || fail "$dir/$f is missing"
done
grep -q '^Exec=precision-lab$' "$dir/share/applications/precision-lab.desktop" || fail "the .desktop file runs no precision-lab"
grep -q '^Icon=precision-lab$' "$dir/share/applications/precision-lab.desktop" || fail "the .desktop file names no icon"
gzip -dc "$dir/share/man/man1/plab.1.gz" | grep -q '^\.TH PLAB "1"' || fail "plab.1.gz is not a gzipped plab(1) page"

plab=$dir/bin/plab
version=$("$plab" --version) || fail "plab --version failed"
[[ $version == "plab "* ]] || fail "plab --version said: $version"

presets=$(env -u PLAB_PRESET_DIR "$plab" presets) || fail "plab presets failed"
from=$(grep '^from ' <<<"$presets") || fail "plab presets names no folder"
want="from $dir/share/precision-lab/presets"
if [[ $only == --only-installed-presets ]]; then
  [[ $from == "$want" ]] || fail "presets came $from, not only $want"
else
  [[ $from == "$want"* ]] || fail "presets came $from, not first $want"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && env -u PLAB_PRESET_DIR "$plab" run --preset scaler-sawtooth --steps 20 --quiet --out run.jsonl) ||
  fail "plab run from the installed tree failed"
steps=$(grep -c '"type":"step"' "$work/run.jsonl")
[[ $steps == 20 ]] || fail "the run wrote $steps step records, not 20"
echo "installed lab at $dir: version, presets and a 20-step run all fine"
