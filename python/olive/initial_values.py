"""A plugin's initial values as expressions of its parameters (NESTML's `V_m mV = E_L`), so that
Python knows the value each cell starts from without loading the plugin: olive-model build writes
each state variable's expression into the model's descriptor, as the plugin's init() computes it.

The expressions come from a file, so they are never handed to eval(): they are parsed by Python's
ast module and only numbers, parameter names, + - * / **, unary minus and a few functions of C's
math library are taken (anything else refuses the descriptor); evaluate() walks that tree with
numpy, one value per cell.
"""

import ast
import math
import re

import numpy as np

_FUNCTIONS = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "fabs": np.abs, "pow": np.power,
              "fmax": np.fmax, "fmin": np.fmin}
_C_NAMES = {"olive_exp_d": "exp", "olive_log_d": "log", "olive_pow_d": "pow", "INFINITY": "inf", "NAN": "nan"}
_BINARY = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide, ast.Pow: np.power}


def from_c(text):
    """The expression of a C initial value (the generator's text: P_NAME for a parameter) in this
    module's form, or "" when it reads more than parameters and constants (an internal)."""
    if re.search(r"\b(V_|S_|OLIVE_DT\b)", text):
        return ""
    py = re.sub(r"\(double\)", "", text)
    py = re.sub(r"\bP_(\w+)", r"\1", py)
    py = re.sub(r"\b(" + "|".join(_C_NAMES) + r")\b", lambda m: _C_NAMES[m.group(1)], py)
    try:
        parse(py, None)
    except ValueError:
        return ""
    return py


def parse(text, names):
    """The checked ast of text; names: the parameters it may read (None: any identifier).
    ValueError naming what is not taken."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ValueError(f"initial value {text!r}: not an expression ({e.msg})") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.Load, ast.operator, ast.unaryop)):
            if isinstance(node, ast.operator) and type(node) not in _BINARY:
                raise ValueError(f"initial value {text!r}: operator {type(node).__name__} is not taken")
            if isinstance(node, ast.unaryop) and not isinstance(node, (ast.USub, ast.UAdd)):
                raise ValueError(f"initial value {text!r}: operator {type(node).__name__} is not taken")
        elif isinstance(node, (ast.BinOp, ast.UnaryOp)):
            pass
        elif isinstance(node, ast.Constant):
            if type(node.value) not in (int, float):
                raise ValueError(f"initial value {text!r}: {node.value!r} is not a number")
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords:
                raise ValueError(f"initial value {text!r}: a call of something other than "
                                 f"{', '.join(sorted(_FUNCTIONS))}")
        elif isinstance(node, ast.Name):
            if node.id in _FUNCTIONS or node.id in ("inf", "nan"):
                continue
            if names is not None and node.id not in names:
                raise ValueError(f"initial value {text!r}: {node.id} is no parameter of the model")
        else:
            raise ValueError(f"initial value {text!r}: {type(node).__name__} is not taken")
    return tree


def evaluate(text, params):
    """The value of an initial-value expression for the cells whose parameters are params
    (name -> float or array, every parameter the expression reads)."""
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id == "inf":
                return math.inf
            if node.id == "nan":
                return math.nan
            return np.asarray(params[node.id], dtype=float)
        if isinstance(node, ast.UnaryOp):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Call):
            return _FUNCTIONS[node.func.id](*[walk(a) for a in node.args])
        raise ValueError(f"initial value {text!r}: {type(node).__name__} is not taken")
    with np.errstate(all="ignore"):
        return walk(parse(text, set(params)))
