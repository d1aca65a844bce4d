#!/usr/bin/env bash
# Cell models compiled outside olive (plugins, common/models/model_plugin.h):
# lif_cuba written by hand through the interface (tests/plugins/lif_cuba_plugin.c)
# gives the built-in lif_cuba's bits on an exc/inh network with Poisson input
# and a pulse (spikes, v and ge reports, final state), on 1 and 3 ranks, and a
# restart from a checkpoint gives the unbroken run; the plugin's own functions
# run (another reset, other spikes; a NaN is caught). olive-analyze's
# subcommands give the built-in run's numbers on the plugin's run, and
# olive-disperse treats its network as a built-in spiking one. Refused, naming
# the file and the fault, with no output left: a file that is not a plugin
# (text, a .so without the symbol), another ABI, a network whose recorded
# plugin hash is not the plugin's, a state of another plugin hash, --map,
# --backend cuda (a build without CUDA says so), --method.
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
build() {  # OUT.so [-D...]: the test plugin as olive-model build would compile it, with
  # OUT.hash beside it (what olive reads to know the model before loading it)
  local out=$1 hash=0123456789abcdef; shift
  "$CC" -O2 -ffp-contract=off -fPIC -shared -I"$TOP/common/models" -I"$TOP/common/math" "$@" \
    "$TESTS/plugins/lif_cuba_plugin.c" -o "$out" -lm
  for d in "$@"; do case $d in -DPLUGIN_HASH=*) hash=${d#-DPLUGIN_HASH=}; hash=${hash//\"/};; esac; done
  echo "$hash" > "${out%.so}.hash"
}
mkdir -p models
build models/lif_cuba_plugin.so
PL="$PWD/models/lif_cuba_plugin.so"
# olive-simulate finds the network's plugin where the user keeps models
export OLIVE_MODEL_PATH="$PWD/models"

NET=(--population exc:160 --population inh:40 --v0 -60:-50 --seed 5 -q --param t_ref=2
     --projection from=exc,to=all,p=0.1,weight=0.9,delay=0.5:3,receptor=ge
     --projection from=inh,to=all,p=0.1,weight=-3,delay=0.2:4,receptor=gi)
"$G" -o builtin.h5 --model lif_cuba "${NET[@]}"
"$G" -o plugin.h5 --model "$PL" "${NET[@]}"
# the network file records the plugin by model name and hash, never a path
"$PY" - <<'PY'
import h5py
with h5py.File("plugin.h5") as f:
    g = f["cells/populations/exc"]
    assert g.attrs["model"].decode() == "lif_cuba_plugin", g.attrs["model"]
    assert g.attrs["model_hash"].decode() == "0123456789abcdef"
    assert "model_path" not in g.attrs and "model_path" not in f["cells"].attrs
    assert f["cells"].attrs["model_hash"].decode() == "0123456789abcdef"
PY

IN=(--poisson rate=400,weight=4,receptor=ge,n=2 --pulse 20:25:30:0:100 --record v,ge --record-every 5)
run() {  # NET P OUT STEPS [extra]
  local net=$1 P=$2 out=$3 steps=$4; shift 4
  mpirun -np "$P" --oversubscribe "$S" "$net" -o "$out" --steps "$steps" "${IN[@]}" "$@" -q
}
. "$TESTS/same_run.sh"
same() { same_run v,ge 200 "$@"; }   # REF FIRST-STEP PART...: the parts are REF's run
run builtin.h5 1 b1 1000
run plugin.h5 1 p1 1000
same b1 0 p1 || fail "the plugin's lif_cuba is not the built-in's (1 rank)"
run plugin.h5 3 p3 1000
same b1 0 p3 || fail "the plugin on 3 ranks is not the built-in on 1"
# checkpoint at 600 (events in flight), continued on 3 ranks
run plugin.h5 1 ck 600
run plugin.h5 3 rs 1000 --restart ck/state.h5
same p1 0 ck rs || fail "the plugin's restart is not the unbroken run"

# the provenance names the plugin's own step and hash
"$PY" - <<'PY'
import h5py
with h5py.File("p1/spikes.h5") as f:
    assert f.attrs["method"].decode() == "plugin", f.attrs["method"]
    assert f.attrs["model_hash"].decode() == "0123456789abcdef", f.attrs["model_hash"]
PY

# ---- olive-analyze reads a plugin run as a built-in one (without the plugin
# at hand): the counts are spikes.h5's, every subcommand gives the built-in
# run's numbers (the same bits), compare finds them equal
A="$BIN/olive-analyze"
mv models models.away
counts=$("$PY" -c "import h5py; f = h5py.File('p1/spikes.h5'); print(*[f'{p},{len(f[\"spikes\"][p][\"node_ids\"])}' for p in f['spikes']])")
[ "$("$A" summary --csv p1 | awk -F, 'NR > 1 { printf "%s%s,%s", s, $1, $4; s = " " }')" = "$counts" ] \
  || { "$A" summary --csv p1; fail "summary's spike counts are not spikes.h5's ($counts)"; }
"$A" summary p1 | grep -q '^model *lif_cuba_plugin (plugin)$' || { "$A" summary p1; fail "summary does not name the plugin"; }
for sub in "rates --population exc" "isi --population inh" "sync --population exc" \
           "spikes --population exc --variable v --threshold -52"; do
  "$A" $sub --csv p1 | sed 's/p1/D/' > p.csv
  "$A" $sub --csv b1 | sed 's/b1/D/' > b.csv
  [ "$(wc -l < p.csv)" -gt 10 ] && cmp -s p.csv b.csv || { diff b.csv p.csv | head; fail "analyze $sub: the plugin's run is not the built-in's"; }
done
"$A" compare -q b1 p1 || fail "analyze compare: the plugin's run differs from the built-in's"
for k in raster trace rate heatmap; do
  "$A" plot p1 -o "$k.svg" --kind "$k" --variable ge --population inh -q || fail "analyze plot --kind $k"
  grep -q '<svg' "$k.svg" || fail "plot --kind $k: $k.svg is not an SVG"
done
# ---- olive-disperse: as for a built-in spiking network, a map is made (no
# junctions), and olive-simulate refuses --map for it
"$BIN/olive-disperse" plugin.h5 --ranks 2 -o p.map -q || fail "olive-disperse on a plugin network"
mv models.away models
refused "map" '--map does not apply to plugin\.h5 \(a lif_cuba_plugin network\)' "$S" plugin.h5 --map p.map -o mp --steps 10
no_output mp

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
refused "ABI" 'abi\.so: plugin ABI 99, but this olive loads ABI 4' "$G" -o a.h5 --model "$PWD/abi.so" --population a:4
no_output a.h5
# the network's plugin rebuilt with another hash at the same path
cp plugin.h5 moved.h5
build models/lif_cuba_plugin.so -DPLUGIN_HASH='"fedcba9876543210"'
# a state of the plugin of another hash (the network made anew with it)
"$G" -o rehash.h5 --model "$PL" "${NET[@]}"
refused "restart hash" 'ck/state\.h5: the state was computed with the plugin of hash 0123456789abcdef, this run.s lif_cuba_plugin \(.*\) has hash fedcba9876543210' \
  "$S" rehash.h5 -o rh --steps 1000 --restart ck/state.h5
no_output rh
refused "hash" "moved\\.h5: /cells: model 'lif_cuba_plugin' of hash 0123456789abcdef is neither built in .*models/lif_cuba_plugin\\.so \\(OLIVE_MODEL_PATH\\) is of hash fedcba9876543210" \
  "$S" moved.h5 -o h --steps 10
no_output h
# the plugin's own functions run (not lif.h's by the model's name): another
# reset gives other spikes; a NaN it makes is caught
build models/lif_cuba_plugin.so -DRESET_TO=-55
run builtin.h5 1 b300 300
run plugin.h5 1 other 300
! same b300 0 other 2>err.txt || fail "a plugin that resets to -55 mV gives the built-in's spikes"
grep -q "spikes differ" err.txt || { cat err.txt; fail "reset to -55 mV: not a difference of spikes"; }
build models/lif_cuba_plugin.so -DRESET_TO=NAN
refused "non-finite" 'non-finite .* at step [0-9]+ .* in cell [0-9]+' "$S" plugin.h5 -o nf --steps 300 "${IN[@]}"
no_output nf
build models/lif_cuba_plugin.so
# --backend cuda: a build without CUDA says so first (what the user must change)
if "$S" --version | grep -q cuda; then cuda_re='--backend cuda: plugin\.h5: model lif_cuba_plugin is a plugin .* the CUDA engine cannot run: it was built without nvcc'
else cuda_re='--backend cuda: this olive-simulate was built without CUDA'; fi
refused "cuda" "$cuda_re" "$S" plugin.h5 -o c --steps 10 --backend cuda
no_output c
refused "method" '--method does not apply' "$S" plugin.h5 -o m --steps 10 --method euler
no_output m
echo "test_model_plugin: ok"
