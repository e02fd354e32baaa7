"""The MCPAgentBench tool library: servers declared as data, run by one shared engine."""
