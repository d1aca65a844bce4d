#!/usr/bin/env bash
# The built-in point models' GPU image (common/models/lif_models.c compiled by
# nvcc with OLIVE_PLUGIN_DEVICE: the Makefile's $BUILD/gen/lif_models.fatbin),
# checked where nvcc is and no GPU is (nvJitLink needs none): it links with
# olive's point-model kernels (spk_plugin_kernels.cu) into every kernel the
# CUDA engine launches, the fused strategy's included; the image alone holds
# none of olive's kernels (olive's kernels alone miss its cell functions); and it is
# the very image olive-simulate carries in the models' descriptors (its bytes
# are in the binary). A build without CUDA has no image: the test says so.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
img=$TOP/$BUILD/gen/lif_models.fatbin lc=$TOP/$BUILD/testtools/plugin_link_check
case $BUILD in /*) img=$BUILD/gen/lif_models.fatbin lc=$BUILD/testtools/plugin_link_check ;; esac
if ! "$BIN/olive-simulate" --version | grep -q cuda; then
  echo "skip: a build without CUDA (no GPU image: the built-in models run on the CPU engine only)"
  exit 0
fi
[ -s "$img" ] || fail "a CUDA build without $img"
[ -x "$lc" ] || fail "a CUDA build without $lc"
"$lc" "$img" linked > link.log 2>&1 || { cat link.log >&2; fail "the built-in models' image does not link with olive's kernels"; }
for k in olive_plugin_update olive_plugin_condition olive_plugin_on_spike olive_plugin_tail_update_b1 \
         olive_plugin_tail_update_b3 olive_plugin_tail_update_free olive_plugin_fused; do
  grep -aq "$k" linked.both.cubin || fail "the linked image lacks kernel $k"
done
echo "ok: linked with olive's kernels: every kernel there"
if grep -aq olive_plugin_ linked.model.cubin; then fail "the models' own image holds a kernel of olive's"; fi
grep -q "refused without a model: .*olive_cell_" link.log || { cat link.log >&2; fail "olive's kernels linked without a model"; }
echo "ok: the image alone holds none of olive's kernels; olive's kernels without it miss its cell functions"
# the image's bytes are in olive-simulate (the descriptors' cuda_fatbin)
"$PY" - "$img" "$BIN/olive-simulate" <<'PYEOF' || fail "olive-simulate does not carry the built image"
import sys
img = open(sys.argv[1], "rb").read()
exe = open(sys.argv[2], "rb").read()
sys.exit(0 if img in exe else 1)
PYEOF
echo "ok: olive-simulate carries this image ($(stat -c %s "$img") bytes)"
