#!/usr/bin/env bash
# NEURON users' mechanisms (NMODL) in olive's cable engine, against NEURON 9.
# The inputs are public and pinned: bmtk 1.2.0's PyPI package ships the Allen
# Institute's perisomatic mechanisms (bmtk/utils/scripts/bionet/mechanisms/
# modfiles), Allen Cell Types morphologies (morphologies/*.swc) and their
# fitted biophysics (biophysical_neuron_models/*_fit.json); BSD-3-Clause
# (bmtk's licence; the Allen Cell Types data under the Allen Institute's terms
# of use, as bmtk redistributes them).
#  1. olive-model build (the NMODL framework's parser, pip nmodl, pinned)
#     compiles the Allen set's 16 density mechanisms (NaV's KINETIC scheme
#     and LINEAR initial state among them) into one library; what it does
#     not support yet is refused naming the file, line and construct
#     (bmtk's vecevent.mod: an ARTIFICIAL_CELL; a TABLE that DEPENDs on or
#     reads a RANGE parameter), or with --skip-unsupported left out and
#     named; a second build of the same files is a cache hit. NEURON's own
#     hh.mod (its rates from a TABLE) and passive.mod compile.
#  2. Four Allen cells (Scnn1a 473845048 with fit 472363762, Rorb 325404214
#     with 473863510, Nr5a1 471087815 with 473863035: NaTs, Nap, K_P, Im ...;
#     Pvalb 470522102 with 472912177: NaV, Kd, Kv2like, Im_v2 ...) through
#     olive-genconn --biophysics FIT.json and olive-simulate, 100 ms of a
#     current clamp on the soma (0.3 nA; the Pvalb cell 0.6 nA), every
#     compartment's v recorded; NEURON 9.0.2 builds
#     each cell with bmtk's own code (Biophys1.hoc, aibs_perisomatic,
#     set_segment_dl; scripts/neuron_biophys_compare.py) from the same files
#     and the mechanisms compiled by its own nrnivmodl: every compartment
#     within 1e-8 mV at every step (the issue asks 1e-6), and the soma fires
#     (crosses -15 mV); for the Pvalb cell also ina, ik, cai, eca and NaV's
#     open state O (--record-compartments of NMODL variables) within 1e-6 of
#     each one's largest magnitude where NEURON has it (NaN where not).
#     NEURON's hh.mod on the Scnn1a morphology (hh on soma and axon, 1 nA)
#     against NEURON's own hh, and a Hay-style cell with the BBP set, alike.
#  3. The three cells as one network of three populations: the same
#     compartment report bit for bit on 1 and 3 ranks.
#     A SONATA network of 8 Allen cells built with bmtk's NetworkBuilder (exp2syn
#     edges at bmtk's rand_syn_locations sites, virtual lgn nodes with a SONATA
#     spikes file), run by bmtk BioNet on NEURON 9 and by olive from
#     olive-genconn --import-circuit (temperature, v_init, threshold, dL and
#     the input trains from the config, as BioNet reads them): the same spikes
#     within 1e-6 ms, olive on 1 and 3 ranks bit for bit.
#     The same network with NEURON's exp2syn.mod compiled as its synapses
#     (--synapse-mechanism ge=Exp2Syn): every compartment bit for bit olive's
#     own Exp2Syn, the spikes BioNet's within 1e-6 ms; a NET_RECEIVE olive
#     cannot sum and USEION in a synapse are refused by name; stopped at 150 ms
#     and restarted on 3 ranks, the unbroken run's whole state bit for bit.
#  4. Bad inputs are refused naming the fault: a biophysics statement naming a
#     mechanism the library lacks, a parameter no mechanism has, a library in
#     no trusted place (and a network file's library name is never a path).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then   # (NEURON and bmtk are the peers' code; olive's side runs sanitized in test_cable_*)
  echo "NMODL against NEURON: checked in the normal build only"; exit 0
fi
source "$TESTS/python_pins.sh"
source "$TESTS/venv_cached.sh"
NMODL=0.5 NEURON=9.0.2 BMTK=1.2.0
nmodl_venv="$TOP/$BUILD/venv-nmodl" bionet_venv="$TOP/$BUILD/venv-bionet"
venv_cached "$nmodl_venv" ".olive-nmodl-$NMODL-sympy-$SYMPY" "nmodl==$NMODL" "sympy==$SYMPY" "numpy==$NUMPY" "h5py==$H5PY"
venv_cached "$bionet_venv" ".olive-neuron-$NEURON-bmtk-$BMTK" "neuron==$NEURON" "bmtk==$BMTK" "h5py==$H5PY"
BIONET=$("$bionet_venv/bin/python" -c 'import bmtk, os; print(os.path.dirname(bmtk.__file__))')/utils/scripts/bionet
[ -d "$BIONET/mechanisms/modfiles" ] || fail "bmtk $BMTK has no $BIONET/mechanisms/modfiles"
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
export OMP_NUM_THREADS=1
mkdir -m 700 cache
export OLIVE_MODEL_CACHE=$PWD/cache
model() { PYTHONPATH="$TOP/python" "$nmodl_venv/bin/python" -m olive.model_cli "$@"; }

# 1. the build; refusals by file, line and construct
cp -r "$BIONET/mechanisms/modfiles" allmods
if model build allmods --name allen > refused.txt 2>&1; then fail "vecevent.mod's ARTIFICIAL_CELL was accepted"; fi
grep -q "allmods/vecevent.mod:4: not supported by olive: ARTIFICIAL_CELL VecStim" refused.txt \
  || fail "vecevent.mod: $(cat refused.txt)"
[ ! -e cache/allen.so ] || fail "a refused build left cache/allen.so"
NRNMODS=$("$bionet_venv/bin/python" -c 'import neuron, os; print(os.path.dirname(neuron.__file__))')/.data/share/modfile
# NEURON's own hh.mod (its rates from a TABLE, as NEURON interpolates them) and passive.mod compile
mkdir nrnmods && cp "$NRNMODS/hh.mod" "$NRNMODS/passive.mod" nrnmods/
model build nrnmods --name nrnhh > hh.txt 2>&1 || fail "olive-model build hh.mod passive.mod: $(cat hh.txt)"
grep -q "nrnhh: 2 mechanisms (hh, pas)" hh.txt || fail "hh.mod, passive.mod: $(cat hh.txt)"
sed 's/DEPEND celsius/DEPEND celsius, gnabar/' "$NRNMODS/hh.mod" > hh_bad.mod
if model build hh_bad.mod --name hb > refused2.txt 2>&1; then fail "TABLE ... DEPEND gnabar was accepted"; fi
grep -q "hh_bad.mod:[0-9]*: not supported by olive: TABLE in rates: DEPEND gnabar: only celsius and GLOBAL parameters" \
  refused2.txt || fail "hh_bad.mod: $(cat refused2.txt)"
sed 's/q10 = 3^((celsius - 6.3)\/10)/q10 = 3^((celsius - 6.3)\/10) * gnabar/' "$NRNMODS/hh.mod" > hh_range.mod
if model build hh_range.mod --name hr > refused2.txt 2>&1; then fail "a TABLE reading a RANGE parameter was accepted"; fi
grep -q "hh_range.mod:[0-9]*: not supported by olive: TABLE in rates: it reads gnabar" refused2.txt \
  || fail "hh_range.mod: $(cat refused2.txt)"
mkdir allen
for f in allmods/*.mod; do case $f in */vecevent.mod) ;; *) cp "$f" allen/ ;; esac; done
model build allmods --name allen --skip-unsupported > build.txt 2>&1 || fail "olive-model build allen: $(cat build.txt)"
grep -q "left out: .*allmods/vecevent.mod:4: not supported by olive: ARTIFICIAL_CELL" build.txt || fail "no vecevent note: $(cat build.txt)"
grep -q "allen: 16 mechanisms (CaDynamics, Ca_HVA, Ca_LVA, Ih, Im, Im_v2, K_P, K_T, Kd, Kv2like, Kv3_1, NaTa, NaTs, NaV, Nap, SK)" \
  build.txt || fail "the library's mechanisms: $(cat build.txt)"
[ -f cache/allen.so ] && [ -f cache/allen.hash ] && [ -f cache/allen.olive.c ] || fail "the cache lacks allen.so/.hash/.olive.c"
model build allen --name allen > build2.txt 2>&1 && ! grep -q "16 mechanisms" build2.txt \
  || fail "the same 16 files from another folder: not a cache hit"

# One cell (NAME SWC FIT LIBRARY NEURON_MECH_DIR CELSIUS V0 AMP RECORD [--var ...]): olive's biophys_swc
# against NEURON 9 with bmtk's set-up, every compartment within 1e-8 mV for 100 ms of a clamp of AMP nA
cell_vs_neuron() {
  local name=$1 swc=$2 fit=$3 lib=$4 mech=$5 celsius=$6 v0=$7 amp=$8 rec=$9
  shift 9
  "$G" -q -o "$name.h5" --model biophys_swc --population cell:1 --morphology "$swc" --biophysics "$fit" \
       --mechanisms "$lib" --param celsius="$celsius" --param v0="$v0" || fail "$name: olive-genconn"
  "$S" "$name.h5" -o "run_$name" --time 100 --param I_e="$amp" --record-compartments "$rec" --record-precision double \
       >/dev/null || fail "$name: olive-simulate"
  "$bionet_venv/bin/python" "$TOP/scripts/neuron_biophys_compare.py" --mech-dir "$mech" --swc "$swc" --fit "$fit" \
       --olive "run_$name/v_compartments.h5" --amp "$amp" --celsius "$celsius" --v-init "$v0" --tol 1e-8 "$@" 2>&1 \
       | grep -v "^Warning: no DISPLAY\|^--No graphics\|WARNING.*ptr_update_callback" | sed "s/^/$name: /" \
       || fail "$name against NEURON"
}

# 2. three Allen cells against NEURON through bmtk's set-up
nrn=$(mktemp -d)
cp allen/*.mod "$nrn"/ && (cd "$nrn" && "$bionet_venv/bin/nrnivmodl" >/dev/null 2>&1) || fail "NEURON's nrnivmodl failed"
cells="Scnn1a_473845048:472363762 Rorb_325404214:473863510 Nr5a1_471087815:473863035"
for c in $cells Pvalb_470522102:472912177; do
  swc="$BIONET/morphologies/${c%%:*}_m.swc" fit="$BIONET/biophysical_neuron_models/${c##*:}_fit.json"
  amp=0.3 rec=v vars=()
  if [ "${c%%_*}" = Pvalb ]; then   # and NMODL variables: ions' (ina, ik, cai, eca) and NaV's KINETIC state O
    amp=0.6 rec=v,ina,ik,cai,eca,O_NaV
    for x in ina ik cai eca O_NaV; do vars+=(--var "$x=run_${c%%:*}/${x}_compartments.h5"); done
  fi
  v0=$("$bionet_venv/bin/python" -c "import json; print(repr(json.load(open('$fit'))['conditions'][0]['v_init']))")
  cell_vs_neuron "${c%%:*}" "$swc" "$fit" allen "$nrn" 34 "$v0" $amp $rec "${vars[@]}"
done

# 2a. NEURON's own hh.mod on an Allen morphology (hh on soma and axon, pas everywhere): NEURON runs its
# built-in hh (the same hh.mod), both with the rate TABLE at celsius 30
swc="$BIONET/morphologies/Scnn1a_473845048_m.swc" fit="$TESTS/data/hh_fit.json"
cell_vs_neuron hh.mod "$swc" "$fit" nrnhh "$nrn" 30 -66 1 v

# 2b. the BBP/Hay set from BluePyOpt's source package (PyPI), and a Hay-style cell
BPO=1.14.26 sd="$TOP/$BUILD/pypi-bluepyopt-$BPO"
venv_lock "$sd"
if [ ! -f "$sd/.done" ]; then
  rm -rf "$sd" && mkdir -p "$sd"
  "$bionet_venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$sd" "bluepyopt==$BPO" \
    || fail "pip could not download bluepyopt==$BPO's source package (is PyPI reachable?)"
  tar xzf "$sd/bluepyopt-$BPO.tar.gz" -C "$sd" "bluepyopt-$BPO/examples" || fail "bluepyopt-$BPO.tar.gz: no examples"
  touch "$sd/.done"
fi
venv_unlock
ex="$sd/bluepyopt-$BPO/examples"
cp -r "$ex/l5pc/mechanisms" bbp && rm -f bbp/*.inc bbp/LICENSE
model build bbp > bbp.txt 2>&1 || fail "olive-model build bbp: $(cat bbp.txt)"
grep -q "bbp: 12 mechanisms (CaDynamics_E2, Ca_HVA, Ca_LVAst, Ih, Im, K_Pst, K_Tst, NaTa_t, NaTs2_t, Nap_Et2, SK_E2, SKv3_1)" \
  bbp.txt || fail "the BBP library: $(cat bbp.txt)"
if model build "$ex/stochkv/mechanisms/StochKv.mod" --name sk > r3.txt 2>&1; then fail "StochKv.mod was accepted"; fi
grep -q "StochKv.mod:[0-9]*: not supported by olive: NEURON block: BBCOREPOINTER" r3.txt || fail "StochKv: $(cat r3.txt)"
if model build "$ex/thalamocortical-cell/mechanisms/TC_cadecay.mod" --name tc > r4.txt 2>&1; then fail "TC_cadecay accepted"; fi
grep -q "TC_cadecay.mod:[0-9]*: not supported by olive: SOLVE state METHOD derivimplicit" r4.txt || fail "TC_cadecay: $(cat r4.txt)"
nrn2=$(mktemp -d)
cp bbp/*.mod "$nrn2"/ && (cd "$nrn2" && "$bionet_venv/bin/nrnivmodl" >/dev/null 2>&1) || fail "NEURON's nrnivmodl (bbp) failed"
swc="$BIONET/morphologies/Rorb_325404214_m.swc" fit="$TESTS/data/hay_style_fit.json"
cell_vs_neuron Hay-style "$swc" "$fit" bbp "$nrn2" 34 -65 0.5 v

# 3. the three as one network: 1 and 3 ranks, the same report bit for bit
args=(--model biophys_swc --mechanisms allen --param celsius=34 --param I_e=0.3)
for c in $cells; do
  p=${c%%_*}
  args+=(--population "$p:1" --morphology "$BIONET/morphologies/${c%%:*}_m.swc@$p"
         --biophysics "$BIONET/biophysical_neuron_models/${c##*:}_fit.json@$p")
done
"$G" -q -o three.h5 "${args[@]}" || fail "three cells: olive-genconn"
"$S" three.h5 -o three1 --time 50 --record-compartments v >/dev/null || fail "three cells, 1 rank"
mpirun -np 3 --oversubscribe "$S" three.h5 -o three3 --time 50 --record-compartments v >/dev/null || fail "three cells, 3 ranks"
"$nmodl_venv/bin/python" - <<'PY' || fail "1 and 3 ranks differ"
import h5py, numpy as np
for name, group in (("v_compartments.h5", "report"), ("spikes.h5", "spikes")):
    with h5py.File(f"three1/{name}") as a, h5py.File(f"three3/{name}") as b:
        pops = sorted(a[group])
        assert pops == sorted(b[group]) and len(pops) == 3, (name, pops)
        for p in pops:
            for k in ("data",) if group == "report" else ("timestamps", "node_ids"):
                x, y = a[group][p][k][:], b[group][p][k][:]
                assert x.tobytes() == y.tobytes() and len(x), f"{name} {p}/{k}: 1 and 3 ranks differ"
print("1 and 3 ranks: the same compartment reports and spikes, bit for bit")
PY

# 3b. a SONATA network built by bmtk's own NetworkBuilder (scripts/bmtk_bionet_network.py: 8 Allen cells of 4
# types, 20 virtual lgn nodes driven by a SONATA spikes file, exp2syn edges at bmtk's rand_syn_locations sites),
# run by bmtk BioNet on NEURON 9 and imported by olive-genconn --import-circuit: every cell's spike times equal
# BioNet's within 1e-6 ms, olive on 1 and 3 ranks bit for bit
BN="$TOP/scripts/bmtk_bionet_network.py"
"$bionet_venv/bin/python" "$BN" build bnet > bnet_build.txt 2>&1 || fail "bmtk's NetworkBuilder: $(tail -5 bnet_build.txt)"
"$bionet_venv/bin/python" "$BN" run bnet > bnet_run.txt 2>&1 || fail "bmtk BioNet: $(tail -5 bnet_run.txt)"
model build bnet/components/mechanisms/modfiles --name allen --skip-unsupported > bnet_model.txt 2>&1 \
  || fail "olive-model build of the circuit's mechanisms_dir: $(cat bnet_model.txt)"
# (celsius, v_init, the spike threshold, dL and the lgn trains from the config's conditions, run and inputs)
"$G" -q -o bnet.h5 --model biophys_swc --mechanisms allen --import-circuit bnet/config.json --import-node-population v1 \
  || fail "olive-genconn --import-circuit (bmtk)"
"$S" -q bnet.h5 -o bnet1 --time 300 || fail "the bmtk network, 1 rank"
mpirun -np 3 --oversubscribe "$S" -q bnet.h5 -o bnet3 --time 300 || fail "the bmtk network, 3 ranks"
"$nmodl_venv/bin/python" - <<'PY' || fail "the bmtk network's spikes differ from BioNet's"
import h5py, numpy as np
b = h5py.File("bnet/output/spikes.h5")["spikes/v1"]
bt, bi = b["timestamps"][:], b["node_ids"][:]
o, o3 = h5py.File("bnet1/spikes.h5")["spikes"], h5py.File("bnet3/spikes.h5")["spikes"]
assert sorted(o) == ["Nr5a1", "Pvalb", "Rorb", "Scnn1a", "lgn"], sorted(o)
worst, n = 0.0, 0
for p in ("Scnn1a", "Rorb", "Nr5a1", "Pvalb"):
    first = int(o[p].attrs["first_cell"])
    t, i = o[p]["timestamps"][:], o[p]["node_ids"][:]
    assert t.tobytes() == o3[p]["timestamps"][:].tobytes() and i.tobytes() == o3[p]["node_ids"][:].tobytes(), f"{p}: 1 and 3 ranks"
    assert len(t) >= 10, f"{p}: {len(t)} spikes: too few to test"
    for k in range(2):
        a, c = np.sort(bt[bi == first + k]), np.sort(t[i == k])
        assert len(a) == len(c), f"{p} cell {k}: BioNet {len(a)} spikes, olive {len(c)}"
        if len(a):
            worst = max(worst, float(np.abs(a - c).max()))
        n += len(a)
assert n == len(bt), (n, len(bt))
assert worst <= 1e-6, worst
# the input trains: olive's lgn spikes are the file's
s = h5py.File("bnet/inputs/lgn_spikes.h5")["spikes/lgn"]
assert np.array_equal(np.sort(s["timestamps"][:]), np.sort(o["lgn"]["timestamps"][:]))
print(f"bmtk BioNet network: {n} spikes of 8 Allen cells, each within {worst:.2g} ms of BioNet's; 1 = 3 ranks")
PY
# 3c. the same network with NEURON's own exp2syn.mod compiled by olive-model build as its synapses
# (--synapse-mechanism: POINT_PROCESS Exp2Syn, NET_RECEIVE, tau1/tau2/e set from the edge types as BioNet sets
# them): every compartment within 1e-8 mV of olive's own Exp2Syn (not bit for bit: the synapse's current joins
# its node's sum after the density mechanisms, olive's own before them, as NEURON's built-in), the spikes
# BioNet's within 1e-6 ms, 1 = 3 ranks
mkdir synmods && cp bnet/components/mechanisms/modfiles/*.mod "$NRNMODS/exp2syn.mod" "$NRNMODS/expsyn.mod" synmods/
model build synmods --name allensyn --skip-unsupported > syn_model.txt 2>&1 || fail "olive-model build with exp2syn.mod: $(cat syn_model.txt)"
grep -q "allensyn: 18 mechanisms (.*Exp2Syn, ExpSyn)" syn_model.txt || fail "exp2syn.mod, expsyn.mod: $(cat syn_model.txt)"
"$G" -q -o bsyn.h5 --model biophys_swc --mechanisms allensyn --synapse-mechanism ge=Exp2Syn --synapse-mechanism gi=Exp2Syn \
     --import-circuit bnet/config.json --import-node-population v1 --import-spikes bnet/inputs/lgn_spikes.h5 \
     --param celsius=34 --param v0=-80 || fail "olive-genconn --synapse-mechanism"
"$S" -q bsyn.h5 -o bsyn1 --time 300 --record-compartments v --record-precision double || fail "NMODL Exp2Syn, 1 rank"
"$S" -q bnet.h5 -o bown1 --time 300 --record-compartments v --record-precision double || fail "olive's Exp2Syn, compartments"
mpirun -np 3 --oversubscribe "$S" -q bsyn.h5 -o bsyn3 --time 300 || fail "NMODL Exp2Syn, 3 ranks"
# checkpoint/restart: stopped at 150 ms on 1 rank, continued on 3: the unbroken run's state (every compartment,
# mechanism, ion, NMODL synapse and site: /state/cable_x), bit for bit
"$S" -q bsyn.h5 -o bsynA --time 150 || fail "NMODL network, 150 ms"
mpirun -np 3 --oversubscribe "$S" -q bsyn.h5 -o bsynB --time 300 --restart bsynA/state.h5 || fail "NMODL network, restart"
"$PY" "$TESTS/same_datasets.py" bsyn1 bsynB state.h5 > /dev/null || fail "the NMODL network restarted on 3 ranks differs"
"$nmodl_venv/bin/python" - <<'PY' || fail "the network with NMODL Exp2Syn differs"
import h5py, numpy as np
bio = h5py.File("bsyn.h5")["cells/populations/Scnn1a"].attrs["biophysics"]
bio = bio.decode() if isinstance(bio, bytes) else bio
assert "synapse ge Exp2Syn" in bio and "synapse gi tau2 = 15" in bio, bio[-300:]
a, b = h5py.File("bown1/v_compartments.h5")["report"], h5py.File("bsyn1/v_compartments.h5")["report"]
dv = max(float(np.abs(a[p]["data"][:].astype(float) - b[p]["data"][:]).max()) for p in ("Scnn1a", "Rorb", "Nr5a1", "Pvalb"))
assert dv <= 1e-8, f"NMODL Exp2Syn and olive's Exp2Syn differ by {dv} mV"
bn = h5py.File("bnet/output/spikes.h5")["spikes/v1"]
bt, bi = bn["timestamps"][:], bn["node_ids"][:]
o, o3 = h5py.File("bsyn1/spikes.h5")["spikes"], h5py.File("bsyn3/spikes.h5")["spikes"]
worst, n = 0.0, 0
for p in ("Scnn1a", "Rorb", "Nr5a1", "Pvalb"):
    first, t, i = int(o[p].attrs["first_cell"]), o[p]["timestamps"][:], o[p]["node_ids"][:]
    assert t.tobytes() == o3[p]["timestamps"][:].tobytes(), f"{p}: 1 and 3 ranks"
    for k in range(2):
        x, y = np.sort(bt[bi == first + k]), np.sort(t[i == k])
        assert len(x) == len(y), f"{p} cell {k}: BioNet {len(x)} spikes, olive {len(y)}"
        worst = max([worst] + list(np.abs(x - y)))
        n += len(x)
assert n == len(bt) and n >= 40 and worst <= 1e-6, (n, len(bt), worst)
print(f"NMODL Exp2Syn: every compartment within {dv:.2g} mV of olive's Exp2Syn; {n} spikes within {worst:.2g} ms of BioNet's; 1 = 3 ranks")
PY
# a NET_RECEIVE that is not X = X + c * weight is refused (olive sums a step's weights), as USEION in a synapse
mkdir badsyn && sed 's/g = g + weight/g = weight/' "$NRNMODS/expsyn.mod" > badsyn/expsyn.mod
if model build badsyn --name badsyn > badsyn.txt 2>&1; then fail "a NET_RECEIVE g = weight was accepted"; fi
grep -q "expsyn.mod:[0-9]*: not supported by olive: olive sums the weights .* g = weight" badsyn.txt || fail "NET_RECEIVE: $(cat badsyn.txt)"
sed 's/NONSPECIFIC_CURRENT i/USEION ca WRITE ica/' "$NRNMODS/expsyn.mod" > badsyn/expsyn.mod
if model build badsyn --name badsyn > badsyn.txt 2>&1; then fail "USEION in a POINT_PROCESS was accepted"; fi
grep -q "expsyn.mod:[0-9]*: not supported by olive: USEION in the POINT_PROCESS ExpSyn" badsyn.txt || fail "USEION: $(cat badsyn.txt)"
if "$G" -q -o bad.h5 --model biophys_swc --mechanisms allensyn --synapse-mechanism ge=NaTs --import-circuit bnet/config.json \
     --import-node-population v1 --import-spikes bnet/inputs/lgn_spikes.h5 > bad.txt 2>&1; then fail "synapse ge NaTs accepted"; fi
grep -q "synapse ge NaTs: the library allensyn has no POINT_PROCESS NaTs" bad.txt || fail "synapse ge NaTs: $(cat bad.txt)"
[ ! -e bad.h5 ] || fail "a refused network left bad.h5"
# its faults, named: a virtual population without trains, an Exp2Syn per receptor per population, edges
# without sites (BioNet would draw them at run time), a weight_function (a Python function of bmtk's)
refuse_circuit() {  # WANT CONFIG ARGS...
  local want=$1 config=$2; shift 2
  if "$G" -q -o bad.h5 --model biophys_swc --mechanisms allen --import-circuit "$config" --import-node-population v1 \
       "$@" > bad.txt 2>&1; then fail "accepted: $*"; fi
  grep -qF -- "$want" bad.txt || fail "expected '$want', got: $(cat bad.txt)"
  [ ! -e bad.h5 ] || fail "a refused network left bad.h5"
}
"$nmodl_venv/bin/python" - <<'PY'
import json
c = json.load(open("bnet/config.json"))
c["inputs"] = {}
json.dump(c, open("bnet/noinputs.json", "w"))
c["inputs"] = {"iclamp": {"input_type": "current_clamp", "module": "IClamp", "node_set": "v1", "amp": 0.1}}
json.dump(c, open("bnet/iclamp.json", "w"))
PY
refuse_circuit "the source nodes are in node population 'lgn', which is not imported" bnet/noinputs.json
refuse_circuit "bnet/iclamp.json: inputs.iclamp: input_type current_clamp is not read by olive" bnet/iclamp.json
T=bnet/network/v1_v1_edge_types.csv
cp $T bnet/types_orig.csv
sed 's/AMPA_ExcToInh.json/AMPA_ExcToExc.json/' bnet/types_orig.csv > $T
refuse_circuit "an olive population has one Exp2Syn per receptor" bnet/config.json --import-spikes bnet/inputs/lgn_spikes.h5
awk 'NR == 1 { print $0 " weight_function"; next } { print $0 " wmax" }' bnet/types_orig.csv > $T
refuse_circuit "line 2: weight_function 'wmax': bmtk calls a Python function" bnet/config.json \
  --import-spikes bnet/inputs/lgn_spikes.h5
cp bnet/types_orig.csv $T
"$nmodl_venv/bin/python" - <<'PY'
import h5py, json, shutil
shutil.copy("bnet/network/v1_v1_edges.h5", "bnet/network/nosites.h5")
with h5py.File("bnet/network/nosites.h5", "r+") as f:
    del f["edges/v1_to_v1/0/afferent_section_id"], f["edges/v1_to_v1/0/afferent_section_pos"]
c = json.load(open("bnet/config.json"))
c["networks"]["edges"][0]["edges_file"] = "$NETWORK_DIR/nosites.h5"
json.dump(c, open("bnet/nosites.json", "w"))
PY
refuse_circuit "/edges/v1_to_v1 has no afferent_section_id/afferent_section_pos: bmtk BioNet then draws" bnet/nosites.json \
  --import-spikes bnet/inputs/lgn_spikes.h5

# 4. refusals
refuse() {  # expected-message olive-genconn-args...
  local want=$1; shift
  if "$G" -q -o bad.h5 "$@" > bad.txt 2>&1; then fail "accepted: $*"; fi
  grep -q -- "$want" bad.txt || fail "expected '$want', got: $(cat bad.txt)"
  [ ! -e bad.h5 ] || fail "a refused network left bad.h5"
}
swc="$BIONET/morphologies/Scnn1a_473845048_m.swc"
printf 'all insert pas\nsoma insert NaX\n' > nomech.txt
refuse "insert NaX: the library allen has no mechanism NaX" --model biophys_swc --population c:1 --morphology "$swc" \
       --biophysics nomech.txt --mechanisms allen
printf 'soma insert NaTs\nsoma gbar_NaX = 1\n' > noparam.txt
refuse "gbar_NaX is neither g_pas" --model biophys_swc --population c:1 --morphology "$swc" --biophysics noparam.txt \
       --mechanisms allen
printf 'soma Ra 100\n' > syntax.txt
refuse "biophysics line 1: expected 'TYPE insert SUFFIX' or 'TYPE NAME = VALUE'" --model biophys_swc --population c:1 \
       --morphology "$swc" --biophysics syntax.txt --mechanisms allen
OLIVE_MODEL_CACHE=$PWD/nowhere refuse "mechanism library 'allen' is not in a place olive loads models from" \
       --model biophys_swc --population c:1 --morphology "$swc" --biophysics nomech.txt --mechanisms allen
refuse "mechanism library name '../cache/allen' is not a name" --model biophys_swc --population c:1 --morphology "$swc" \
       --biophysics nomech.txt --mechanisms ../cache/allen
echo "NMODL: the Allen (16), BBP/Hay (12) sets and NEURON's hh built, other mechanisms refused by name; 4 Allen cells, an hh cell and a Hay-style cell = NEURON 9 via bmtk; a bmtk network's spikes = BioNet's; 1 = 3 ranks"
