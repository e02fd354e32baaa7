"""Tasks: the file format and its loader."""

from mcp_persona.tasks.loader import SuiteInfo, TaskFileError, bundled_suites, load_tasks, suite_info
from mcp_persona.tasks.models import (
    Checkpoint,
    GoldCall,
    GoldStep,
    OperateCheckpoint,
    OtherCheckpoint,
    SearchCheckpoint,
    ServerContext,
    Task,
)

__all__ = [
    "Checkpoint",
    "GoldCall",
    "GoldStep",
    "OperateCheckpoint",
    "OtherCheckpoint",
    "SearchCheckpoint",
    "ServerContext",
    "SuiteInfo",
    "Task",
    "TaskFileError",
    "bundled_suites",
    "load_tasks",
    "suite_info",
]
