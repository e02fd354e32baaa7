"""Wolfram Alpha: a computation engine in the style of the Wolfram Alpha MCP servers.

``wolfram_query {input}`` takes arithmetic ("(1+0.05)^10 * 2500", "sqrt(2)", "factorial(12)"), unit
conversions ("12 miles in km", "72 F to C") and named constants ("speed of light"); ``calculate
{expression}`` evaluates an expression only; ``convert_units {value, from_unit, to_unit}``;
``solve_equation {equation}`` solves linear and quadratic equations in x. Everything runs through the
shared safe evaluator (``mcp_persona.apps._live.calc``): no Python is executed. Answers are
``{input, result, ...}``; what cannot be interpreted fails with Wolfram's "did not understand" wording.
"""

from mcp_persona.apps.wolfram_alpha.tools import APP

__all__ = ["APP"]
