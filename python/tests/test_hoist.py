"""olive.nestml.hoist: the rewrites of a model's propagators leave every
value as it was, bit for bit. The expressions are the ones the pinned
NESTML (9.0.0) and ode-toolbox print for library models (olive's printer:
iaf_psc_exp, iaf_psc_alpha), and forms with calls and negations; each is
evaluated in IEEE doubles (Python floats: the same correctly rounded
+ - * / as C without contraction) at random values, before and after."""

import math
import random
import struct

from olive.nestml.hoist import Slots, hoist, without_input

IAF_PSC_EXP_V_M = (
    "(-P_E_L) * V___P__V_m__V_m + P_E_L + S_I_syn_exc * V___P__V_m__I_syn_exc + S_I_syn_inh * V___P__V_m__I_syn_inh"
    " + S_V_m * V___P__V_m__V_m - P_I_e * V___P__V_m__V_m * P_tau_m / P_C_m + P_I_e * P_tau_m / P_C_m"
    " - I_in * V___P__V_m__V_m * P_tau_m / P_C_m + I_in * P_tau_m / P_C_m")
EXPRESSIONS = [
    IAF_PSC_EXP_V_M,
    "V___P__refr_t__refr_t * S_refr_t - 1.0 * V___h",
    "S_I_syn_exc * V___P__I_syn_exc__I_syn_exc",
    # iaf_psc_alpha's V_m
    "(-P_E_L) * V___P__V_m__V_m + P_E_L + S_a * V___P__V_m__a + S_a__d * V___P__V_m__a__d + S_b * V___P__V_m__b"
    " + S_b__d * V___P__V_m__b__d + S_V_m * V___P__V_m__V_m - P_I_e * V___P__V_m__V_m * P_tau_m / P_C_m"
    " + P_I_e * P_tau_m / P_C_m - I_in * V___P__V_m__V_m * P_tau_m / P_C_m + I_in * P_tau_m / P_C_m",
    # calls, unary minus, a constant part inside a call and a division by state
    "S_x * olive_exp_d((-OLIVE_DT) / P_tau) + P_a * (1.0 - olive_exp_d((-OLIVE_DT) / P_tau)) / S_y",
    "-(P_a * P_b) * S_x - I_in / P_c * (P_d + P_e) + fmax(P_a, P_b * 2.0)",
    "I_in * P_a + S_x",
    "P_a * P_b + P_c",
]


def _total(f):
    """f as C's: inf or NaN where Python's raises"""
    def g(*a):
        try:
            return f(*a)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan
    return g


FUNCS = {"olive_exp_d": _total(math.exp), "olive_log_d": _total(math.log), "olive_pow_d": _total(math.pow),
         "fmax": max, "fmin": min, "fabs": abs, "sqrt": _total(math.sqrt)}


def bits(x):
    return struct.pack("<d", x)


def names(text):
    import re
    return set(re.findall(r"\b[A-Z][A-Za-z_0-9]*\b", text)) - set(FUNCS)


def evaluate(text, env):
    return eval(text, {"__builtins__": {}}, {**FUNCS, **env})


def draw(rng, text, **fixed):
    env = {}
    for n in names(text):
        e = rng.uniform(-3, 3)
        env[n] = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0) * 10.0 ** e if not n.startswith("P_tau") \
            else rng.uniform(0.5, 20.0)
    env.update(fixed)
    return env


def test_hoisted_parts_give_the_same_bits():
    rng = random.Random(36)
    for text in EXPRESSIONS:
        slots = Slots()
        out = hoist(text, slots)
        for _ in range(3000):
            env = draw(rng, text)
            k = {f"K_{i}": evaluate(part, env) for i, part in enumerate(slots.parts)}
            assert bits(evaluate(out, {**env, **k})) == bits(evaluate(text, env)), (text, out, env)


def test_what_is_hoisted():
    slots = Slots()
    out = hoist(IAF_PSC_EXP_V_M, slots)
    assert slots.parts == ["(((-P_E_L) * V___P__V_m__V_m) + P_E_L)", "(((P_I_e * V___P__V_m__V_m) * P_tau_m) / P_C_m)",
                           "((P_I_e * P_tau_m) / P_C_m)"]
    assert out.startswith("(((((((K_0 + (S_I_syn_exc * V___P__V_m__I_syn_exc))")
    assert out.count("/") == 2   # the input terms' two divisions stay, the parameters' two are gone
    # a lone name or a negated one stays; equal parts share a slot
    s2 = Slots()
    assert hoist("S_x * P_a + (-P_b) * S_y", s2) == "((S_x * P_a) + ((-P_b) * S_y))" and s2.parts == []
    assert hoist("S_x * (P_a * P_b) + S_y * (P_a * P_b)", s2) == "((S_x * K_0) + (S_y * K_0))"


def test_without_input_is_the_same_value():
    rng = random.Random(35)
    for text in EXPRESSIONS:
        bare = without_input(text)
        if "I_in" not in text:
            assert bare is None
            continue
        assert bare is not None and "I_in" not in bare, text
        for _ in range(3000):
            env = draw(rng, text, I_in=0.0)
            a, b = evaluate(text, env), evaluate(bare, {k: v for k, v in env.items() if k != "I_in"})
            assert a == b and (bits(a) == bits(b) or a == 0.0), (text, bare, env)
    bare = without_input(IAF_PSC_EXP_V_M)
    assert "/" not in hoist(bare, Slots())   # no division left a step
    assert without_input("I_in * P_a") == "0.0"
    assert without_input("P_a - I_in * P_b") == "P_a"
    assert without_input("I_in * P_b - S_x") == "(-S_x)"


def test_forms_left_alone():
    # I_in not only as a factor of a term: nothing is left out
    assert without_input("olive_exp_d(I_in) + S_x") is None
    assert without_input("S_x / I_in + P_a") is None
    assert without_input("(S_x + I_in) * P_a") is None
    # C this cannot read (a comparison, a ternary, a cast) is kept as printed
    for text in ("S_x > P_a ? P_b : P_c", "(double)P_a * S_x", "S_x && P_a"):
        assert hoist(text, Slots()) == text
        assert without_input(text) is None
