#!/usr/bin/env bash
# Brette et al. 2007, benchmark 2 (CUBA; Brian2's examples/CUBA.py, NEST's
# brette_et_al_2007/cuba.py): the tutorial's network with a 5 ms refractory
# period and initial potentials uniform in [V_reset, V_th) = [-60, -50) mV;
# 1 s at dt = 0.1 ms, exact integration.
#   OUT [brette_cuba-out];  BIN [../build/bin];  TIME [1000] ms;  SEED [1]
source "$(dirname "$0")/spiking_common.sh"
"$BIN/olive-genconn" -o "$OUT/net.h5" --model lif_cuba --population exc:3200 --population inh:800 \
    --param t_ref=5 --v0 -60:-50 --seed "${SEED:-1}" \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi --force
"$BIN/olive-simulate" "$OUT/net.h5" -o "$OUT/run" --time "${TIME:-1000}" --record v --record-cells 0:100 --force
"$BIN/olive-analyze" summary "$OUT/run"
"$BIN/olive-analyze" plot "$OUT/run" -o "$OUT/raster.png" --kind raster || echo "(no plot: cairo missing)"
