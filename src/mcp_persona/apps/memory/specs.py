# ruff: noqa: E501  (verbatim descriptions)
"""The tools of @modelcontextprotocol/server-memory 2026.8.31 as its ``tools/list`` publishes them.

Title, description, input schema and annotations: interface facts, copied verbatim so that the
simulator lists the same tools as the real server.
"""

from __future__ import annotations

from typing import Any

TOOL_SPECS: dict[str, dict[str, Any]] = {
    "create_entities": {
        "title": "Create Entities",
        "description": "Create multiple new entities in the knowledge graph",
        "inputSchema": {
            "type": "object",
            "properties": {
                "entities": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "The name of the entity"},
                            "entityType": {"type": "string", "description": "The type of the entity"},
                            "observations": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "An array of observation contents associated with the entity",
                            },
                        },
                        "required": ["name", "entityType", "observations"],
                    },
                }
            },
            "required": ["entities"],
        },
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    },
    "create_relations": {
        "title": "Create Relations",
        "description": "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
        "inputSchema": {
            "type": "object",
            "properties": {
                "relations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {
                                "type": "string",
                                "description": "The name of the entity where the relation starts",
                            },
                            "to": {"type": "string", "description": "The name of the entity where the relation ends"},
                            "relationType": {"type": "string", "description": "The type of the relation"},
                        },
                        "required": ["from", "to", "relationType"],
                    },
                }
            },
            "required": ["relations"],
        },
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    },
    "add_observations": {
        "title": "Add Observations",
        "description": "Add new observations to existing entities in the knowledge graph",
        "inputSchema": {
            "type": "object",
            "properties": {
                "observations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "entityName": {
                                "type": "string",
                                "description": "The name of the entity to add the observations to",
                            },
                            "contents": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "An array of observation contents to add",
                            },
                        },
                        "required": ["entityName", "contents"],
                    },
                }
            },
            "required": ["observations"],
        },
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    },
    "delete_entities": {
        "title": "Delete Entities",
        "description": "Delete multiple entities and their associated relations from the knowledge graph",
        "inputSchema": {
            "type": "object",
            "properties": {
                "entityNames": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "An array of entity names to delete",
                }
            },
            "required": ["entityNames"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
    },
    "delete_observations": {
        "title": "Delete Observations",
        "description": "Delete specific observations from entities in the knowledge graph",
        "inputSchema": {
            "type": "object",
            "properties": {
                "deletions": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "entityName": {
                                "type": "string",
                                "description": "The name of the entity containing the observations",
                            },
                            "observations": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "An array of observations to delete",
                            },
                        },
                        "required": ["entityName", "observations"],
                    },
                }
            },
            "required": ["deletions"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
    },
    "delete_relations": {
        "title": "Delete Relations",
        "description": "Delete multiple relations from the knowledge graph",
        "inputSchema": {
            "type": "object",
            "properties": {
                "relations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {
                                "type": "string",
                                "description": "The name of the entity where the relation starts",
                            },
                            "to": {"type": "string", "description": "The name of the entity where the relation ends"},
                            "relationType": {"type": "string", "description": "The type of the relation"},
                        },
                        "required": ["from", "to", "relationType"],
                    },
                    "description": "An array of relations to delete",
                }
            },
            "required": ["relations"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
    },
    "read_graph": {
        "title": "Read Graph",
        "description": "Read the entire knowledge graph",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
    "search_nodes": {
        "title": "Search Nodes",
        "description": "Search for nodes in the knowledge graph based on a query",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "The search query to match against entity names, types, and observation content",
                }
            },
            "required": ["query"],
        },
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
    "open_nodes": {
        "title": "Open Nodes",
        "description": "Open specific nodes in the knowledge graph by their names",
        "inputSchema": {
            "type": "object",
            "properties": {
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "An array of entity names to retrieve",
                }
            },
            "required": ["names"],
        },
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
}
