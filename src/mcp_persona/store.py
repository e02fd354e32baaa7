"""The run store: one SQLite file per run directory, one row per finished episode.

An episode is written in a single transaction when it ends, so a killed run
loses at most the episodes in flight and never holds half an episode; the
primary key (task, epoch) makes a resumed run unable to duplicate one. Episodes
that ended in an error (a model endpoint down, say) are redone on resume.

The store knows what it is a run of: the config, a hash of every task's content and the package version,
checked on resume. A lock on the run folder, held while a harness runs, keeps a second one out. The folder
and the store are private to their owner (0700 / 0600): they hold the scores a model under test must not
reach.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

import mcp_persona
from mcp_persona.score import Score
from mcp_persona.trajectory import Trajectory

STORE_FILE = "run.sqlite"
LOCK_FILE = "run.lock"
# Longest text stored for one answer, tool result or argument (characters): a cut keeps the start and says
# how long the text was. Scoring sees the whole text: it runs before the record is stored.
MAX_STORED_TEXT = 1_000_000
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    task_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    category TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    score_values TEXT,
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
    score: Score | None = None
    diff: list[str] = Field(default_factory=list)  # every state change the episode caused, readable
    verdicts: list[dict[str, Any]] = Field(default_factory=list)  # LLM judge verdicts: raw outputs + parsed
    pool: dict[str, Any] = Field(default_factory=dict)  # how the protocol drew the tool pool (e.g. candidates)
    failure: dict[str, Any] | None = None  # failure mode of a failed episode (rules, then the judge)
    reference: ReferenceRun | None = None  # the protocol's concurrent reference execution, if it runs one
    internal_errors: list[str] = Field(default_factory=list)
    error: str | None = None


class RunStoreError(RuntimeError):
    pass


def store_error(path: Path, exc: BaseException) -> RunStoreError:
    """What went wrong with the store at ``path``, said for the person running it."""
    text = str(exc)
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF  # the primary result code
        full = code == sqlite3.SQLITE_FULL
        unwritable = code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM)
        damaged = code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)
    else:
        code = getattr(exc, "errno", None)
        full = code in (errno.ENOSPC, errno.EDQUOT)
        unwritable = code in (errno.EACCES, errno.EPERM, errno.EROFS)
        damaged = False
    if full:
        return RunStoreError(f"cannot write the run store {path}: the disk is full ({text})")
    if unwritable:
        return RunStoreError(f"cannot write the run store {path}: {path.parent} is not writable ({text})")
    if damaged:
        return RunStoreError(f"{path} is not a readable run store ({text}); move it away to start a new run in "
                             f"{path.parent}")
    return RunStoreError(f"run store {path}: {text}")


class RunStore:
    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / STORE_FILE
        self._lock: int | None = None
        try:
            run_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # created here, private, before SQLite opens it (its journal files take the store's mode)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (sqlite3.Error, OSError) as exc:
            raise store_error(self.path, exc) from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            self._db.close()
            raise store_error(self.path, exc) from None

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            os.close(self._lock)  # the lock goes with it
            self._lock = None

    def lock(self) -> None:
        """Hold the run folder for this process until ``close`` (or its end, however it ends): a second
        harness on the same folder is refused at once instead of running the same episodes again."""
        path = self.path.parent / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise store_error(self.path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            raise RunStoreError(f"{self.path.parent} is in use by another run (process {holder or 'unknown'}); "
                                "wait for it to end, or choose another --run-dir") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock = fd

    # -- run identity ----------------------------------------------------------------------------
    def config(self) -> dict[str, Any] | None:
        return self._meta("config")

    def _meta(self, key: str) -> Any:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise store_error(self.path, exc) from None
        return json.loads(row[0]) if row else None

    def _set_meta(self, key: str, value: Any) -> None:
        try:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))
        except sqlite3.Error as exc:
            raise store_error(self.path, exc) from None

    def begin(self, config: dict[str, Any], *, resume: bool, tasks: Sequence[Any] | None = None) -> None:
        """Record the run's config (and, given ``tasks``, the task set's identity and the package version),
        or, resuming, check them against the stored ones."""
        stored = self.config()
        identity = task_set(tasks) if tasks is not None else None
        if stored is None:
            if resume:
                raise RunStoreError(f"{self.path.parent} holds no run to resume; leave out --resume to start one")
            self._set_meta("config", config)
            self._set_meta("package_version", mcp_persona.__version__)
            if identity is not None:
                self._set_meta("task_set", identity)
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
        version = self._meta("package_version")
        if version is not None and version != mcp_persona.__version__:
            raise RunStoreError(f"cannot resume: the run in {self.path.parent} was made by mcp-persona {version}, "
                                f"this is {mcp_persona.__version__} (scores of two versions would mix)")
        if identity is None:
            return
        old = self._meta("task_set")
        if old is None:  # a run stored before task sets were recorded: from now on it is this one
            self._set_meta("task_set", identity)
        elif old["sha256"] != identity["sha256"]:
            raise RunStoreError(f"cannot resume: the run in {self.path.parent} is of another task set "
                                f"({task_set_difference(old['tasks'], identity['tasks'])})")

    # -- episodes --------------------------------------------------------------------------------
    def finished(self) -> set[tuple[str, int]]:
        try:
            rows = self._db.execute("SELECT task_id, epoch FROM episodes WHERE status = 'ok'").fetchall()
        except sqlite3.Error as exc:
            raise store_error(self.path, exc) from None
        return {(r[0], r[1]) for r in rows}

    def write(self, record: EpisodeRecord) -> None:
        """Store ``record`` (``record`` itself is left whole: see ``stored_form``)."""
        # the score's values in a column of their own, for SQL over a run (json_extract(score_values, '$.acc'))
        values = json.dumps(record.score.values) if record.score is not None else None
        try:
            self._db.execute(
                """INSERT INTO episodes (task_id, epoch, category, status, score_values, record, finished_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (task_id, epoch) DO UPDATE SET
                     category = excluded.category, status = excluded.status, score_values = excluded.score_values,
                     record = excluded.record, finished_at = excluded.finished_at
                   WHERE episodes.status = 'error'""",
                (record.task_id, record.epoch, record.category, record.status, values,
                 json.dumps(stored_form(record), ensure_ascii=False), time.time()),
            )
        except (sqlite3.Error, OSError) as exc:
            raise store_error(self.path, exc) from None

    def records(self) -> list[EpisodeRecord]:
        try:
            rows = self._db.execute("SELECT record FROM episodes ORDER BY task_id, epoch").fetchall()
        except sqlite3.Error as exc:
            raise store_error(self.path, exc) from None
        return [EpisodeRecord.model_validate(read_form(json.loads(r[0]))) for r in rows]


# -- what a record is stored as ---------------------------------------------------------------------------
# The final answer is the last model reply's text: stored once, in the reply, and marked so.
ANSWER_IN_EVENT = "final_answer_in_event"


def stored_form(record: EpisodeRecord) -> dict[str, Any]:
    """``record`` as stored: each trajectory's final answer kept once (not again in the model reply it came
    from), and every text longer than MAX_STORED_TEXT cut, the cut said in the text with the original length."""
    data = record.model_dump(mode="json")
    for traj in trajectories(data):
        answer = traj.get("final_answer") or ""
        replies = [i for i, e in enumerate(traj["events"]) if e.get("kind") == "model"]
        if answer and replies and traj["events"][replies[-1]].get("content") == answer:
            traj["final_answer"] = ""
            traj[ANSWER_IN_EVENT] = replies[-1]
    return cap_texts(data)


def read_form(data: dict[str, Any]) -> dict[str, Any]:
    """A stored record back in the shape of EpisodeRecord (the inverse of ``stored_form``, cuts aside)."""
    for traj in trajectories(data):
        index = traj.pop(ANSWER_IN_EVENT, None)
        if index is not None:
            traj["final_answer"] = traj["events"][index].get("content") or ""
    return data


def trajectories(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in (data.get("trajectory"), (data.get("reference") or {}).get("trajectory")) if t]


def cap_texts(value: Any, limit: int = MAX_STORED_TEXT) -> Any:
    """``value`` (JSON data) with every string longer than ``limit`` cut to its start and a marker."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return value[:limit] + f"\n[cut for the run store: {limit:,} of {len(value):,} characters kept]"
    if isinstance(value, dict):
        return {k: cap_texts(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_texts(v, limit) for v in value]
    return value


# -- what a run is of --------------------------------------------------------------------------------------
def task_set(tasks: Sequence[Any]) -> dict[str, Any]:
    """The identity of a task set: a sha256 of each task's content (its canonical JSON: sorted keys, no
    spaces) by id, and one over them all."""
    digests = {}
    for task in tasks:
        canonical = json.dumps(task.model_dump(mode="json"), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False)
        digests[task.id] = hashlib.sha256(canonical.encode()).hexdigest()
    whole = hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()
    return {"sha256": whole, "tasks": digests}


def task_set_difference(stored: dict[str, str], now: dict[str, str]) -> str:
    """What differs between two task sets (task id -> content hash), said briefly."""
    def some(ids: list[str]) -> str:
        return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")

    changed = sorted(i for i in stored.keys() & now.keys() if stored[i] != now[i])
    added = sorted(now.keys() - stored.keys())
    removed = sorted(stored.keys() - now.keys())
    parts = [f"{len(ids)} {what}: {some(ids)}" for what, ids in
             (("changed", changed), ("not in the stored run", added), ("missing now", removed)) if ids]
    return "; ".join(parts) or "the task contents differ"


def open_run(run_dir: Path, config: dict[str, Any], *, resume: bool, tasks: Sequence[Any]) -> RunStore:
    """The store of the run in ``run_dir``, locked for this process and checked to be the run of ``config``
    and ``tasks`` (or made so, for a new run). ``resume`` of a folder that holds no run is refused before
    anything is created."""
    if resume and not (Path(run_dir) / STORE_FILE).is_file():
        raise RunStoreError(f"{run_dir} holds no run to resume (no {STORE_FILE}); leave out --resume to start one")
    store = RunStore(Path(run_dir))
    try:
        store.lock()
        store.begin(config, resume=resume, tasks=tasks)
    except RunStoreError:
        store.close()
        raise
    return store


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that reads the store at ``path`` and can change nothing, also where its folder is read-only
    (an archived run): SQLite's reader of a WAL store makes a ``-shm`` file beside it, which such a folder
    refuses, so the store is then opened as immutable, which is right once the run has closed it (its log
    folded in). A store whose log was left behind (a run killed mid-way) in a read-only folder cannot be read
    whole: sqlite3.Error says so."""
    uri = f"file:{path.resolve()}?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    try:
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError:
        db.close()
        if os.access(path.parent, os.W_OK):
            raise
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        raise sqlite3.OperationalError(f"{path.parent} is read-only and {wal.name} holds episodes not yet folded "
                                       "into the store: copy the folder somewhere writable to read it")
    return sqlite3.connect(uri + "&immutable=1", uri=True)


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """The config of the run stored in ``run_dir``, read without creating or changing anything; None when the
    folder holds no readable run."""
    path = Path(run_dir) / STORE_FILE
    if not path.is_file():
        return None
    try:
        db = connect_read_only(path)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return json.loads(row[0]) if row else None
