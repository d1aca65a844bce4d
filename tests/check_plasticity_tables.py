"""The plasticity rules' table as Python's writer holds it (olive.writer.PLASTICITY) against
the C one (common/models/plasticity_rules.h and each rule's file): the same rules, parameter
names, order and defaults. Exit 1 naming the difference."""
import re
import sys
from pathlib import Path

top = Path(sys.argv[1])
sys.path.insert(0, str(top / "python"))
from olive.writer import PLASTICITY  # noqa: E402

models = top / "common" / "models"
table = (models / "plasticity_rules.h").read_text()
rows = re.findall(r'X\((\w+),\s*(\w+),\s*"(\w+)",', table)
if not rows:
    sys.exit("plasticity_rules.h: no rule lines found")
macros = "".join(p.read_text() for p in sorted(models.glob("plast_*.h")))
faults = []
for enum, prefix, name in rows:
    # OLIVE_PLAST_<E>_PARS: {"name", "unit", default}, ... or another rule's macro
    m = re.search(r"#define OLIVE_PLAST_%s_PARS\s+((?:.|\\\n)*?)(?<!\\)\n" % enum, macros)
    if not m:
        faults.append(f"{name}: no OLIVE_PLAST_{enum}_PARS in common/models/plast_*.h")
        continue
    body = m.group(1)
    alias = re.fullmatch(r"\s*OLIVE_PLAST_(\w+)_PARS\s*", body)
    if alias:
        body = re.search(r"#define OLIVE_PLAST_%s_PARS\s+((?:.|\\\n)*?)(?<!\\)\n" % alias.group(1), macros).group(1)
    pars = [(n, float(v)) for n, v in re.findall(r'\{"(\w+)",\s*"[^"]*",\s*([-+0-9.eE]+)\}', body)]
    if name not in PLASTICITY:
        faults.append(f"{name}: in plasticity_rules.h, not in olive.writer.PLASTICITY")
        continue
    py = list(PLASTICITY[name].items())
    if [p[0] for p in py] != [p[0] for p in pars]:
        faults.append(f"{name}: parameters {[p[0] for p in pars]} (C) != {[p[0] for p in py]} (Python)")
    elif any(a[1] != b[1] for a, b in zip(py, pars)):
        faults.append(f"{name}: defaults {pars} (C) != {py} (Python)")
extra = set(PLASTICITY) - {r[2] for r in rows}
if extra:
    faults.append(f"olive.writer.PLASTICITY has {sorted(extra)}, plasticity_rules.h does not")
if faults:
    sys.exit("\n".join(faults))
print(f"plasticity tables: {len(rows)} rules, C = Python")
