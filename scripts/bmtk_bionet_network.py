#!/usr/bin/env python3
"""A small SONATA network of Allen cells built with bmtk's own NetworkBuilder,
its input spike trains, and bmtk BioNet's run of it on NEURON: the peer's side
of tests/test_bionet_network.sh (issue 57).

    bmtk_bionet_network.py build DIR   # DIR/network, DIR/components, DIR/inputs, DIR/config.json
    bmtk_bionet_network.py run DIR     # BioNet: DIR/output/spikes.h5 (mpirun -np N for N ranks)

The network, as bmtk's tutorials build one ("bio_450cells" in small): node
population v1 of 8 biophysical cells of 4 Allen types (ctdb:Biophys1.hoc,
aibs_perisomatic, each type's own SWC file and fit JSON from bmtk's package);
a virtual population lgn of 20 nodes whose spike trains come from a SONATA
spikes file; edges lgn -> v1 and v1 -> v1 with bmtk's own synaptic models
(AMPA_ExcToExc onto excitatory cells, AMPA_ExcToInh onto inhibitory ones,
GABA_InhToExc: exp2syn) and their synapse
sites drawn at build time by bmtk's rand_syn_locations (afferent_section_id,
afferent_section_pos: the section of BioNet's cell.all and x on it). The run
config is bmtk's default one (dt 0.025 here, dL 20, spike_threshold -15,
celsius 34, v_init -80), 300 ms.
"""
import json
import os
import zlib
import shutil
import sys

import numpy as np

TYPES = [  # (pop_name, ei, morphology, fit)
    ("Scnn1a", "e", "Scnn1a_473845048_m.swc", "472363762_fit.json"),
    ("Rorb", "e", "Rorb_325404214_m.swc", "473863510_fit.json"),
    ("Nr5a1", "e", "Nr5a1_471087815_m.swc", "473863035_fit.json"),
    ("Pvalb", "i", "Pvalb_470522102_m.swc", "472912177_fit.json"),
]
TSTOP, DT, N_LGN = 300.0, 0.025, 20


def bionet_files():
    import bmtk
    return os.path.join(os.path.dirname(bmtk.__file__), "utils", "scripts", "bionet")


def build(d):
    from bmtk.builder.networks import NetworkBuilder
    from bmtk.builder.bionet import rand_syn_locations
    src = bionet_files()
    comp = os.path.join(d, "components")
    for sub in ("morphologies", "biophysical_neuron_models", "synaptic_models"):
        shutil.copytree(os.path.join(src, sub), os.path.join(comp, sub))
    shutil.copytree(os.path.join(src, "mechanisms", "modfiles"), os.path.join(comp, "mechanisms", "modfiles"))
    morph = os.path.join(comp, "morphologies")
    v1 = NetworkBuilder("v1")
    for name, ei, swc, fit in TYPES:
        v1.add_nodes(N=2, pop_name=name, ei=ei, model_type="biophysical", model_template="ctdb:Biophys1.hoc",
                     model_processing="aibs_perisomatic", morphology=swc, dynamics_params=fit)
    rng = np.random.default_rng(5)

    def some(source, target, p):   # a fixed draw per pair (bmtk calls the rule once per pair)
        return int(rng.random() < p)

    from bmtk.builder.bionet.swc_reader import get_swc

    def seeded_sites(src, trg, **kw):
        # bmtk's rand_syn_locations, its target's cached morphology reader given a generator seeded by the pair
        # (bmtk makes each reader's own unseeded: the sites, and so the spikes, changed from build to build)
        swc = get_swc(trg, morphology_dir=kw.get("morphology_dir"), use_cache=True)
        key = f"{src.get('population', '')}:{src['node_id']}:{trg['node_id']}".encode()
        swc._prng = np.random.RandomState(zlib.crc32(key))
        return rand_syn_locations(src, trg, **kw)

    sites = dict(names=["afferent_section_id", "afferent_section_pos", "afferent_swc_id", "afferent_swc_pos"],
                 rule=seeded_sites, dtypes=[np.int64, np.float64, np.int64, np.float64])
    for tgt_ei, syn, sections, w in (("e", "AMPA_ExcToExc.json", ["basal", "apical"], 4e-3),
                                     ("i", "AMPA_ExcToInh.json", ["somatic", "basal"], 2e-3)):
        cm = v1.add_edges(source={"ei": "e"}, target={"ei": tgt_ei}, connection_rule=some, connection_params={"p": 0.4},
                          syn_weight=w, delay=2.0, dynamics_params=syn, model_template="exp2syn")
        cm.add_properties(rule_params={"sections": sections, "distance_range": [0.0, 200.0], "morphology_dir": morph},
                          **sites)
    cm = v1.add_edges(source={"ei": "i"}, target={"ei": "e"}, connection_rule=some, connection_params={"p": 0.6},
                      syn_weight=6e-3, delay=1.5, dynamics_params="GABA_InhToExc.json", model_template="exp2syn")
    cm.add_properties(rule_params={"sections": ["somatic"], "distance_range": [0.0, 50.0], "morphology_dir": morph}, **sites)
    v1.build()
    v1.save(output_dir=os.path.join(d, "network"))
    lgn = NetworkBuilder("lgn")
    lgn.add_nodes(N=N_LGN, model_type="virtual", pop_name="tON", ei="e")
    for tgt_ei, syn, w in (("e", "AMPA_ExcToExc.json", 5e-3), ("i", "AMPA_ExcToInh.json", 4e-2)):
        cm = lgn.add_edges(source=lgn.nodes(), target=v1.nodes(ei=tgt_ei), connection_rule=some,
                           connection_params={"p": 0.5}, syn_weight=w, delay=1.0, dynamics_params=syn,
                           model_template="exp2syn")
        cm.add_properties(rule_params={"sections": ["basal", "somatic"], "distance_range": [0.0, 150.0],
                                       "morphology_dir": morph}, **sites)
    lgn.build()
    lgn.save(output_dir=os.path.join(d, "network"))
    # the input spike trains (SONATA spikes, times on the 0.025 ms grid as a stimulus program writes them)
    os.makedirs(os.path.join(d, "inputs"))
    ids, ts = [], []
    for n in range(N_LGN):
        t = np.cumsum(rng.exponential(1000.0 / 40.0, 40))
        t = np.round(t[(t > 1.0) & (t < TSTOP - 5)] / DT) * DT
        ids += [n] * len(t)
        ts += list(t)
    order = np.argsort(ts, kind="stable")
    import h5py
    with h5py.File(os.path.join(d, "inputs", "lgn_spikes.h5"), "w") as f:
        g = f.create_group("spikes/lgn")
        g.attrs["sorting"] = "by_time"
        g["timestamps"] = np.asarray(ts)[order]
        g["timestamps"].attrs["units"] = "ms"
        g["node_ids"] = np.asarray(ids, np.uint64)[order]
    with open(os.path.join(src, "default_config.json")) as f:
        cfg = json.load(f)
    cfg["manifest"] = {"$BASE_DIR": "${configdir}", "$OUTPUT_DIR": "$BASE_DIR/output",
                       "$NETWORK_DIR": "$BASE_DIR/network", "$COMPONENTS_DIR": "$BASE_DIR/components"}
    cfg["run"].update(tstop=TSTOP, dt=DT)
    cfg["inputs"] = {"lgn_spikes": {"input_type": "spikes", "module": "sonata", "node_set": "lgn",
                                    "input_file": "$BASE_DIR/inputs/lgn_spikes.h5"}}
    cfg["components"] = {"morphologies_dir": "$COMPONENTS_DIR/morphologies",
                         "synaptic_models_dir": "$COMPONENTS_DIR/synaptic_models",
                         "mechanisms_dir": "$COMPONENTS_DIR/mechanisms",
                         "biophysical_neuron_models_dir": "$COMPONENTS_DIR/biophysical_neuron_models"}
    net = "$NETWORK_DIR/"
    cfg["networks"] = {"nodes": [{"nodes_file": net + f"{p}_nodes.h5", "node_types_file": net + f"{p}_node_types.csv"}
                                 for p in ("v1", "lgn")],
                       "edges": [{"edges_file": net + f"{a}_v1_edges.h5", "edge_types_file": net + f"{a}_v1_edge_types.csv"}
                                 for a in ("v1", "lgn")]}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


def run(d):
    import subprocess
    mech = os.path.join(d, "components", "mechanisms")
    if not os.path.isdir(os.path.join(mech, "x86_64")):
        nrnivmodl = os.path.join(os.path.dirname(sys.executable), "nrnivmodl")
        subprocess.run([nrnivmodl, "modfiles"], cwd=mech, check=True, capture_output=True)
    from bmtk.simulator import bionet
    conf = bionet.Config.from_json(os.path.join(d, "config.json"), validate=True)
    conf.build_env()
    net = bionet.BioNetwork.from_config(conf)
    sim = bionet.BioSimulator.from_config(conf, network=net)
    sim.run()
    bionet.nrn.quit_execution()


if __name__ == "__main__":
    {"build": build, "run": run}[sys.argv[1]](os.path.abspath(sys.argv[2]))
