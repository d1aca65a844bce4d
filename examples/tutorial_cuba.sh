#!/usr/bin/env bash
# The tutorial's network (Yamazaki and Igarashi's tutorial, docs/REFERENCES.md): 4000 lif_cuba cells,
# 3200 excitatory and 800 inhibitory, every ordered pair connected with
# p = 0.02, an excitatory spike adds 1.62 mV to ge and an inhibitory one
# -9 mV to gi, no delay, no refractory period, every cell starting at -60 mV;
# 1 s at dt = 0.1 ms with exact integration, then a summary and a raster.
#   OUT [tutorial_cuba-out]  output directory;  BIN [../build/bin];  TIME [1000] ms
source "$(dirname "$0")/spiking_common.sh"
"$BIN/olive-genconn" -o "$OUT/net.h5" --model lif_cuba --population exc:3200 --population inh:800 --seed 1 \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi --force
"$BIN/olive-simulate" "$OUT/net.h5" -o "$OUT/run" --time "${TIME:-1000}" --record v --record-cells 0:100 --force
"$BIN/olive-analyze" summary "$OUT/run"
"$BIN/olive-analyze" plot "$OUT/run" -o "$OUT/raster.png" --kind raster || echo "(no plot: cairo missing)"
