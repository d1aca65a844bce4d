#!/usr/bin/env python3
"""docs/tutorial.ipynb from docs/TUTORIAL.md: the notebook is generated, never edited by hand.

    python3 scripts/tutorial_notebook.py            # (re)write docs/tutorial.ipynb
    python3 scripts/tutorial_notebook.py --check    # exit 1 when the committed notebook is stale

Prose (with the ```console and ```text blocks, which are shown, not run)
becomes markdown cells; each ```python block a code cell; each ```sh or
```bash block a %%bash cell stopping at its first failing command (one bash
per cell: the tutorial's shell blocks keep no shell variables or cd from one
block to the next). The output is
plain JSON (nbformat 4.5, cell ids numbered), the same bytes on every run,
and without outputs: GitHub shows the page, Jupyter runs it.
tests/test_tutorial.sh checks the notebook is current and runs it; it also
uses blocks() to run TUTORIAL.md itself (tests/tutorial_run.py).
"""

import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKDOWN = os.path.join(TOP, "docs", "TUTORIAL.md")
NOTEBOOK = os.path.join(TOP, "docs", "tutorial.ipynb")
RUN = {"sh": "bash", "bash": "bash", "python": "python"}   # fence language -> how it runs
FENCE = re.compile(r"^```(\S*)\s*$")
# a %%bash cell fails (CalledProcessError) only on the status of its last command
# without -e; tests/tutorial_run.py runs the page's shell blocks with the same options
BASH = "%%bash\nset -eo pipefail   # stop at the first failing command\n"


def blocks(text):
    """[(kind, lang, text)] in order: kind 'prose' (lang None) or 'fence' (lang the fence's word)."""
    out, prose, code, lang = [], [], None, None
    for line in text.splitlines():
        m = FENCE.match(line)
        if code is None and m and m.group(1):
            if prose:
                out.append(("prose", None, "\n".join(prose)))
            prose, code, lang = [], [], m.group(1)
        elif code is not None and line.strip() == "```":
            out.append(("fence", lang, "\n".join(code)))
            code = None
        elif code is not None:
            code.append(line)
        else:
            prose.append(line)
    if code is not None:
        raise ValueError(f"{MARKDOWN}: a ```{lang} block is not closed")
    if prose:
        out.append(("prose", None, "\n".join(prose)))
    return out


def cells(text):
    """Notebook cells: runnable fences as code cells, everything between them as one markdown cell."""
    out, md = [], []
    for kind, lang, body in blocks(text):
        if kind == "fence" and lang in RUN:
            if "".join(md).strip():
                out.append(("markdown", "\n".join(md).strip("\n")))
            md = []
            out.append(("code", (BASH + body) if RUN[lang] == "bash" else body))
        else:
            md.append(body if kind == "prose" else f"```{lang}\n{body}\n```")
    if "".join(md).strip():
        out.append(("markdown", "\n".join(md).strip("\n")))
    return out


def notebook(text):
    nb_cells = []
    for i, (kind, source) in enumerate(cells(text)):
        cell = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": {},
                "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        nb_cells.append(cell)
    meta = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}}
    nb = {"cells": nb_cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv):
    with open(MARKDOWN, encoding="utf-8") as f:
        want = notebook(f.read())
    if argv[1:] == ["--check"]:
        with open(NOTEBOOK, encoding="utf-8") as f:
            if f.read() != want:
                print(f"{NOTEBOOK} is not generated from {MARKDOWN}: run python3 scripts/tutorial_notebook.py",
                      file=sys.stderr)
                return 1
        return 0
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    tmp = NOTEBOOK + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(want)
    os.replace(tmp, NOTEBOOK)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
