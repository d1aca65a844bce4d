#!/usr/bin/env bash
# A network file never chooses the code that runs (docs/MODELS.md, "Where
# olive finds a model"). A library whose constructor leaves a marker file is
# planted and named by a network file in every way: its model_path attribute
# (absolute, relative, a FIFO), the model's name in a directory the user never
# chose (OLIVE_MODEL_PATH not set), a name with a path in it, the model cache
# without the hash file that says which model a library holds, with another
# hash, or writable by others. olive-simulate, olive-genconn and
# olive.read_network refuse each, naming the model and how to make it
# available, and the marker never appears. The advice then works: the model's
# directory given with --model-path or OLIVE_MODEL_PATH runs the network.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
CC=${CC:-cc}
marker="$PWD/planted-ran"
nothing_ran() { [ ! -e "$marker" ] || fail "$1: the planted library's constructor ran"; }
refused() {  # NAME REGEX CMD...: exit 1 or 2 within 20 s, stderr matches, nothing ran
  local name=$1 re=$2 rc=0; shift 2
  timeout 20 "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 0 ] || { cat out.txt err.txt; fail "$name: accepted: $*"; }
  [ "$rc" -ne 124 ] || fail "$name: hung (killed after 20 s)"
  [ "$rc" -lt 128 ] || { cat err.txt; fail "$name: killed by a signal (exit $rc)"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not match /$re/"; }
  nothing_ran "$name"
  [ ! -e run ] || fail "$name: output left behind"
  echo "ok $name: $(head -c 300 err.txt | head -n 1)"
}
# the planted library, as a model plugin would be named: evil.so, with the
# hash file that would make it the model's
"$CC" -shared -fPIC -DPLANTED_MARKER="\"$marker\"" "$TESTS/plugins/planted_plugin.c" -o evil.so
mkdir -p planted && cp evil.so planted/evil.so && echo 00aa > planted/evil.hash && echo 00aa > evil.hash
# a real plugin (tests/plugins/lif_cuba_plugin.c), kept where the user chose
mkdir -p models
"$CC" -O2 -ffp-contract=off -fPIC -shared -I"$TOP/common/models" -I"$TOP/common/math" \
  "$TESTS/plugins/lif_cuba_plugin.c" -o models/lif_cuba_plugin.so -lm
echo 0123456789abcdef > models/lif_cuba_plugin.hash
"$G" -o good.h5 --model "$PWD/models/lif_cuba_plugin.so" --population a:20 --seed 3 -q \
  --projection from=a,to=a,p=0.2,weight=0.5,delay=1,receptor=ge
export HOME="$PWD/home"   # (the default model cache is $HOME/.cache/olive/models)
unset OLIVE_MODEL_PATH OLIVE_MODEL_CACHE XDG_CACHE_HOME

# the network files: good.h5 with its model renamed evil (hash 00aa) and
# model_path naming the planted library in each way
evil_net() {  # OUT MODEL_PATH [MODEL]
  cp good.h5 "$1"
  "$PY" - "$1" "$2" "${3:-evil}" <<'PY'
import sys, h5py
out, path, model = sys.argv[1:4]
with h5py.File(out, "r+") as f:
    for g in [f["cells"]] + [f["cells/populations"][p] for p in f["cells/populations"]]:
        g.attrs["model"] = model.encode()
        g.attrs["model_hash"] = b"00aa"
        g.attrs["model_path"] = path.encode()
PY
}
mkfifo fifo.so
evil_net abs.h5 "$PWD/evil.so"
evil_net rel.h5 "evil.so"
evil_net dot.h5 "./planted/evil.so"
evil_net fifo.h5 "$PWD/fifo.so"
evil_net cache.h5 "$HOME/.cache/olive/models/evil.so"
how="Build it with olive-model build MODEL.nestml .*--model-path DIR or OLIVE_MODEL_PATH=DIR"
for n in abs rel dot fifo cache; do
  refused "simulate, model_path $n" "$n\.h5: /cells: model 'evil' of hash 00aa is neither built in .*$how" \
    "$S" "$n.h5" -o run --steps 10
done
# a model name with a path in it is no name
evil_net slash.h5 "" "../planted/evil"
refused "a name with a path" "slash\.h5: /cells: model name '\.\./planted/evil' is not a name" "$S" slash.h5 -o run --steps 10

# the model cache: no hash file, another hash, a FIFO, a directory others can write
cache="$HOME/.cache/olive/models"
mkdir -p "$cache" && chmod 700 "$cache"
cp evil.so "$cache/evil.so"
refused "cache, no hash file" "evil\.so \(the model cache\) has no evil\.hash beside it" "$S" abs.h5 -o run --steps 10
echo 00bb > "$cache/evil.hash"
refused "cache, another hash" "evil\.so \(the model cache\) is of hash 00bb" "$S" abs.h5 -o run --steps 10
rm "$cache/evil.so" && mkfifo "$cache/evil.so" && echo 00aa > "$cache/evil.hash"
refused "cache, a FIFO" "evil\.so \(the model cache\) is passed over: not a regular file" "$S" abs.h5 -o run --steps 10
rm "$cache/evil.so" && cp evil.so "$cache/evil.so" && chmod 777 "$cache"
refused "cache writable by others" "models \(the model cache\) is passed over: others than its owner can write it" \
  "$S" abs.h5 -o run --steps 10
chmod 700 "$cache" && chmod 666 "$cache/evil.so"
refused "library writable by others" "evil\.so \(the model cache\) is passed over: others than its owner can write it" \
  "$S" abs.h5 -o run --steps 10
rm -f "$cache/evil.so" "$cache/evil.hash"
# OLIVE_MODEL_PATH writable by others, and --model-path so
chmod 777 planted
refused "OLIVE_MODEL_PATH writable by others" "planted \(OLIVE_MODEL_PATH\) is passed over: others than its owner" \
  env OLIVE_MODEL_PATH="$PWD/planted" "$S" abs.h5 -o run --steps 10
refused "--model-path writable by others" "--model-path .*planted: others than its owner can write it" \
  "$S" abs.h5 -o run --steps 10 --model-path planted
chmod 755 planted
# olive-genconn by name: the same places, the same refusals
refused "genconn by name" "'evil' is not lif_cuba" "$G" -o run --model evil --population a:4
refused "genconn, a name with a path" "--model: .*evil" "$G" -o run --model ../planted/evil --population a:4

# olive.read_network reads descriptors, never libraries
PYTHONPATH="$TOP/python" "$PY" - <<'PY' || fail "olive.read_network"
import os, olive
for n in ("abs", "rel", "dot", "fifo", "cache"):
    try:
        olive.read_network(f"{n}.h5")
    except olive.FormatError as e:
        assert "model 'evil' of hash 00aa is in none of the places" in str(e), e
        assert "olive never loads a path written in a file" in str(e), e
    else:
        raise AssertionError(f"{n}.h5 was read")
    assert not os.path.exists("planted-ran"), n
print("ok read_network: refused, nothing loaded")
PY
nothing_ran "read_network"

# the advice works: the model's directory given by the user runs the network
refused "the plugin not made available" "model 'lif_cuba_plugin' of hash 0123456789abcdef is neither built in" \
  "$S" good.h5 -o run --steps 10
"$S" good.h5 -o run --steps 100 -q --model-path models || fail "--model-path DIR"
rm -rf run
"$S" good.h5 -o run --steps 100 -q --model-path models/lif_cuba_plugin.so || fail "--model-path FILE.so"
rm -rf run
OLIVE_MODEL_PATH="$PWD/models" "$S" good.h5 -o run --steps 100 -q || fail "OLIVE_MODEL_PATH"
rm -rf run
cp models/lif_cuba_plugin.so models/lif_cuba_plugin.hash "$cache/"
"$S" good.h5 -o run --steps 100 -q || fail "the model cache"
rm -rf run
# ... a library of another hash in an earlier place is passed over, not loaded
mkdir -p old && cp models/lif_cuba_plugin.so old/ && echo 99 > old/lif_cuba_plugin.hash
OLIVE_MODEL_PATH="$PWD/old:$PWD/models" "$S" good.h5 -o run --steps 100 -q || fail "the second place of OLIVE_MODEL_PATH"
rm -rf run
# the user's own choice is the user's: a library named with --model-path is
# loaded (and refused when it is no plugin), which shows the check above saw
# the constructor's marker when it ran
refused_ran() { timeout 20 "$@" >/dev/null 2>err.txt && fail "accepted: $*"; [ -e "$marker" ] || fail "the marker test cannot see a load"; rm -f "$marker"; }
refused_ran "$S" abs.h5 -o run --steps 10 --model-path evil.so
grep -q "not an olive model plugin (no symbol olive_model_plugin_v1)" err.txt || { cat err.txt; fail "--model-path evil.so: message"; }
# a plugin compiled by hand, described by the user (olive-model describe: the one place, besides
# olive-model build, where Python loads a library, because the user names it): copied with its
# descriptor and hash into a directory, then found there by olive-simulate and read_network
PYTHONPATH="$TOP/python" "$PY" -m olive.nestml describe models/lif_cuba_plugin.so -o described > described.out \
  || fail "olive-model describe"
[ "$(cat described.out)" = described/lif_cuba_plugin.so ] || fail "describe printed $(cat described.out)"
[ "$(cat described/lif_cuba_plugin.hash)" = 0123456789abcdef ] || fail "describe's NAME.hash"
[ "$(stat -c %a described)" = 700 ] || fail "describe's directory is not 0700"
"$S" good.h5 -o run --steps 100 -q --model-path described || fail "--model-path of a described plugin"
rm -rf run
PYTHONPATH="$TOP/python" "$PY" - <<'PY' || fail "read_network of a described plugin's network"
import json, olive
d = json.load(open("described/lif_cuba_plugin.olive.json"))
assert d["name"] == "lif_cuba_plugin" and d["hash"] == "0123456789abcdef" and "path" not in d, d
net = olive.read_network("good.h5", model_path="described")
assert net.populations["a"].model == "lif_cuba_plugin" and net.populations["a"].value("tau_m")[0] > 0
print("ok describe: descriptor written, network read through it")
PY
# describe refuses a library that is no plugin, naming it
if PYTHONPATH="$TOP/python" "$PY" -m olive.nestml describe evil.so -o refused 2> d.err; then fail "describe of evil.so"; fi
grep -q "not an olive model plugin" d.err || { cat d.err; fail "describe evil.so: no message"; }
rm -f "$marker"   # (describe loaded it: the user named it)
echo "test_model_trust: ok"
