"""The model under test cannot reach the answers or the scores: escapes tried from model-written code and
through the real servers, under a root harness (this process, in CI) and under a user harness (a harness
run as ``nobody`` with the system's Python), each with the audit hook on and off.

Every attempt aims at what would matter: a task file with its reference answer (in the checkout and
through the installed package), a run store (``run.sqlite``) to rewrite, a file outside the episode to
write, and a process left behind. Each must fail, and nothing may show on the host afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_persona.apps._live.sandbox import Limits, run_python

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "src" / "mcp_persona" / "data" / "tasks" / "livemcpbench" / "finance.json"
SECRET = json.loads(TASK.read_text())[0]["reference_answer"][:40]  # a piece of an answer key
LIMITS = Limits(wall_seconds=8.0)


HARNESS_PID = "HARNESS_PID"  # in a program, replaced by the pid of the harness that runs it


def attacks(target: Path) -> dict[str, str]:
    """Programs a model could write; ``target`` is a host folder holding a run store. Each prints what it got."""
    task, store, marker = str(TASK), str(target / "run.sqlite"), str(target / "escaped.txt")
    shell = (f"cat {task}; echo pwned > {marker}; sqlite3 {store} 'UPDATE episodes SET acc = 1' ; "
             f"echo x >> {store}; (setsid sleep 300 &) ; kill -9 {HARNESS_PID}")
    return {
        "ctypes system": f"import ctypes\nctypes.CDLL(None).system({shell!r}.encode())\n",
        "fork_exec": (  # _posixsubprocess starts programs with no audit event
            "import _posixsubprocess, os\n"
            "r, w = os.pipe()\n"
            f"_posixsubprocess.fork_exec([b'/bin/sh', b'-c', {shell!r}.encode()], [b'/bin/sh'], True, (), None,"
            " None, -1, -1, -1, -1, -1, -1, r, w, False, False, -1, None, None, None, -1, None, False)\n"
            "import time; time.sleep(1)\n"),
        "dir_fd and a symlink": (
            "import os\n"
            "os.symlink('/', 'root')\n"
            "fd = os.open('root', os.O_RDONLY)\n"
            f"print(os.read(os.open({task.lstrip('/')!r}, os.O_RDONLY, dir_fd=fd), 200))\n"),
        "the installed package": (
            "import importlib.resources\n"
            "print(importlib.resources.files('mcp_persona').joinpath('data/tasks/livemcpbench/finance.json')"
            ".read_text())\n"),
        "the run store": (f"import sqlite3\nsqlite3.connect({store!r}).execute('UPDATE episodes SET acc = 1')\n"
                          f"open({store!r}, 'a').write('x')\n"),
        "a file outside": f"open({marker!r}, 'w').write('pwned')\n",
    }


def make_target(tmp_path: Path) -> tuple[Path, bytes]:
    import sqlite3

    target = tmp_path / "run"
    target.mkdir(mode=0o755)
    db = sqlite3.connect(target / "run.sqlite")
    db.execute("CREATE TABLE episodes (task_id TEXT, acc REAL)")
    db.execute("INSERT INTO episodes VALUES ('t', 0.0)")
    db.commit()
    db.close()
    (target / "run.sqlite").chmod(0o644)
    return target, (target / "run.sqlite").read_bytes()


def sleepers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", b"300"]:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def assert_contained(name: str, output: str, target: Path, store: bytes) -> None:
    assert SECRET not in output, f"{name}: the answer key was read"
    assert not (target / "escaped.txt").exists(), f"{name}: wrote outside the sandbox"
    assert (target / "run.sqlite").read_bytes() == store, f"{name}: the run store changed"
    deadline = time.monotonic() + 3
    while sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not sleepers(), f"{name}: a process outlived the run"


@pytest.mark.parametrize("hook", [True, False], ids=["hook", "no-hook"])
def test_model_written_code_cannot_escape_a_root_harness(tmp_path: Path, hook: bool) -> None:
    if os.geteuid() != 0:
        pytest.skip("this harness is not root: the user-harness test covers it")
    target, store = make_target(tmp_path)
    for name, code in attacks(target).items():
        code = code.replace(HARNESS_PID, str(os.getpid()))
        result = anyio.run(lambda c=code: run_python(c, LIMITS, audit_hook=hook))
        assert_contained(name, result.stdout + result.stderr, target, store)
    assert os.getpid() > 0  # the harness is alive: its kill reached nothing


DRIVER = """
import json, os, sys
sys.path[:0] = sys.argv[1].split(":")
import anyio
from mcp_persona.apps._live.sandbox import Limits, run_python
attacks, hook = json.loads(sys.argv[2]), sys.argv[3] == "1"
import mcp_persona
out = {"the package": mcp_persona.__file__}
for name, code in attacks.items():
    code = code.replace("HARNESS_PID", str(os.getpid()))
    r = anyio.run(lambda c=code: run_python(c, Limits(wall_seconds=8.0), audit_hook=hook))
    out[name] = r.stdout + r.stderr
print(json.dumps(out))
"""


NOBODY = 65534


def user_harness() -> list[str] | None:
    """A command that runs Python as ``nobody`` with the system's interpreter (the project's may live under a
    home directory nobody can enter); None where this machine cannot."""
    system_python = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if os.geteuid() != 0 or not system_python.exists() or shutil.which("setpriv") is None:
        return None
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", str(system_python)]


def harness_prefix(harness: str) -> list[str]:
    """The command that starts Python as a ``root`` or a ``user`` harness; skips where this machine cannot."""
    prefix = user_harness() if harness == "user" else [sys.executable] if os.geteuid() == 0 else None
    if prefix is None:
        pytest.skip(f"needs root to start a {harness} harness here (setpriv) and the system's Python of this version")
    return prefix


def skip_unless_runnable(prefix: list[str], servers: list[str]) -> None:
    """Skip unless the harness ``prefix`` starts can run these real servers (their venvs' Python is its to run)."""
    check = ("import json, sys; from mcp_persona.livemcptool import missing_reason as m; "
             "print(json.dumps([m(n) for n in sys.argv[1:]]))")
    done = subprocess.run([*prefix, "-c", check, *servers], capture_output=True, text=True, timeout=60, cwd="/",
                          env=os.environ | {"PYTHONPATH": harness_path()})
    assert done.returncode == 0, done.stderr[-2000:]
    if why := [w for w in json.loads(done.stdout) if w]:
        pytest.skip(f"real servers this harness cannot run: {why}")


def harness_path() -> str:
    """The harness's import path: this checkout's source, then this environment's site-packages."""
    site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    return f"{ROOT / 'src'}:{site}"


@pytest.fixture
def user_folder() -> Iterator[Path]:
    """A folder the user harness's account owns, in reach of it (pytest's own folders are root's, mode 0700):
    what is in it, a user harness could read and write itself, so only the sandbox stands in the way."""
    folder = Path(tempfile.mkdtemp(prefix="isolation-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def give_to_nobody(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


def as_nobody(prefix: list[str], code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, "-c", code, *args], capture_output=True, text=True, timeout=60, cwd="/")


@pytest.mark.slow
@pytest.mark.parametrize("hook", [True, False], ids=["hook", "no-hook"])
def test_model_written_code_cannot_escape_a_user_harness(user_folder: Path, hook: bool) -> None:
    prefix = user_harness()
    if prefix is None:
        pytest.skip("needs root to start a user harness here (setpriv) and the system's Python of this version")
    target, store = make_target(user_folder)
    give_to_nobody(user_folder)
    # the run store is the harness's own: without the sandbox, code it runs could rewrite it
    assert as_nobody(prefix, "import sys; open(sys.argv[1], 'ab').close()", str(target / "run.sqlite")).returncode == 0
    done = subprocess.run([*prefix, "-c", DRIVER, harness_path(), json.dumps(attacks(target)),
                           "1" if hook else "0"], capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    outputs: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert outputs.pop("the package") == str(ROOT / "src" / "mcp_persona" / "__init__.py")
    assert set(outputs) == set(attacks(target))
    for name, output in outputs.items():
        assert_contained(name, output, target, store)


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["root", "user"])
def test_a_regular_install_hides_its_tasks_from_code_runs(user_folder: Path, harness: str) -> None:
    """Installed into a site-packages (not editable), the package and its tasks lie in a folder the run's
    interpreter is bound from: an empty tmpfs covers the package there, under either harness."""
    system = user_harness()
    if system is None:
        pytest.skip("needs root to start a user harness here (setpriv) and the system's Python of this version")
    venv = user_folder / "venv"
    subprocess.run([system[-1], "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    shutil.copytree(ROOT / "src" / "mcp_persona", site / "mcp_persona")  # the package, installed
    if harness == "user":
        give_to_nobody(user_folder)
    prefix = [*system[:-1], str(venv / "bin" / "python")] if harness == "user" else [str(venv / "bin" / "python")]
    installed = site / "mcp_persona" / TASK.relative_to(ROOT / "src" / "mcp_persona")
    programs = {
        "by its path": f"print(open({str(installed)!r}).read())\n",
        "through importlib": "import importlib.resources\nprint(importlib.resources.files('mcp_persona')"
                             ".joinpath('data/tasks/livemcpbench/finance.json').read_text())\n",
        "the folders": f"import os\nprint(sorted(os.listdir({str(site)!r})), "
                       f"os.listdir({str(site / 'mcp_persona')!r}))\n",
    }
    deps = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))  # anyio, mcp ...
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed package, not the checkout
    done = subprocess.run([*prefix, "-c", DRIVER, deps, json.dumps(programs), "1"], capture_output=True, text=True,
                          timeout=300, cwd="/", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    outputs: dict[str, str] = json.loads(done.stdout.splitlines()[-1])
    assert outputs.pop("the package") == str(site / "mcp_persona" / "__init__.py")  # the harness runs it
    assert SECRET in installed.read_text()  # the harness reads it; its runs may not
    for name, output in outputs.items():
        assert SECRET not in output and "finance_" not in output, (name, output[:300])
    # the run sees the site-packages it was bound from, and in it the package's folder, empty
    assert outputs["the folders"].strip() == "['mcp_persona'] []", outputs["the folders"]


CODE_HARNESS = """
import sys
sys.path[:0] = sys.argv[1].split(":")
import anyio
from mcp_persona.apps._live.sandbox import Limits, isolation, run_python
isolation()  # decided by a trial run: done before the run the test looks for
print("starting", flush=True)
code = "import subprocess, time\\nsubprocess.Popen(['sleep', '300'], start_new_session=True)\\ntime.sleep(30)"
anyio.run(lambda: run_python(code, Limits(wall_seconds=30.0), audit_hook=False))
"""


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["root", "user"])
def test_a_killed_harness_takes_its_code_run_and_what_it_started_with_it(harness: str) -> None:
    """SIGKILL leaves the harness no chance to clean up: the run, and the daemon it started in a session of its
    own, die with it (the sandbox's pid namespace and --die-with-parent), under either harness."""
    import signal

    prefix = harness_prefix(harness)
    process = subprocess.Popen([*prefix, "-c", CODE_HARNESS, harness_path()], stdout=subprocess.PIPE, text=True,
                               cwd="/")
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "starting"
        deadline = time.monotonic() + 20
        while not sleepers():
            assert time.monotonic() < deadline and process.poll() is None, "the run started no daemon"
            time.sleep(0.05)
        started = descendants(process.pid)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        deadline = time.monotonic() + 5
        while (sleepers() or any(map(alive, started))) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not sleepers(), "the daemon outlived the killed harness"
        assert not [pid for pid in started if alive(pid)], "the run outlived the killed harness"
    finally:
        process.kill()
        process.wait(10)


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found += (more := children.get(todo.pop(), []))
        todo += more
    return found


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


# -- the real servers ----------------------------------------------------------------------------------------
REAL_DRIVER = """
import json, sys
sys.path[:0] = sys.argv[1].split(":")
import anyio
from pathlib import Path
from mcp_persona.livemcptool import open_episode

checkout, repo, outside, episode = map(Path, sys.argv[2:6])
needed = ["git", "word-document-server", "ppt", "filesystem"]
task = "src/mcp_persona/data/tasks/livemcpbench/finance.json"


async def main():
    seen = {}
    async with open_episode(episode, servers=needed) as ep:
        async def call(name, server, tool, args):
            result = await ep.call(server, tool, args)
            seen[name] = " ".join(getattr(c, "text", "") for c in result.content)

        await call("git_show of the checkout", "git", "git_show",
                   {"repo_path": str(checkout), "revision": "HEAD:" + task})
        await call("git_show of a repository", "git", "git_show",
                   {"repo_path": str(repo), "revision": "HEAD:finance.json"})
        await call("git_log of a repository", "git", "git_log", {"repo_path": str(repo)})
        await call("Word file written outside", "word-document-server", "create_document",
                   {"filename": str(outside / "w.docx")})
        await call("Word folder listed outside", "word-document-server", "list_available_documents",
                   {"directory": str(outside)})
        await call("Word file read outside", "word-document-server", "get_document_text",
                   {"filename": str(outside / "answers.docx")})
        await call("PowerPoint made", "ppt", "create_presentation", {"id": "p"})
        await call("PowerPoint saved outside", "ppt", "save_presentation",
                   {"file_path": str(outside / "p.pptx"), "presentation_id": "p"})
        await call("a task file read", "filesystem", "read_text_file", {"path": str(checkout / task)})
        await call("a copy read outside", "filesystem", "read_text_file", {"path": str(outside / "finance.json")})
        await call("inside", "word-document-server", "create_document", {"filename": str(ep.files_dir / "fine.docx")})
        seen["inside"] += " made" if (ep.files_dir / "fine.docx").is_file() else " missing"
    return seen

print(json.dumps(anyio.run(main)))
"""


def outside_the_episode(folder: Path) -> tuple[Path, Path]:
    """A folder outside the episode holding answers (a copy of the task file, a Word file quoting one, a git
    repository with the task file committed, its commit message naming it); and the repository."""
    outside, repo = folder / "outside", folder / "repo"
    outside.mkdir()
    shutil.copy(TASK, outside / "finance.json")
    from mcp_persona.livemcptool.real import servers_dir

    make_docx = "import docx, sys; d = docx.Document(); d.add_paragraph(sys.argv[2]); d.save(sys.argv[1])"
    subprocess.run([str(servers_dir() / "word" / "bin" / "python"), "-c", make_docx, str(outside / "answers.docx"),
                    SECRET], check=True)
    repo.mkdir()
    shutil.copy(TASK, repo / "finance.json")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "finance.json"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "answer-key commit"], check=True)
    return outside, repo


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["root", "user"])
def test_the_real_servers_see_only_the_episode(user_folder: Path, harness: str) -> None:
    """The attempts the real servers allow (git on any repository, Word and PowerPoint files anywhere, a
    folder listed, a file read) aimed outside the episode, by a harness running as root and as a user."""
    prefix = harness_prefix(harness)
    skip_unless_runnable(prefix, ["git", "word-document-server", "ppt", "filesystem"])
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    outside, repo = outside_the_episode(user_folder)
    before = sorted(p.name for p in outside.iterdir())
    if harness == "user":
        give_to_nobody(user_folder)
        # all of it is the harness's account's own: without the walls, the servers could reach it
        shown = as_nobody(prefix, "import subprocess, sys; print(subprocess.run(['git', '-C', sys.argv[1], 'show', "
                          "'HEAD:finance.json'], capture_output=True, text=True).stdout)", str(repo))
        assert SECRET in shown.stdout, shown.stderr
        assert as_nobody(prefix, "import sys; open(sys.argv[1], 'w').close()", str(outside / "t")).returncode == 0
        (outside / "t").unlink()
    done = subprocess.run([*prefix, "-c", REAL_DRIVER, harness_path(), str(ROOT), str(repo), str(outside),
                           str(user_folder / "episode")], capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert seen.pop("inside").endswith(" made")  # the episode's own folder still works
    assert len(seen) == 10
    for name, text in seen.items():
        assert SECRET not in text and "finance_" not in text, (name, text[:300])
        assert "answer-key commit" not in text, (name, text[:300])
    assert "answers.docx" not in seen["Word folder listed outside"]
    assert sorted(p.name for p in outside.iterdir()) == before, "a server wrote outside the episode"


HARNESS = """
import anyio, sys
from pathlib import Path
from mcp_persona.livemcptool import open_episode

async def main():
    async with open_episode(Path(sys.argv[1]), servers=["memory", "time"]) as ep:
        print("ready", flush=True)
        await anyio.sleep(60)

anyio.run(main)
"""


@pytest.mark.slow
def test_a_killed_harness_leaves_no_real_server(tmp_path: Path) -> None:
    import signal

    from mcp_persona.livemcptool import missing_reason

    if missing_reason("memory") or missing_reason("time"):
        pytest.skip("real servers not installed (scripts/install-real-servers.sh)")
    where = tmp_path / "episode"
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, str(where)], stdout=subprocess.PIPE, text=True)
    try:
        assert harness.stdout is not None and harness.stdout.readline().strip() == "ready"
        assert mentioning(str(where)), "the servers never started"
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(10)
        deadline = time.monotonic() + 5
        while mentioning(str(where)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not mentioning(str(where)), "a real server outlived its harness"
    finally:
        harness.kill()
        harness.wait(10)


def mentioning(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace") \
                        and "zombie" not in status:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# -- nothing outlives a run: episode folders ---------------------------------------------------------------------
def test_episode_folders_live_under_the_run_folder_and_leftovers_are_swept(tmp_path: Path) -> None:
    from mcp_persona import scratch

    folder = tmp_path / "run" / scratch.SCRATCH
    dead = folder / "harness-dead"  # what a killed harness left: its lock file, held by nobody
    (dead / "livemcptool-x").mkdir(parents=True)
    (dead / scratch.LOCK).touch()
    old = folder / "half-made"  # no lock file, and old
    old.mkdir()
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    with scratch.under(folder) as mine:
        assert sorted(p.name for p in folder.iterdir()) == [mine.name]
        made = scratch.make_dir("livemcptool-")
        assert made.parent == mine and made.is_dir() and made.is_absolute()
        # a second harness on the same run folder sweeps nothing of this live one
        with scratch.under(folder) as other:
            assert other != mine and made.is_dir()
        assert made.is_dir() and not other.exists()
    assert not folder.exists()
    elsewhere = scratch.make_dir("livemcptool-")  # outside a run: the system's temporary directory
    try:
        assert not elsewhere.is_relative_to(tmp_path)
    finally:
        elsewhere.rmdir()


def test_a_code_runs_folder_lives_under_the_run_folder(tmp_path: Path) -> None:
    """A code run's host folder (its program, its captured output) is made in the run's scratch folder, so a
    harness killed mid-run leaves it where --resume sweeps it; it is gone once the run returns."""
    from mcp_persona import scratch
    from mcp_persona.apps._live.sandbox import isolation

    isolation()  # its trial run, once per process, done before the run looked for
    program = "import time\ntime.sleep(1)\nprint('ok')"

    async def go() -> tuple[list[Path], str, str]:
        with scratch.under(tmp_path / "run" / scratch.SCRATCH) as mine:
            done: list[str] = []

            async def run() -> None:
                done.append((await run_python(program, LIMITS)).stdout)

            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                with anyio.fail_after(10):
                    while not (during := list(mine.glob("mcpp-sandbox-*"))):
                        await anyio.sleep(0.02)
                held = (during[0] / "main.py").read_text()
            left = list(mine.glob("mcpp-sandbox-*"))
        return during, held, done[0] + str(left)

    during, held, output = anyio.run(go)
    assert len(during) == 1 and held == program and output == "ok\n[]"


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["root", "user"])
def test_a_run_killed_mid_episode_leaves_no_process_and_after_resume_no_folder(user_folder: Path,
                                                                               harness: str) -> None:
    import signal

    prefix = harness_prefix(harness)
    skip_unless_runnable(prefix, ["word-document-server"])
    run_dir = user_folder / "run"
    if harness == "user":
        give_to_nobody(user_folder)
    cli = [*prefix, "-m", "mcp_persona", "run", "--suite", "livemcpbench", "--agent", "reference",
           "--tasks", "office_docx_report_*", "--run-dir", str(run_dir)]
    env = os.environ | {"PYTHONPATH": harness_path(), "HOME": str(user_folder)}
    harness_process = subprocess.Popen(cli, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
    try:
        deadline = time.monotonic() + 60
        while not mentioning(str(run_dir / "scratch")):  # a real server runs in an episode
            assert time.monotonic() < deadline and harness_process.poll() is None, "no real server started"
            time.sleep(0.05)
        os.kill(harness_process.pid, signal.SIGKILL)
        harness_process.wait(10)
    finally:
        harness_process.kill()
        harness_process.wait(10)
    deadline = time.monotonic() + 5
    while mentioning(str(run_dir)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not mentioning(str(run_dir)), "a process outlived the killed harness"
    assert list((run_dir / "scratch").rglob("livemcptool-*")), "the killed run left no episode folder to sweep"
    done = subprocess.run([*cli, "--resume"], env=env, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (run_dir / "scratch").exists(), "episode folders outlived the resumed run"


# -- what a real server's own sandbox can reach ---------------------------------------------------------------
PROBE = Path(__file__).parent / "data" / "probe_server.py"
PROBE_DRIVER = """
import json, os, sys
sys.path[:0] = sys.argv[1].split(":")
import anyio
from pathlib import Path
from mcp_persona.livemcptool import open_episode

episode, probe = Path(sys.argv[2]), sys.argv[3]
os.environ["HARNESS_CANARY"] = "harness-secret"  # in the harness's environment: a server must not see it


async def main():
    async with open_episode(episode, servers=["filesystem", "git", "calculator"],
                            real_argv={"calculator": [sys.executable, probe]}) as ep:
        files = ep.files_dir
        paths = ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger",
                 "/dev/planted", "/dev/shm/planted", "/etc/planted", "/usr/planted", "/tmp/planted",
                 str(files / "fine.txt")]
        found = await ep.call("calculator", "probe", {"paths": paths})
        seen = json.loads(found.content[0].text)
        seen["shm"] = sorted(p.name for p in (ep.state_dir / "calculator" / ".shm").iterdir())
        # a repository made through the filesystem server whose configuration runs a command on git status
        # (core.fsmonitor) and on git add (a clean filter)
        repo = files / "repo"
        for folder in ("objects", "refs/heads"):
            await ep.call("filesystem", "create_directory", {"path": str(repo / ".git" / folder)})
        config = ("[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \\"touch " + str(files / "by-fsmonitor")
                  + "\\"\\n[filter \\"x\\"]\\n\\tclean = \\"touch " + str(files / "by-filter") + "\\"\\n")
        for name, text in ((".git/HEAD", "ref: refs/heads/main\\n"), (".git/config", config),
                           (".gitattributes", "* filter=x\\n"), ("a.txt", "a\\n")):
            await ep.call("filesystem", "write_file", {"path": str(repo / name), "content": text})
        status = await ep.call("git", "git_status", {"repo_path": str(repo)})
        added = await ep.call("git", "git_add", {"repo_path": str(repo), "files": ["a.txt"]})
        seen["git"] = [" ".join(getattr(c, "text", "") for c in r.content) for r in (status, added)]
        seen["ran"] = sorted(p.name for p in files.iterdir() if p.name.startswith("by-"))
        seen["files"] = str(files)
    return seen

print(json.dumps(anyio.run(main)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["root", "user"])
def test_a_real_servers_sandbox_cannot_change_the_host(user_folder: Path, harness: str) -> None:
    """From inside a real server's sandbox: /proc's host settings, /dev and everything but the episode are
    read-only; the server is an unprivileged uid with no capabilities; /dev/shm is a folder of the episode's
    (counted in its quota); the harness's environment is not passed on; and git runs no command a repository
    configures, under a root and a user harness."""
    prefix = harness_prefix(harness)
    skip_unless_runnable(prefix, ["git", "filesystem"])
    if harness == "user":
        give_to_nobody(user_folder)
    done = subprocess.run([*prefix, "-c", PROBE_DRIVER, harness_path(), str(user_folder / "episode"), str(PROBE)],
                          capture_output=True, text=True, timeout=300, cwd="/",
                          env=os.environ | {"HARNESS_CANARY": "harness-secret"})
    assert done.returncode == 0, done.stderr[-2000:]
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    writes = seen["writes"]
    for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger",
                 "/dev/planted", "/etc/planted", "/usr/planted", "/tmp/planted"):
        assert writes[path] != "ok", (path, writes)
    assert writes["/dev/planted"] == "Read-only file system"
    mounts = seen["mounts"]  # read-only whatever the uid (the uid alone is refused first: permission denied)
    assert all(mounts[m].startswith("ro") for m in ("/proc/sys", "/dev", "/")), mounts
    assert writes[f"{seen['files']}/fine.txt"] == "ok"
    assert writes["/dev/shm/planted"] == "ok" and seen["shm"] == ["planted"]  # in the episode's folder
    assert seen["uid"] != 0 and seen["gid"] != 0 and seen["caps"] == "0000000000000000"
    assert seen["no_new_privs"] == "1" and seen["groups"] in ([], [seen["gid"]])
    environ = seen["environ"]
    assert "HARNESS_CANARY" not in environ and ".venv" not in environ["PATH"] and sys.prefix not in environ["PATH"]
    assert set(environ) <= {"HOME", "TMPDIR", "TZ", "PATH", "LANG", "PYTHONUNBUFFERED", "PWD", "USER",
                            "LOGNAME"}
    assert seen["ran"] == [], "a command the repository configured ran"
    assert all("refused" in text and "fsmonitor" in text for text in seen["git"]), seen["git"]
