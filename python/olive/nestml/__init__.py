"""olive's NESTML target: `olive-model build FILE.nestml` (build.py) turns a
NESTML neuron model into a plugin olive loads (common/models/model_plugin.h)."""
