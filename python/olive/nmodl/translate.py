"""NMODL -> olive's C (common/models/cable_mech.h): one source for the CPU and
the GPU, as NEURON's nocmodl would compute it.

The parser is the NMODL framework's (BlueBrain/EPFL's `nmodl` on PyPI, the
one CoreNEURON's code generator uses): its AST is walked here and each
construct olive supports is written as C; any other is refused by name with
the file and line. sympy (the NMODL framework's own dependency) separates a
cnexp equation x' = f into f = a + b x, as nocmodl does, and the update is
nocmodl's: x += (1 - exp(dt b)) (-a / b - x).

Supported: NEURON { SUFFIX, USEION ... READ/WRITE ... [VALENCE], RANGE,
GLOBAL, NONSPECIFIC_CURRENT }, UNITS (names, and FARADAY / R / PI as
NEURON 9 defines them), PARAMETER, STATE, ASSIGNED, INITIAL, BREAKPOINT with
SOLVE ... METHOD cnexp (DERIVATIVE) or METHOD sparse (KINETIC schemes of
first-order reactions, CONSERVE), LINEAR blocks SOLVE'd in INITIAL,
PROCEDURE, FUNCTION, LOCAL, IF/ELSE, UNITSON/UNITSOFF, exp/log/fabs/sqrt/pow
and `^`, TABLE in a PROCEDURE or FUNCTION of one argument (NEURON's table:
1 + WITH rows from FROM, the point summed step by step, linear interpolation,
the ends held; built once per celsius on the host, read by every engine; a
tabled function that reads what differs between instances is refused);
POINT_PROCESS synapses (NEURON's ExpSyn, Exp2Syn and users' own) whose
NET_RECEIVE(weight) adds weight times a constant to states (olive sums the
weights a synapse receives in one step, which such a block cannot tell from
the events one by one), their currents in nA, a PARAMETER assigned in
INITIAL (Exp2Syn's tau1) kept per instance.
Refused (by name): ARTIFICIAL_CELL, other NET_RECEIVE blocks, USEION in a
POINT_PROCESS, derivimplicit, STEADYSTATE, NONLINEAR, VERBATIM, POINTER,
BBCOREPOINTER, FUNCTION_TABLE, WATCH, FOR_NETCONS, BEFORE/AFTER, DEFINE, and
other blocks."""

import re

import sympy
from sympy.printing.c import C99CodePrinter

TRANSLATOR_VERSION = 4

# NEURON 9's nrnunits (modern SI values: nocmodl's default)
UNIT_CONSTANTS = {"faraday": 96485.3321233100184, "k-mole": 8.3144626181532395, "pi": 3.14159265358979323846}
# NEURON's ions: charge, and the defaults of ena/nai/nao ... (eion.cpp; e computed at need)
KNOWN_IONS = {"na": 1.0, "k": 1.0, "ca": 2.0}
C_FUNCS = {"exp": "olive_exp_d", "log": "olive_log_d", "fabs": "fabs", "sqrt": "sqrt", "pow": "olive_mech_pow"}
SPECIAL = {"v", "celsius", "dt", "t"}
REFUSED_BLOCKS = {
    "NonLinearBlock": "NONLINEAR", "Verbatim": "VERBATIM",
    "FunctionTableBlock": "FUNCTION_TABLE", "BeforeBlock": "BEFORE", "AfterBlock": "AFTER",
    "ConstructorBlock": "CONSTRUCTOR", "DestructorBlock": "DESTRUCTOR", "DiscreteBlock": "DISCRETE",
    "IndependentBlock": None, "Include": "INCLUDE", "ConstantBlock": None, "Define": "DEFINE",
}


class Refused(Exception):
    """A construct olive does not translate: the message names it; line is where it is."""

    def __init__(self, what, line=None, path=None):
        super().__init__(what)
        self.what, self.line, self.path = what, line, path

    def __str__(self):
        where = (self.path or "") + (f":{self.line}" if self.line else "")
        return f"{where}: not supported by olive: {self.what}" if where else f"not supported by olive: {self.what}"


def _line_of(text, pattern):
    """The first line (1-based) of text, comments aside, matching pattern; None if none."""
    for i, raw in enumerate(text.splitlines(), 1):
        code = raw.split(":", 1)[0]
        if re.search(pattern, code):
            return i
    return None


def _kind(n):
    return type(n).__name__


def _name(n):
    return n.get_node_name()


class Mechanism:
    """One density mechanism read from a .mod file's AST."""

    def __init__(self, path, text, tree):
        self.path, self.text = path, text
        self.file = path.rsplit("/", 1)[-1]
        self.suffix = None
        self.point = False          # a POINT_PROCESS (a synapse), else a density mechanism (SUFFIX)
        self.net = None             # its NET_RECEIVE: (argument names, statement block)
        self.useion = []            # (ion, read names, write names, valence or None)
        self.range, self.glob, self.nonspecific = [], [], []
        self.params = {}            # name -> default (float or None)
        self.param_order = []
        self.states, self.assigned = [], []
        self.factors = {}           # UNITS constants
        self.blocks = {}            # INITIAL, BREAKPOINT
        self.derivs, self.procs, self.funcs = {}, {}, {}
        self.kinetics, self.linears = {}, {}
        self.tables = {}            # PROCEDURE/FUNCTION name -> its TableStatement
        self.solve = []             # (block, method)
        self._read(tree)

    def refuse(self, what, pattern=None):
        raise Refused(what, _line_of(self.text, pattern) if pattern else None, self.path)

    # --- the blocks
    def _read(self, tree):
        for b in tree.blocks:
            k = _kind(b)
            if k in REFUSED_BLOCKS:
                if REFUSED_BLOCKS[k]:
                    word = REFUSED_BLOCKS[k].split()[0]
                    self.refuse(f"{REFUSED_BLOCKS[k]} is not supported", r"\b" + word + r"\b")
                continue
            if k == "NeuronBlock":
                self._neuron(b)
            elif k == "UnitBlock":
                for d in b.definitions:
                    if _kind(d) == "FactorDef":
                        self._factor(d)
            elif k == "ParamBlock":
                for s in b.statements:
                    if _kind(s) == "ParamAssign":
                        nm = _name(s.name)
                        val = float(s.value.eval()) if s.value is not None else None
                        if nm not in self.params:
                            self.param_order.append(nm)
                        self.params[nm] = val
            elif k == "StateBlock":
                for d in b.definitions:
                    if _kind(d) == "AssignedDefinition":
                        if d.length is not None:
                            self.refuse(f"STATE {_name(d.name)}[...]: array states are not supported", r"\[")
                        self.states.append(_name(d.name))
            elif k == "AssignedBlock":
                for d in b.definitions:
                    if _kind(d) == "AssignedDefinition":
                        if d.length is not None:
                            self.refuse(f"ASSIGNED {_name(d.name)}[...]: arrays are not supported", r"\[")
                        self.assigned.append(_name(d.name))
            elif k == "NetReceiveBlock":
                self.net = ([_name(a.name) for a in b.parameters], b.statement_block)
            elif k == "InitialBlock":
                self.blocks["INITIAL"] = b.statement_block
            elif k == "BreakpointBlock":
                self.blocks["BREAKPOINT"] = b.statement_block
            elif k == "DerivativeBlock":
                self.derivs[_name(b.name)] = b.statement_block
            elif k == "KineticBlock":
                self.kinetics[_name(b.name)] = b.statement_block
            elif k == "LinearBlock":
                self.linears[_name(b.name)] = b.statement_block
            elif k in ("ProcedureBlock", "FunctionBlock"):
                fn, args = _name(b.name), [_name(a.name) for a in b.parameters]
                (self.procs if k == "ProcedureBlock" else self.funcs)[fn] = (args, b.statement_block)
                for st in b.statement_block.statements:
                    if _kind(st) == "TableStatement":
                        self._table(fn, k == "FunctionBlock", args, st)
            elif k in ("LineComment", "BlockComment", "Model", "UnitState"):
                continue
            else:
                self.refuse(f"block {k} is not supported")
        if not self.suffix:
            self.refuse("no SUFFIX or POINT_PROCESS")
        if self.net and not self.point:
            self.refuse("NET_RECEIVE in a density mechanism (SUFFIX)", r"\bNET_RECEIVE\b")
        if self.point and self.useion:
            self.refuse(f"USEION in the POINT_PROCESS {self.suffix} is not supported yet", r"\bUSEION\b")
        if "BREAKPOINT" not in self.blocks:
            self.refuse("no BREAKPOINT block")

    def _table(self, fn, is_func, args, st):
        """TABLE in PROCEDURE/FUNCTION fn: NEURON's table of 1 + WITH rows over
        [FROM, TO] of the function of its one argument."""
        at = r"\bTABLE\b"
        if fn in self.tables:
            self.refuse(f"{fn}: a second TABLE statement", at)
        if len(args) != 1:
            self.refuse(f"TABLE in {fn}: a tabled PROCEDURE or FUNCTION takes one argument (it has {len(args)})", at)
        names = [_name(x) for x in st.table_vars]
        if is_func and names:
            self.refuse(f"TABLE {', '.join(names)} in FUNCTION {fn}: a FUNCTION's TABLE names no variables", at)
        if not is_func and not names:
            self.refuse(f"TABLE in PROCEDURE {fn} names no variables", at)
        w = getattr(st, "with")
        if _kind(w) != "Integer" or int(w.eval()) < 1:
            self.refuse(f"TABLE in {fn}: WITH {to_text(w)} is not a positive integer", at)
        self.tables[fn] = {"names": names, "depend": [_name(x) for x in st.depend_vars], "from": getattr(st, "from"),
                           "to": st.to, "with": int(w.eval()), "func": is_func}

    def _neuron(self, b):
        for s in b.statement_block.statements:
            k = _kind(s)
            if k == "Suffix":
                if _name(s.type) not in ("SUFFIX", "POINT_PROCESS"):
                    self.refuse(f"{_name(s.type)} {_name(s.name)}: artificial cells are not supported (olive's "
                                "own sources and models serve)", r"\b" + _name(s.type) + r"\b")
                self.suffix = _name(s.name)
                self.point = _name(s.type) == "POINT_PROCESS"
            elif k == "Useion":
                ion = _name(s.name)
                reads = [_name(r.name) for r in s.readlist]
                writes = [_name(w.name) for w in s.writelist]
                val = float(s.valence.value.eval()) if s.valence is not None else None
                if val is None and ion not in KNOWN_IONS:
                    self.refuse(f"USEION {ion}: an ion other than na, k, ca needs a VALENCE",
                                r"USEION\s+" + ion + r"\b")
                for nm in reads + writes:
                    if nm not in ("e" + ion, "i" + ion, ion + "i", ion + "o"):
                        self.refuse(f"USEION {ion}: {nm} is not one of e{ion}, i{ion}, {ion}i, {ion}o",
                                    r"USEION\s+" + ion + r"\b")
                if "e" + ion in writes:
                    self.refuse(f"USEION {ion} WRITE e{ion}: writing a reversal potential is not supported",
                                r"USEION\s+" + ion + r"\b")
                self.useion.append((ion, reads, writes, val))
            elif k == "Range":
                self.range += [_name(v.name) for v in s.variables]
            elif k == "Global":
                self.glob += [_name(v.name) for v in s.variables]
            elif k == "Nonspecific":
                self.nonspecific += [_name(v.name) for v in s.currents]
            elif k in ("ThreadSafe", "LineComment", "BlockComment"):
                continue
            else:
                word = {"Pointer": "POINTER", "BbcorePointer": "BBCOREPOINTER", "ElectrodeCurrent":
                        "ELECTRODE_CURRENT", "External": "EXTERNAL"}.get(k, k)
                self.refuse(f"NEURON block: {word} is not supported", r"\b" + word + r"\b")

    def _factor(self, d):
        nm = _name(d.name)
        if d.value is not None:
            self.factors[nm] = float(d.value.eval())
            return
        u1 = d.unit1.get_node_name() if d.unit1 is not None else ""
        u2 = d.unit2.get_node_name() if d.unit2 is not None else ""
        base = UNIT_CONSTANTS.get(u1.strip())
        scale = {"coulombs": 1.0, "coulomb": 1.0, "kilocoulombs": 1e-3, "joule/degC": 1.0, "joule/degK": 1.0,
                 "1": 1.0, "": 1.0}.get(u2.strip())
        if base is None or scale is None:
            self.refuse(f"UNITS: {nm} = ({u1}) ({u2}) is not a constant olive knows (faraday in coulombs or "
                        "kilocoulombs, k-mole in joule/degC, pi)", r"\b" + re.escape(nm) + r"\b\s*=")
        self.factors[nm] = base * scale


class Writer:
    """The C of one mechanism (index m in the library)."""

    def __init__(self, mech, ion_slots):
        self.m = mech
        s = mech.suffix
        self.pre = "m_" + re.sub(r"\W", "_", s) + "_"
        ion_vars = {}
        for ion, reads, writes, _ in mech.useion:
            for nm in reads + writes:
                f = ("OLIVE_ION_E" if nm == "e" + ion else "OLIVE_ION_I" if nm == "i" + ion
                     else "OLIVE_ION_CI" if nm == ion + "i" else "OLIVE_ION_CO")
                ion_vars[nm] = (ion_slots[ion], f, nm in writes)
        self.ion_vars = ion_vars
        self.written_currents = [nm for ion, _, writes, _ in mech.useion for nm in writes if nm == "i" + ion]
        self.currents = self.written_currents + mech.nonspecific
        self.written_conc = [nm for nm, (_, f, w) in ion_vars.items() if w and f in ("OLIVE_ION_CI", "OLIVE_ION_CO")]
        for nm in self.written_conc:
            if nm not in mech.states and nm not in mech.assigned:
                mech.refuse(f"WRITE {nm}: a concentration written must be a STATE or ASSIGNED")
        # RANGE parameters: settable per section; the other PARAMETERs are GLOBAL constants
        self.range_params = [p for p in mech.param_order
                             if p in mech.range and p not in ion_vars and p not in SPECIAL]
        self.globals = {p: mech.params[p] for p in mech.param_order
                        if p not in self.range_params and p not in ion_vars and p not in SPECIAL}
        for p, v in self.globals.items():
            if v is None:
                mech.refuse(f"PARAMETER {p} has no value")
        # per-instance variables: states, then RANGE assigned and the currents (a point process's every
        # ASSIGNED: NEURON keeps them per instance, and Exp2Syn's factor, set in INITIAL, is read by NET_RECEIVE)
        self.vars = list(mech.states)
        for a in mech.assigned + self.currents:
            if a in self.vars or a in SPECIAL or a in self.globals or a in self.range_params:
                continue
            if a in mech.range or a in self.currents or a in self.written_conc or (mech.point and a not in ion_vars):
                self.vars.append(a)
        # a RANGE parameter INITIAL assigns (Exp2Syn's tau1 kept below tau2): a per-instance copy, set from the
        # parameter at INITIAL's start and read everywhere after
        init_text = to_text(mech.blocks["INITIAL"]) if "INITIAL" in mech.blocks else ""
        self.param_copies = [p for p in self.range_params if re.search(r"\b" + re.escape(p) + r"\s*=(?!=)", init_text)]
        self.vars += self.param_copies
        self.tmp = [a for a in mech.assigned if a not in self.vars and a not in SPECIAL and a not in ion_vars]
        for st in mech.states:
            if st in ion_vars and st not in self.written_conc:
                mech.refuse(f"STATE {st} is an ion variable it does not WRITE")
        self.locals = []

    # --- expressions
    def ref(self, nm):
        m = self.m
        if nm in self.locals_set:
            return nm
        if nm == "v":
            return "c->v"
        if nm in ("celsius", "dt", "t"):
            return "c->" + nm
        if nm in self.vars:
            return f"c->x[{self.vars.index(nm)} * c->ld]"
        if nm in self.ion_vars:
            return f"ion_{nm}"
        if nm in self.range_params:
            return f"c->p[{self.range_params.index(nm)} * c->pld]"
        if nm in self.globals:
            return f"{self.pre}G_{nm}"
        if nm in self.tmp:
            return f"t->{nm}"
        if nm in m.factors:
            return repr(m.factors[nm])
        if nm in ("PI",):
            return repr(UNIT_CONSTANTS["pi"])
        if nm == "FARADAY":
            return repr(UNIT_CONSTANTS["faraday"])
        if nm == "R":
            return repr(UNIT_CONSTANTS["k-mole"])
        m.refuse(f"{nm}: not declared (PARAMETER, STATE, ASSIGNED, LOCAL or UNITS)", r"\b" + re.escape(nm) + r"\b")

    def expr(self, e):
        k = _kind(e)
        if k in ("ParenExpression", "WrappedExpression"):
            return "(" + self.expr(e.expression) + ")"
        if k == "BinaryExpression":
            op = e.op.eval()
            a, b = self.expr(e.lhs), self.expr(e.rhs)
            if op == "^":
                return f"olive_mech_pow({a}, {b})"
            return f"({a} {op} {b})"
        if k == "UnaryExpression":
            op = e.op.eval()
            return f"({'!' if op == '!' else '-'}{self.expr(e.expression)})"
        if k in ("Integer", "Double", "Float"):
            v = float(e.eval())
            return repr(v) if v >= 0 else f"({v!r})"
        if k in ("Name", "VarName"):
            if k == "VarName" and e.index is not None:
                self.m.refuse(f"{_name(e)}[...]: arrays are not supported", r"\[")
            return self.ref(_name(e))
        if k == "FunctionCall":
            fn = _name(e)
            args = [self.expr(a) for a in e.arguments]
            if fn in self.m.funcs:
                return f"{self.pre}F_{fn}(c, t{''.join(', ' + a for a in args)})"
            if fn in C_FUNCS:
                return f"{C_FUNCS[fn]}({', '.join(args)})"
            self.m.refuse(f"function {fn}() is not supported", r"\b" + re.escape(fn) + r"\s*\(")
        self.m.refuse(f"expression {k} is not supported")

    # --- sympy, for cnexp
    def sym(self, e, table):
        k = _kind(e)
        if k in ("ParenExpression", "WrappedExpression"):
            return self.sym(e.expression, table)
        if k == "BinaryExpression":
            op = e.op.eval()
            a, b = self.sym(e.lhs, table), self.sym(e.rhs, table)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                    "^": lambda: a ** b}.get(op, lambda: self.m.refuse(f"operator {op} in a DERIVATIVE equation"))()
        if k == "UnaryExpression":
            return -self.sym(e.expression, table)
        if k in ("Integer", "Double", "Float"):
            return sympy.Float(float(e.eval()), 17) if k != "Integer" else sympy.Integer(int(e.eval()))
        if k == "ReactVarName" and e.value is None:
            return self.sym(e.name, table)
        if k in ("Name", "VarName"):
            c = self.ref(_name(e))
            if c not in table:
                table[c] = sympy.Symbol(f"_s{len(table)}", real=True)
            return table[c]
        if k == "FunctionCall":
            c = self.expr(e)
            if c not in table:
                table[c] = sympy.Symbol(f"_s{len(table)}", real=True)
            return table[c]
        self.m.refuse(f"expression {k} in a DERIVATIVE equation is not supported")

    def csym(self, s, table):
        back = {v.name: k for k, v in table.items()}
        text = _SymPrinter().doprint(s)
        return re.sub(r"\b_s\d+\b", lambda mo: "(" + back[mo.group(0)] + ")", text)

    # --- statements
    def stmts(self, block, out, ind, mode):
        for s in block.statements:
            self.stmt(s, out, ind, mode)

    def stmt(self, s, out, ind, mode):
        k = _kind(s)
        p = "    " * ind
        if k in ("UnitState", "LineComment", "BlockComment"):
            return
        if k == "LocalListStatement":
            for v in s.variables:
                nm = _name(v)
                self.locals_set.add(nm)
                out.append(f"{p}double {nm} = 0;")
                out.append(f"{p}(void){nm};")
            return
        if k == "SolveBlock":
            if mode != "breakpoint":
                self.m.refuse("SOLVE outside BREAKPOINT", r"\bSOLVE\b")
            return
        if k == "TableStatement":
            if mode != "function":
                self.m.refuse("TABLE outside a PROCEDURE or FUNCTION", r"\bTABLE\b")
            return   # the lookup is the function's own (table_lookup)
        if k == "IfStatement":
            out.append(f"{p}if ({self.expr(s.condition)}) {{")
            self.stmts(s.statement_block, out, ind + 1, mode)
            for ei in s.elseifs:
                out.append(f"{p}}} else if ({self.expr(ei.condition)}) {{")
                self.stmts(ei.statement_block, out, ind + 1, mode)
            if s.elses is not None:
                out.append(f"{p}}} else {{")
                self.stmts(s.elses.statement_block, out, ind + 1, mode)
            out.append(f"{p}}}")
            return
        if k == "ExpressionStatement" and _kind(s.expression) == "SolveBlock":
            blk = _name(s.expression.block_name)
            if mode == "initial" and blk in self.m.linears and s.expression.steadystate is None:
                self.linear_solve(blk, out, p)
                return
            if mode != "breakpoint":
                self.m.refuse(f"SOLVE {blk} in {mode.upper()}: only a LINEAR block's SOLVE is supported there "
                              "(STEADYSTATE is not)", r"\bSOLVE\s+" + re.escape(blk))
            return
        if k == "ExpressionStatement":
            e = s.expression
            while _kind(e) == "WrappedExpression":
                e = e.expression
            ek = _kind(e)
            if ek == "DiffEqExpression":
                if mode != "derivative":
                    self.m.refuse("a differential equation outside DERIVATIVE")
                self.cnexp(e.expression, out, p)
                return
            if ek == "BinaryExpression" and e.op.eval() == "=":
                lhs = e.lhs
                nm = _name(lhs)
                if nm in ("celsius", "dt", "t"):   # (v: the call's own copy, as in NEURON)
                    self.m.refuse(f"assignment to {nm}", r"\b" + nm + r"\s*=")
                if (nm in self.range_params and not (mode == "initial" and nm in self.param_copies)) or \
                        nm in self.globals:
                    self.m.refuse(f"assignment to the PARAMETER {nm}" + (" outside INITIAL" if nm in self.range_params
                                                                         else ""), r"\b" + re.escape(nm) + r"\s*=")
                if nm in self.ion_vars and not self.ion_vars[nm][2]:
                    self.m.refuse(f"assignment to {nm}, which USEION only READs", r"\b" + re.escape(nm) + r"\s*=")
                out.append(f"{p}{self.ref(nm)} = {self.expr(e.rhs)};")
                return
            if ek == "FunctionCall":
                fn = _name(e)
                if fn in self.m.procs:
                    args = "".join(", " + self.expr(a) for a in e.arguments)
                    out.append(f"{p}{self.pre}P_{fn}(c, t{args});")
                    return
                if fn in self.m.funcs:
                    out.append(f"{p}(void){self.expr(e)};")
                    return
                self.m.refuse(f"call of {fn}() is not supported", r"\b" + re.escape(fn) + r"\s*\(")
        if k == "ExpressionStatement":
            self.m.refuse(f"statement {to_text(s)} is not supported")
        self.m.refuse(f"statement {k} is not supported")

    def cnexp(self, e, out, p):
        """x' = f as nocmodl's cnexp writes it."""
        lhs = e.lhs
        if _kind(lhs) == "VarName":
            lhs = lhs.name
        if _kind(lhs) != "PrimeName" or int(lhs.order.eval()) != 1:
            self.m.refuse("only first-order equations x' = ... are supported", r"''")
        x = _name(lhs)
        if x not in self.m.states:
            self.m.refuse(f"{x}' : {x} is not a STATE", r"\b" + re.escape(x) + r"'")
        table = {}
        xs = self.sym_name(x, table)
        f = self.sym(e.rhs, table)
        b = sympy.diff(f, xs)
        if b.has(xs):
            self.m.refuse(f"{x}' is not linear in {x}: METHOD cnexp does not apply (derivimplicit is not "
                          "supported yet)", r"\b" + re.escape(x) + r"'")
        a = sympy.simplify(f - b * xs) if f.has(xs) else f
        cx = self.ref(x)
        if b == 0:
            out.append(f"{p}{cx} = {cx} - c->dt * (-({self.csym(a, table)}));")
        else:
            out.append(f"{p}{cx} = {cx} + (1. - olive_exp_d(c->dt * ({self.csym(b, table)}))) * "
                       f"(-({self.csym(a, table)}) / ({self.csym(b, table)}) - {cx});")

    def _matrix(self, n, out, p):
        out.append(f"{p}double A_[{n}][{n}], b_[{n}];")
        out.append(f"{p}for (int i_ = 0; i_ < {n}; i_++)")
        out.append(f"{p}    for (int j_ = 0; j_ < {n}; j_++) A_[i_][j_] = 0;")

    def _solved(self, states, out, p):
        n = len(states)
        out.append(f"{p}if (!olive_mech_solve({n}, &A_[0][0], b_)) {{")
        for i, st in enumerate(states):
            out.append(f"{p}    {self.ref(st)} = NAN;   /* a singular system: the cell's check stops the run */")
        out.append(f"{p}}} else {{")
        for i, st in enumerate(states):
            out.append(f"{p}    {self.ref(st)} = b_[{i}];")
        out.append(f"{p}}}")

    def kinetic_solve(self, blk, out, p):
        """KINETIC blk by METHOD sparse as NEURON solves a scheme of first-order
        reactions: one implicit (backward) Euler step, (I - dt J) x' = x, the
        equation of the last state CONSERVE names replaced by the sum (exact
        for these linear schemes)."""
        m = self.m
        reactions, conserve = [], None
        body = []
        for st in m.kinetics[blk].statements:
            k = _kind(st)
            if k == "ReactionStatement":
                op = st.op.eval() if hasattr(st.op, "eval") else str(st.op)
                r1, r2 = st.reaction1, st.reaction2
                if op != "<->" or _kind(r1) != "ReactVarName" or _kind(r2) != "ReactVarName" or \
                        r1.value is not None or r2.value is not None:
                    m.refuse(f"KINETIC {blk}: only reactions A <-> B between two states (no stoichiometry, sums, "
                             f"<< or COMPARTMENT) are supported: {to_text(st)}", r"~")
                a, b = _name(r1.name), _name(r2.name)
                for x in (a, b):
                    if x not in m.states:
                        m.refuse(f"KINETIC {blk}: {x} is not a STATE", r"~.*\b" + re.escape(x) + r"\b")
                reactions.append((a, b, self.expr(st.expression1), self.expr(st.expression2)))
            elif k == "Conserve":
                conserve = st
            elif k in ("Compartment", "LonDifuse"):
                m.refuse(f"KINETIC {blk}: COMPARTMENT and LONGITUDINAL_DIFFUSION are not supported",
                         r"\bCOMPARTMENT\b|\bLONGITUDINAL_DIFFUSION\b")
            else:
                self.stmt(st, body, 1, "kinetic")
        states = [x for x in m.states if any(x in (a, b) for a, b, _, _ in reactions)]
        n = len(states)
        idx = {x: i for i, x in enumerate(states)}
        out += body
        self._matrix(n, out, p)
        for i, x in enumerate(states):
            out.append(f"{p}A_[{i}][{i}] = 1; b_[{i}] = {self.ref(x)};")
        for a, b, kf, kb in reactions:
            i, j = idx[a], idx[b]
            out.append(f"{p}{{ const double f_ = c->dt * ({kf}), r_ = c->dt * ({kb});")
            out.append(f"{p}  A_[{i}][{i}] += f_; A_[{i}][{j}] -= r_; A_[{j}][{i}] -= f_; A_[{j}][{j}] += r_; }}")
        if conserve is not None:
            table = {}
            lhs = self.sym(conserve.react, table)
            total = self.csym(self.sym(conserve.expr, table), table)
            syms = {x: self.sym_name(x, table) for x in states}
            named = [x for x in states if lhs.has(syms[x])]
            if not named:
                m.refuse(f"KINETIC {blk}: CONSERVE names none of the scheme's states", r"\bCONSERVE\b")
            r = idx[named[-1]]
            for x in states:
                coef = sympy.diff(lhs, syms[x])
                if any(coef.has(v) for v in syms.values()):
                    m.refuse(f"KINETIC {blk}: CONSERVE is not linear in the states", r"\bCONSERVE\b")
                out.append(f"{p}A_[{r}][{idx[x]}] = {self.csym(coef, table)};")
            rest = lhs.subs({v: 0 for v in syms.values()})
            out.append(f"{p}b_[{r}] = ({total}) - ({self.csym(rest, table)});")
        self._solved(states, out, p)

    def linear_solve(self, blk, out, p):
        """LINEAR blk: its equations ~ lhs = rhs, linear in the states they
        name, solved at once (Gaussian elimination with partial pivoting)."""
        m = self.m
        eqs, body = [], []
        table = {}
        for st in m.linears[blk].statements:
            e = st.expression if _kind(st) == "ExpressionStatement" else st
            while _kind(e) == "WrappedExpression":
                e = e.expression
            if _kind(e) == "LinEquation":
                eqs.append(self.sym(e.left_linxpression, table) - self.sym(e.linxpression, table))
            else:
                self.stmt(st, body, 1, "linear")
        syms = {x: self.sym_name(x, table) for x in m.states}
        states = [x for x in m.states if any(q.has(syms[x]) for q in eqs)]
        if len(states) != len(eqs):
            m.refuse(f"LINEAR {blk}: {len(eqs)} equations for {len(states)} states", r"\bLINEAR\b")
        out += body
        n = len(states)
        self._matrix(n, out, p)
        for i, q in enumerate(eqs):
            for j, x in enumerate(states):
                coef = sympy.diff(q, syms[x])
                if any(coef.has(syms[y]) for y in states):
                    m.refuse(f"LINEAR {blk}: equation {i + 1} is not linear in the states", r"\bLINEAR\b")
                if coef != 0:
                    out.append(f"{p}A_[{i}][{j}] = {self.csym(coef, table)};")
            rest = q.subs({syms[x]: 0 for x in states})
            out.append(f"{p}b_[{i}] = -({self.csym(rest, table)});")
        self._solved(states, out, p)

    def sym_name(self, nm, table):
        c = self.ref(nm)
        if c not in table:
            table[c] = sympy.Symbol(f"_s{len(table)}", real=True)
        return table[c]

    # --- the functions of the mechanism
    def write(self):
        m, pre, out = self.m, self.pre, []
        out.append(f"/* ---- {m.suffix} ({m.file}) ---- */")
        for g, v in self.globals.items():
            out.append(f"#define {pre}G_{g} ({v!r})")
        out.append(f"typedef struct {{ double {', '.join(self.tmp) or '_unused'}; }} {pre}tmp;")
        for kind, table in (("F", m.funcs), ("P", m.procs)):
            for fn, (args, _) in table.items():
                ret = "double" if kind == "F" else "void"
                sig = "".join(f", double {a}" for a in args)
                out.append(f"OLIVE_HD {ret} {pre}{kind}_{fn}(olive_mech_ctx *c, {pre}tmp *t{sig});")
                if fn in m.tables:
                    out.append(f"OLIVE_HD {ret} {pre}{kind}f_{fn}(olive_mech_ctx *c, {pre}tmp *t{sig});")
        for kind, table in (("F", m.funcs), ("P", m.procs)):
            for fn, (args, body) in table.items():
                self.locals_set = set(args)
                ret = "double" if kind == "F" else "void"
                sig = "".join(f", double {a}" for a in args)
                if fn in m.tables:   # the formulas as Ff_/Pf_ (what the table is filled from), the lookup as F_/P_
                    out += self.table_lookup(kind, fn, args[0])
                    self.locals_set = set(args)
                out.append(f"OLIVE_HD {ret} {pre}{kind}{'f' if fn in m.tables else ''}_{fn}(olive_mech_ctx *c, {pre}tmp *t{sig})")
                out.append("{")
                body_out = []
                if kind == "F":
                    self.locals_set.add(fn)
                    body_out.append(f"    double {fn} = 0;")
                body_out += self.ion_reads("    ")
                self.stmts(body, body_out, 1, "function")
                if kind == "F":
                    body_out.append(f"    return {fn};")
                out += body_out
                out.append("    (void)c; (void)t;")
                out.append("}")
        # the current of BREAKPOINT at the context's v
        self.locals_set = set()
        out.append(f"OLIVE_HD double {pre}current(olive_mech_ctx *c, {pre}tmp *t)")
        out.append("{")
        body = self.ion_reads("    ") + self.conc_reads("    ")
        self.stmts(m.blocks["BREAKPOINT"], body, 1, "breakpoint")
        out += body
        total = " + ".join(self.ref(i) for i in self.currents) or "0"
        out.append("    (void)t;")
        out.append(f"    return {total};")
        out.append("}")
        # init
        self.locals_set = set()
        out.append(f"OLIVE_HD void {pre}init(olive_mech_ctx *c)")
        out.append("{")
        out.append(f"    {pre}tmp tt = {{0}}, *t = &tt;")
        body = self.ion_reads("    ")
        for p in self.param_copies:
            body.append(f"    {self.ref(p)} = c->p[{self.range_params.index(p)} * c->pld];")
        for st in m.states:   # NEURON: a STATE starts at its STATE0 global (0), or the ion's value
            if st in self.ion_vars:
                body.append(f"    {self.ref(st)} = {self.ion_io(st)};")
            else:
                body.append(f"    {self.ref(st)} = 0;")
        if "INITIAL" in m.blocks:
            self.stmts(m.blocks["INITIAL"], body, 1, "initial")
        body += self.conc_writes("    ")
        out += body
        out.append("    (void)c; (void)t;")
        out.append("}")
        # cur
        out.append(f"OLIVE_HD void {pre}cur(olive_mech_ctx *c, double *rhs, double *d)")
        out.append("{")
        out.append(f"    {pre}tmp tt = {{0}}, *t = &tt;")
        out.append("    const double v = c->v;")
        out.append("    c->v = v + .001;")
        out.append(f"    const double g = {pre}current(c, t);")
        out.append("    c->v = v;")
        out.append(f"    const double i = {pre}current(c, t);")
        for cur in self.written_currents:
            out.append(f"    {self.ion_io(cur)} += {self.ref(cur)};")
        out.append("    *rhs -= i;")
        out.append("    *d += (g - i) / .001;")
        out.append("}")
        # state
        self.locals_set = set()
        out.append(f"OLIVE_HD void {pre}state(olive_mech_ctx *c)")
        out.append("{")
        out.append(f"    {pre}tmp tt = {{0}}, *t = &tt;")
        body = self.ion_reads("    ") + self.conc_reads("    ")
        for blk, method in m.solve:
            if method == "sparse":
                self.kinetic_solve(blk, body, "    ")
            else:
                self.stmts(m.derivs[blk], body, 1, "derivative")
        body += self.conc_writes("    ")
        out += body
        out.append("    (void)c; (void)t;")
        out.append("}")
        out += self.net_receive()
        return "\n".join(out)

    def net_receive(self):
        """{pre}net(c, weight): NET_RECEIVE with the weights of one step's events summed. That is NEURON's
        result only where each statement adds weight times a constant to a variable, X = X + c * weight
        (ExpSyn, Exp2Syn): anything else is refused by name."""
        m, pre = self.m, self.pre
        out = [f"OLIVE_HD void {pre}net(olive_mech_ctx *c, double w_)", "{"]
        if not m.net:
            return out + ["    (void)c; (void)w_;", "}"]
        args, block = m.net
        at = r"\bNET_RECEIVE\b"
        if len(args) != 1:
            m.refuse(f"NET_RECEIVE({', '.join(args)}): olive passes the weight alone (one argument)", at)
        w = args[0]
        self.locals_set = {w}
        out += [f"    {pre}tmp tt = {{0}}, *t = &tt;", f"    const double {w} = w_;"]
        assigned = set()
        for st in block.statements:
            k = _kind(st)
            if k in ("UnitState", "LineComment", "BlockComment"):
                continue
            e = st.expression if k == "ExpressionStatement" else None
            while e is not None and _kind(e) == "WrappedExpression":
                e = e.expression
            why = ("olive sums the weights of the events a synapse receives in one step, so NET_RECEIVE may only add "
                   f"the weight times a constant to a variable (X = X + c * {w}): ")
            if e is None or _kind(e) != "BinaryExpression" or e.op.eval() != "=":
                m.refuse(why + to_text(st), at)
            x = _name(e.lhs)
            if x not in self.vars:
                m.refuse(why + f"{to_text(st)} assigns {x}, not a STATE or ASSIGNED of the instance", at)
            table = {}
            xs = self.sym_name(x, table)
            ws = self.sym_name(w, table)
            f = sympy.expand(self.sym(e.rhs, table) - xs)
            coef = sympy.diff(f, ws)
            others = {table[self.ref(a)] for a in assigned | {x} if self.ref(a) in table}
            if f.subs(ws, 0) != 0 or coef.has(ws) or any(coef.has(o) for o in others):
                m.refuse(why + to_text(st), at)
            assigned.add(x)
            out.append(f"    {self.ref(x)} = {self.expr(e.rhs)};")
        return out + ["    (void)c; (void)t;", "}"]

    # --- TABLEs (NEURON's _check_ and _n_ functions, as nocmodl writes them)
    def table_layout(self):
        """Where each TABLE lies in the mechanism's tab: {fn: offset}, and the total."""
        at, n = {}, 0
        for fn, tb in self.m.tables.items():
            at[fn] = n
            n += 2 + (tb["with"] + 1) * max(1, len(tb["names"]))
        return at, n

    def _table_check(self, fn, tb):
        """A table is one for every instance (NEURON's are global): its function
        may read its argument, constants, GLOBALs and celsius only."""
        m, seen, todo, words = self.m, set(), [fn], set()
        for d in tb["depend"]:
            if d != "celsius" and d not in self.globals:
                m.refuse(f"TABLE in {fn}: DEPEND {d}: only celsius and GLOBAL parameters", r"\bDEPEND\b")
        while todo:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            args, body = (m.funcs.get(f) or m.procs.get(f))
            w = set(re.findall(r"[A-Za-z_]\w*", to_text(body))) - set(args)
            words |= w
            todo += [g for g in w if g in m.funcs or g in m.procs]
        for nm in sorted(words):
            if nm in tb["names"] or nm in self.locals_set:
                continue
            if nm in self.range_params or nm in self.m.states or nm in self.ion_vars or nm in ("v", "t", "dt") or \
               (nm in self.vars and nm not in tb["names"]):
                m.refuse(f"TABLE in {fn}: it reads {nm}, which differs between instances (NEURON's table would hold "
                         "one instance's value)", r"\bTABLE\b")

    def table_lookup(self, kind, fn, arg):
        """F_/P_fn: linear interpolation in the table (NEURON's _n_fn)."""
        m, pre, tb = self.m, self.pre, self.m.tables[fn]
        self.locals_set = {arg}
        self._table_check(fn, tb)
        o, nv, W = self.table_layout()[0][fn], max(1, len(tb["names"])), tb["with"]
        ret = "double" if kind == "F" else "void"
        outs = [self.ref(nm) for nm in tb["names"]]
        out = [f"/* {fn}: TABLE {', '.join(tb['names'])} FROM {to_text(tb['from'])} TO {to_text(tb['to'])} WITH {W} */",
               f"OLIVE_HD {ret} {pre}{kind}_{fn}(olive_mech_ctx *c, {pre}tmp *t, double {arg})", "{"]

        def put(vals):
            if kind == "F":
                return [f"        return {vals[0]};"]
            return [f"        {nm} = {v};" for nm, v in zip(outs, vals)] + ["        return;"]
        out += [f"    if (!c->tab) {{ {'return ' if kind == 'F' else ''}{pre}{kind}f_{fn}(c, t, {arg}); "
                f"{'' if kind == 'F' else 'return; '}}}",
                f"    const double *tb = c->tab + {o};",
                f"    const double xi = tb[1] * ({arg} - tb[0]);",
                "    if (isnan(xi)) {"] + put(["xi"] * nv) + ["    }", "    if (xi <= 0.) {"]
        out += put([f"tb[{2 + k}]" for k in range(nv)]) + ["    }", f"    if (xi >= {float(W)!r}) {{"]
        out += put([f"tb[{2 + W * nv + k}]" for k in range(nv)]) + ["    }"]
        out += ["    const int i = (int)xi;", "    const double theta = xi - (double)i;",
                f"    const double *a = tb + 2 + i * {nv}, *b = a + {nv};"]
        vals = [f"a[{k}] + theta * (b[{k}] - a[{k}])" for k in range(nv)]
        out += [f"    return {vals[0]};"] if kind == "F" else [f"    {nm} = {v};" for nm, v in zip(outs, vals)]
        out += ["    (void)t;", "}"]
        return out

    def table_fill(self, nion):
        """Host: {pre}table(celsius, tab), NEURON's _check_fn for each TABLE: the
        function at 1 + WITH points from FROM, the point summed step by step."""
        m, pre = self.m, self.pre
        at, n = self.table_layout()
        if not n:
            return []
        out = [f"static void {pre}table(double celsius, double *tab)", "{",
               f"    double x_[{len(self.vars) + 1}] = {{0}}, p_[{len(self.range_params) + 1}] = {{0}}, "
               f"io_[{nion * 4 + 1}] = {{0}};",
               "    olive_mech_ctx cc = {p_, 1, x_, 1, io_, 1, 0, celsius, 0, 0, NULL}, *c = &cc;",
               f"    {pre}tmp tt = {{0}}, *t = &tt;"]
        self.locals_set = set()
        for fn, tb in m.tables.items():
            kind = "F" if tb["func"] else "P"
            nv = max(1, len(tb["names"]))
            out += ["    {", f"        double *tb = tab + {at[fn]};",
                    f"        const double tmin = {self.expr(tb['from'])}, tmax = {self.expr(tb['to'])};",
                    f"        const double dx = (tmax - tmin) / {float(tb['with'])!r};",
                    "        tb[0] = tmin;", "        tb[1] = 1. / dx;", "        double x = tmin;",
                    f"        for (int i = 0; i < {tb['with'] + 1}; x += dx, i++) {{"]
            if kind == "F":
                out.append(f"            tb[2 + i] = {pre}Ff_{fn}(c, t, x);")
            else:
                out.append(f"            {pre}Pf_{fn}(c, t, x);")
                out += [f"            tb[2 + i * {nv} + {k}] = {self.ref(nm)};" for k, nm in enumerate(tb["names"])]
            out += ["        }", "    }"]
        out += ["    (void)c; (void)t;", "}"]
        return out

    def ion_io(self, nm):
        slot, f, _ = self.ion_vars[nm]
        return f"c->io[({slot} * OLIVE_ION_NF + {f}) * c->is]"

    def ion_reads(self, p):
        """Locals of the ion variables it reads (or writes as currents), from the node's ion."""
        out = []
        for nm, (slot, f, w) in self.ion_vars.items():
            if nm in self.vars:
                continue   # a STATE or RANGE current kept per instance
            out.append(f"{p}double ion_{nm} = {self.ion_io(nm)};")
            out.append(f"{p}(void)ion_{nm};")
        return out

    def conc_reads(self, p):
        """A concentration it writes, taken from the node's ion first (nocmodl's
        cai = _ion_cai): another mechanism may have written it since."""
        return [f"{p}{self.ref(nm)} = {self.ion_io(nm)};" for nm in self.written_conc]

    def conc_writes(self, p):
        return [f"{p}{self.ion_io(nm)} = {self.ref(nm)};" for nm in self.written_conc]


class _SymPrinter(C99CodePrinter):
    """sympy -> C with olive's exp/log/pow (the same bits on every engine)."""

    def _print_Pow(self, e):
        b, x = e.as_base_exp()
        if x == -1:
            return f"(1.0 / ({self._print(b)}))"
        if x == sympy.Rational(1, 2):
            return f"sqrt({self._print(b)})"
        return f"olive_mech_pow({self._print(b)}, {self._print(x)})"

    def _print_Function(self, e):
        n = e.func.__name__
        if n in ("exp", "log"):
            return f"{C_FUNCS[n]}({self._print(e.args[0])})"
        return super()._print_Function(e)

    def _print_exp(self, e):
        return f"olive_exp_d({self._print(e.args[0])})"

    def _print_log(self, e):
        return f"olive_log_d({self._print(e.args[0])})"

    def _print_Float(self, e):
        return repr(float(e))

    def _print_Rational(self, e):
        return f"({float(e.p)!r} / {float(e.q)!r})"

    def _print_Integer(self, e):
        return repr(float(e))


def to_text(node):
    from nmodl import dsl
    return dsl.to_nmodl(node)


def read(path):
    """The Mechanism of a .mod file (Refused, or SyntaxError naming the file)."""
    from nmodl import dsl
    with open(path, encoding="utf-8", errors="strict") as f:
        text = f.read()
    try:
        tree = dsl.NmodlDriver().parse_string(text)
    except RuntimeError as e:
        raise SyntaxError(f"{path}: NMODL's parser: {e}") from None
    m = Mechanism(path, text, tree)
    for s in m.blocks["BREAKPOINT"].statements:
        if _kind(s) == "ExpressionStatement":
            s = s.expression
        if _kind(s) == "SolveBlock":
            blk = _name(s.block_name)
            method = _name(s.method) if s.method is not None else None
            if method == "sparse" and blk in m.kinetics:
                m.solve.append((blk, method))
                continue
            if blk not in m.derivs:
                m.refuse(f"SOLVE {blk}: no DERIVATIVE block of that name (a KINETIC block takes METHOD sparse)",
                         r"\bSOLVE\b")
            if method != "cnexp":
                m.refuse(f"SOLVE {blk} METHOD {method}: only cnexp (DERIVATIVE) and sparse (KINETIC) are supported "
                         "so far", r"\bMETHOD\b")
            m.solve.append((blk, method))
    return m


def library_source(mechs, name, digest, origin):
    """The C source of a library of mechanisms (sorted as nrnivmodl registers them)."""
    ions, charges = [], {}
    for m in mechs:
        for ion, _, _, val in m.useion:
            if ion not in ions:
                ions.append(ion)
            c = val if val is not None else KNOWN_IONS[ion]
            if charges.setdefault(ion, (c, m.file))[0] != c:
                m.refuse(f"USEION {ion}: VALENCE {c} differs from {charges[ion][1]}'s {charges[ion][0]}",
                         r"USEION\s+" + ion)
    slots = {ion: i for i, ion in enumerate(ions)}
    writers = [Writer(m, slots) for m in mechs]
    out = [f"/* {name}: mechanisms compiled by olive-model build from {origin}.",
           " * Generated: edit the .mod files, not this. */",
           '#include "cable_mech.h"', "#include <stddef.h>", ""]
    for w in writers:
        out.append(w.write())
        out.append("")
    for fn, sig, call in (("init", "olive_mech_ctx *c", "c"), ("cur", "olive_mech_ctx *c, double *rhs, double *d",
                                                               "c, rhs, d"), ("state", "olive_mech_ctx *c", "c"),
                           ("net", "olive_mech_ctx *c, double w", "c, w")):
        out.append(f"OLIVE_HD void lib_{fn}(int m, {sig})")
        out.append("{")
        out.append("    switch (m) {")
        for i, w in enumerate(writers):
            out.append(f"    case {i}: {w.pre}{fn}({call}); break;")
        out.append("    default: break;")
        out.append("    }")
        out.append("}")
    out.append("#ifdef OLIVE_PLUGIN_DEVICE   /* the GPU image: the three functions the CUDA engine links (cable_mech.h) */")
    out.append('extern "C" __device__ void olive_mech_init_v1(int m, olive_mech_ctx *c) { lib_init(m, c); }')
    out.append('extern "C" __device__ void olive_mech_cur_v1(int m, olive_mech_ctx *c, double *rhs, double *d) '
               '{ lib_cur(m, c, rhs, d); }')
    out.append('extern "C" __device__ void olive_mech_state_v1(int m, olive_mech_ctx *c) { lib_state(m, c); }')
    out.append('extern "C" __device__ void olive_mech_net_v1(int m, olive_mech_ctx *c, double w) { lib_net(m, c, w); }')
    out.append("#else")
    out.append("#ifdef OLIVE_PLUGIN_FATBIN   /* nvcc's image of this source (olive-model build where nvcc is) */")
    out.append("#include OLIVE_PLUGIN_FATBIN")
    out.append("#define OLIVE_FATBIN olive_plugin_fatbin, sizeof olive_plugin_fatbin")
    out.append("#else")
    out.append("#define OLIVE_FATBIN NULL, 0")
    out.append("#endif")

    def cstr(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def arr(typ, nm, items):
        out.append(f"static const {typ} {nm}[] = {{{', '.join(items) if items else '0'}}};")
    for w in writers:
        out += w.table_fill(len(ions))
    out.append("static void lib_table(int m, double celsius, double *tab)")
    out.append("{")
    out.append("    switch (m) {")
    for i, w in enumerate(writers):
        if w.table_layout()[1]:
            out.append(f"    case {i}: {w.pre}table(celsius, tab); break;")
    out.append("    default: (void)celsius; (void)tab; break;")
    out.append("    }")
    out.append("}")
    for i, w in enumerate(writers):
        m = w.m
        arr("char *const", f"{w.pre}pnames", [cstr(p) for p in w.range_params])
        arr("double", f"{w.pre}pdef", [repr(m.params[p] if m.params[p] is not None else 0.0) for p in w.range_params])
        arr("char *const", f"{w.pre}vnames", [cstr(v) for v in w.vars])
        uses = []
        for ion, reads, writes, _ in m.useion:
            bits = []
            for nm, rw in [(x, "READ") for x in reads] + [(x, "WRITE") for x in writes]:
                f = "E" if nm == "e" + ion else "I" if nm == "i" + ion else "CI" if nm == ion + "i" else "CO"
                bits.append(f"OLIVE_ION_{rw}_{f}")
            uses.append(f"{{{slots[ion]}, {' | '.join(bits) or '0'}}}")
        arr("olive_mech_ion", f"{w.pre}ions", uses)
    out.append("static const olive_mech_desc mechs[] = {")
    for w in writers:
        m = w.m
        out.append(f"    {{{cstr(m.suffix)}, {cstr(m.file)}, {len(w.range_params)}, {w.pre}pnames, {w.pre}pdef, "
                   f"{len(w.vars)}, {w.vars and w.pre + 'vnames' or 'NULL'}, {len(m.states)}, {len(m.useion)}, "
                   f"{w.pre}ions, {w.table_layout()[1]}, {int(m.point)}}},")
    out.append("};")
    out.append("static const olive_mech_ion_desc ions[] = {" +
               ", ".join(f"{{{cstr(ion)}, {cstr(charges[ion][1])}, {charges[ion][0]!r}}}" for ion in ions) +
               ("" if ions else "{0}") + "};")
    out.append("static const olive_mech_library library = {")
    out.append(f"    OLIVE_MECHS_ABI, {cstr(digest)}, {cstr(name)}, {cstr(origin)}, {len(writers)}, mechs, "
               f"{len(ions)}, ions, lib_init, lib_cur, lib_state, lib_table, OLIVE_FATBIN, lib_net,")
    out.append("};")
    out.append("const olive_mech_library *olive_cable_mechs_v1(void);")
    out.append("const olive_mech_library *olive_cable_mechs_v1(void) { return &library; }")
    out.append("#endif")
    return "\n".join(out) + "\n"
