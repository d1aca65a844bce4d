#!/usr/bin/python3
"""InfOli network in Brian2 (cpp_standalone + OpenMP), for the peer
comparison with olive-simulate (scripts/bench.sh runs both side by side).

The cell is the three-compartment model of /work/shared/MODEL.md (docs: the
same equations, constants and initial values), coupled by RGJ gap junctions on
the dendrite, all with conductance 0.04: with --network FILE, the junctions
of that olive-genconn file (scripts/bench.sh gives it olive's own network);
without, exactly K distinct random partners a cell drawn here (the law of
`olive-genconn --generator uniform --density K --fixed-degree`).

Usage (Debian: apt-get install python3-brian; run with /usr/bin/python3):
  scripts/brian2_infoli.py --cells 4096 --junctions 0,100 --threads 1,2 --steps 2000
Prints one line per (junctions, threads) configuration, ending in
"<rate> cell-steps/s" where rate = cells * steps / simulation time. The time
is Brian2's own measurement of the simulation loop (Network::run in the
standalone binary, device._last_run_time): code generation, compilation,
connectivity set-up, binary start-up and file I/O are excluded.

Deviations from MODEL.md (acceptable for a speed comparison, not for
validation; the numbers of this script are not checked against MODEL.md's
reference table):
- Integration: Brian2's method='euler' updates every variable from the old
  values of all of them (simultaneous forward Euler). MODEL.md updates the gates
  first and then the voltages with the NEW gates and OLD voltages, so the two
  discretisations differ by O(dt) per step. Same number of exponentials and
  about the same arithmetic per cell and step.
- m and m_a are instantaneous (subexpressions of the old voltages, as in
  MODEL.md); I_CaH is a subexpression of the old r and V_dend instead of the
  value stored by the previous step, so the state held per cell is 16
  integrated variables + g_CaL, I_app (parameters) and I_c (junction sum)
  rather than MODEL.md's 19 stored values.
- The removable singularities (b_r at V_dend = -8.5, a_x at V = -25) are
  avoided by shifting the argument by 1e-9 when |argument| < 1e-9 (the result
  then equals the limit to ~1e-10).
- Brian2 compiles with its defaults: -O3 -ffast-math -march=native.
- Brian2 2.5's summed-variable (junction-current) loop in cpp_standalone is
  not OpenMP-parallel: with T threads only the cell update is parallel.
"""
import argparse
import functools
import os
import sys
import time

import numpy as np

CONSTS = dict(
    C_M=1.0,
    G_NA_S=150.0, G_KDR_S=9.0, G_K_S=5.0, G_LS=0.016,
    G_K_CA=35.0, G_CAH=4.5, G_LD=0.016, G_H=0.125,
    G_NA_A=240.0, G_K_A=20.0, G_LA=0.016,
    P1=0.25, P2=0.15, G_INT=0.13,
    V_NA=55.0, V_K=-75.0, V_CA=120.0, V_H=-43.0, V_L=10.0,
    W_GJ=0.04,
)

# Everything is a dimensionless float in MODEL.md's units (mV, ms, mS/cm^2,
# uA/cm^2); the time derivatives are per ms, hence the "/ms".
EQS = '''
# ---- dendrite
dV_dend/dt = (-(I_CaH + I_sd + I_ld + I_KCa + I_c + I_h) + I_app) / C_M / ms : 1
I_sd = G_INT / (1 - P1) * (V_dend - V_soma) : 1
I_CaH = G_CAH * r**2 * (V_dend - V_CA) : 1
I_KCa = G_K_CA * s * (V_dend - V_K) : 1
I_ld = G_LD * (V_dend - V_L) : 1
I_h = G_H * q * (V_dend - V_H) : 1
dq/dt = (q_inf - q) / tau_q / ms : 1
q_inf = 1 / (1 + exp((V_dend + 80) / 4)) : 1
tau_q = 1 / (exp(-0.086 * V_dend - 14.6) + exp(0.070 * V_dend - 1.87)) : 1
dr/dt = (r_inf - r) / tau_r / ms : 1
a_r = 1.7 / (1 + exp(-(V_dend - 5) / 13.9)) : 1
u_r = V_dend + 8.5 + 1e-9 * int(abs(V_dend + 8.5) < 1e-9) : 1
b_r = 0.02 * u_r / (exp(u_r / 5) - 1) : 1
r_inf = a_r / (a_r + b_r) : 1
tau_r = 5 / (a_r + b_r) : 1
ds/dt = (s_inf - s) / tau_s / ms : 1
a_s = clip(0.00002 * Ca, -1e300, 0.01) : 1
s_inf = a_s / (a_s + 0.015) : 1
tau_s = 1 / (a_s + 0.015) : 1
dCa/dt = (-3 * I_CaH - 0.075 * Ca) / ms : 1
# ---- soma
dV_soma/dt = -(I_CaL + I_ds + I_as + I_Na + I_ls + I_Kdr + I_K) / C_M / ms : 1
I_ds = G_INT / P1 * (V_soma - V_dend) : 1
I_CaL = g_CaL * k**3 * l * (V_soma - V_CA) : 1
I_Na = G_NA_S * m**3 * h * (V_soma - V_NA) : 1
I_ls = G_LS * (V_soma - V_L) : 1
I_Kdr = G_KDR_S * n**4 * (V_soma - V_K) : 1
I_K = G_K_S * x_s**4 * (V_soma - V_K) : 1
I_as = G_INT / (1 - P2) * (V_soma - V_axon) : 1
dk/dt = (k_inf - k) / ms : 1
k_inf = 1 / (1 + exp(-(V_soma + 61) / 4.2)) : 1
dl/dt = (l_inf - l) / tau_l / ms : 1
l_inf = 1 / (1 + exp((V_soma + 85.5) / 8.5)) : 1
tau_l = 20 * exp((V_soma + 160) / 30) / (1 + exp((V_soma + 84) / 7.3)) + 35 : 1
m = 1 / (1 + exp((-30 - V_soma) / 5.5)) : 1
dh/dt = (h_inf - h) / tau_h / ms : 1
h_inf = 1 / (1 + exp((-70 - V_soma) / -5.8)) : 1
tau_h = 3 * exp((-40 - V_soma) / 33) : 1
dn/dt = (n_inf - n) / tau_n / ms : 1
dp/dt = (p_inf - p) / tau_n / ms : 1
n_inf = 1 / (1 + exp((-3 - V_soma) / 10)) : 1
p_inf = 1 / (1 + exp((-51 - V_soma) / -12)) : 1
tau_n = 5 + 47 * exp(-(-50 - V_soma) / 900) : 1
u_x = V_soma + 25 + 1e-9 * int(abs(V_soma + 25) < 1e-9) : 1
a_x = 0.13 * u_x / (1 - exp(-u_x / 10)) : 1
b_x = 1.69 * exp(-0.0125 * (V_soma + 35)) : 1
dx_s/dt = (a_x - (a_x + b_x) * x_s) / ms : 1
# ---- axon
dV_axon/dt = -(I_K_a + I_sa + I_la + I_Na_a) / C_M / ms : 1
I_Na_a = G_NA_A * m_a**3 * h_a * (V_axon - V_NA) : 1
I_la = G_LA * (V_axon - V_L) : 1
I_sa = G_INT / P2 * (V_axon - V_soma) : 1
I_K_a = G_K_A * x_a**4 * (V_axon - V_K) : 1
m_a = 1 / (1 + exp((-30 - V_axon) / 5.5)) : 1
dh_a/dt = (h_a_inf - h_a) / tau_ha / ms : 1
h_a_inf = 1 / (1 + exp((-60 - V_axon) / -5.8)) : 1
tau_ha = 1.5 * exp((-40 - V_axon) / 33) : 1
u_xa = V_axon + 25 + 1e-9 * int(abs(V_axon + 25) < 1e-9) : 1
a_xa = 0.13 * u_xa / (1 - exp(-u_xa / 10)) : 1
b_xa = 1.69 * exp(-0.0125 * (V_axon + 35)) : 1
dx_a/dt = (a_xa - (a_xa + b_xa) * x_a) / ms : 1
# ---- per-cell parameters and the junction current (summed by the Synapses)
g_CaL : 1 (constant)
I_app : 1
I_c : 1
'''

# RGJ: I_c(post) = sum over partners of w * (0.8 exp(-V^2/100) + 0.2) * V,
# V = V_dend(post) - V_dend(pre).
GJ_EQS = '''
I_c_post = W_GJ * (0.8 * exp(-(V_dend_post - V_dend_pre)**2 / 100) + 0.2) * (V_dend_post - V_dend_pre) : 1 (summed)
'''

INIT = dict(V_dend=-60.0, q=0.0337836, r=0.0112788, s=0.0049291, Ca=3.7152,
            g_CaL=0.68, V_soma=-60.0, h=0.3596066, k=0.7423159, l=0.0321349,
            n=0.2369847, p=0.2369847, x_s=0.1,
            V_axon=-60.0, h_a=0.9, x_a=0.2369847, I_app=0.0)


@functools.lru_cache(maxsize=1)
def partners(n_cells, k, seed):
    """Exactly k distinct partners != i for every cell i; returns (pre, post)
    grouped by post cell, pre sorted within each row."""
    rng = np.random.default_rng(seed)
    pre = np.empty((n_cells, k), dtype=np.int32)
    for i in range(n_cells):
        c = np.sort(rng.choice(n_cells - 1, size=k, replace=False))
        c[c >= i] += 1
        pre[i] = c
    post = np.repeat(np.arange(n_cells, dtype=np.int32), k)
    return pre.ravel(), post


def olive_partners(path, n_cells, k):
    """The junctions of an olive-genconn file (/gap_junctions: row_ptr, col),
    so that Brian2 runs olive's very network: row i lists the cells whose
    V_dend drive cell i's I_c, i.e. pre = col, post = i. Refused unless the
    file has n_cells cells and k junctions per cell on average."""
    import h5py
    with h5py.File(path, 'r') as f:
        if 'gap_junctions' not in f:
            sys.exit(f'{path}: no /gap_junctions group (an olive-genconn InfOli network is expected)')
        row_ptr = f['gap_junctions/row_ptr'][:].astype(np.int64)
        col = f['gap_junctions/col'][:].astype(np.int32)
    if len(row_ptr) != n_cells + 1:
        sys.exit(f'{path}: /gap_junctions/row_ptr has {len(row_ptr)} entries, not --cells + 1 = {n_cells + 1}')
    if row_ptr[-1] != len(col) or row_ptr[-1] != n_cells * k:
        sys.exit(f'{path}: {len(col)} junctions, not {n_cells} cells x {k} (--junctions)')
    post = np.repeat(np.arange(n_cells, dtype=np.int32), np.diff(row_ptr))
    return col, post


def run_one(b2, args, n_junc, threads, base):
    from brian2 import (NeuronGroup, Synapses, Network, defaultclock, prefs,
                        device, set_device, ms)
    directory = os.path.join(base, f'n{args.cells}_k{n_junc}_t{threads}')
    set_device('cpp_standalone', directory=directory, build_on_run=True,
               with_output=False)
    prefs.devices.cpp_standalone.openmp_threads = threads
    prefs.core.default_float_dtype = np.float64
    defaultclock.dt = 0.05 * ms
    ns = dict(CONSTS)
    ns['ms'] = ms
    G = NeuronGroup(args.cells, EQS, method='euler', namespace=ns)
    for name, val in INIT.items():
        setattr(G, name, val)
    objs = [G]
    if n_junc > 0:
        S = Synapses(G, G, model=GJ_EQS, namespace=ns)
        pre, post = (olive_partners(args.network, args.cells, n_junc) if args.network
                     else partners(args.cells, n_junc, args.seed))
        S.connect(i=pre, j=post)
        objs.append(S)
    net = Network(*objs)
    t0 = time.time()
    net.run(args.steps * 0.05 * ms)
    wall = time.time() - t0
    sim = device._last_run_time
    v = np.asarray(G.V_axon[:])
    rate = args.cells * args.steps / sim
    print(f'brian2 {b2.__version__}: {args.cells} cells, {n_junc} junctions/cell, '
          f'{threads} threads, {args.steps} steps: simulation {sim:.3f} s '
          f'(build+run {wall:.3f} s, V_axon mean {np.nanmean(v):.4f}), '
          f'{rate:.6g} cell-steps/s', flush=True)
    device.reinit()
    device.activate()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cells', type=int, default=4096)
    ap.add_argument('--junctions', default='0,100',
                    help='comma-separated K values (partners per cell)')
    ap.add_argument('--threads', default='1,2',
                    help='comma-separated OpenMP thread counts')
    ap.add_argument('--steps', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--dir', default=os.environ.get(
        'BRIAN2_DIR', f'/tmp/olive-brian2-{os.getuid()}'),
        help='where the standalone projects are kept (reused between runs, '
             'so an unchanged project is not recompiled)')
    ap.add_argument('--network', default=None,
                    help='an olive-genconn file whose junctions Brian2 runs (one --junctions value); '
                         'without it, the same law drawn here')
    args = ap.parse_args()
    if args.network and ',' in args.junctions:
        ap.error('--network takes one --junctions value (the file\'s junctions per cell)')
    import brian2 as b2
    b2.prefs.devices.cpp_standalone.extra_make_args_unix = [f'-j{os.cpu_count() or 1}']
    for k in (int(x) for x in args.junctions.split(',')):
        for t in (int(x) for x in args.threads.split(',')):
            run_one(b2, args, k, t, args.dir)
    return 0


if __name__ == '__main__':
    sys.exit(main())
