# Sourced by tests/test_pip_install.sh and tests/test_wheel.sh: a user's first steps with an installed
# olive package. Each takes the command that runs the venv's python (a prefix: env, a namespace, ...).

# check_readme_example PYTHON...: the README's Python examples as written there (olive.genconn and
# olive.simulate; then the same network held in memory by olive.Simulation, in pieces), and their spikes:
# the number the README gives, the same in both
check_readme_example() {
  awk '/^## From Python/ {on=1} /^PyNN scripts/ {exit} on && /^    / {b = b substr($0, 5) "\n"; next}
       on && b != "" {if (b ~ /olive\./) printf "%s", b; b = ""}' "$TOP/README.md" >example.py
  grep -q "olive.simulate(" example.py && grep -q "olive.Simulation(" example.py || fail "README's Python examples not found"
  local n
  n=$(grep -o "# [0-9]* spikes" example.py | head -1 | grep -o "[0-9]*")
  cat >>example.py <<PY
import numpy as np
assert len(times) == len(ids) == $n, (len(times), "spikes, the README says $n")
assert np.array_equal(run.spikes.times, times) and np.array_equal(run.spikes.node_ids, ids), "Simulation's spikes differ"
print("README examples: $n spikes, olive.simulate and olive.Simulation alike")
PY
  "$@" example.py >example.log 2>&1 || { cat example.log; fail "README's Python example"; }
  grep "README examples" example.log
}

# check_pynn_script PYTHON...: pyNN.olive after its documented install step (docs/PYNN.md): a population
# driven above threshold spikes; its spike count printed as "pyNN.olive: N spikes"
check_pynn_script() {
  "$@" -m olive.pynn.install >/dev/null || fail "python -m olive.pynn.install"
  cat >pynn.py <<'PY'
import pyNN.olive as sim
sim.setup(timestep=0.1)
cells = sim.Population(20, sim.IF_curr_exp(i_offset=1.0))   # 1 nA: V tends to -45 mV, above threshold
cells.record(["spikes", "v"])
sim.run(60.0)
sim.run(40.0)                                               # in pieces: the simulation held between them
seg = cells.get_data().segments[0]
n = sum(len(st) for st in seg.spiketrains)
sim.end()
assert n >= 20 * 3, n
print("pyNN.olive:", n, "spikes, v", float(seg.analogsignals[0].magnitude.sum()))
PY
  "$@" pynn.py >pynn.log 2>&1 || { cat pynn.log; fail "pyNN.olive script"; }
  grep "pyNN.olive:" pynn.log
}
