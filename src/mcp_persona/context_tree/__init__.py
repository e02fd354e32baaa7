"""Context-Tree: the generic, user-rooted state engine behind every simulated app."""

from mcp_persona.context_tree.diff import Change, diff_states, is_ignored, unignored_fields
from mcp_persona.context_tree.hierarchy import EntityType, Hierarchy, load_hierarchy
from mcp_persona.context_tree.path import PathError, Segment, parse_path
from mcp_persona.context_tree.tree import (
    ConflictError,
    ContextTree,
    NotFoundError,
    ReferenceError_,
    TreeError,
    canonical_hash,
    canonical_json,
    get_field,
    leaves,
)

__all__ = [
    "Change",
    "ConflictError",
    "ContextTree",
    "EntityType",
    "Hierarchy",
    "NotFoundError",
    "PathError",
    "ReferenceError_",
    "Segment",
    "TreeError",
    "canonical_hash",
    "canonical_json",
    "diff_states",
    "get_field",
    "is_ignored",
    "leaves",
    "load_hierarchy",
    "parse_path",
    "unignored_fields",
]
