"""MCP-Persona: benchmark LLM agents on simulated, personalized MCP apps."""

__version__ = "0.1.0"
