"""olive's C11 expression printer for NESTML: NESTML's own C printers (units
folded to NEST's scale: mV, ms, pA, pF, nS) with olive's names for the
variables and olive's exp/log (common/math/fastexp.h, fastlog.h: the same bits
on CPU and GPU); functions olive has no bit-reproducible form of are refused
by name, never printed as libm calls."""

from pynestml.codegeneration.printers.constant_printer import ConstantPrinter
from pynestml.codegeneration.printers.cpp_expression_printer import CppExpressionPrinter
from pynestml.codegeneration.printers.c_simple_expression_printer import CSimpleExpressionPrinter
from pynestml.codegeneration.printers.function_call_printer import FunctionCallPrinter
from pynestml.codegeneration.printers.variable_printer import VariablePrinter
from pynestml.codegeneration.nest_unit_converter import NESTUnitConverter
from pynestml.symbols.predefined_units import PredefinedUnits
from pynestml.symbols.predefined_variables import PredefinedVariables
from pynestml.symbols.symbol import SymbolKind
from pynestml.symbols.unit_type_symbol import UnitTypeSymbol


class Refused(Exception):
    """A NESTML construct olive cannot compile yet: the message names it."""


# NESTML function -> C (IEEE-exact or olive's own, identical on CPU and GPU)
FUNCTIONS = {
    "exp": "olive_exp_d({})", "ln": "olive_log_d({})", "log": "olive_log_d({})",
    "log10": "(olive_log_d({}) / 2.302585092994046)", "expm1": "(olive_exp_d({}) - 1.0)",
    "pow": "olive_pow_d({}, {})", "max": "fmax({}, {})", "min": "fmin({}, {})",
    "abs": "fabs({})", "sqrt": "sqrt({})", "clip": "fmin(fmax({}, {}), {})",
    # NEST's Time(ms=t).get_steps(): t in steps of the resolution, to the nearest
    "steps": "round(({}) / OLIVE_DT)",
}


class OliveVariablePrinter(VariablePrinter):
    """Names: S(x) a state variable, P(x) a parameter, V(x) an internal, I_in
    the continuous input, OLIVE_DT the step; `names` maps NESTML names to C."""

    def __init__(self, names, ports):
        super().__init__(None)
        self.names, self.ports, self.port_value = names, ports, None

    def print_variable(self, variable):
        name = variable.get_complete_name()
        if variable.get_name() == PredefinedVariables.E_CONSTANT:
            return "2.718281828459045"
        if variable.get_name() == PredefinedVariables.PI_CONSTANT:
            return "3.141592653589793"
        if name in self.ports:
            if self.port_value is None:
                raise Refused(f"the spike port {name} used outside the linear form VAR += k * {name}")
            return self.port_value
        symbol = variable.get_scope().resolve_to_symbol(name, SymbolKind.VARIABLE)
        if symbol is None:
            if PredefinedUnits.is_unit(name):
                return repr(float(NESTUnitConverter.get_factor(PredefinedUnits.get_unit(name).get_unit())))
            raise Refused(f"the variable {name} (not a state variable, parameter or internal)")
        if variable.has_vector_parameter() or symbol.has_vector_parameter():
            raise Refused(f"the vector {name}")
        factor = 1
        if symbol.is_buffer() and isinstance(symbol.get_type_symbol(), UnitTypeSymbol):
            factor = NESTUnitConverter.get_factor(symbol.get_type_symbol().unit.unit)
        if name not in self.names:
            raise Refused(f"the variable {name}")
        s = self.names[name]
        return s if factor == 1 else f"({float(factor)!r} * {s})"


class OliveFunctionCallPrinter(FunctionCallPrinter):
    def print_function_call(self, call):
        name = call.get_name()
        if name in ("resolution", "timestep"):
            return "OLIVE_DT"
        if name not in FUNCTIONS:
            raise Refused(f"the function {name}()")
        args = [self._expression_printer.print(a) for a in call.get_args()]
        return FUNCTIONS[name].format(*args)


class OliveExpressionPrinter(CppExpressionPrinter):
    def _print_arithmetic_operator_expression(self, node):
        if node.get_binary_operator().is_modulo_op:
            raise Refused("the operator %")
        return super()._print_arithmetic_operator_expression(node)


class OliveConstantPrinter(ConstantPrinter):
    """Every literal a double, with all its digits (repr round-trips)."""

    def print_constant(self, node):
        if isinstance(node, bool) or not isinstance(node, (int, float)):
            raise Refused(f"the constant {node!r}")
        return repr(float(node))


def make_printer(names, ports):
    var = OliveVariablePrinter(names, ports)
    fun = OliveFunctionCallPrinter(None)
    p = OliveExpressionPrinter(simple_expression_printer=CSimpleExpressionPrinter(
        variable_printer=var, constant_printer=OliveConstantPrinter(), function_call_printer=fun))
    var._expression_printer = p
    fun._expression_printer = p
    return p, var
