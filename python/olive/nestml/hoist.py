"""Two rewrites of a printed update expression (C text, as printer.py makes
it) that leave every value as it was, bit for bit:

- hoist(): a part of the expression that names no state variable, no input
  and no local (only parameters, internals, dt, literals and olive's pure
  functions) is the same number at every step: it is computed once per
  coefficient set, into a coefficient slot, and the step reads the slot.
  The part keeps its operations and their order (C evaluates a + b + c as
  (a + b) + c; Python's parser groups + - * / and unary minus as C does),
  and olive compiles without contraction (-ffp-contract=off, -fmad=false),
  so the slot holds the very double the step computed before.
  ode-toolbox's propagators are full of such parts: iaf_psc_exp's V_m
  update had four double divisions a step, I_e * tau_m / C_m among them.

- without_input(): the expression for a step without input current (I_in
  is 0): the terms that are I_in times something are left out. Such a term
  is +-0 there, and x + 0 is x (a zero's sign aside); the model's step
  takes this form when olive passes no current, on the CPU and the GPU
  alike (the same bits on both).

An expression these cannot read (a comparison, a ternary) is left as it
is."""

import ast

# olive's functions of the printed C (printer.FUNCTIONS): pure, so a call on
# coefficients is a coefficient
PURE = {"olive_exp_d", "olive_log_d", "olive_pow_d", "fmax", "fmin", "fabs", "sqrt", "round"}
# names that are the same number at every step of a coefficient set (K_:
# the hoisted parts themselves)
_CONSTANT_PREFIXES = ("P_", "V_", "K_")
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def _parse(text):
    """The expression's tree, or None where it is not + - * / and calls."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) not in _OPS:
            return None
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, (ast.USub, ast.UAdd)):
            return None
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and not node.keywords):
            return None
        if not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Load,
                                 ast.operator, ast.unaryop)):
            return None
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            return None
    return tree


def _c(node):
    """C text of a tree: every operation in parentheses, so that C reads it
    as the tree is (the same operations in the same order)."""
    if isinstance(node, ast.BinOp):
        return f"({_c(node.left)} {_OPS[type(node.op)]} {_c(node.right)})"
    if isinstance(node, ast.UnaryOp):
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{_c(node.operand)})"
    if isinstance(node, ast.Call):
        return f"{node.func.id}({', '.join(_c(a) for a in node.args)})"
    if isinstance(node, ast.Name):
        return node.id
    v = node.value
    return repr(float(v)) if isinstance(v, float) else str(v)


def _constant(node):
    """Is the tree the same number at every step (no state, input, local)?"""
    if isinstance(node, ast.Name):
        return node.id == "OLIVE_DT" or node.id.startswith(_CONSTANT_PREFIXES)
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call):
        return node.func.id in PURE and all(_constant(a) for a in node.args)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    return _constant(node.left) and _constant(node.right)


def _worth(node):
    """A part worth a slot: one with a binary operation or a call in it
    (a lone name or a negated one costs as much as reading a slot)."""
    return any(isinstance(n, (ast.BinOp, ast.Call)) for n in ast.walk(node))


class Slots:
    """The hoisted parts of a model: K_k is parts[k] (C text of
    coefficients), a slot of coef[] the template places after the others;
    equal parts share one."""

    def __init__(self):
        self.parts = []

    def name(self, text):
        if text not in self.parts:
            self.parts.append(text)
        return f"K_{self.parts.index(text)}"


def hoist(text, slots):
    """TEXT with its constant parts named K_k (slots: Slots)."""
    tree = _parse(text)
    if tree is None:
        return text

    def walk(node):
        if _constant(node):
            if _worth(node):
                return ast.Name(id=slots.name(_c(node)))
            return node
        if isinstance(node, ast.BinOp):
            return ast.BinOp(left=walk(node.left), op=node.op, right=walk(node.right))
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=node.op, operand=walk(node.operand))
        if isinstance(node, ast.Call):
            return ast.Call(func=node.func, args=[walk(a) for a in node.args], keywords=[])
        return node
    return _c(walk(tree))


def _zero(node, name):
    """Is the tree 0 (up to its sign) whenever NAME is 0: NAME, or a
    product or quotient with such a factor (a dividend), or one negated?"""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.UnaryOp):
        return _zero(node.operand, name)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Mult):
            return _zero(node.left, name) or _zero(node.right, name)
        if isinstance(node.op, ast.Div):
            return _zero(node.left, name)
    return False


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def without_input(text, name="I_in"):
    """TEXT without its terms that are NAME times something, or None when
    NAME is not only in such terms of the expression's sum (nothing to
    leave out, or a use this cannot drop: exp(I_in), x / I_in + ...)."""
    tree = _parse(text)
    if tree is None or name not in _names(tree):
        return None

    def drop(node):
        """node's sum without its zero terms; None when all of it is."""
        if _zero(node, name):
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left, right = drop(node.left), drop(node.right)
            if right is None:
                return left
            if left is None:   # 0 + b is b, 0 - b is -b (a zero's sign aside)
                return right if isinstance(node.op, ast.Add) else ast.UnaryOp(op=ast.USub(), operand=right)
            return ast.BinOp(left=left, op=node.op, right=right)
        return node
    out = drop(tree)
    if out is None:
        return "0.0"
    return None if name in _names(out) else _c(out)
