"""The computation tools: safe arithmetic, units, constants, small equations."""

from __future__ import annotations

import cmath
import re
from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail
from mcp_persona.apps._live.calc import CalcError, evaluate, tidy
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "wolfram_alpha",
    title="Wolfram Alpha",
    category="utility",
    personalized=False,
    description="Compute arithmetic, convert units, look up physical constants and solve small equations.",
    real_server="Wolfram Alpha MCP servers (LLM API)",
)
_CONVERT = re.compile(r"^\s*(-?[\d.,]+(?:e-?\d+)?)\s*([^\d\s].*?)\s+(?:in|to|into|as)\s+(.+?)\s*\??$", re.I)
_TEMPS = {"c", "f", "k"}


def _unit(env: AppEnv, name: str) -> str:
    key = name.strip().lower().rstrip(".")
    key = collection(env, "aliases").get(key, {}).get("unit", key)
    if key in _TEMPS or key in collection(env, "units"):
        return key
    raise ToolFailure(f"Wolfram|Alpha did not understand the unit '{name}'", kind="not_found")


def _to_kelvin(v: float, u: str) -> float:
    return {"c": v + 273.15, "f": (v - 32) * 5 / 9 + 273.15, "k": v}[u]


def _from_kelvin(v: float, u: str) -> float:
    return {"c": v - 273.15, "f": (v - 273.15) * 9 / 5 + 32, "k": v}[u]


def _convert(env: AppEnv, value: float, src: str, dst: str) -> dict[str, Any]:
    a, b = _unit(env, src), _unit(env, dst)
    units = collection(env, "units")
    if a in _TEMPS or b in _TEMPS:
        if not (a in _TEMPS and b in _TEMPS):
            raise fail(f"cannot convert {src} (a temperature?) to {dst}", "conflict")
        result = _from_kelvin(_to_kelvin(value, a), b)
    else:
        if units[a]["dimension"] != units[b]["dimension"]:
            raise fail(f"cannot convert {units[a]['dimension']} ({src}) to {units[b]['dimension']} ({dst})",
                       "conflict")
        result = value * units[a]["factor"] / units[b]["factor"]
    return {"value": value, "from_unit": a, "to_unit": b, "result": tidy(result, 8)}


@APP.tool()
def wolfram_query(env: AppEnv, input: str = Field(min_length=1, max_length=500, description="A question or expression")
          ) -> dict[str, Any]:
    """Answer a computational query: an expression, a unit conversion or a named constant."""
    text = input.strip()
    const = collection(env, "constants").get(text.lower().rstrip("?").removeprefix("what is the ").strip())
    if const is not None:
        return {"input": text, "result": const["value"], "unit": const["unit"], "interpretation": const["name"]}
    m = _CONVERT.match(text)
    if m:
        try:
            value = float(m.group(1).replace(",", ""))
        except ValueError:
            value = None
        if value is not None:
            out = _convert(env, value, m.group(2), m.group(3))
            return {"input": text, "result": out["result"], "unit": out["to_unit"], "interpretation": "unit conversion"}
    try:
        value = evaluate(text.rstrip("?=").replace(",", ""))
    except CalcError as exc:
        raise ToolFailure(f"Wolfram|Alpha did not understand your input: {exc}", kind="range") from exc
    return {"input": text, "result": tidy(value), "interpretation": "arithmetic"}


@APP.tool()
def calculate(env: AppEnv, expression: str = Field(min_length=1, max_length=500, description=(
        "Arithmetic with + - * / ^ %, parentheses, sqrt, log, ln, exp, sin/cos/tan, round, min, max, sum, "
        "average, factorial, comb, gcd, pi, e"))) -> dict[str, Any]:
    """Evaluate an arithmetic expression exactly as written."""
    try:
        value = evaluate(expression)
    except CalcError as exc:
        raise fail(str(exc)) from exc
    return {"expression": expression, "result": tidy(value)}


@APP.tool()
def convert_units(env: AppEnv, value: float = Field(ge=-1e15, le=1e15, description="The amount"),
                  from_unit: str = Field(min_length=1, max_length=30,
                                         description="a unit's symbol or name, e.g. 'mi', 'kg', 'F', 'm'"),
                  to_unit: str = Field(min_length=1, max_length=30,
                                       description="a unit's symbol or name, e.g. 'km', 'lb', 'C', 'ft' (feet)")
                  ) -> dict[str, Any]:
    """Convert a value between units of the same dimension (length, mass, time, volume, speed, area,
    energy, data, temperature)."""
    return _convert(env, value, from_unit, to_unit)


_TERM = re.compile(r"([+-]?\s*(?:\d+(?:\.\d+)?)?)\s*\*?\s*(x\^2|x\*\*2|x)?")


def _poly(side: str) -> tuple[float, float, float]:
    a = b = c = 0.0
    text = side.replace(" ", "")
    if not text:
        raise fail("an equation side is empty")
    pos = 0
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m or m.end() == pos:
            raise fail(f"cannot read '{text[pos:]}' as a polynomial term in x")
        coef, power = m.group(1), m.group(2)
        if coef in ("", "+", "-") and power is None:
            raise fail(f"cannot read '{text[pos:]}' as a polynomial term in x")
        k = float(coef + "1") if coef in ("", "+", "-") else float(coef)
        if power in ("x^2", "x**2"):
            a += k
        elif power == "x":
            b += k
        else:
            c += k
        pos = m.end()
    return a, b, c


@APP.tool()
def solve_equation(env: AppEnv, equation: str = Field(min_length=3, max_length=200, description=(
        "A linear or quadratic equation in x, e.g. '3x + 5 = 20' or 'x^2 - 5x + 6 = 0'"))) -> dict[str, Any]:
    """Solve a linear or quadratic equation in x (real and complex roots)."""
    if equation.count("=") != 1:
        raise fail("an equation needs exactly one '='")
    left, right = equation.lower().split("=")
    (a1, b1, c1), (a2, b2, c2) = _poly(left), _poly(right)
    a, b, c = a1 - a2, b1 - b2, c1 - c2
    if a == 0 and b == 0:
        raise fail("no unknown left: " + ("every x solves it" if c == 0 else "no x solves it"), "conflict")
    if a == 0:
        return {"equation": equation, "solutions": [tidy(-c / b)]}
    disc = b * b - 4 * a * c
    roots = sorted({tidy((-b + s * cmath.sqrt(disc).real) / (2 * a)) for s in (1, -1)}) if disc >= 0 else [
        f"{tidy(-b / (2 * a))} {sign} {tidy(abs(cmath.sqrt(disc).imag / (2 * a)))}i" for sign in ("+", "-")]
    return {"equation": equation, "discriminant": tidy(disc), "solutions": roots}
