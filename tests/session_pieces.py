"""plastic.h5 (tests/test_session.sh) run in 7 pieces of 13 ms by olive.Simulation, read between
them, against whole/, one olive-simulate run of 91 ms: this rank's spikes, the frames of v,
v now and the plastic weights now equal whole's (its spikes, its v report, its state.h5):
    python3 session_pieces.py OUT [BACKEND]
(in the directory holding plastic.h5 and whole/; under mpirun one Simulation a rank)."""
import sys, h5py, numpy as np, olive
out = sys.argv[1]
backend = sys.argv[2] if len(sys.argv) > 2 else "cpu"
sim = olive.Simulation("plastic.h5", out, poisson=[{"rate": 30, "weight": 1.2, "receptor": "ge", "n": 20}],
                       record=["v", "ge"], record_cells=(7, 40), record_precision="double", force=True, backend=backend)
t, ids, frames = [], [], []
for k in range(7):
    sim.run(13)
    a, b = sim.spikes()
    t.append(a); ids.append(b); frames.append(sim.frames("v"))
    assert abs(sim.t - 13 * (k + 1)) < 1e-9, sim.t
v, w = sim.get("v"), sim.weights("e_to_all")
cells = sim.recorded("v")
try:
    sim.get("V_m")
    raise SystemExit("a wrong variable name was taken")
except olive.OliveError as e:
    assert "no variable V_m" in str(e), e
sim.run(0)       # (the session goes on after a wrong name)
first, n = sim.first_cell, sim.cell_count
run = sim.close()
whole = olive.read_run("whole")
st = h5py.File("whole/state.h5")
# this rank's part of the whole run
sp_t, sp_i = np.asarray(whole.spikes.times), np.asarray(whole.spikes.node_ids)
mine = (sp_i >= first) & (sp_i < first + n)
t, ids = np.concatenate(t), np.concatenate(ids)
order = np.lexsort((sp_i[mine], sp_t[mine]))
assert np.array_equal(ids, sp_i[mine][order]) and np.allclose(t, sp_t[mine][order], rtol=0, atol=1e-9), "spikes"
rep = whole.reports["v"]
cols = [list(rep.node_ids).index(c) for c in cells]
assert np.array_equal(np.concatenate(frames), np.asarray(rep.data)[:, cols]), "frames"
assert np.array_equal(v, st["state/v"][first:first + n]), "v now"
idx, wts = w
wall = st["state/plastic/e_to_all/weight"][:]
assert len(idx) > 100 and np.array_equal(wts, wall[idx]) and not np.array_equal(wts, wall[idx] * 0 + wts[0]), "weights"
print(f"pieces: {len(ids)} spikes, {sum(len(f) for f in frames)} frames, {len(idx)} weights alike")
