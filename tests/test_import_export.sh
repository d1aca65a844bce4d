#!/usr/bin/env bash
# olive-genconn --import / --export-sonata (docs/IMPORT-EXPORT.md):
# - one random network written as an edge list (shuffled, mixed separators,
#   comments), a matrix and a SONATA edges file (syn_weight through a reversed
#   edge_group_index) imports to identical network files (datasets and
#   count/dims/bits/offset/scale), equal to the network written (numpy check);
# - --conductance-bits 8/16 quantise within scale/2; bits 0 refused for varied values;
# - generated networks exported with --export-sonata re-import exactly (bits 32,
#   bits 0, gaussian --symmetric on a 3-D lattice), the SONATA layout is checked,
#   and mpirun -np 2 exports the same files as one process;
# - every malformed input (tests/import_tool.py malformed) is refused: exit 1,
#   the file and the line number / dataset named, no output left behind;
# - --duplicates reject (default) and sum; bad argument combinations.
set -u
G="$BIN/olive-genconn"
T="$TESTS/import_tool.py"
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
run() {  # must succeed
  local rc=0; "$@" >run.out 2>run.err || rc=$?
  if [ $rc -ne 0 ]; then fail "$* (exit $rc): $(cat run.err)"; return 1; fi
}
py() { "$PY" "$T" "$@" || fail "import_tool.py $*"; }
no_output() {  # FILE...
  for f in "$@"; do
    [ ! -e "$f" ] || fail "$f was left behind"
    ! compgen -G "$f.tmp-*" >/dev/null || fail "$(compgen -G "$f.tmp-*") was left behind"
  done
}

echo "== the InfOli matrix: line i = sender, column j = receiver (asymmetric)"
printf '0 0.02 0\n0 0 0.05\n0.03 0 0\n' > asym.matrix
printf '0 1 0.02\n1 2 0.05\n2 0 0.03\n' > asym.edges       # source target w: the same junctions
printf '1 0 0.02\n2 1 0.05\n0 2 0.03\n' > asymT.edges      # the matrix read the other way
run "$G" -o am.h5 --import asym.matrix --import-format matrix
run "$G" -o ae.h5 --import asym.edges --import-format edges --cells 3
run "$G" -o amT.h5 --import asym.matrix --import-format matrix --transpose
run "$G" -o aeT.h5 --import asymT.edges --import-format edges --cells 3
py same am.h5 ae.h5
py same amT.h5 aeT.h5
"$PY" -c "
import h5py, numpy as np
f = h5py.File('am.h5'); g = f['gap_junctions']
# rows by receiving cell: cell 0 hears 2, cell 1 hears 0, cell 2 hears 1
assert list(g['row_ptr'][:]) == [0, 1, 2, 3] and list(g['col'][:]) == [2, 0, 1], (g['row_ptr'][:], g['col'][:])
assert np.allclose(g['conductance'][:], [0.03, 0.02, 0.05]), g['conductance'][:]
" || fail "asym.matrix is not read with line = sender"
# --conductance-bits 64: the original's doubles exactly, from the matrix and the edge list
printf '0 0.1 0\n0 0 0.030000000000000002\n0.123456789012345678 0 0\n' > asym64.matrix
printf '0 1 0.1\n1 2 0.030000000000000002\n2 0 0.123456789012345678\n' > asym64.edges
run "$G" -o am64.h5 --import asym64.matrix --import-format matrix --conductance-bits 64
run "$G" -o ae64.h5 --import asym64.edges --import-format edges --cells 3 --conductance-bits 64
py same am64.h5 ae64.h5
"$PY" -c "
import h5py, numpy as np
g = h5py.File('am64.h5')['gap_junctions']
w = g['conductance'][:]
assert g.attrs['bits'] == 64 and w.dtype == np.float64, (g.attrs['bits'], w.dtype)
assert list(w) == [0.123456789012345678, 0.1, 0.030000000000000002], list(w)   # exact doubles, receiver order
" || fail "--conductance-bits 64 does not store the file's doubles exactly"
if "$G" -o bad.h5 --import asym.edges --import-format edges --transpose >/dev/null 2>run.err; then fail "--transpose accepted for edges"; fi
grep -q -- "--transpose applies to --import-format matrix only" run.err || fail "--transpose with edges: $(cat run.err)"

echo "== self junctions: refused by default, dropped and counted with --drop-self"
printf '0 1 0.02\n2 2 0.05\n1 0 0.03\n3 3 0.01\n' > self.edges
if "$G" -o self.h5 --import self.edges --import-format edges >/dev/null 2>run.err; then fail "a self junction accepted"; fi
grep -q "self.edges: line 2: self junction (cell 2 to itself; --drop-self drops them)" run.err || fail "self junction: $(cat run.err)"
no_output self.h5
run "$G" -o self.h5 --import self.edges --import-format edges --drop-self --cells 4
grep -q "self.edges: dropped 2 self junction(s) (--drop-self)" run.err || fail "--drop-self count: $(cat run.err)"
printf '0 1 0.02\n1 0 0.03\n' > noself.edges
run "$G" -o noself.h5 --import noself.edges --import-format edges --cells 4
py same self.h5 noself.h5
printf '0.5 0.02\n0.03 0\n' > self.matrix
if "$G" -o sm.h5 --import self.matrix --import-format matrix >/dev/null 2>run.err; then fail "a diagonal entry accepted"; fi
run "$G" -o sm.h5 --import self.matrix --import-format matrix --drop-self
grep -q "dropped 1 self junction" run.err || fail "--drop-self matrix: $(cat run.err)"

echo "== SONATA: a constant syn_weight in the edge types table (as bmtk builds networks)"
"$PY" -c "
import h5py, numpy as np
with h5py.File('bmtk_edges.h5', 'w') as f:
    g = f.create_group('edges/net')
    g['source_node_id'] = np.array([1, 2, 0, 3], np.uint64); g['target_node_id'] = np.array([0, 0, 1, 2], np.uint64)
    g['edge_type_id'] = np.array([100, 101, 100, 101], np.uint32); g['edge_group_id'] = np.zeros(4, np.uint32)
    g['edge_group_index'] = np.arange(4, dtype=np.uint64); g.create_group('0')
open('bmtk_edge_types.csv', 'w').write('edge_type_id target_query source_query syn_weight delay\n100 * * 0.04 2.0\n101 * * 0.025 2.0\n')
"
run "$G" -o bmtk.h5 --import bmtk_edges.h5 --import-format sonata --cells 4
"$PY" -c "
import h5py, numpy as np
g = h5py.File('bmtk.h5')['gap_junctions']
assert list(g['row_ptr'][:]) == [0, 2, 3, 4, 4] and list(g['col'][:]) == [1, 2, 0, 3], (g['row_ptr'][:], g['col'][:])
w = g['conductance'][:]
assert np.allclose(w, [0.04, 0.025, 0.04, 0.025]), w
" || fail "syn_weight from bmtk_edge_types.csv"
printf 'edge_type_id syn_weight\n100 0.04\n' > bmtk_edge_types.csv       # type 101 missing
if "$G" -o bmtk2.h5 --import bmtk_edges.h5 --import-format sonata --cells 4 >/dev/null 2>run.err; then fail "an unknown edge type accepted"; fi
grep -q "edge_type_id\[1\] = 101 is not in bmtk_edge_types.csv" run.err || fail "unknown edge type: $(cat run.err)"
no_output bmtk2.h5

echo "== one network, three formats"
py make net 60 7
run "$G" -o e.h5 --import net.edges --import-format edges --cells 60 && py check e.h5 net.npz 32
run "$G" -o m.h5 --import net.matrix --import-format matrix && py check m.h5 net.npz 32
run "$G" -o s.h5 --import net_sonata.h5 --import-format sonata && py check s.h5 net.npz 32
grep -q "largest quantisation error" run.err || fail "no quantisation report: $(cat run.err)"
py same e.h5 m.h5
py same e.h5 s.h5
for d in /gap_junctions/row_ptr /gap_junctions/col /gap_junctions/conductance; do
  h5diff e.h5 m.h5 "$d" >/dev/null || fail "h5diff e.h5 m.h5 $d"
  h5diff e.h5 s.h5 "$d" >/dev/null || fail "h5diff e.h5 s.h5 $d"
done
h5dump -a /gap_junctions/generator s.h5 | grep -q import-sonata || fail "generator attribute of s.h5"
# the cell count from the largest id (59 appears in a random network of 60 cells
# with 240 junctions, but do not rely on it: compare with the expectation)
run "$G" -o e2.h5 --import net.edges --import-format edges &&
  "$PY" -c "import h5py,numpy as np,sys; n=int(h5py.File('e2.h5')['cells'].attrs['count']); e=np.load('net.npz'); sys.exit(int(n != int(max(e['t'].max(), e['s'].max())) + 1))" ||
  fail "cell count from the largest id"
for b in 4 8 16; do
  run "$G" -o q$b.h5 --import net.edges --import-format edges --cells 60 --conductance-bits $b && py check q$b.h5 net.npz $b
  grep -q "at $b bits .*largest quantisation error" run.err || fail "bits $b: no error report: $(cat run.err)"
done
"$G" -o b0.h5 --import net.edges --import-format edges --conductance-bits 0 >/dev/null 2>err.txt &&
  fail "bits 0 accepted for varied conductances"
grep -q "conductance-bits 0 needs one value" err.txt || fail "bits 0 message: $(cat err.txt)"
no_output b0.h5
# constant conductance (no third column): bits 0 by default, offset = --conductance
printf '0 1\n1 0\n2 1\n' > const.txt
run "$G" -o c.h5 --import const.txt --import-format edges --conductance 0.03 --dims 3x1x1 &&
  "$PY" -c "
import h5py; g = h5py.File('c.h5')['gap_junctions']
assert int(g.attrs['bits']) == 0 and g.attrs['offset'] == 0.03 and 'conductance' not in g, dict(g.attrs)
assert list(g['row_ptr'][:]) == [0, 1, 3, 3] and list(g['col'][:]) == [1, 0, 2]" || fail "constant conductance import"
# --gcal applies to imported networks too
run "$G" -o cg.h5 --import const.txt --import-format edges --gcal 0.5 &&
  "$PY" -c "import h5py; assert list(h5py.File('cg.h5')['cells/g_CaL'][:]) == [0.5]*3" || fail "--gcal with --import"

echo "== export and re-import"
roundtrip() {  # NAME, generator args...
  local name=$1; shift
  run "$G" -o $name.h5 "$@" --export-sonata $name || return
  [ -f ${name}_nodes.h5 ] && [ -f ${name}_edges.h5 ] || { fail "$name: no SONATA files"; return; }
  py layout $name $name.h5
  local cells dims
  cells=$("$PY" -c "import h5py; print(int(h5py.File('$name.h5')['cells'].attrs['count']))")
  dims=$("$PY" -c "import h5py; print('x'.join(str(int(x)) for x in h5py.File('$name.h5')['cells'].attrs['dims']))")
  run "$G" -o $name-back.h5 --import ${name}_edges.h5 --import-format sonata --dims $dims && py same $name.h5 $name-back.h5
  # and through the other two formats as well
  "$PY" -c "
import h5py, numpy as np
with h5py.File('${name}_edges.h5') as f:
    p = f['edges/io']; s, t, w = p['source_node_id'][:], p['target_node_id'][:], p['0/conductance'][:]
with open('$name.edges', 'w') as o:
    for a, b, c in zip(s, t, w): o.write(f'{a} {b} {c!r}\n')
m = np.zeros(($cells, $cells)); m[s, t] = w   # line = sender (the original InfOli orientation)
np.savetxt('$name.matrix', m, fmt='%.17g')"
  run "$G" -o $name-e.h5 --import $name.edges --import-format edges --dims $dims && py same $name.h5 $name-e.h5
  run "$G" -o $name-m.h5 --import $name.matrix --import-format matrix --dims $dims && py same $name.h5 $name-m.h5
}
roundtrip u32 --cells 300 --generator uniform --density 6 --conductance 0.02:0.06 --conductance-bits 32 --seed 5
roundtrip u0 --cells 300 --generator uniform --density 6 --seed 6
roundtrip g3 --dims 6x5x4 --generator gaussian --density 5 --sigma 2 --symmetric --conductance 0.01:0.05 --conductance-bits 32
h5dump -a /gap_junctions/symmetric g3-back.h5 | grep -q "(0): 1" || fail "symmetric not detected on import"
h5dump -a /gap_junctions/symmetric u32-back.h5 | grep -q "(0): 0" || fail "u32 called symmetric"
# mpirun -np 2: each rank writes its rows of the SONATA files; the same files as one process
if timeout 120 mpirun -np 2 --oversubscribe "$G" -o p2.h5 --cells 300 --generator uniform --density 6 \
     --conductance 0.02:0.06 --conductance-bits 4 --seed 5 --export-sonata p2 >run.out 2>run.err; then
  run "$G" -o p1.h5 --cells 300 --generator uniform --density 6 --conductance 0.02:0.06 --conductance-bits 4 \
    --seed 5 --export-sonata p1
  for k in nodes edges; do h5diff p1_$k.h5 p2_$k.h5 >/dev/null || fail "np 2 and np 1 export differ ($k)"; done
  py layout p2 p2.h5
else
  fail "mpirun -np 2 --export-sonata: $(cat run.err)"
fi
# existing export files are refused without --force
"$G" -o u32x.h5 --cells 10 --generator uniform --density 2 --export-sonata u32 >/dev/null 2>err.txt &&
  fail "existing u32_edges.h5 overwritten without --force"
grep -q "exists; use --force" err.txt || fail "no --force message: $(cat err.txt)"
no_output u32x.h5
run "$G" -o u32x.h5 --cells 10 --generator uniform --density 2 --export-sonata u32 --force

echo "== malformed inputs"
"$PY" "$T" malformed bad > cases.txt || fail "import_tool.py malformed"
[ "$(wc -l < cases.txt)" -ge 50 ] || fail "only $(wc -l < cases.txt) malformed cases"
while IFS=$'\t' read -r name fmt file args re; do
  rc=0
  [ "$args" = - ] && args=
  # shellcheck disable=SC2086
  "$G" -o out-$name.h5 --import "$file" --import-format $fmt $args --export-sonata ex-$name >out.txt 2>err.txt || rc=$?
  if [ $rc -ne 1 ]; then fail "$name: exit status $rc (expected 1): $(cat err.txt)"; continue; fi
  no_output out-$name.h5 ex-${name}_nodes.h5 ex-${name}_edges.h5
  grep -qF -- "$file" err.txt || { fail "$name: stderr does not name $file: $(cat err.txt)"; continue; }
  grep -Eq -- "$re" err.txt || { fail "$name: stderr does not match /$re/: $(cat err.txt)"; continue; }
  [ "$(wc -l < err.txt)" -eq 1 ] || { fail "$name: more than one line on stderr: $(cat err.txt)"; continue; }
  echo "ok $name: $(cat err.txt)"
done < cases.txt

echo "== duplicates"
printf '0 1 0.25\n2 1 0.5\n0 1 0.125\n1 0\n0 1 0.5\n' > dup.txt
"$G" -o dr.h5 --import dup.txt --import-format edges >/dev/null 2>err.txt && fail "duplicates accepted by default"
grep -q "lines 1 and 3: duplicate junction into cell 1 from cell 0" err.txt || fail "duplicate message: $(cat err.txt)"
no_output dr.h5
"$G" -o dr.h5 --import dup.txt --import-format edges --duplicates reject >/dev/null 2>err.txt && fail "--duplicates reject accepted"
run "$G" -o ds.h5 --import dup.txt --import-format edges --duplicates sum --conductance 0.0625 &&
  "$PY" -c "
import h5py; g = h5py.File('ds.h5')['gap_junctions']
assert list(g['row_ptr'][:]) == [0, 1, 3, 3] and list(g['col'][:]) == [1, 0, 2], (g['row_ptr'][:], g['col'][:])
assert list(g['conductance'][:]) == [0.0625, 0.875, 0.5], g['conductance'][:]" || fail "--duplicates sum values"
grep -q "2 duplicate junctions summed" run.err || fail "summed duplicates not reported: $(cat run.err)"

echo "== arguments"
args_refused() {  # REGEX ARGS...
  local re=$1 rc=0; shift
  "$G" "$@" >out.txt 2>err.txt || rc=$?
  [ $rc -eq 2 ] || fail "args $*: exit $rc, expected 2"
  grep -Eq -- "$re" err.txt || fail "args $*: stderr does not match /$re/: $(cat err.txt)"
  no_output x.h5
}
args_refused "needs --import-format" -o x.h5 --import dup.txt
args_refused "not edges, matrix or sonata" -o x.h5 --import dup.txt --import-format csv
args_refused "either --generator or --import" -o x.h5 --import dup.txt --import-format edges --generator uniform
args_refused "apply to generators" -o x.h5 --import dup.txt --import-format edges --density 3
args_refused "apply to generators" -o x.h5 --import dup.txt --import-format edges --symmetric
args_refused "sonata only" -o x.h5 --import dup.txt --import-format edges --import-attribute w
args_refused "not reject or sum" -o x.h5 --import dup.txt --import-format edges --duplicates max
args_refused "applies to --import only" -o x.h5 --cells 5 --generator uniform --duplicates sum
args_refused "needs --import FILE" -o x.h5 --cells 5 --generator uniform --import-format edges
args_refused "range .* does not apply" -o x.h5 --import dup.txt --import-format edges --conductance 0.1:0.2
args_refused "is the --import file itself" -o dup.txt --import dup.txt --import-format edges --force

echo "== streaming: 1M junctions"
"$PY" -c "
import numpy as np
rng = np.random.default_rng(1); n = 100000
s = rng.integers(0, n, 1200000); t = rng.integers(0, n, 1200000)
k = s != t; s, t = s[k], t[k]
st = np.unique(np.stack([t, s], 1), axis=0)[:1000000]
rng.shuffle(st)
np.savetxt('big.txt', st[:, ::-1], fmt='%d')"
if /usr/bin/time -f "%M" -o rss.txt "$G" -o big.h5 --import big.txt --import-format edges --cells 100000 >run.out 2>run.err; then
  rss=$(tail -n 1 rss.txt)
  echo "1M junctions: $(cat run.out), max RSS ${rss} KiB"
  [ "$rss" -lt 250000 ] || fail "importing 1M junctions took $rss KiB"
  "$PY" -c "
import h5py, numpy as np
g = h5py.File('big.h5')['gap_junctions']; rp, col = g['row_ptr'][:], g['col'][:]
assert len(col) == 1000000 and int(g.attrs['bits']) == 0
assert all(np.all(np.diff(col[rp[i]:rp[i+1]]) > 0) for i in range(0, 100000, 997))" || fail "big import content"
else
  fail "1M junction import: $(cat run.err)"
fi

[ $nfail -eq 0 ] || { echo "$nfail failure(s)"; exit 1; }
echo "all import/export checks passed"
