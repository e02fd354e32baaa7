"""Tool-Traverse (paper §3.1): traverse real MCP servers, then simulate them, then measure fidelity.

The pieces, in the order of the method:

* :mod:`.selffc` grows the seed calls with a model's proposals the real server accepts (Self-FC);
* :mod:`.probe` connects to a real server (stdio or URL), runs seed calls and their perturbations,
  and records the trace pool; :mod:`.state` resets and captures the server's state around every
  probe; :mod:`.models` holds the seed-file and trace-pool records;
* :mod:`.perturb` derives adversarial calls from a seed and the tool's schema (the four error
  classes), with an optional model-written hook; :mod:`.discriminator` labels each response;
* :mod:`.reconstruct` turns a trace's pre-call state into a Context-Tree (paper §4.3);
* :mod:`.synthesize` asks a model for each tool's simulator and accepts it only after replay;
  :mod:`.kernel_app` writes the accepted code as a simulator folder and loads it as an app;
* :mod:`.vanilla` is the documentation-only baseline; :mod:`.fidelity` and :mod:`.similarity`
  compute Table 4.

:mod:`.servers` knows where the bundled reference servers (npm memory and filesystem) live.
Command line: ``mcp-persona traverse`` (``--self-fc``), ``mcp-persona synthesize`` and ``mcp-persona fidelity``.
"""
