#!/usr/bin/env bash
# A worked example of your own model (docs/MODELS.md, "Your own models: NESTML"):
# Izhikevich's (2003) network of 800 regular-spiking and 200 fast-spiking
# cells, with the izhikevich_neuron model of NESTML's own library, built for
# olive by `olive-model build` (cached: the second run builds nothing; where
# nvcc is found the plugin carries its GPU image too).
#   regular spiking (rs): a 0.02, b 0.2, c -65 mV, d 8;  fast spiking (fs): a 0.1, d 2
#   every ordered pair connected: an rs spike adds 0..0.5 mV to V_m, an fs spike
#   0..-1 mV (uniform, per synapse), 1 ms later; Poisson input (the paper's
#   random thalamic drive) into every cell; 1 s at dt = 0.1 ms.
#   OUT [izhikevich_network-out]  BIN [../build/bin]  TIME [1000] ms
#   MODEL [NESTML's izhikevich_neuron.nestml in this Python's prefix]
#   OLIVE_MODEL [olive-model]  (e.g. "python -m olive.nestml")
source "$(dirname "$0")/../spiking_common.sh"
MODEL=${MODEL:-$(python3 -c 'import sys; print(sys.prefix)')/models/neurons/izhikevich_neuron.nestml}
[ -f "$MODEL" ] || { echo "no $MODEL: pip install nestml (or './python[nestml]'), or set MODEL=FILE.nestml" >&2; exit 1; }
so=$(${OLIVE_MODEL:-olive-model} build "$MODEL")
"$BIN/olive-genconn" -o "$OUT/net.h5" --model "$so" --population rs:800 --population fs:200 --seed 1 \
    --param fs.a=0.1 --param fs.d=2 \
    --projection from=rs,to=all,p=1,weight=0:0.5,delay=1,receptor=spikes \
    --projection from=fs,to=all,p=1,weight=-1:0,delay=1,receptor=spikes --force
"$BIN/olive-simulate" "$OUT/net.h5" -o "$OUT/run" --time "${TIME:-1000}" --record V_m --record-cells 0:10,800:805 \
    --poisson rate=1000,weight=4,receptor=spikes,n=1 --force
"$BIN/olive-analyze" summary "$OUT/run"
"$BIN/olive-analyze" plot "$OUT/run" -o "$OUT/raster.png" --kind raster || echo "(no plot: cairo missing)"
