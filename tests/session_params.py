"""plastic.h5 (tests/test_session.sh) run 3 x 30 ms by olive.Simulation, parameters set between the
pieces (olive_session_set_param), against p1/ p2/ p3/, olive-simulate's pieces continued with --restart
and the same values given as --param: the spikes of the whole run equal the pieces' together, and the
refusals (a parameter the model lacks, a value it refuses, a malformed one) leave the simulation going on
and its outputs whole:
    python3 session_params.py OUT [BACKEND]   (under mpirun: one Simulation a rank)"""
import sys, h5py, numpy as np, olive
out = sys.argv[1]
backend = sys.argv[2] if len(sys.argv) > 2 else "cpu"
sim = olive.Simulation("plastic.h5", out, time=90, poisson=[{"rate": 30, "weight": 1.2, "receptor": "ge", "n": 20}],
                       force=True, backend=backend)
sim.run(30)
sim.set_param("e.tau_m=12")
sim.run(30)
for bad, said in (("e.nosuch=1", "has no parameter 'nosuch'"), ("e.tau_m=-5", "tau_m must be more than 0"),
                  ("garbage", "must be POP.NAME=VALUE")):
    try:
        sim.set_param(bad)
        raise SystemExit(f"set_param({bad!r}) was taken")
    except olive.OliveError as e:
        assert said in str(e), e
sim.set_param("V_th", -52.5, population="i")
sim.run(30)
sim.close()
with h5py.File(f"{out}/spikes.h5") as f:
    said = f.attrs["param_overrides"]
    said = said.decode() if isinstance(said, bytes) else said
    assert said == "e.tau_m=12 from step 300,V_th=-52.5@i from step 600", said
    got = {p: (f["spikes"][p]["timestamps"][:], f["spikes"][p]["node_ids"][:]) for p in f["spikes"]}
for p, (t, ids) in got.items():
    parts = [h5py.File(f"p{k}/spikes.h5")["spikes"][p] for k in (1, 2, 3)]
    tt = np.concatenate([g["timestamps"][:] for g in parts])
    ii = np.concatenate([g["node_ids"][:] for g in parts])
    assert np.array_equal(t, tt) and np.array_equal(ids, ii), (p, len(t), len(tt))
    print(f"set_param {out}: population {p}: {len(t)} spikes, those of olive-simulate's pieces with --param")
