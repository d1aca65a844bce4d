"""Recorder of pyNN.olive: runs olive up to now where run() left it to do
(simulator.State.flush), then reads the last olive run (spikes, and the reports
v, ge, gi converted back to PyNN's units) for PyNN's Neo machinery."""

import numpy as np

from pyNN import recording

from olive.writer import ms_to_steps

from . import simulator


class Recorder(recording.Recorder):
    _simulator = simulator

    def _record(self, variable, new_ids, sampling_interval=None):
        self._simulator.state.touch()
        if sampling_interval is not None:
            dt = self._simulator.state.dt
            k = ms_to_steps(sampling_interval, dt, "record(): sampling_interval", rounding="even")
            if abs(sampling_interval / dt - k) > 1e-9 or k < 1:
                raise ValueError("pyNN.olive: the sampling interval must be a multiple of the time step")
            self.sampling_interval = sampling_interval

    def _get_spiketimes(self, ids, clear=False):
        """(ids, times) arrays: PyNN turns them into a SpikeTrainList in one pass (a dict
        would cost it O(cells^2) for a large population)."""
        st = self._simulator.state
        st.flush()
        ids = np.asarray([int(i) for i in ids], dtype=np.int64)
        if st.result is None or len(ids) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        start = float(self._recording_start_time.rescale("ms").magnitude) if hasattr(
            self._recording_start_time, "rescale") else float(self._recording_start_time)
        all_ids, all_times = st.spike_arrays()
        keep = np.isin(all_ids, ids)
        if start > 0:
            keep &= all_times > start + 1e-9
        return all_ids[keep], all_times[keep].copy()

    def _get_all_signals(self, variable, ids, clear=False):
        st = self._simulator.state
        st.flush()
        ids = [int(i) for i in ids]
        n_samples = int(round(st.t / st.dt)) + 1
        if st.result is None or not ids:
            return np.zeros((n_samples if st.t > 0 else 0, len(ids))), None
        celltype = self.population.celltype
        if hasattr(self.population, "populations"):        # an Assembly's recorder is per population
            celltype = self.population.populations[0].celltype
        olive_var, factor = celltype.variables[variable.name]
        values = st.trace(olive_var, ids)
        if factor is not None:
            params = st.spec.native_of_cells(ids)
            values = values * factor(params)
        k = int(round(self.sampling_interval / st.dt))
        start = float(getattr(self._recording_start_time, "magnitude", self._recording_start_time))
        first = int(round(start / st.dt))              # after get_data(clear=True): from then on
        return values[first::k], None

    def _local_count(self, variable, filter_ids=None):
        self._simulator.state.flush()
        return {int(i): len(self._simulator.state.spikes_of(i)) if self._simulator.state.result is not None else 0
                for i in self.filter_recorded(variable, filter_ids)}

    def _clear_simulator(self):
        pass

    def _reset(self):
        pass
