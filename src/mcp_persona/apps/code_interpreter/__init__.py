"""Code interpreter: ``execute_python_code {code}`` in the style of the Python code-interpreter MCP
servers used by LiveMCP-101.

Each call runs the code in a fresh sandboxed ``python -I`` process (``mcp_persona.apps._live.sandbox``:
no network, a private temporary directory as the only writable place, CPU, memory, process, file-size,
output and wall-time limits, its own unprivileged uid when the harness is root; everything killed and
removed afterwards). Nothing persists between calls. The call awaits the run, so the server's other calls
and other episodes go on meanwhile.
A program that raises still answers normally, with its traceback in ``stderr`` and ``exit_code`` 1; a
run stopped by a limit is a tool error naming the limit. The limits are read from the context.
"""

from mcp_persona.apps.code_interpreter.tools import APP

__all__ = ["APP"]
