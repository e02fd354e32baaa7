"""Tasks: the file format and its loader."""

from mcp_persona.tasks.loader import SuiteInfo, TaskFileError, bundled_suites, load_tasks, suite_info, write_suite
from mcp_persona.tasks.models import (
    Checkpoint,
    FileCheck,
    GoldCall,
    GoldStep,
    OperateCheckpoint,
    OtherCheckpoint,
    SearchCheckpoint,
    ServerContext,
    StateCheck,
    Task,
)

__all__ = [
    "Checkpoint",
    "FileCheck",
    "GoldCall",
    "GoldStep",
    "OperateCheckpoint",
    "OtherCheckpoint",
    "SearchCheckpoint",
    "ServerContext",
    "StateCheck",
    "SuiteInfo",
    "Task",
    "TaskFileError",
    "bundled_suites",
    "load_tasks",
    "suite_info",
    "write_suite",
]
