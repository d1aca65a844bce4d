#!/usr/bin/env bash
# olive-simulate refuses every malformed network file (tests/make_malformed.py:
# ~60 cases, one fault each on a valid 6-cell base, plus a text file, an empty
# file and a missing file): non-zero exit, stderr names the file and the fault
# (a per-case keyword regex), no OUTDIR and no OUTDIR.tmp-* left behind. Faults
# in the rows of rank 1 are caught under mpirun -np 2 as well. Bad command-line
# arguments are refused the same way (message naming the option). Positive
# control: the valid base at bits 0/4/8/16/32 runs. A run that turns non-finite
# stops with the step and the cell named (docs/FORMAT.md), without output.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" | tee -a "$PWD/failures.txt" >&2; exit 1; }
: > failures.txt
S="$BIN/olive-simulate"
"$PY" "$TESTS/make_malformed.py" nets > cases.txt
n=$(wc -l < cases.txt)
[ "$n" -ge 55 ] || fail "only $n malformed cases"

no_output() {  # OUTDIR
  [ ! -e "$1" ] || fail "$1 was left behind"
  ! compgen -G "$1.tmp-*" >/dev/null || fail "$(compgen -G "$1.tmp-*") was left behind"
}
# refused CASE REGEX FILE-IN-MESSAGE CMD...: CMD fails, stderr matches REGEX and names the file
refused() {
  local name=$1 re=$2 file=$3 rc=0; shift 3
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 0 ] || { cat out.txt err.txt; fail "$name: accepted (exit 0): $*"; }
  [ "$rc" -lt 128 ] || { cat err.txt; fail "$name: crashed with exit status $rc: $*"; }
  [ -s err.txt ] || fail "$name: nothing on stderr"
  [ -z "$file" ] || grep -qF -- "$file" err.txt || { cat err.txt; fail "$name: stderr does not name $file"; }
  grep -Eiq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not name the fault (/$re/)"; }
  echo "ok $name: $(head -n 1 err.txt)"
}

# every case runs; failures are counted and reported together at the end
bad=0
while IFS=$'\t' read -r name re; do
  (refused "$name" "$re" "nets/$name.h5" "$S" "nets/$name.h5" -o "out-$name" --steps 5 && no_output "out-$name") \
    || bad=$((bad + 1))
done < cases.txt

# faults in the second half of the rows, read by rank 1 only
for name in col_out_of_range self_junction_last_row conductance_negative gcal_negative; do
  re=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' cases.txt)
  (refused "np2/$name" "$re" "nets/$name.h5" timeout 60 mpirun -np 2 --oversubscribe "$S" "nets/$name.h5" \
    -o "mpi-$name" --steps 5 && no_output "mpi-$name") || bad=$((bad + 1))
done

# positive control: the same base without the fault runs, at every bits value
for b in "" 0 4 8 16 fixedstr; do
  "$S" "nets/valid$b.h5" -o "valid$b" --steps 5 >/dev/null 2>err.txt || { cat err.txt; fail "valid$b.h5 refused"; }
  [ -f "valid$b/spikes.h5" ] || fail "valid$b: no output"
done

# bad arguments, on a valid network
A=(nets/valid.h5 -o out --steps 5)
args_refused() {  # REGEX ARGS...
  local re=$1; shift
  (refused "args: $*" "$re" "" "$S" "$@" && no_output out) || bad=$((bad + 1))
}
args_refused 'steps' nets/valid.h5 -o out --steps -1
args_refused 'steps' nets/valid.h5 -o out --steps abc
args_refused 'steps' nets/valid.h5 -o out --steps 0
args_refused 'steps|time' nets/valid.h5 -o out
args_refused 'steps|time' nets/valid.h5 -o out --steps 5 --time 1
args_refused 'time' nets/valid.h5 -o out --time -3
args_refused 'gj.*foo|foo.*gj' "${A[@]}" --gj foo
args_refused 'pulse' "${A[@]}" --pulse 1:2
args_refused 'pulse' "${A[@]}" --pulse a:b:c
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:4
args_refused 'pulse' "${A[@]}" --pulse 5:1:3
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:4:4
args_refused 'nosuchvar' "${A[@]}" --record nosuchvar
args_refused 'nosuchvar' "${A[@]}" --record v_axon,nosuchvar
args_refused 'record-every' "${A[@]}" --record-every 0
args_refused 'record-every' "${A[@]}" --record-every x
args_refused 'record-cells' "${A[@]}" --record-cells 5:2
args_refused 'record-cells' "${A[@]}" --record-cells 0:7
args_refused 'record-cells' "${A[@]}" --record-cells 3x
args_refused 'precision.*quad|quad.*precision' "${A[@]}" --precision quad
args_refused 'record-precision|half' "${A[@]}" --record-precision half
args_refused 'spike-threshold' "${A[@]}" --spike-threshold x
args_refused 'threads' "${A[@]}" --threads 0
args_refused 'backend' "${A[@]}" --backend foo
args_refused 'output|-o' nets/valid.h5 --steps 5
args_refused 'network' -o out --steps 5
args_refused 'bogus' "${A[@]}" --bogus
args_refused 'nosuch\.h5' "${A[@]}" --stimulus nosuch.h5
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every 0
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every -5
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every x
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every
args_refused 'restart.*nosuch\.h5.*no such file' "${A[@]}" --restart nosuch.h5
args_refused 'restart.*nets.*not a regular file' "${A[@]}" --restart nets
args_refused 'valid\.h5.*not an olive state file' "${A[@]}" --restart nets/valid.h5
args_refused '--time = 1e\+12 ms .*outside 1\.\.1099511627776' nets/valid.h5 -o out --time 1e12
args_refused 'empty output' nets/valid.h5 -o "" --steps 5
args_refused 'nodir.*does not exist' nets/valid.h5 -o nodir/out --steps 5
args_refused 'pulse' "${A[@]}" --pulse 1:2:nan
args_refused 'pulse' "${A[@]}" --pulse 1:2:1e9
args_refused 'pulse' "${A[@]}" --pulse -1:2:3
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:5:99
args_refused 'population' "${A[@]}" --population a/b
args_refused 'record-cells' "${A[@]}" --record-cells -1:3
args_refused 'valid\.h5.*(stimulus|format)|(stimulus|format).*valid\.h5' "${A[@]}" --stimulus nets/valid.h5
# a run that blows up (I_app = 1e6 into cell 4 on step 0: V_dend ~ 5e4 after it, so
# step 1 overflows; tests/ref_model.py agrees) stops, naming step 1 and cell 4,
# and leaves no output; also when cell 4 belongs to rank 1 of 2
(refused "non-finite" '(step 1\b|t = 0\.1 ?ms).*cell 4\b|cell 4\b.*(step 1\b|t = 0\.1 ?ms)' "" \
  "$S" nets/valid.h5 -o blow --steps 50 --pulse 0:1:1e6:4:5 && no_output blow) || bad=$((bad + 1))
(refused "np2/non-finite" '(step 1\b|t = 0\.1 ?ms).*cell 4\b|cell 4\b.*(step 1\b|t = 0\.1 ?ms)' "" \
  timeout 60 mpirun -np 2 --oversubscribe "$S" nets/valid.h5 -o blow2 --steps 50 --pulse 0:1:1e6:4:5 \
  && no_output blow2) || bad=$((bad + 1))

# spiking networks (common/io/synfile.c, read through common/io/h5util.c's checked
# reader): integers stored as floats, a per-cell dataset no model has, a
# damaged attribute datatype (HDF5 1.10 crashes listing such attributes by
# index), a uint64 beyond int64 are refused, naming the object
"$BIN/olive-genconn" -q -o spk.h5 --model lif_cuba --population exc:20 --source-poisson src:4:10 \
  --projection from=exc,to=exc,p=0.2,weight=1,delay=1,receptor=ge
# synapse sites (site_section, site_x) on a hh_cable network: both or neither,
# one per synapse, x in [0, 1], a section index >= 0, integers as integers
"$BIN/olive-genconn" -q -o sites.h5 --model hh_cable --cells 6 \
  --projection from=all,to=all,indegree=3,weight=0.001,delay=1,receptor=ge,sites=soma+dend,name=pr
# a procedural projection (olive-genconn --procedural): the rule's attributes
"$BIN/olive-genconn" -q -o proc.h5 --model lif_cuba --cells 20 --procedural \
  --projection from=all,to=all,total=60,weight=normal:1:0.2:0:inf,delay=normal:1:0.5:0.1:inf,receptor=ge,name=pr
"$PY" - <<'PYEOF'
import h5py, numpy as np, shutil
def case(name, edit):
    shutil.copy("spk.h5", f"spk_{name}.h5")
    with h5py.File(f"spk_{name}.h5", "r+") as f:
        edit(f)
def retype(g, name, dtype, fix=lambda v: v):
    v = fix(g[name][:]); del g[name]; g[name] = v.astype(dtype)
P, E, S = "cells/populations/exc", "synapses/exc_to_exc", "cells/populations/src"
case("row_ptr_float", lambda f: retype(f[E], "row_ptr", np.float64))
def huge(v):
    v = v.astype(np.uint64); v[1] = 2**63 + 5; return v
case("col_uint64_huge", lambda f: retype(f[E], "col", np.uint64, huge))
def array_source(f, ptr_dtype):
    g = f[S]
    g.attrs["model"] = "spike_source_array"
    for k in ("rate", "start", "duration"): del g.attrs[k]
    g["spike_times"] = np.array([1.0, 2.0, 3.0, 4.0])
    g["spike_times_ptr"] = np.array([0, 1, 2, 3, 4], dtype=ptr_dtype)
case("spike_times_ptr_float", lambda f: array_source(f, np.float64))
case("tau_M_dataset", lambda f: f[P].create_dataset("tau_M", data=np.full(20, 20.0)))
case("first_uint64_huge", lambda f: f[P].attrs.create("first", 2**63 + 1, dtype=np.uint64))
case("delay_attr_float", lambda f: f[E].attrs.__setitem__("delay", 2.5))
def sites_case(name, edit):
    shutil.copy("sites.h5", f"spk_{name}.h5")
    with h5py.File(f"spk_{name}.h5", "r+") as f:
        edit(f["synapses/pr"])
def set_at(g, name, k, value):
    v = g[name][:]; v[k] = value; g[name][...] = v
sites_case("site_x_only", lambda g: g.__delitem__("site_section"))
sites_case("site_section_only", lambda g: g.__delitem__("site_x"))
sites_case("site_x_short", lambda g: retype(g, "site_x", np.float64, lambda v: v[:-1]))
sites_case("site_x_2", lambda g: set_at(g, "site_x", 4, 2.0))
sites_case("site_x_nan", lambda g: set_at(g, "site_x", 0, np.nan))
sites_case("site_section_negative", lambda g: set_at(g, "site_section", 3, -1))
sites_case("site_section_float", lambda g: retype(g, "site_section", np.float64))
def proc_case(name, edit):
    shutil.copy("proc.h5", f"spk_{name}.h5")
    with h5py.File(f"spk_{name}.h5", "r+") as f:
        edit(f["synapses/pr"])
def set_attr(g, name, value): g.attrs[name] = value
proc_case("proc_kind", lambda g: set_attr(g, "procedural", "fixed"))
proc_case("proc_targets", lambda g: set_attr(g, "target_cells", np.array([0, 21], np.int64)))
proc_case("proc_negative_n", lambda g: set_attr(g, "procedural_n", np.int64(-5)))
proc_case("proc_sd", lambda g: set_attr(g, "weight_normal", np.array([1, -0.2, 0, np.inf])))
proc_case("proc_bounds", lambda g: set_attr(g, "delay_normal_ms", np.array([1, 0.5, 30, 40.0])))
proc_case("proc_no_seed", lambda g: g.attrs.__delitem__("seed"))
proc_case("proc_and_col", lambda g: g.create_dataset("col", data=np.zeros(3, np.int32)))
# the datatype of attribute tau_m (float64: class+version 0x11, bits 20 3f 00, size 8) declares another size
b = bytearray(open("spk.h5", "rb").read())
at = b.find(bytes([0x11, 0x20, 0x3f, 0x00, 0x08, 0, 0, 0]), b.find(b"tau_m\0"))
for size in (0x100, 16):
    c = bytearray(b); c[at + 4:at + 8] = size.to_bytes(4, "little")
    open(f"spk_tau_m_size{size}.h5", "wb").write(c)
PYEOF
spk_cases=(
  "row_ptr_float|/synapses/exc_to_exc/row_ptr is stored as a floating-point number"
  "col_uint64_huge|/synapses/exc_to_exc/col\[1\] = 9223372036854775813 is out of range"
  "spike_times_ptr_float|/cells/populations/src/spike_times_ptr is stored as a floating-point number"
  "tau_M_dataset|/cells/populations/exc/tau_M is not a per-cell parameter of model lif_cuba"
  "first_uint64_huge|/cells/populations/exc: attribute 'first'\[0\] = 9223372036854775809 is out of range"
  "delay_attr_float|/synapses/exc_to_exc: attribute 'delay' is stored as a floating-point number"
  "tau_m_size256|/cells/populations/exc: its attributes cannot be read \(a damaged attribute header\)"
  "tau_m_size16|/cells/populations/exc: attribute 'tau_m' has a floating-point type other than IEEE"
  "site_x_only|/synapses/pr has site_x but not site_section"
  "site_section_only|/synapses/pr has site_section but not site_x"
  "site_x_short|/synapses/pr/site_x has 17 values for 18 synapses"
  "site_x_2|/synapses/pr/site_x\[4\] = 2 is not a position in \[0, 1\]"
  "site_x_nan|/synapses/pr/site_x\[0\] = nan is not a position"
  "site_section_negative|/synapses/pr/site_section\[3\] = -1 is not a section index"
  "site_section_float|/synapses/pr/site_section must be an integer dataset"
  "proc_kind|/synapses/pr procedural = 'fixed' is not p, indegree, total, outdegree or total_out"
  "proc_targets|/synapses/pr: a procedural rule with a target range outside the network"
  "proc_negative_n|/synapses/pr: a procedural rule with a negative number of synapses"
  "proc_sd|/synapses/pr: a procedural rule with a normal weight with a bad mean, sd or bounds"
  "proc_bounds|/synapses/pr: a procedural rule with a normal delay with a bad mean, sd or bounds"
  "proc_no_seed|/synapses/pr.*seed"
  "proc_and_col|/synapses/pr is procedural but also holds synapse datasets"
)
for c in "${spk_cases[@]}"; do
  name=${c%%|*} re=${c#*|}
  (refused "spiking/$name" "$re" "spk_$name.h5" "$S" "spk_$name.h5" -o "out-spk-$name" --time 5 \
    && no_output "out-spk-$name") || bad=$((bad + 1))
done
"$S" -q spk.h5 -o spk-ok --time 5 || fail "the spiking base network was refused"
"$S" -q sites.h5 -o sites-ok --time 5 || fail "the hh_cable network with synapse sites was refused"
"$S" -q proc.h5 -o proc-ok --time 5 || fail "the procedural network was refused"

if [ $bad -ne 0 ]; then
  echo "---- $bad cases were not refused properly:"; cat failures.txt; exit 1
fi
echo "malformed networks and arguments refused: $n files, 4 under mpirun -np 2, ${#spk_cases[@]} spiking files"
