#!/usr/bin/env bash
# Cell models compiled outside olive (plugins, common/models/model_plugin.h):
# lif_cuba written by hand through the interface (tests/plugins/lif_cuba_plugin.c)
# gives the built-in lif_cuba's bits on an exc/inh network with Poisson input
# and a pulse (spikes, v and ge reports, final state), on 1 and 3 ranks, and a
# restart from a checkpoint gives the unbroken run; the plugin's own functions
# run (another reset, other spikes; a NaN is caught). Refused, naming the file
# and the fault, with no output left: a file that is not a plugin (text, a .so
# without the symbol), another ABI, a network whose recorded plugin hash is
# not the plugin's, --backend cuda, --v0/--pulse where they do not apply.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
no_output() { [ ! -e "$1" ] || fail "$1 was left behind"; ! compgen -G "$1.tmp-*" >/dev/null || fail "$1.tmp-* left behind"; }
refused() {  # NAME REGEX CMD...
  local name=$1 re=$2 rc=0; shift 2
  timeout 20 "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 0 ] || { cat out.txt err.txt; fail "$name: accepted: $*"; }
  [ "$rc" -lt 128 ] || { cat err.txt; fail "$name: killed by a signal (exit $rc): $*"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not match /$re/"; }
  echo "ok $name: $(head -n 1 err.txt)"
}
CC=${CC:-cc}
build() {  # OUT.so [-D...]: the test plugin as olive-model build would compile it
  local out=$1; shift
  "$CC" -O2 -ffp-contract=off -fPIC -shared -I"$TOP/common/models" -I"$TOP/common/math" "$@" \
    "$TESTS/plugins/lif_cuba_plugin.c" -o "$out" -lm
}
mkdir -p models
build models/lif_cuba_plugin.so
PL="$PWD/models/lif_cuba_plugin.so"

NET=(--population exc:160 --population inh:40 --v0 -60:-50 --seed 5 -q --param t_ref=2
     --projection from=exc,to=all,p=0.1,weight=0.9,delay=0.5:3,receptor=ge
     --projection from=inh,to=all,p=0.1,weight=-3,delay=0.2:4,receptor=gi)
"$G" -o builtin.h5 --model lif_cuba "${NET[@]}"
"$G" -o plugin.h5 --model "$PL" "${NET[@]}"
# the network file records the plugin: model name, hash and path
"$PY" - <<'PY'
import h5py
with h5py.File("plugin.h5") as f:
    g = f["cells/populations/exc"]
    assert g.attrs["model"].decode() == "lif_cuba_plugin", g.attrs["model"]
    assert g.attrs["model_hash"].decode() == "0123456789abcdef"
    assert g.attrs["model_path"].decode().endswith("models/lif_cuba_plugin.so")
    assert f["cells"].attrs["model_hash"].decode() == "0123456789abcdef"
PY

IN=(--poisson rate=400,weight=4,receptor=ge,n=2 --pulse 20:25:30:0:100 --record v,ge --record-every 5)
run() {  # NET P OUT STEPS [extra]
  local net=$1 P=$2 out=$3 steps=$4; shift 4
  mpirun -np "$P" --oversubscribe "$S" "$net" -o "$out" --steps "$steps" "${IN[@]}" "$@" -q
}
# same A B [FIRST-STEP PART...]: spikes, v and ge reports and final state of
# B (or of the parts, from FIRST-STEP on) are A's, bit for bit
same() {
  "$PY" - "$@" <<'PY'
import sys, h5py, numpy as np
ref, first, parts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def spikes(d):
    with h5py.File(f"{d}/spikes.h5") as f:
        g = f["spikes"][list(f["spikes"])[0]]
        return g["timestamps"][:], g["node_ids"][:]
def report(d, v):
    with h5py.File(f"{d}/{v}.h5") as f:
        return f["report"][list(f["report"])[0]]["data"][:]
rt, ri = spikes(ref)
keep = rt > first * 0.1 - 1e-9
pt = np.concatenate([spikes(p)[0] for p in parts]); pi = np.concatenate([spikes(p)[1] for p in parts])
assert len(rt) > 200, f"only {len(rt)} spikes: a weak comparison"
assert np.array_equal(rt[keep], pt) and np.array_equal(ri[keep], pi), f"spikes differ: {keep.sum()} vs {len(pt)}"
for v in ["v", "ge"]:
    rd = report(ref, v); got = np.concatenate([report(p, v) for p in parts])
    assert rd.tobytes()[len(rd.tobytes()) - len(got.tobytes()):] == got.tobytes(), f"{v} report differs"
with h5py.File(f"{ref}/state.h5") as a, h5py.File(f"{parts[-1]}/state.h5") as b:
    for v in ["v", "ge", "gi", "ref"]:
        assert a["state"][v][:].tobytes() == b["state"][v][:].tobytes(), f"final state {v} differs"
print(f"{parts} = {ref} from step {first}: {keep.sum()} spikes")
PY
}
run builtin.h5 1 b1 1000
run plugin.h5 1 p1 1000
same b1 0 p1 || fail "the plugin's lif_cuba is not the built-in's (1 rank)"
run plugin.h5 3 p3 1000
same b1 0 p3 || fail "the plugin on 3 ranks is not the built-in on 1"
# checkpoint at 600 (events in flight), continued on 3 ranks
run plugin.h5 1 ck 600
run plugin.h5 3 rs 1000 --restart ck/state.h5
same p1 0 ck rs || fail "the plugin's restart is not the unbroken run"

# ---- by name: OLIVE_MODEL_PATH, or the model cache
OLIVE_MODEL_PATH="$PWD/models" "$G" -o byname.h5 --model lif_cuba_plugin --population a:4 -q
OLIVE_MODEL_CACHE="$PWD/models" "$S" byname.h5 -o byname --steps 10 -q
refused "unknown name" "'nosuchmodel' is not lif_cuba" env OLIVE_MODEL_PATH="$PWD/models" "$G" -o u.h5 --model nosuchmodel --population a:4
no_output u.h5

# ---- refusals of the plugin file
echo "not a library" > text.so
refused "text file" 'text\.so: not a loadable plugin' "$G" -o t.h5 --model "$PWD/text.so" --population a:4
no_output t.h5
echo 'int x;' > nosym.c && "$CC" -shared -fPIC nosym.c -o nosym.so
refused "no symbol" 'nosym\.so: not an olive model plugin \(no symbol olive_model_plugin_v1\)' \
  "$G" -o n.h5 --model "$PWD/nosym.so" --population a:4
no_output n.h5
build abi.so -DPLUGIN_ABI=99
refused "ABI" 'abi\.so: plugin ABI 99, but this olive loads ABI 2' "$G" -o a.h5 --model "$PWD/abi.so" --population a:4
no_output a.h5
# the network's plugin rebuilt with another hash at the same path
cp plugin.h5 moved.h5
build models/lif_cuba_plugin.so -DPLUGIN_HASH='"fedcba9876543210"'
refused "hash" 'moved\.h5: /cells: model lif_cuba_plugin was made with the plugin of hash 0123456789abcdef, but .*lif_cuba_plugin\.so has hash fedcba9876543210' \
  "$S" moved.h5 -o h --steps 10
no_output h
# the plugin's own functions run (not lif.h's by the model's name): another
# reset gives other spikes; a NaN it makes is caught
build models/lif_cuba_plugin.so -DRESET_TO=-55
run plugin.h5 1 other 300
! same b1 0 other 2>/dev/null || fail "a plugin that resets to -55 mV gives the built-in's spikes"
build models/lif_cuba_plugin.so -DRESET_TO=NAN
refused "non-finite" 'non-finite .* at step [0-9]+ .* in cell [0-9]+' "$S" plugin.h5 -o nf --steps 300 "${IN[@]}"
no_output nf
build models/lif_cuba_plugin.so
refused "cuda" '--backend cuda: plugin\.h5: model lif_cuba_plugin is a plugin .* the CUDA engine cannot run: it was built without nvcc' \
  "$S" plugin.h5 -o c --steps 10 --backend cuda
no_output c
refused "method" '--method does not apply' "$S" plugin.h5 -o m --steps 10 --method euler
no_output m
echo "test_model_plugin: ok"
