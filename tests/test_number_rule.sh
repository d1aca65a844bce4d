#!/usr/bin/env bash
# One rule for every path a number comes in by (util.h, olive_number_fault):
# a subnormal value (nonzero, below 2.2e-308 in size), refused on the command
# line (strtod's ERANGE), is refused from a network file too: a population's
# parameter (attribute and per-cell dataset), a projection's weight, a plastic
# projection's tau_plus; and by olive.write_network. Each names the file,
# the object and the fault, exits 1 and leaves no output.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
refused() {  # NAME REGEX CMD...
  local name=$1 re=$2 rc=0; shift 2
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ] || { cat out.txt err.txt; fail "$name: exit $rc: $*"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not match /$re/"; }
  [ ! -e run ] || fail "$name: output left behind"
  echo "ok $name: $(head -n 1 err.txt)"
}
refused "command line" "--param tau_m=1e-310: '1e-310' is not a finite number" \
  "$G" -q -o run --model lif_cuba --population e:20 --param tau_m=1e-310
"$G" -q -o net.h5 --model lif_cuba --population e:20 --v0 -60:-50 \
  --projection from=e,to=e,p=0.2,weight=0.5:1,delay=1,receptor=ge \
  --projection name=pl,from=e,to=e,p=0.2,weight=1,delay=1,receptor=ge,plasticity=stdp,Wmax=4.5
refused "command line, olive-simulate" "--param e\.tau_m=1e-310: '1e-310' is not a finite number" \
  "$S" net.h5 -o run --steps 10 --param e.tau_m=1e-310
edit() {  # OUT PYTHON-STATEMENT (f: the file, opened r+)
  cp net.h5 "$1"
  "$PY" -c "import h5py, numpy as np
f = h5py.File('$1', 'r+')
$2
f.close()"
}
edit tau.h5 'f["cells/populations/e"].attrs["tau_m"] = 1e-310'
refused "a population's parameter" "tau\.h5: /cells/populations/e: parameter tau_m is subnormal" "$S" tau.h5 -o run --steps 10
edit v0.h5 'd = f["cells/populations/e/v0"]; v = d[:]; v[3] = 5e-324; d[:] = v'
refused "a per-cell value" "v0\.h5: /cells/populations/e/v0: the value of cell 3 is subnormal" "$S" v0.h5 -o run --steps 10
edit w.h5 'd = f["synapses/e_to_e/weight"]; w = d[:]; w[2] = -1e-315; d[:] = w'
refused "a weight" "w\.h5: /synapses/e_to_e/weight\[2\] is subnormal" "$S" w.h5 -o run --steps 10
edit tp.h5 'f["synapses/pl"].attrs["plasticity_tau_plus"] = 1e-320'
refused "a plastic projection's tau_plus" "tp\.h5: .*pl.*tau_plus = .* is subnormal" "$S" tp.h5 -o run --steps 10
"$S" -q net.h5 -o ok --steps 10 || fail "the network itself was refused"
PYTHONPATH="$TOP/python" "$PY" - <<'PY'
import olive
for params, want in (({"tau_m": 1e-310}, "parameter tau_m = 1e-310 is not a finite number (nor subnormal)"),):
    try:
        olive.write_network("py.h5", populations=[{"name": "e", "count": 2, "model": "lif_cuba", "params": params}])
    except ValueError as e:
        assert want in str(e), e
    else:
        raise AssertionError("write_network took a subnormal parameter")
try:
    olive.write_network("py.h5", populations=[{"name": "e", "count": 2, "model": "lif_cuba"}],
                        projections=[{"name": "p", "source": [0], "target": [1], "weight": [1e-310], "delay_ms": 1.0,
                                      "receptor": "ge"}])
except ValueError as e:
    assert "weight[0] = 1e-310 is not finite (it is subnormal)" in str(e), e
else:
    raise AssertionError("write_network took a subnormal weight")
import os
assert not os.path.exists("py.h5")
print("ok write_network: subnormal parameter and weight refused")
PY
echo "test_number_rule: ok"
