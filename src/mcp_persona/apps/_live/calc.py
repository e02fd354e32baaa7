"""A safe arithmetic evaluator (the math engine's queries and the workbook's formulas).

Parses with :mod:`ast` and walks only numbers, names the caller supplies, the four operations,
powers, modulo, unary signs, and calls of a fixed function table: no attribute access, no
subscripts, no comprehensions, nothing that reaches Python itself. Sizes are capped so that a
query cannot stall the server (``9**9**9``, ``factorial(10**6)``).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

MAX_EXPONENT = 1000
MAX_FACTORIAL = 500
MAX_LENGTH = 500


class CalcError(ValueError):
    """An expression that is malformed, uses something unknown, or has no finite value."""


def _factorial(n: float) -> int:
    if n != int(n) or n < 0 or n > MAX_FACTORIAL:
        raise CalcError(f"factorial needs an integer 0..{MAX_FACTORIAL}")
    return math.factorial(int(n))


def _flat(args: tuple[Any, ...]) -> list[float]:
    out: list[float] = []
    for a in args:
        out.extend(_flat(tuple(a)) if isinstance(a, list | tuple) else [a])
    return out


def _mean(*args: Any) -> float:
    vals = _flat(args)
    if not vals:
        raise CalcError("average of nothing")
    return sum(vals) / len(vals)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "floor": math.floor, "ceil": math.ceil,
    "exp": math.exp, "ln": math.log, "log": math.log, "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "degrees": math.degrees, "radians": math.radians, "factorial": _factorial,
    "gcd": lambda *a: math.gcd(*map(int, a)), "lcm": lambda *a: math.lcm(*map(int, a)),
    "comb": lambda n, k: math.comb(int(n), int(k)), "perm": lambda n, k: math.perm(int(n), int(k)),
    "min": lambda *a: min(_flat(a)), "max": lambda *a: max(_flat(a)), "sum": lambda *a: sum(_flat(a)),
    "average": _mean, "mean": _mean, "count": lambda *a: len(_flat(a)),
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}


def evaluate(expression: str, names: Mapping[str, Any] | None = None,
             functions: Mapping[str, Callable[..., Any]] | None = None) -> float | int:
    """The value of ``expression`` (``^`` is a power); CalcError when it cannot be computed."""
    text = expression.strip().replace("^", "**").replace("×", "*").replace("÷", "/")
    if not text:
        raise CalcError("empty expression")
    if len(text) > MAX_LENGTH:
        raise CalcError(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise CalcError(f"cannot parse '{expression}'") from exc
    scope = {**CONSTANTS, **{k.lower(): v for k, v in (names or {}).items()}}
    table = {**FUNCTIONS, **{k.lower(): v for k, v in (functions or {}).items()}}
    try:
        value = _eval(tree.body, scope, table)
    except CalcError:
        raise
    except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
        raise CalcError(f"'{expression}' has no value: {exc}") from exc
    if isinstance(value, list | tuple):
        raise CalcError("a range is not a single value; wrap it in SUM, AVERAGE, MIN, MAX or COUNT")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalcError(f"'{expression}' is not finite")
    return value


def _eval(node: ast.AST, scope: Mapping[str, Any], table: Mapping[str, Callable[..., Any]]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        key = node.id.lower()
        if key not in scope:
            raise CalcError(f"unknown name '{node.id}'")
        return scope[key]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _eval(node.operand, scope, table)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, scope, table), _eval(node.right, scope, table)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or (abs(left) > 1e6 and abs(right) > 50)):
            raise CalcError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = table.get(node.func.id.lower())
        if fn is None:
            raise CalcError(f"unknown function '{node.func.id}'")
        return fn(*(_eval(a, scope, table) for a in node.args))
    raise CalcError(f"unsupported syntax: {ast.dump(node)[:60]}")


def tidy(value: float | int, digits: int = 10) -> float | int:
    """Integers as integers; floats rounded to ``digits`` significant places (no 0.30000000000000004)."""
    if isinstance(value, int):
        return value
    if value.is_integer() and abs(value) < 1e15:
        return int(value)
    return float(f"{value:.{digits}g}")
