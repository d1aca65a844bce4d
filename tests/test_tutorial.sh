#!/usr/bin/env bash
# docs/TUTORIAL.md and docs/tutorial.ipynb run as a user runs them.
# 1. The notebook is the one scripts/tutorial_notebook.py generates from the page.
# 2. Every ```sh/```bash/```python block of the page runs, in order, in one bash
#    session and one Python session (tests/tutorial_run.py), in an empty folder
#    with the programs on PATH; the output each ```text block shows is the one
#    printed; the pictures the page draws are written.
# 3. The notebook runs in a Jupyter kernel (nbclient, ipykernel) without a cell
#    error, and its plotting cells give inline images.
# The ```console blocks (apt-get, pip install, make) are not run here:
# tests/test_pip_install.sh and tests/test_install.sh check those steps.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ] || [ "$SANITIZED" = 1 ]; then
  # the same C paths run in the other tests; the sanitizer pass is near its time budget
  echo "tutorial: checked in the normal build only"; exit 0
fi
"$PY" "$TOP/scripts/tutorial_notebook.py" --check || fail "docs/tutorial.ipynb is stale"
source "$TESTS/python_venv.sh"
# the page's install step for pyNN.olive (docs/PYNN.md); the programs are the build's
"$venv/bin/python" -m olive.pynn.install >/dev/null || fail "python -m olive.pynn.install"
export PATH="$BIN:$PATH" OLIVE_BIN="$BIN" OMP_NUM_THREADS=1
# the page's "Work in an empty folder" step
setup() { mkdir "$1" && cp "$TOP/tests/data/c91662_part.CNG.swc" "$1/"; }

setup md
t0=$SECONDS
(cd md && MPLBACKEND=Agg "$venv/bin/python" "$TESTS/tutorial_run.py" "$TOP/docs/TUTORIAL.md") || fail "docs/TUTORIAL.md"
for png in io-raster io-heatmap ei-raster ei-py-raster cell-compartments cell-compartments-py ei-cell3 io-vdend; do
  [ -s "md/$png.png" ] || fail "docs/TUTORIAL.md: $png.png not drawn"
done
echo "docs/TUTORIAL.md: $((SECONDS - t0)) s"

setup nb
t0=$SECONDS
# the kernel inherits this environment: matplotlib's inline backend (no MPLBACKEND), the programs on PATH
"$venv/bin/python" - "$TOP/docs/tutorial.ipynb" nb <<'PY' || fail "docs/tutorial.ipynb"
import re, sys
import nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
images = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
          and any("image/png" in o.get("data", {}) for o in c.outputs)]
plotting = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and re.search(r"plot_\w+\(|plt\.subplots\(", c.source)]
missing = sorted(set(plotting) - set(images))
assert len(images) >= 4 and not missing, f"cells with inline images: {images}; plotting cells without: {missing}"
print(f"notebook: {len(nb.cells)} cells ran, {len(images)} with inline images")
PY
echo "docs/tutorial.ipynb: $((SECONDS - t0)) s"
