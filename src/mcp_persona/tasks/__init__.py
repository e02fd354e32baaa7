"""Tasks: the file format and its loader."""

from mcp_persona.tasks.loader import SuiteInfo, TaskFileError, bundled_suites, read_tasks, suite_info, write_suite
from mcp_persona.tasks.models import (
    CheckedSpec,
    Checkpoint,
    GoldCall,
    GoldStep,
    OperateCheckpoint,
    OtherCheckpoint,
    SearchCheckpoint,
    ServerContext,
    Task,
    TaskSpec,
    checkpoints_of,
)

__all__ = [
    "CheckedSpec",
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
    "TaskSpec",
    "bundled_suites",
    "checkpoints_of",
    "read_tasks",
    "suite_info",
    "write_suite",
]
