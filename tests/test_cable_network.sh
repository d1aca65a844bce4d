#!/usr/bin/env bash
# Networks of Hodgkin-Huxley cable cells (hh_traub, hh_cable; docs/FORMAT.md)
# through olive-genconn and olive-simulate, without a peer (NEURON and NEST
# judge them in test_cable_neuron and test_spiking_nest): identical spikes,
# reports and final state on 1, 2 and 3 ranks and 1 or 2 threads, for a
# hh_traub E/I network (dt 0.025 ms, delays 0.1-1 ms, Poisson kick, a pulse) and a
# two-population hh_cable network with per-population morphology and per-cell
# v0; the gates stay in [0, 1]; analyze reads the runs; bad parameters are
# refused by olive-genconn (no file left) and by olive-simulate (a per-cell
# dataset it cannot take), and --method / --backend cuda are refused.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
"$G" -q -o traub.h5 --model hh_traub --dt 0.025 --population exc:320 --population inh:80 --v0 -65:-55 \
    --projection from=exc,to=all,indegree=16,weight=6,delay=0.1:1,receptor=ge \
    --projection from=inh,to=all,indegree=4,weight=67,delay=0.1,receptor=gi
"$G" -q -o ball.h5 --model hh_cable --population a:60 --population b:40 --param soma_diam=25@b \
    --param dend_nseg=9@b --v0 -70:-60@a \
    --projection from=all,to=all,p=0.1,weight=0.002:0.01,delay=1:3,receptor=ge \
    --projection from=b,to=a,p=0.2,weight=0.01,delay=0.5,receptor=gi
T=100   # ms a run (the sanitizer pass: 60, still well after the pulses' and kicks' starts)
[ "${SANITIZED:-0}" = 1 ] && T=60
run() {  # net out [ranks] [extra...]
  local net=$1 out=$2 P=${3:-1}; shift 3 || true
  local rec=(--record v,m,h,n,ge,gi) prec=(--record-precision double) a
  for a in "$@"; do   # the extra options replace the defaults (an option given twice is refused)
    [ "$a" = --record ] && rec=()
    [ "$a" = --record-precision ] && prec=()
  done
  local in=(--time "$T" "${rec[@]}" "${prec[@]}")
  if [ $net = traub ]; then in+=(--poisson rate=300,weight=6,receptor=ge,cells=0:40,time=1:51 --pulse 60:80:200:300:320)
  else in+=(--pulse 1:90:0.3:0:10 --poisson rate=50,weight=0.01,receptor=ge,n=5,time=20:100); fi
  if [ "$P" = 1 ]; then "$S" -q $net.h5 -o $out "${in[@]}" "$@"
  else OMP_NUM_THREADS=1 mpirun -np $P "$S" -q $net.h5 -o $out "${in[@]}" "$@"; fi
}
for net in traub ball; do
  run $net ${net}_1 1
  n=$("$PY" -c "import h5py; print(sum(len(g['node_ids']) for g in h5py.File('${net}_1/spikes.h5')['spikes'].values()))")
  [ "$n" -gt 100 ] || fail "$net: only $n spikes; the test needs an active network"
  ranks="2 3"
  [ "${SANITIZED:-0}" = 1 ] && ranks=3   # (the sanitizer pass: one odd split; tests/run.sh)
  for P in $ranks; do
    run $net ${net}_$P $P
    "$A" compare -q ${net}_1 ${net}_$P || fail "$net: $P ranks differ from 1 rank"
  done
  OMP_NUM_THREADS=1 run $net ${net}_t1 1
  "$A" compare -q ${net}_1 ${net}_t1 || fail "$net: 1 thread differs from 2"
  "$PY" - ${net}_1 <<'PYEOF' || fail "$net: a gate left [0, 1] or a conductance went negative"
import sys, h5py, numpy as np
d = sys.argv[1]
# every population's cells side by side (one SONATA population per network population)
report = lambda var: np.hstack([g["data"][:] for g in h5py.File(f"{d}/{var}.h5")["report"].values()])
for var in "mhn":
    x = report(var)
    assert x.min() >= 0 and x.max() <= 1, (var, x.min(), x.max())
for var in ("ge", "gi"):
    assert report(var).min() >= 0, var
v = report("v")
assert v.max() > 0 and v.min() < -60, (v.min(), v.max())   # spikes overshoot, cells repolarise
PYEOF
  echo "$net: $n spikes, identical on 1-3 ranks and 1-2 threads"
done
# Compartment reports (--record-compartments): the mapping of both
# morphologies, the soma = v.h5, and the same on 2 ranks (float64).
CR=(--record v --record-compartments v,m --record-precision double --record-cells 40:70 --record-every 5)
run ball comp_1 1 "${CR[@]}"
run ball comp_2 2 "${CR[@]}"
"$PY" "$TESTS/element_report_check.py" comp_1 0:60:5,60:100:9 >/dev/null || \
  { "$PY" "$TESTS/element_report_check.py" comp_1 0:60:5,60:100:9; fail "the compartment report of comp_1"; }
"$PY" - <<'PYEOF' || fail "compartment reports differ between 1 and 2 ranks"
import h5py, numpy as np
for var, pop in (("v", "a"), ("v", "b"), ("m", "a"), ("m", "b")):
    a, b = (h5py.File(f"comp_{p}/{var}_compartments.h5")["report/" + pop] for p in (1, 2))
    for k in ("data", "mapping/node_ids", "mapping/index_pointers", "mapping/element_ids", "mapping/element_pos", "mapping/time"):
        assert np.array_equal(a[k][:], b[k][:]), (var, k)
PYEOF
# olive-analyze compare names the compartment of a difference
cp -r comp_1 comp_x
"$PY" -c "
import h5py
with h5py.File('comp_x/v_compartments.h5', 'a') as f:
    d = f['report/a/data']; x = d[:]; x[3, 8] += 1; d[...] = x"
out=$("$A" compare comp_1 comp_x 2>&1 || true)
grep -q "cell 41, compartment 2 (element id 1)" <<< "$out" || fail "compare did not locate the compartment: $out"
expect_fail_early() { if "$@" > err.txt 2>&1; then fail "$* was accepted"; fi; }
expect_fail_early "$S" -q traub.h5 -o rc --time 1 --record-compartments ge
grep -q "is not v, m, h or n" err.txt || fail "--record-compartments ge: $(cat err.txt)"
echo "compartment reports: mapping, soma = v.h5, 1 rank = 2 ranks"
"$A" summary --population exc traub_1 | grep -Eq "^model +hh_traub" || fail "summary does not name the model"
"$A" rates --population exc traub_1 >/dev/null || fail "rates failed on a hh_traub run"

# Refusals: nothing written.
expect_fail() {  # what message command...
  local what=$1 msg=$2; shift 2
  if "$@" > err.txt 2>&1; then fail "$what was accepted"; fi
  grep -q -- "$msg" err.txt || fail "$what: expected '$msg', got: $(cat err.txt)"
}
expect_fail "dend_nseg 2.5" "population all: dend_nseg must be a whole number" \
  "$G" -q -o badseg.h5 --model hh_cable --cells 3 --param dend_nseg=2.5
[ ! -e badseg.h5 ] || fail "olive-genconn left badseg.h5"
expect_fail "C_m 0" "C_m = 0 must be positive" "$G" -q -o badc.h5 --model hh_traub --cells 3 --param C_m=0
# hh_swc's biophysics per section type and the hh table switch (docs/FORMAT.md)
SWC=(--model hh_swc --cells 2 --morphology "$TESTS/data/cell.swc")
expect_fail "soma.hh 2" "population all: parameter soma.hh = 2 must be 0 or 1" "$G" -q -o bad.h5 "${SWC[@]}" --param soma.hh=2
expect_fail "axon.Ra 0" "population all: parameter axon.Ra = 0 must be positive" "$G" -q -o bad.h5 "${SWC[@]}" --param axon.Ra=0
expect_fail "dend.g_pas < 0" "parameter dend.g_pas = -0.0001 must not be negative" \
  "$G" -q -o bad.h5 "${SWC[@]}" --param dend.g_pas=-1e-4
expect_fail "soma.Rb" "'soma.Rb' is not a parameter of hh_swc" "$G" -q -o bad.h5 "${SWC[@]}" --param soma.Rb=1
expect_fail "hh_tables 2" "parameter hh_tables = 2 must be 0 or 1" "$G" -q -o bad.h5 --model hh_cable --cells 2 \
  --param hh_tables=2
[ ! -e bad.h5 ] || fail "olive-genconn left bad.h5"
# nseg by d_lambda from each type's own Ra and cm: a 1 m thin dendrite needs
# more than 32767 segments at Ra 100, cm 1 (refused) but about 355 at Ra 1, cm 0.01
printf '%s\n' "1 1 0 0 0 5 -1" "2 3 0 5 0 0.05 1" "3 3 0 1000005 0 0.05 2" > long.swc
LONG=(--model hh_swc --cells 1 --morphology long.swc --param seg_length=0)
expect_fail "long.swc at Ra 100" "long.swc: section dend\[0\].*needs more than 32767 segments (Ra 100, cm 1" \
  "$G" -q -o bad.h5 "${LONG[@]}"
"$G" -q -o long.h5 "${LONG[@]}" --param dend.Ra=1 --param dend.cm=0.01 || fail "long.swc refused at dend.Ra 1, dend.cm 0.01"
"$G" -q -o swc.h5 "${SWC[@]}" --param I_e=0.3 --param dend.hh=1 --param axon.pas=1 --param soma.cm=1.5
"$G" -q -o swcf.h5 "${SWC[@]}" --param I_e=0.3 --param dend.hh=1 --param axon.pas=1 --param soma.cm=1.5 --param hh_tables=0
cp swc.h5 badbio.h5
"$PY" -c "
import h5py
with h5py.File('badbio.h5', 'a') as f:
    f['cells/populations/all'].attrs['apic.cm'] = -1.0"
expect_fail "apic.cm -1 in the file" "badbio.h5: population all: parameter apic.cm = -1 must not be negative" \
  "$S" -q badbio.h5 -o bb --time 1
[ ! -e bb ] || fail "olive-simulate left bb/"
for n in swc swcf; do "$S" -q $n.h5 -o run_$n --time 20 --record v --record-precision double; done
"$PY" -c "
import h5py, numpy as np
a, b = (h5py.File(f'run_{n}/v.h5')['report/all/data'][:] for n in ('swc', 'swcf'))
d = np.abs(a - b).max()
assert 0 < d < 5, d   # hh's table and its formulas: close (spikes a little shifted), not the same arithmetic
print('hh_swc tables vs formulas: max |dv| %.3g mV' % d)"
expect_fail "--method" "does not apply" "$S" -q traub.h5 -o m --time 1 --method euler
[ ! -e m ] || fail "olive-simulate left m/"
expect_fail "--backend cuda" "cuda" "$S" -q traub.h5 -o c --time 1 --backend cuda
[ ! -e c ] || fail "olive-simulate left c/"
cp traub.h5 percell.h5
"$PY" -c "
import h5py, numpy as np
with h5py.File('percell.h5', 'a') as f:
    f['cells/populations/inh/g_Na'] = np.full(80, 1e4)"
expect_fail "a per-cell g_Na" "population inh: per-cell values of g_Na" "$S" -q percell.h5 -o pc --time 1
[ ! -e pc ] || fail "olive-simulate left pc/"
echo "refusals: bad parameters (hh_swc's per-type biophysics, hh_tables), --method, --backend cuda, per-cell g_Na"

# Synapse sites (--projection ...,sites=; docs/FORMAT.md "Synapses"): on a
# NeuroMorpho three-point-soma cell, dendrite sites 20-200 um from soma(0.5)
# and sites from a list; the same file for the same seed, on 1 or 2 ranks
# and 1 or 2 threads, another for another seed, the weights untouched by the
# sites; NEURON's Import3d cell judges types, distances and uniformity
# (tests/sites_check.py; the normal build only). Bad specs are refused
# with nothing written; SONATA sites are refused on import, not dropped.
CNG=$TESTS/data/c91662_part.CNG.swc
printf '%s\n' '# section x' 'soma 0.5' 'dend[0] 0.25' 'dend[2] 1  # an end' 'axon[0] 0' > sites.txt
SITES=(--model hh_swc --population a:30 --population b:10 --morphology "$CNG"
       --projection from=all,to=a,indegree=150,weight=0.001:0.002,delay=1,receptor=ge,name=dd,sites=dend:20:200
       --projection from=a,to=all,indegree=60,weight=0.001,delay=1,receptor=gi,name=ls,sites=@sites.txt)
"$G" -q -o sites1.h5 "${SITES[@]}"
OMP_NUM_THREADS=1 "$G" -q -o sites2.h5 "${SITES[@]}"
mpirun -np 2 "$G" -q -o sites3.h5 "${SITES[@]}"
"$G" -q -o sites4.h5 "${SITES[@]}" --seed 2
"$G" -q -o nosites.h5 "${SITES[@]/,sites=*/}"
"$PY" - <<'PYEOF' || fail "synapse sites: not the same for the same seed, or the weights changed"
import h5py, numpy as np
f = [h5py.File(f"sites{k}.h5") for k in (1, 2, 3, 4)]
plain = h5py.File("nosites.h5")
for p in ("dd", "ls"):
    g = f[0]["synapses/" + p]
    assert g.attrs["sites"].decode() == {"dd": "dend:20:200", "ls": "list:sites.txt"}[p]
    for k in ("col", "site_section", "site_x"):
        for other in f[1:3]:
            assert np.array_equal(g[k][:], other["synapses/" + p][k][:]), (p, k)
    assert not np.array_equal(g["site_x"][:], f[3]["synapses/" + p]["site_x"][:]), p   # another seed
    assert "site_x" not in plain["synapses/" + p]
assert np.array_equal(f[0]["synapses/dd/weight"][:], plain["synapses/dd/weight"][:])
PYEOF
if [ "${SANITIZED:-0}" != 1 ]; then
  source "$TESTS/peer_venv.sh"
  for check in "dd dend 20 200" "ls @sites.txt"; do
    "$venv/bin/python" "$TESTS/sites_check.py" sites1.h5 ${check%% *} "$CNG" ${check#* } 2>&1 | grep -v "DISPLAY\|graphics" | tee sites.log
    grep -q '^PASS' sites.log || fail "synapse sites $check: not what NEURON's cell allows"
  done
fi
swc_sites() { "$G" -q -o bad.h5 --model hh_swc --cells 4 --morphology "$CNG" \
  --projection "from=all,to=all,indegree=2,weight=0.001,delay=1,receptor=ge,sites=$1"; }
expect_fail "sites type" "sites: 'dendrite' is not a section type" swc_sites dendrite
expect_fail "sites empty range" "has no length of those section types at that distance" swc_sites dend:5000:6000
expect_fail "sites DMIN > DMAX" "0 <= DMIN < DMAX" swc_sites apic:50:10
printf 'dend[999] 0.5\n' > nosec.txt
expect_fail "sites unknown section" "nosec.txt: line 1: section 'dend\[999\]' is not in the cell of population all" \
  swc_sites @nosec.txt
printf 'soma 0.5\ndend[0] 1.5\n' > badx.txt
expect_fail "sites x 1.5" "badx.txt: line 2: x = '1.5' is not a position in \[0, 1\]" swc_sites @badx.txt
expect_fail "sites on lif" "sites= places synapses on the sections of hh_swc and hh_cable cells, not lif_cuba" \
  "$G" -q -o bad.h5 --model lif_cuba --cells 4 --projection from=all,to=all,indegree=1,weight=1,delay=1,receptor=ge,sites=dend
[ ! -e bad.h5 ] || fail "olive-genconn left bad.h5"
"$PY" - <<'PYEOF'
import h5py, numpy as np
with h5py.File("site_edges.h5", "w") as f:
    g = f.create_group("edges/e")
    g["source_node_id"] = np.array([0, 1], np.uint64); g["target_node_id"] = np.array([1, 0], np.uint64)
    g["edge_type_id"] = np.array([0, 0], np.int64)
    g["0/syn_weight"] = [0.001, 0.001]; g["0/delay"] = [1.0, 1.0]
    g["0/afferent_section_id"] = np.array([1, 1], np.int64)
PYEOF
expect_fail "SONATA sites" "site_edges.h5: /edges/e/0/afferent_section_id: olive-genconn does not import synapse sites" \
  "$G" -q -o bad.h5 --model hh_cable --cells 2 --import-synapses site_edges.h5
[ ! -e bad.h5 ] || fail "olive-genconn left bad.h5"
echo "synapse sites: rank-, thread- and seed-keyed, judged by NEURON's cell; bad sites= refused"
