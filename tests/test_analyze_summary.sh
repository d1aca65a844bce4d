#!/usr/bin/env bash
# olive-analyze summary on hand-made SONATA spike files (written with h5py,
# so no other olive program is needed): exact counts, rates and first spikes,
# every fallback for cells and duration, --csv, --population, and the error
# cases (exit 2, message naming the file and the dataset).
set -euo pipefail
A="$BIN/olive-analyze"

fail() { echo "FAIL: $*" >&2; exit 1; }
# has FILE REGEX: some line of FILE matches the extended regex.
has() { grep -Eq -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "no line matching /$2/ in $1"; }; }
# csv_is FILE KEY VALUE: the line KEY,VALUE is in FILE exactly.
csv_is() { grep -Fxq -- "$2,$3" "$1" || { echo "--- $1:"; cat "$1"; fail "expected '$2,$3' in $1"; }; }
# fails_with REGEX CMD...: CMD exits 2 and its stderr matches REGEX.
fails_with() {
  local re=$1 rc=0; shift
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] || { cat err.txt; fail "exit status $rc, expected 2: $*"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "stderr of '$*' does not match /$re/"; }
  [ ! -s out.txt ] || { cat out.txt; fail "'$*' printed to stdout on error"; }
}

"$PY" - <<'EOF'
import h5py, numpy as np, os

def spikes(path, t, n, pop="io", attrs=None, units="ms", ntype=np.uint64, sorting="by_time"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with h5py.File(path, "w") as f:
        for k, v in (attrs or {}).items():
            f.attrs[k] = v
        g = f.create_group("spikes/" + pop)
        if sorting:
            g.attrs["sorting"] = sorting
        d = g.create_dataset("timestamps", data=np.asarray(t, dtype=np.float64))
        if units:
            d.attrs["units"] = units
        g.create_dataset("node_ids", data=np.asarray(n, dtype=ntype))

prov = dict(cells=np.int64(10), steps=np.int64(2000), dt=0.05, world_size=np.int64(1),
            threads=np.int64(2), time_total_s=1.5, backend="cpu", precision="double",
            gj="rgj", olive_version="0.1.0", command="olive-simulate net.h5 -o full --steps 2000")
# 1. an olive-simulate-like run: 10 cells, 100 ms, 6 spikes by 5 cells.
t = [10.5, 12.0, 12.0, 30.0, 50.25, 99.95]
n = [3, 1, 7, 3, 9, 0]
spikes("full/spikes.h5", t, n, attrs=prov)
# 2. the same spikes stored out of time order (sorted by id): same answers.
order = np.lexsort((t, n))
spikes("byid/spikes.h5", np.array(t)[order], np.array(n)[order], attrs=prov, sorting="by_id")
# 3. no provenance: cells and duration from the v_axon report (olive's
#    convention start = step: 20 cells, frames at 1..200 ms -> 200 ms).
spikes("report/spikes.h5", [150.0, 20.0, 75.5, 180.0], [19, 4, 4, 0])
with h5py.File("report/v_axon.h5", "w") as f:
    g = f.create_group("report/io")
    g.create_dataset("data", data=np.zeros((200, 20), np.float32))
    m = g.create_group("mapping")
    m.create_dataset("node_ids", data=np.arange(20, dtype=np.uint64))
    m.create_dataset("index_pointers", data=np.arange(21, dtype=np.uint64))
    m.create_dataset("element_ids", data=np.zeros(20, np.uint32))
    m.create_dataset("time", data=np.array([1.0, 201.0, 1.0]))
# 4. a bare spike file (signed ids, times in seconds): everything from the spikes.
spikes("bare.h5", [0.005, 0.040, 0.020], [0, 2, 4], units="s", ntype=np.int32, sorting=None)
# 5. a run without spikes.
spikes("quiet/spikes.h5", [], [], attrs=prov)
# 6. two populations.
with h5py.File("two.h5", "w") as f:
    for pop, t, n in (("io", [1.0, 2.0], [0, 1]), ("pc", [3.0], [5])):
        g = f.create_group("spikes/" + pop)
        g.create_dataset("timestamps", data=np.array(t))
        g.create_dataset("node_ids", data=np.array(n, np.uint64))
# 7. legacy SONATA layout: /spikes/timestamps + /spikes/gids.
with h5py.File("legacy.h5", "w") as f:
    f.create_dataset("spikes/timestamps", data=np.array([4.0, 8.0]))
    f.create_dataset("spikes/gids", data=np.array([1, 1], np.uint64))

# Malformed files.
open("noth5.h5", "w").write("this is not HDF5\n")
with h5py.File("nospikes.h5", "w") as f:
    f.create_group("report")
with h5py.File("nopop.h5", "w") as f:
    f.create_group("spikes")
with h5py.File("noids.h5", "w") as f:
    f.create_dataset("spikes/io/timestamps", data=np.array([1.0]))
spikes("mismatch.h5", [1.0, 2.0, 3.0], [0, 1])
spikes("floatids.h5", [1.0, 2.0], [0, 1], ntype=np.float64)
spikes("nan.h5", [1.0, float("nan")], [0, 1])
spikes("negid.h5", [1.0, 2.0], [0, -3], ntype=np.int64)
spikes("toobig/spikes.h5", [1.0, 2.0], [0, 10], attrs=prov)
with h5py.File("badattr.h5", "w") as f:   # caught by common/io/h5util: still exit 2
    f.attrs["cells"] = "ten"
    f.create_dataset("spikes/io/timestamps", data=np.array([1.0]))
    f.create_dataset("spikes/io/node_ids", data=np.array([0], np.uint64))
with h5py.File("twod.h5", "w") as f:
    f.create_dataset("spikes/io/timestamps", data=np.zeros((2, 2)))
    f.create_dataset("spikes/io/node_ids", data=np.zeros(4, np.uint64))
EOF

# --- 1. text output of a complete run ---
"$A" summary full >full.txt
cat full.txt
has full.txt '^spike file +full/spikes\.h5$'
has full.txt '^population +io$'
has full.txt '^cells +10 +\(root attribute cells\)$'
has full.txt '^duration +100 ms +\(steps x dt = 2000 x 0\.05 ms\)$'
has full.txt '^spikes +6$'
has full.txt '^cells that spiked +5 +\(50\.0% of the cells\)$'
has full.txt '^mean rate +6 Hz'                       # 6 spikes / 10 cells / 0.1 s
has full.txt '^first spike +10\.5 ms, node 3$'
has full.txt '^last spike +99\.95 ms$'
has full.txt '^backend +cpu$'
has full.txt '^precision +double$'
has full.txt '^gap junctions +rgj$'
has full.txt '^world size +1 '
has full.txt '^total time +1\.5 s$'
has full.txt '^ +12 +7$'                               # third spike: (12 ms, node 7)
has full.txt '^ *10 - +20 ms +3  #{40}$'               # histogram: 3 spikes in [10, 20)
has full.txt '^ *90 - 100 ms +1  #+$'                  # 99.95 ms in the last bin

# --- --csv: key,value lines ---
"$A" summary full --csv >full.csv
head -n 1 full.csv | grep -Fxq 'key,value' || fail "CSV header missing"
csv_is full.csv cells 10
csv_is full.csv cells_source "root attribute cells"
csv_is full.csv duration_ms 100
csv_is full.csv spikes 6
csv_is full.csv cells_spiked 5
csv_is full.csv mean_rate_hz 6
csv_is full.csv first_spike_ms 10.5
csv_is full.csv first_spike_node 3
csv_is full.csv backend cpu
csv_is full.csv world_size 1
csv_is full.csv time_total_s 1.5
csv_is full.csv spike_2_ms 12
csv_is full.csv spike_2_node 1
csv_is full.csv spike_3_node 7
csv_is full.csv bins 10
csv_is full.csv bin_2_start_ms 10
csv_is full.csv bin_2_spikes 3
csv_is full.csv bin_10_spikes 1
csv_is full.csv spikes_outside 0
# every line is exactly key,value (commands with commas would be quoted)
awk -F, 'NF != 2 { bad = 1; print "bad CSV line: " $0 } END { exit bad }' full.csv
# options anywhere, --bins, --first
"$A" summary --csv --bins 4 --first 1 full >opts.csv
csv_is opts.csv bins 4
csv_is opts.csv bin_1_spikes 3      # [0, 25): 10.5, 12, 12
csv_is opts.csv bin_4_spikes 1      # [75, 100]: 99.95
grep -q '^spike_2_' opts.csv && fail "--first 1 listed more than one spike"

# --- 2. unsorted file: same answers ---
"$A" summary byid --csv >byid.csv
for kv in spikes,6 cells_spiked,5 mean_rate_hz,6 first_spike_ms,10.5 first_spike_node,3 \
          spike_2_node,1 spike_3_node,7 spike_5_ms,50.25 bin_2_spikes,3 sorting,by_id; do
  csv_is byid.csv "${kv%%,*}" "${kv#*,}"
done

# --- 3. cells and duration from a report ---
"$A" summary report --csv >report.csv
csv_is report.csv cells 20
csv_is report.csv duration_ms 200
csv_is report.csv spikes 4
csv_is report.csv cells_spiked 3
csv_is report.csv mean_rate_hz 1               # 4 / 20 / 0.2 s
csv_is report.csv first_spike_ms 20
csv_is report.csv first_spike_node 4
grep -q '^cells_source,.*mapping/node_ids.*v_axon\.h5' report.csv || fail "cells source not named"
grep -q '^duration_source,.*mapping/time.*v_axon\.h5' report.csv || fail "duration source not named"

# --- 4. bare spike file given directly: largest id + 1, last spike; seconds ---
"$A" summary bare.h5 --csv >bare.csv
csv_is bare.csv cells 5
csv_is bare.csv duration_ms 40
csv_is bare.csv first_spike_ms 5
csv_is bare.csv mean_rate_hz 15                # 3 / 5 / 0.04 s
grep -q '^cells_source,largest node id + 1; no cells attribute or report$' bare.csv || fail "cells source not named"
grep -q '^duration_source,last spike time' bare.csv || fail "duration source not named"
"$A" summary bare.h5 >bare.txt
has bare.txt '^cells +5 +\(largest node id \+ 1; no cells attribute or report\)$'

# --- 5. no spikes ---
"$A" summary quiet >quiet.txt
has quiet.txt '^spikes +0$'
has quiet.txt '^mean rate +0 Hz'
has quiet.txt '^first spike +none$'
"$A" summary quiet --csv >quiet.csv
csv_is quiet.csv spikes 0
csv_is quiet.csv cells_spiked 0
csv_is quiet.csv first_spike_ms ""

# --- 6. populations ---
# several populations and no --population: one row per population
"$A" summary two.h5 --csv >two.csv
grep -Fxq "population,cells,duration_ms,spikes,cells_spiked,mean_rate_hz" two.csv || { cat two.csv; fail "per-population header"; }
grep -Fxq "io,2,2,2,2,500" two.csv && grep -Fxq "pc,6,3,1,1,55.5556" two.csv || { cat two.csv; fail "per-population rows"; }
"$A" summary two.h5 | grep -Eq '^pc +6 +3 +1 +1 +55\.5556$' || fail "per-population text rows"
"$A" summary two.h5 --population pc --csv >pc.csv
csv_is pc.csv population pc
csv_is pc.csv spikes 1
csv_is pc.csv first_spike_node 5
fails_with "two\.h5: population 'xx' not found \(group /spikes/xx is missing; populations: io, pc\)" \
  "$A" summary two.h5 --population xx

# --- 7. legacy layout ---
"$A" summary legacy.h5 --csv >legacy.csv
csv_is legacy.csv spikes 2
csv_is legacy.csv cells_spiked 1
csv_is legacy.csv cells 2

# --- errors: exit 2, file and dataset named, nothing on stdout ---
fails_with '^olive-analyze: error: nowhere: no such file or directory$' "$A" summary nowhere
mkdir emptydir
fails_with 'emptydir/spikes\.h5: no such file' "$A" summary emptydir
fails_with 'noth5\.h5: not an HDF5 file' "$A" summary noth5.h5
fails_with 'nospikes\.h5: group /spikes is missing' "$A" summary nospikes.h5
fails_with 'nopop\.h5: no population under /spikes' "$A" summary nopop.h5
fails_with 'noids\.h5: dataset /spikes/io/node_ids is missing' "$A" summary noids.h5
fails_with 'mismatch\.h5: /spikes/io/timestamps has 3 entries but /spikes/io/node_ids has 2' "$A" summary mismatch.h5
fails_with 'floatids\.h5: dataset /spikes/io/node_ids must hold integers' "$A" summary floatids.h5
fails_with 'nan\.h5: /spikes/io/timestamps\[1\] is nan' "$A" summary nan.h5
fails_with 'negid\.h5: /spikes/io/node_ids\[1\] = -3 is negative' "$A" summary negid.h5
fails_with 'toobig/spikes\.h5: /spikes/io/node_ids\[1\] = 10 is not a cell of a 10-cell run' "$A" summary toobig
fails_with 'twod\.h5: dataset /spikes/io/timestamps must be 1-D' "$A" summary twod.h5
fails_with "badattr\.h5: /: attribute 'cells' is not numeric" "$A" summary badattr.h5
fails_with 'missing OUTDIR' "$A" summary
fails_with "unknown option '--frobnicate'" "$A" summary full --frobnicate
fails_with 'option --population needs a value' "$A" summary full --population
fails_with "--bins: 'abc' is not an integer" "$A" summary full --bins abc
fails_with "unknown subcommand 'frob'" "$A" frob
fails_with 'missing subcommand' "$A"

# --- on a real olive-simulate run, when that program is built: 4 uncoupled
#     cells, the classic pulse; MODEL.md: one spike each at 1008.2 ms ---
if [ -x "$BIN/olive-simulate" ]; then
  "$PY" - <<'EOF'
import h5py, numpy as np
with h5py.File("net4.h5", "w") as f:
    f.attrs["format"] = "olive-network"
    f.attrs["format_version"] = np.int64(1)
    c = f.create_group("cells")
    c.attrs["count"] = np.int64(4)
    c.attrs["dims"] = np.array([4, 1, 1], np.int64)
    g = f.create_group("gap_junctions")
    g.create_dataset("row_ptr", data=np.zeros(5, np.int64))
    g.create_dataset("col", data=np.zeros(0, np.int32))
    g.attrs["bits"] = np.int64(0)
    g.attrs["offset"] = 0.04
    g.attrs["scale"] = 0.0
EOF
  "$BIN/olive-simulate" net4.h5 -o sim --time 1100 --pulse 1000:1024.95:6 --record-every 100 >/dev/null
  "$A" summary sim --csv >sim.csv
  csv_is sim.csv cells 4
  csv_is sim.csv duration_ms 1100
  csv_is sim.csv spikes 4
  csv_is sim.csv cells_spiked 4
  csv_is sim.csv first_spike_ms 1008.2
  csv_is sim.csv first_spike_node 0
  csv_is sim.csv spike_4_node 3
  csv_is sim.csv backend cpu
  csv_is sim.csv gj rgj
  csv_is sim.csv world_size 1
else
  echo "(olive-simulate not built: skipping the check on a real run)"
fi

# --- --help, --version ---
"$A" --help | grep -q 'summary' || fail "--help does not list summary"
"$A" summary --help | grep -q -- '--population' || fail "summary --help incomplete"
"$A" --version | grep -Eq '^olive-analyze [0-9]+\.[0-9]+' || fail "--version"
echo "analyze summary: all checks passed"
