"""The run store: one SQLite file per run directory, one row per finished episode.

An episode is written in a single transaction when it ends, so a killed run
loses at most the episodes in flight and never holds half an episode; the
primary key (task, epoch) makes a resumed run unable to duplicate one. Episodes
that ended in an error (a model endpoint down, say) are redone on resume.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_persona.trajectory import Trajectory

STORE_FILE = "run.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    task_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    category TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    acc REAL,
    exec_acc REAL,
    record TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (task_id, epoch)
);
"""


class ReferenceRun(BaseModel):
    """A reference execution run concurrently with the agent in an environment of its own (when the protocol
    asks for one): its final answer and tool calls (server, tool, arguments, results) in ``trajectory``, its
    end state as the state changes it caused. A failed run is kept too (``status`` error, and why)."""

    status: Literal["ok", "error"]
    trajectory: Trajectory
    diff: list[str] = Field(default_factory=list)  # every state change it caused, readable (as EpisodeRecord.diff)
    internal_errors: list[str] = Field(default_factory=list)
    error: str | None = None


class EpisodeRecord(BaseModel):
    task_id: str
    epoch: int = 0
    category: str
    status: Literal["ok", "error"]
    trajectory: Trajectory
    score: dict[str, Any] | None = None
    diff: list[str] = Field(default_factory=list)  # every state change the episode caused, readable
    verdicts: list[dict[str, Any]] = Field(default_factory=list)  # LLM judge verdicts: raw outputs + parsed
    pool: dict[str, Any] = Field(default_factory=dict)  # how the protocol drew the tool pool (e.g. candidates)
    failure: dict[str, Any] | None = None  # failure mode of a failed episode (rules, then the judge)
    reference: ReferenceRun | None = None  # the protocol's concurrent reference execution, if it runs one
    internal_errors: list[str] = Field(default_factory=list)
    error: str | None = None


class RunStoreError(RuntimeError):
    pass


class RunStore:
    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / STORE_FILE
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- run identity ----------------------------------------------------------------------------
    def config(self) -> dict[str, Any] | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        return json.loads(row[0]) if row else None

    def begin(self, config: dict[str, Any], *, resume: bool) -> None:
        """Record the run's config, or check it against the stored one when resuming."""
        stored = self.config()
        if stored is None:
            self._db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config, sort_keys=True),))
            return
        if not resume:
            n = self._db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
            raise RunStoreError(
                f"{self.path.parent} already holds a run ({n} episodes); pass --resume to finish it "
                "or choose another --run-dir"
            )
        keys = ("suite", "agent", "model", "tools", "max_rounds", "context_distractors", "skills", "trials", "judge",
                "judge_policy", "protocol", "protocol_options", "model_settings")
        # runs stored before protocols, and before generation settings, existed
        older: dict[str, Any] = {"protocol": "persona", "protocol_options": {}, "model_settings": {}}
        diff = [k for k in keys if stored.get(k, older.get(k)) != config.get(k, older.get(k))]
        if diff:
            detail = ", ".join(f"{k}: stored {stored.get(k)!r} vs now {config.get(k)!r}" for k in diff)
            raise RunStoreError(f"cannot resume: the run in {self.path.parent} was made with other settings ({detail})")

    # -- episodes --------------------------------------------------------------------------------
    def finished(self) -> set[tuple[str, int]]:
        rows = self._db.execute("SELECT task_id, epoch FROM episodes WHERE status = 'ok'")
        return {(r[0], r[1]) for r in rows}

    def write(self, record: EpisodeRecord) -> None:
        score = record.score or {}
        self._db.execute(
            """INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (task_id, epoch) DO UPDATE SET
                 category = excluded.category, status = excluded.status, acc = excluded.acc,
                 exec_acc = excluded.exec_acc, record = excluded.record, finished_at = excluded.finished_at
               WHERE episodes.status = 'error'""",
            (record.task_id, record.epoch, record.category, record.status, score.get("acc"),
             score.get("exec_acc"), record.model_dump_json(), time.time()),
        )

    def records(self) -> list[EpisodeRecord]:
        rows = self._db.execute("SELECT record FROM episodes ORDER BY task_id, epoch")
        return [EpisodeRecord.model_validate_json(r[0]) for r in rows]


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """The config of the run stored in ``run_dir``, read without creating or changing anything; None when the
    folder holds no readable run."""
    path = Path(run_dir) / STORE_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return json.loads(row[0]) if row else None
