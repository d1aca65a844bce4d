#!/usr/bin/env bash
# Brette et al. 2007, benchmark 1 (COBA; NEST's iaf_cond_exp, docs/MODELS.md):
# 4000 lif_coba cells (3200 excitatory), p = 0.02, excitatory synapses 6 nS
# onto ge (E_e = 0 mV), inhibitory 67 nS onto gi (E_i = -80 mV), delay 0.1 ms,
# refractory 5 ms, initial potentials uniform in [-60, -50) mV, and a Poisson
# kick of 300 Hz into cells 0..49 from 1 to 51 ms (6 nS per event) to start the
# activity; 1 s at dt = 0.1 ms, exponential Euler.
#   OUT [brette_coba-out];  BIN [../build/bin];  TIME [1000] ms;  SEED [1]
source "$(dirname "$0")/spiking_common.sh"
"$BIN/olive-genconn" -o "$OUT/net.h5" --model lif_coba --population exc:3200 --population inh:800 \
    --v0 -60:-50 --seed "${SEED:-1}" \
    --projection from=exc,to=all,p=0.02,weight=6,delay=0.1,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=67,delay=0.1,receptor=gi --force
"$BIN/olive-simulate" "$OUT/net.h5" -o "$OUT/run" --time "${TIME:-1000}" --record v --record-cells 0:100 \
    --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed "${SEED:-1}" --force
"$BIN/olive-analyze" summary "$OUT/run"
"$BIN/olive-analyze" plot "$OUT/run" -o "$OUT/raster.png" --kind raster || echo "(no plot: cairo missing)"
