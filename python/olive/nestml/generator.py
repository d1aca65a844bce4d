"""The olive target of NESTML: a .nestml file -> one C source implementing
olive's plugin interface (common/models/model_plugin.h).

NESTML does the modelling work: parsing, unit checks, the transformations
(convolutions with spike ports become kernel state variables) and, through
ode-toolbox, the choice of solver (exact propagators for linear ODEs, a
numeric solver for the rest), as for its Python-standalone target, whose
analysis this generator reuses. olive adds the C: its own expression printer
(printer.py) and template (templates/plugin.c.jinja2).

Mapping (docs/MODELS.md, "Your own models: NESTML"):
- state block -> the cell's variables (units as NESTML declares them),
  initial values as C expressions of the parameters (init());
- parameters -> olive parameters with their defaults and declared units;
- internals (with ode-toolbox's propagators __P__*) -> coef, computed once
  per population from the parameters and dt (coef_make());
- update block -> step(); integrate_odes(): the propagators for the
  variables ode-toolbox solved exactly, for the numeric ones GSL's adaptive
  RKF45 as NEST runs it (common/models/plugin_rkf45.h; NESTML's NEST target's
  choice) or, asked for, a fixed-step RK4 over the step;
- onCondition -> condition() and on_spike() (emit_spike() dropped);
- onReceive(port) / kernel spike updates / a spike port in the update block,
  each statement `VAR += k * port` (or -=) -> a receptor (VAR, k);
- the continuous input port -> the pulse current (current_unit).
Anything else is refused by name (Refused), never miscompiled.
"""

import contextlib
import io
import math
import os
import tempfile

import jinja2

from .hoist import Slots, hoist, without_input
from .printer import Refused, make_printer

# for the ODEs ode-toolbox leaves numeric: rk45 (the default, NESTML's choice
# for NEST: GSL's adaptive RKF45) or rk4 (fixed step, one step per dt)
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


class NestmlError(Exception):
    """NESTML's own messages for a model it rejects (file, line, what)."""


from .versions import GENERATOR_VERSION, NUMERIC_SOLVERS, nestml_version  # noqa: E402,F401


def _nestml_errors(path):
    """NESTML's logged errors as 'FILE:LINE:COL: error: message' lines."""
    from pynestml.utils.logger import Logger, LoggingLevel
    out = []
    for entry in Logger.get_log().values():
        _artifact, _node, level, _code, pos, message = entry
        if level != LoggingLevel.ERROR:
            continue
        where = f"{path}:{pos.start_line}:{pos.start_column}" if pos is not None else path
        out.append(f"{where}: error: {message}")
    return out


def analyse(path):
    """Parse, check and transform the model of PATH with NESTML; returns
    (neuron AST, the Python-standalone target's namespace)."""
    from pynestml.cocos.co_cos_manager import CoCosManager
    from pynestml.codegeneration.python_standalone_code_generator import PythonStandaloneCodeGenerator
    from pynestml.frontend.pynestml_frontend import (configure_front_end, get_parsed_models,
                                                     transform_models, transformers_from_target_name)
    from pynestml.utils.logger import Logger

    captured = {}

    class Capture(PythonStandaloneCodeGenerator):
        """NESTML's analysis without its Python output: keeps the namespace."""
        def generate_neuron_code(self, neuron, metadata):
            captured[neuron.get_name()] = (neuron, self._get_neuron_model_namespace(neuron, metadata))

        def generate_synapse_code(self, synapse, metadata):
            raise Refused(f"the synapse model {synapse.get_name()} (olive compiles neuron models)")

        def generate_module_code(self, *args, **kwargs):
            pass

    # NESTML prints its log on stdout; olive prints the errors in its own form
    # NESTML writes TARGET/../report: TARGET one level down in a private directory, so that
    # builds side by side do not race for one TMPDIR/report
    with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(io.StringIO()):
        configure_front_end(path, "python_standalone", target_path=os.path.join(scratch, "target"),
                            logging_level="ERROR")
        models = get_parsed_models()
        for m in models:
            if not Logger.has_errors(m):
                CoCosManager.check_cocos(m)
        errors = _nestml_errors(path)
        if errors or not models:
            raise NestmlError("\n".join(errors) or f"{path}: error: NESTML found no model in it")
        if len(models) != 1:
            raise Refused(f"{len(models)} models in one file (one model per file)")
        transformers, _ = transformers_from_target_name("python_standalone")
        models, metadata = transform_models(transformers, models)
        try:
            Capture().generate_code(models, metadata)
        except Refused:
            raise
        except Exception as e:   # NESTML's code-generation checks raise after logging
            raise NestmlError("\n".join(_nestml_errors(path)) or f"{path}: error: {e}")
        errors = _nestml_errors(path)
        if errors:
            raise NestmlError("\n".join(errors))
    if not captured:
        raise Refused("a file without a neuron model")
    return next(iter(captured.values()))


def _declarations(blocks):
    for block in blocks:
        for decl in block.get_declarations():
            for var in decl.get_variables():
                yield var.get_complete_name(), decl


def _unit(symbol):
    return symbol.get_type_symbol().print_nestml_type()


def _names_in(expr):
    return {v.get_complete_name() for v in expr.get_variables()}


def _contains(expr, name):
    return name in _names_in(expr)


def _linear_in(expr, port):
    """expr is a product/quotient chain with port exactly once as a factor."""
    from pynestml.meta_model.ast_simple_expression import ASTSimpleExpression
    if isinstance(expr, ASTSimpleExpression):
        return expr.is_variable() and expr.get_variable().get_complete_name() == port
    if expr.is_encapsulated:
        return _linear_in(expr.get_expression(), port)
    if expr.is_unary_operator():
        return _linear_in(expr.get_expression(), port)
    op = expr.get_binary_operator()
    if op is None or not hasattr(op, "is_times_op"):
        return False
    lhs, rhs = expr.get_lhs(), expr.get_rhs()
    if op.is_times_op:
        a, b = _contains(lhs, port), _contains(rhs, port)
        return (a != b) and _linear_in(lhs if a else rhs, port)
    if op.is_div_op:
        return not _contains(rhs, port) and _linear_in(lhs, port)
    return False


class Model:
    """One NESTML neuron as the pieces of olive's plugin."""

    def __init__(self, path, neuron, ns, numeric_solver="rk45"):
        if numeric_solver not in NUMERIC_SOLVERS:
            raise ValueError(f"numeric solver {numeric_solver}: not one of {', '.join(NUMERIC_SOLVERS)}")
        self.path, self.neuron, self.ns, self.numeric_solver = path, neuron, ns, numeric_solver
        self.name = neuron.get_name()
        if neuron.get_equations_blocks() and len(neuron.get_equations_blocks()) > 1:
            raise Refused("more than one equations block")
        self._ports()
        self._variables()
        self.printer, self.varprinter = make_printer(self.cnames, self.spike_ports)
        self._values()
        self._solver()
        self.hoisted = Slots()   # the propagators' constant parts (hoist.py)
        self.receptors = []      # (port, var index, scale C text)
        self.recept_stmts = set()
        self._update_block()
        self._receptors()
        self._condition()
        self._finish_receptors()

    # ---- declarations
    def _ports(self):
        self.spike_ports, self.qualified, self.current = [], True, None
        for block in self.neuron.get_input_blocks():
            for port in block.get_input_ports():
                if port.has_size_parameter():
                    raise Refused(f"the vector input port {port.get_name()}")
                if port.is_spike():
                    self.spike_ports.append(port.get_name())
                    # (an unqualified port is "implicitly all types": signed weights)
                    self.qualified &= port.has_input_qualifiers()
                elif self.current is not None:
                    raise Refused(f"a second continuous input port {port.get_name()} (olive has one pulse current)")
                else:
                    self.current = port
                    from pynestml.codegeneration.printers.nestml_printer import NESTMLPrinter
                    self.current_unit = NESTMLPrinter().print(port.get_datatype()) if port.has_datatype() else "1"
        if self.neuron.get_output_blocks() and not any(b.is_spike() for b in self.neuron.get_output_blocks()):
            raise Refused("a continuous output port")

    def _variables(self):
        n = self.neuron
        self.state = [(name, decl) for name, decl in _declarations(n.get_state_blocks())]
        self.params = [(name, decl) for name, decl in _declarations(n.get_parameters_blocks())]
        self.internals = [(name, decl) for name, decl in _declarations(n.get_internals_blocks())]
        for name, decl in self.state + self.params + self.internals:
            if decl.has_size_parameter():
                raise Refused(f"the vector {name}")
        self.sidx = {name: i for i, (name, _) in enumerate(self.state)}
        self.cnames = {}
        for name, _ in self.state:
            self.cnames[name] = "S_" + name
        for name, _ in self.params:
            self.cnames[name] = "P_" + name
        for name, _ in self.internals:
            self.cnames[name] = "V_" + name
        if self.current is not None:
            self.cnames[self.current.get_name()] = "I_in"
        scope = n.get_equations_blocks()[0].get_scope() if n.get_equations_blocks() else None
        self.units = []
        for name, decl in self.state:
            sym = decl.get_variables()[0].get_scope().resolve_to_symbol(name, _kind()) or \
                (scope and scope.resolve_to_symbol(name, _kind()))
            self.units.append(_unit(sym) if sym else "1")
        self.param_units = [_unit(d.get_variables()[0].get_scope().resolve_to_symbol(nm, _kind())) for nm, d in self.params]

    def expr(self, e):
        return self.printer.print(e)

    def _values(self):
        """Defaults of the parameters (constants), initial values (C of the
        parameters), internals (C of the parameters, earlier internals, dt)."""
        self.defaults = []
        for name, decl in self.params:
            text = self.expr(decl.get_expression())
            if _uses(text, "P_", "V_", "S_"):
                raise Refused(f"the default of parameter {name} refers to another variable")
            self.defaults.append(_eval_constant(text, f"the default of parameter {name}"))
        self.internal_code = [(name, self.expr(decl.get_expression())) for name, decl in self.internals]
        for name, code in self.internal_code:   # (computed once per population: no cell's state there)
            if _uses(code, "S_"):
                raise Refused(f"the internal {name} refers to a state variable (internals are computed once per "
                              "population, before any cell has a state)")
        # internals that depend on dt (init() runs before any dt is known)
        with_dt = set()
        for name, code in self.internal_code:
            if _uses(code, "OLIVE_DT") or any(_uses(code, "V_" + d + r"\b") for d in with_dt):
                with_dt.add(name)
        self.inits = []
        for name, decl in self.state:
            text = self.expr(decl.get_expression()) if decl.has_expression() else "0.0"
            if _uses(text, "S_", "OLIVE_DT") or any(_uses(text, "V_" + d + r"\b") for d in with_dt):
                raise Refused(f"the initial value of {name} refers to a state variable or to dt")
            self.inits.append(text)
        self.init_needs_internals = any(_uses(t, "V_") for t in self.inits)
        # (olive checks a descriptor's initial values: those of internals,
        # hh's gating equilibria, evaluated here too; init() computes them)
        values = {"P_" + name: d for (name, _), d in zip(self.params, self.defaults)}
        for name, code in self.internal_code:
            values["V_" + name] = _initial_value(code, values)
        self.initial_values = [_initial_value(text, values) for text in self.inits]
        # NEST's -DBL_MAX for NESTML's -inf (izhikevich's V_min): olive's
        # parameters are finite; max(V_min, V_m) is the same
        self.defaults = [math.copysign(_DBL_MAX, d) if math.isinf(d) else d for d in self.defaults]

    def _solver(self):
        ns = self.ns
        self.analytic = list(ns.get("analytic_state_variables") or []) if ns.get("uses_analytic_solver") else []
        self.numeric = list(ns.get("numeric_state_variables") or []) if ns.get("uses_numeric_solver") else []
        if ns.get("propagators_are_state_dependent"):
            raise Refused("propagators that depend on the state")
        for v in self.analytic + self.numeric:
            if v not in self.sidx:
                raise Refused(f"the ODE variable {v} without a state declaration")
        self.analytic_only = [v for v in self.analytic if v not in self.numeric]
        self.coef_checks = []        # (C condition, message) coef_make() tests
        if self.numeric and self.numeric_solver == "rk45":
            self._rkf45_variables()
            self.solver = ("RKF45 (adaptive, GSL's rkf45 with its y-control, abs/rel tolerances gsl_abs_error_tol/"
                           "gsl_rel_error_tol) for " + ", ".join(self.numeric))
        elif self.numeric:
            self.solver = "RK4 (fixed step, 4 stages per step) for " + ", ".join(self.numeric)
        if self.numeric and self.analytic_only:
            self.solver += "; exact propagators for " + ", ".join(self.analytic_only)
        elif self.analytic and not self.numeric:
            self.solver = "exact propagators (ode-toolbox) for " + ", ".join(self.analytic)
        elif not self.numeric:
            self.solver = "no ODEs"

    # the RKF45's run-time settings, as NESTML's NEST target names them
    RKF45_PARAMS = (("gsl_abs_error_tol", 1e-6, "{} > 0.0", "gsl_abs_error_tol must be more than 0"),
                    ("gsl_rel_error_tol", 1e-6, "{} >= 0.0", "gsl_rel_error_tol must be 0 or more"))
    RKF45_STEP = "__h_int"

    def _rkf45_variables(self):
        """The tolerances become parameters (NESTML's NEST target has them
        too) and the last internal step size a state variable, per cell (so a
        restart goes on with it; 0: dt, as NEST starts every Simulate)."""
        names = [n for n, _ in self.params + self.state]
        for name, default, test, why in self.RKF45_PARAMS:
            if name in names:
                raise Refused(f"a variable named {name} (the RKF45's tolerance parameter)")
            self.params.append((name, None))
            self.defaults.append(default)
            self.param_units.append("1")
            self.coef_checks.append((test.format("P_" + name), why))
        if self.RKF45_STEP in names:
            raise Refused(f"a variable named {self.RKF45_STEP} (the RKF45's step size)")
        self.sidx[self.RKF45_STEP] = len(self.state)
        self.state.append((self.RKF45_STEP, None))
        self.units.append("ms")
        self.inits.append("0.0")
        self.initial_values.append(0.0)

    # ---- statements
    def stmts(self, body, where, indent):
        out = []
        for stmt in body.get_stmts():
            out.extend(self.stmt(stmt, where, indent))
        return out

    def stmt(self, stmt, where, indent):
        pad = "    " * indent
        if stmt.is_small_stmt():
            s = stmt.small_stmt
            if s.is_assignment():
                return [pad + self.assignment(s.get_assignment(), where)]
            if s.is_declaration():
                d = s.get_declaration()
                if d.has_size_parameter():
                    raise Refused(f"the vector declaration in {where}")
                names = [v.get_complete_name() for v in d.get_variables()]
                for nm in names:
                    self.cnames[nm] = "L_" + nm
                init = self.expr(d.get_expression()) if d.has_expression() else "0.0"
                return [pad + f"double L_{nm} = {init};" for nm in names]
            if s.is_function_call():
                call = s.get_function_call()
                if call.get_name() == "emit_spike" and where == "onCondition":
                    return []
                if call.get_name() == "integrate_odes" and where == "update":
                    return self.integrate(call, pad)
                raise Refused(f"{call.get_name()}() in the {where} block")
            raise Refused(f"a return statement in the {where} block")
        c = stmt.compound_stmt
        if not c.is_if_stmt():
            raise Refused(f"a {'while' if c.is_while_stmt() else 'for'} loop in the {where} block")
        i = c.get_if_stmt()
        out = [pad + f"if ({self.expr(i.get_if_clause().get_condition())}) {{"]
        out += self.stmts(i.get_if_clause().get_stmts_body(), where, indent + 1)
        for e in i.get_elif_clauses():
            out.append(pad + f"}} else if ({self.expr(e.get_condition())}) {{")
            out += self.stmts(e.get_stmts_body(), where, indent + 1)
        if i.has_else_clause():
            out.append(pad + "} else {")
            out += self.stmts(i.get_else_clause().get_stmts_body(), where, indent + 1)
        out.append(pad + "}")
        return out

    def assignment(self, a, where):
        name = a.get_variable().get_complete_name()
        target = self.cnames.get(name, "")
        if not (target.startswith("S_") or target.startswith("L_")):
            raise Refused(f"an assignment to {name} in the {where} block (only state and local variables)")
        op = "=" if a.is_direct_assignment else "+=" if a.is_compound_sum else "-=" \
            if a.is_compound_minus else "*=" if a.is_compound_product else "/="
        return f"{target} {op} {self.expr(a.get_expression())};"

    def integrate(self, call, pad):
        args = [a.get_variable().get_complete_name() for a in call.get_args()] if call.get_args() else []
        chosen = set(args) if args else set(self.analytic + self.numeric)
        # kernel variables of convolutions evolve always (NESTML's targets do the same)
        chosen |= {v for v in self.analytic + self.numeric if "__X__" in v}
        out = [pad + "{   /* integrate_odes(" + ", ".join(args) + ") */"]
        p2 = pad + "    "
        ana = [v for v in self.analytic_only if v in chosen]
        for v in ana:
            out.append(p2 + f"const double t_{v} = {self.propagated(self.expr(self.ns['update_expressions'][v]))};")
        num = self.numeric
        if num:
            out += (self.rkf45 if self.numeric_solver == "rk45" else self.rk4)(num, chosen, p2)
        for v in ana:
            out.append(p2 + f"S_{v} = t_{v};")
        for v in num:
            if v in chosen:
                out.append(p2 + f"S_{v} = n_{v};")
        out.append(pad + "}")
        return out

    def propagated(self, text):
        """A propagator expression as the step computes it (hoist.py): its
        constant parts from coefficient slots; where it has input terms and
        olive passes no current (with_input 0), without them."""
        bare = without_input(text) if self.current is not None else None
        full = hoist(text, self.hoisted)
        return full if bare is None else f"with_input ? {full} : {hoist(bare, self.hoisted)}"

    def rkf45(self, num, chosen, pad):
        """NEST's integration of a non-linear model (GSL's rkf45, y-control,
        evolve_apply looped over the step: common/models/plugin_rkf45.h) of
        the numeric ODEs; as NESTML's NEST target, the variables
        integrate_odes() does not name are held (derivative 0). Bounded: past
        OLIVE_RKF45_MAX_TRIES tries in one step, or a step size below
        OLIVE_RKF45_H_MIN of dt, the step size becomes NaN and step() reports
        the cell (olive-simulate names the solver)."""
        n, h = len(num), "S_" + self.RKF45_STEP
        f = {v: self.expr(self.ns["numeric_update_expressions"][v]) if v in chosen else "0.0" for v in num}
        atol, rtol = ("P_" + name for name, *_ in self.RKF45_PARAMS)
        out = [f"double rk_y[{n}], rk_y0[{n}], rk_k[6 * {n}], rk_yt[{n}], rk_err[{n}];"]
        out += [f"rk_y[{i}] = S_{v};" for i, v in enumerate(num)]
        out += [f"double rk_t = 0.0, rk_h = {h} > 0.0 ? {h} : OLIVE_DT;   /* NEST's IntegrationStep_ */",
                "int rk_tries = 0;",
                "while (rk_t < OLIVE_DT) {   /* gsl_odeiv_evolve_apply until the step's end */",
                "    const double rk_t0 = rk_t, rk_rest = OLIVE_DT - rk_t0;",
                "    double rk_h0 = rk_h;",
                f"    for (int i = 0; i < {n}; i++) rk_y0[i] = rk_y[i];",
                "    for (int rk_s0 = 0;; rk_s0 = 1) {   /* a try; k1 (GSL's dydt_in) once per evolve_apply */",
                "        if (++rk_tries > OLIVE_RKF45_MAX_TRIES) break;",
                "        const int rk_final = rk_h0 > rk_rest;",
                "        if (rk_final) rk_h0 = rk_rest;",
                "        for (int rk_s = rk_s0; rk_s < 6; rk_s++) {",
                f"            olive_rkf45_stage_arg(rk_s, {n}, rk_h0, rk_y0, rk_k, rk_yt);"]
        out += [f"            const double S_{v} = rk_yt[{i}]; (void)S_{v};" for i, v in enumerate(num)]
        out += [f"            rk_k[rk_s * {n} + {i}] = {f[v]};" for i, v in enumerate(num)]
        out += ["        }",
                f"        olive_rkf45_finish({n}, rk_h0, rk_y0, rk_k, rk_y, rk_err);",
                "        rk_t = rk_final ? OLIVE_DT : rk_t0 + rk_h0;",
                "        const double rk_h_old = rk_h0;",
                f"        const int rk_adj = olive_rkf45_hadjust({n}, rk_y, rk_err, {atol}, {rtol}, &rk_h0);",
                "        if (!olive_rkf45_reject(rk_adj, rk_t, rk_h_old, &rk_h0)) break;",
                "        if (rk_h0 < OLIVE_RKF45_H_MIN * OLIVE_DT) { rk_tries = OLIVE_RKF45_MAX_TRIES + 1; break; }",
                "    }",
                "    if (rk_tries > OLIVE_RKF45_MAX_TRIES) { rk_h = NAN; break; }",
                "    rk_h = rk_h0;",
                "}",
                f"{h} = rk_h;"]
        out += [f"const double n_{v} = rk_y[{i}];" for i, v in enumerate(num) if v in chosen]
        return [pad + line for line in out]

    def rk4(self, num, chosen, pad):
        """Classic RK4 over one step dt of the numeric ODEs; each stage
        evaluates NESTML's right-hand sides with the state variables shadowed
        by the stage's values."""
        f = {v: self.expr(self.ns["numeric_update_expressions"][v]) for v in num}
        out = [pad + f"double k1_{v}, k2_{v}, k3_{v}, k4_{v};" for v in num]
        stages = [("k1", None, None), ("k2", "k1", "0.5 * OLIVE_DT"), ("k3", "k2", "0.5 * OLIVE_DT"), ("k4", "k3", "OLIVE_DT")]
        for k, prev, h in stages:
            out.append(pad + "{")
            for v in num:
                val = f"S_{v}" if prev is None else f"S_{v} + {h} * {prev}_{v}"
                out.append(pad + f"    const double y_{v} = {val};")
            for v in num:
                out.append(pad + f"    const double S_{v} = y_{v}; (void)S_{v};")
            for v in num:
                out.append(pad + f"    {k}_{v} = {f[v]};")
            out.append(pad + "}")
        for v in (v for v in num if v not in chosen):
            out.append(pad + f"(void)k4_{v};   /* integrated along, not kept: integrate_odes() did not name it */")
        for v in (v for v in num if v in chosen):
            out.append(pad + f"const double n_{v} = S_{v} + OLIVE_DT / 6.0 * (k1_{v} + 2.0 * k2_{v} + 2.0 * k3_{v} + k4_{v});")
        return out

    # ---- blocks
    def _update_block(self):
        """step() is the update block up to a statement reading a spike port;
        those statements are receptors (inputs_before_condition), and what
        follows them runs in condition(), before the test, as NEST's order."""
        blocks = self.neuron.get_update_blocks()
        if len(blocks) > 1:
            raise Refused("more than one update block")
        self.update_tail_stmts = []
        self.update_port_stmts = []
        head = []
        stmts = blocks[0].get_stmts_body().get_stmts() if blocks else []
        phase = 0
        for stmt in stmts:
            ports = self._ports_in_stmt(stmt)
            if ports:
                if phase == 2:
                    raise Refused("spike ports read at two places of the update block")
                phase = 1
                self.update_port_stmts.append(stmt)
            elif phase >= 1:
                phase = 2
                self.update_tail_stmts.append(stmt)
            else:
                head.append(stmt)
        self.step_code = []
        for stmt in head:
            self.step_code += self.stmt(stmt, "update", 2)
        self.tail_code = []
        for stmt in self.update_tail_stmts:
            self.tail_code += self.stmt(stmt, "update", 2)

    def _ports_in_stmt(self, stmt):
        names = _stmt_variables(stmt)
        return [p for p in self.spike_ports if p in names]

    def _receptor_stmt(self, stmt, port, where):
        if not stmt.is_small_stmt() or not stmt.small_stmt.is_assignment():
            raise Refused(f"{where}: a statement other than VAR += k * {port}")
        a = stmt.small_stmt.get_assignment()
        self._receptor_assignment(a, port, where)

    def _receptor_assignment(self, a, port, where):
        var = a.get_variable().get_complete_name()
        if var not in self.sidx or not (a.is_compound_sum or a.is_compound_minus):
            raise Refused(f"{where}: {var} {'=' if a.is_direct_assignment else 'op='} ... (only STATE += k * {port} or -=)")
        e = a.get_expression()
        if not _linear_in(e, port):
            raise Refused(f"{where}: the increment of {var} is not k * {port}")
        # A spike port is a train of deltas in 1/s: one spike of weight w is
        # w / s, which in NEST's scale (ms) is the number w * 1e-3 -- the
        # "* 1 s" (1000 ms) of `I_syn += unit_psc * port * 1 s` then gives w.
        self.varprinter.port_value = "1.0e-3"
        try:
            scale = self.expr(e)
        finally:
            self.varprinter.port_value = None
        if a.is_compound_minus:
            scale = f"-({scale})"
        self.receptors.append((port, self.sidx[var], scale))

    def _receptors(self):
        for port in self.spike_ports:
            for stmt in self.update_port_stmts:
                if port in _stmt_variables(stmt):
                    self._receptor_stmt(stmt, port, f"the update block's use of {port}")
        for block in self.neuron.get_on_receive_blocks():
            port = block.get_port_name()
            for stmt in block.get_stmts_body().get_stmts():
                self._receptor_stmt(stmt, port, f"onReceive({port})")
        for port, assignments in (self.ns.get("spike_updates") or {}).items():
            for a in assignments:
                self._receptor_assignment(a, port, f"the convolution with {port}")
        if self.ns.get("post_spike_updates"):
            raise Refused("post-synaptic spike updates (neuron-synapse pairs)")
        seen = {}
        for port, var, _ in self.receptors:
            if port in seen:
                raise Refused(f"the spike port {port} adding to two variables ({self.state[seen[port]][0]}, {self.state[var][0]}): an olive receptor is one variable")
            seen[port] = var
        for port in self.spike_ports:
            if port not in seen:
                raise Refused(f"the spike port {port}, which no statement of the form VAR += k * {port} uses")

    def _condition(self):
        blocks = self.neuron.get_on_condition_blocks()
        if len(blocks) != 1:
            raise Refused(f"{len(blocks)} onCondition blocks (olive needs one, with emit_spike())")
        b = blocks[0]
        self.condition_code = self.expr(b.get_cond_expr())
        self.on_spike_code = self.stmts(b.get_stmts_body(), "onCondition", 1)
        self.spike_var = _spike_var(b.get_cond_expr(), self.sidx)
        if self.spike_var is None:
            raise Refused("an onCondition without a test STATE >= or > something (olive's spike variable)")
        self.cond_reads = _names_in(b.get_cond_expr())
        self.on_spike_names = _body_names(b.get_stmts_body())

    def _finish_receptors(self):
        recvars = {self.state[v][0] for _, v, _ in self.receptors}
        self.inputs_before_condition = int(bool(self.update_port_stmts) or bool(recvars & self.cond_reads)
                                           or bool(recvars & self.on_spike_names))
        self.rscale, self.rcoef, self.scale_code = [], [], []
        for port, var, scale in self.receptors:
            if _uses(scale, "P_", "V_", "OLIVE_DT", "olive_"):
                self.rcoef.append(self.nbase + len(self.scale_code))
                self.scale_code.append(scale)
                self.rscale.append(1.0)
            else:
                self.rcoef.append(-1)
                self.rscale.append(_eval_constant(scale, f"the weight factor of {port}"))
        var0 = self.state[self.receptors[0][1]][0] if self.receptors else None
        self.weight_unit = self.units[self.sidx[var0]] if var0 and "__X__" not in var0 else "1"

    @property
    def nbase(self):
        return len(self.params) + len(self.internals) + 1    # + dt

    @property
    def init_only(self):
        """Parameters only the initial state reads (NEST's V_m = v0): coef_make
        leaves them 0, so that cells differing only in them share a
        coefficient set (olive-simulate makes one per distinct set)."""
        import re
        text = "\n".join(self.step_code + self.tail_code + self.on_spike_code + [self.condition_code]
                          + [c for _, c in self.internal_code] + list(self.scale_code) + self.hoisted.parts
                          + [test for test, _ in self.coef_checks])
        return {name for name, _ in self.params if not re.search(r"\bP_" + re.escape(name) + r"\b", text)}

    def render(self, content_hash):
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), keep_trailing_newline=True,
                                 undefined=jinja2.StrictUndefined)
        origin = f"{os.path.basename(self.path)} (NESTML {nestml_version()}, olive target {GENERATOR_VERSION})"
        return env.get_template("plugin.c.jinja2").render(
            m=self, origin=origin, hash=content_hash, c_string=_c_string, c_double=_c_double, uses=_uses_var,
            nchecked=self.nbase + len(self.scale_code), ncoef=self.nbase + len(self.scale_code) + len(self.hoisted.parts))


def _uses_var(lines, name):
    """Does the C code (lines) name state variable S_name? (a function of
    the template loads only the variables it reads: nvcc warns of others)"""
    import re
    return re.search(r"\bS_" + re.escape(name) + r"\b", "\n".join(lines)) is not None


def _uses(text, *prefixes):
    """Does the C text name something starting with one of the prefixes?"""
    import re
    return any(re.search(r"\b" + p, text) for p in prefixes)


def _kind():
    from pynestml.symbols.symbol import SymbolKind
    return SymbolKind.VARIABLE


def _stmt_variables(stmt):
    from pynestml.visitors.ast_visitor import ASTVisitor

    class Names(ASTVisitor):
        def __init__(self):
            super().__init__()
            self.names = set()

        def visit_variable(self, node):
            self.names.add(node.get_complete_name())
    v = Names()
    stmt.accept(v)
    return v.names


def _body_names(body):
    names = set()
    for s in body.get_stmts():
        names |= _stmt_variables(s)
    return names


def _spike_var(cond, sidx):
    """The state variable of the condition's upward test (V_m >= V_th)."""
    from pynestml.meta_model.ast_simple_expression import ASTSimpleExpression
    if isinstance(cond, ASTSimpleExpression):
        return None
    if cond.is_encapsulated:
        return _spike_var(cond.get_expression(), sidx)
    op = cond.get_binary_operator()
    if op is None:
        return None
    if getattr(op, "is_ge", False) or getattr(op, "is_gt", False):
        lhs = cond.get_lhs()
        if isinstance(lhs, ASTSimpleExpression) and lhs.is_variable() and lhs.get_variable().get_complete_name() in sidx:
            return sidx[lhs.get_variable().get_complete_name()]
        return None
    for side in (cond.get_lhs(), cond.get_rhs()):
        found = _spike_var(side, sidx) if side is not None else None
        if found is not None:
            return found
    return None


_DBL_MAX = 1.7976931348623157e308


def _eval_constant(text, what):
    """A C expression of literals only, evaluated in IEEE doubles as C would."""
    py = text.replace("(double)", "").replace("INFINITY", "inf")
    try:
        value = eval(py, {"__builtins__": {}}, {"inf": math.inf, "nan": math.nan, "INFINITY": math.inf, "fmax": max, "fmin": min, "fabs": abs, "sqrt": math.sqrt,
                                          "olive_exp_d": math.exp, "olive_log_d": math.log, "olive_pow_d": math.pow,
                                          "NAN": math.nan})
    except Exception:
        raise Refused(f"{what} ({text}): not a constant olive can evaluate")
    return float(value)


def _initial_value(text, values):
    """The value of a C expression of parameters and internals (values: C
    name -> value) at the parameters' defaults and dt = 0.1 ms, or NaN."""
    import re
    py = re.sub(r"\b[PV]_\w+|\bOLIVE_DT\b", lambda mt: _c_double(values.get(mt.group(0), 0.1 if mt.group(0) == "OLIVE_DT" else math.nan)), text)
    try:
        return _eval_constant(py, "")
    except (Refused, OverflowError, ZeroDivisionError, ValueError):
        return math.nan


def _c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(float(x))


def generate(path, content_hash, numeric_solver="rk45"):
    """(model name, C source, solver line, each state variable's initial value as an expression of
    the parameters for the descriptor: olive.initial_values) of the .nestml file at PATH."""
    from ..initial_values import from_c
    neuron, ns = analyse(path)
    model = Model(path, neuron, ns, numeric_solver)
    return model.name, model.render(content_hash), model.solver, tuple(from_c(t) for t in model.inits)
