"""``mcp-persona traverse`` and ``mcp-persona fidelity``: Tool-Traverse against real MCP servers.

``traverse`` probes a real server (over stdio or streamable HTTP) with a seed file's valid calls
and the adversarial calls derived from them, and writes the trace pool (JSONL).
With ``--self-fc`` a model first grows the seeds with calls the server accepts (Self-FC).
``synthesize`` has a model write a simulator from a pool's traces (Code-as-Simulation) and scores it on
held-out traces. ``fidelity`` replays a pool against a simulated app or a synthesized simulator (and the
documentation-only baseline) and prints the paper's Table 4: confusion matrix, behavioural alignment,
response similarity.
"""

from __future__ import annotations

import json
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import anyio
import typer

from mcp_persona.cli.common import console, err, error_line, fail


class ResetKind(StrEnum):
    memory_file = "memory-file"
    dir = "dir"
    none = "none"


class Baseline(StrEnum):
    vanilla = "vanilla"
    none = "none"


def _env_pairs(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise fail(f"--env takes KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def traverse(
    seeds: Annotated[Path, typer.Option(help="seed file (JSON or JSONL): valid calls, one per tool at least",
                                        exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option(help="where to write the trace pool (JSONL)")],
    stdio: Annotated[str | None, typer.Option(help="the server's command line, e.g. \"node dist/index.js {root}\"")]
    = None,
    url: Annotated[str | None, typer.Option(help="the server's streamable-HTTP URL")] = None,
    reference: Annotated[str | None, typer.Option(help="a bundled reference server: memory or filesystem "
                                                       "(from $MCP_PERSONA_NODE_PREFIX, default <repo>/.node)")] = None,
    env: Annotated[list[str] | None, typer.Option(help="KEY=VALUE for the server's environment (repeatable); "
                                                      "{memory_file} and {root} are filled in")] = None,
    reset: Annotated[ResetKind | None, typer.Option(help="how to reset the state before every probe "
                                                         "(default: the seed file's)")] = None,
    state_path: Annotated[Path | None, typer.Option(help="the memory file or root directory to use "
                                                         "(default: a fresh temporary one)")] = None,
    perturb: Annotated[bool, typer.Option(help="add the adversarial calls derived from each seed")] = True,
    judge_model: Annotated[str | None, typer.Option(help="label responses with a model judge "
                                                         "('local', 'openai:NAME', 'anthropic:NAME')")] = None,
    perturb_model: Annotated[str | None, typer.Option(help="add model-written adversarial calls")] = None,
    self_fc: Annotated[bool, typer.Option("--self-fc", help="first grow the seeds with valid calls --model proposes "
                                                           "and the real server accepts (Self-FC)")] = False,
    model: Annotated[str | None, typer.Option(help="the Self-FC model: 'local', 'openai:NAME' or "
                                                   "'anthropic:NAME'")] = None,
    rounds: Annotated[int | None, typer.Option(min=1, help="Self-FC rounds; a round asks once per tool, showing "
                                                           "the calls accepted so far (default 1)")] = None,
    per_tool: Annotated[int | None, typer.Option(min=1, help="Self-FC calls asked for per tool and round "
                                                             "(default 4)")] = None,
    seeds_out: Annotated[Path | None, typer.Option(help="Self-FC: where to write the grown seed file "
                                                        "(default: OUT with the suffix .seeds.json)")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for the models")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="environment variable with the models' API key")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="the models' answer length limit")] = None,
) -> None:
    """Probe a real MCP server with seed calls and their perturbations; write the trace pool."""
    from mcp_persona.traverse.models import load_seeds
    from mcp_persona.traverse.perturb import ModelPerturber
    from mcp_persona.traverse.probe import Target
    from mcp_persona.traverse.probe import traverse as run_traverse
    from mcp_persona.traverse.selffc import SelfFC
    from mcp_persona.traverse.servers import REFERENCE_SERVERS, missing_reason, reference_target
    from mcp_persona.traverse.state import make_state

    if sum(x is not None for x in (stdio, url, reference)) != 1:
        raise fail("give exactly one of --stdio, --url, --reference")
    if self_fc and not model:
        raise fail("--self-fc needs --model (e.g. --model local or --model openai:gpt-4o-mini)")
    if not self_fc:
        given = [flag for flag, value in (("--model", model), ("--rounds", rounds), ("--per-tool", per_tool),
                                          ("--seeds-out", seeds_out)) if value is not None]
        if given:
            raise fail(f"{given[0]} applies to Self-FC: add --self-fc")
    grown_path = seeds_out or out.with_suffix(".seeds.json")
    if self_fc and grown_path.resolve() == seeds.resolve():
        raise fail(f"the grown seed file would overwrite --seeds {seeds}: give --seeds-out")
    try:
        seed_file = load_seeds(seeds)
    except (ValueError, OSError) as exc:
        raise fail(f"{seeds}: {exc}") from exc
    extra_env = _env_pairs(env or [])
    if reference is not None:
        if reference not in REFERENCE_SERVERS:
            raise fail(f"unknown reference server {reference!r} (known: {', '.join(REFERENCE_SERVERS)})")
        why = missing_reason(reference)
        if why:
            raise fail(why)
        target = reference_target(reference)
        target.env.update(extra_env)
        default_reset = REFERENCE_SERVERS[reference].reset
    elif stdio is not None:
        target = Target.stdio(stdio, extra_env)
        default_reset = "none"
    else:
        target = Target(url=url, env=extra_env)
        default_reset = "none"
    kind = reset.value if reset is not None else (seed_file.reset or default_reset)

    judge = make_model(judge_model, base_url, api_key_env, max_tokens) if judge_model else None
    perturber = ModelPerturber(make_model(perturb_model, base_url, api_key_env, max_tokens)) if perturb_model else None
    expander = None
    if self_fc:
        assert model is not None
        expander = SelfFC(make_model(model, base_url, api_key_env, max_tokens), rounds=rounds or 1,
                          per_tool=per_tool or 4, progress=lambda line: err.print(f"  Self-FC {line}", soft_wrap=True))
    done = 0

    def tick(trace: object) -> None:
        nonlocal done
        done += 1
        if done % 25 == 0:
            err.print(f"  {done} probes")

    with tempfile.TemporaryDirectory(prefix="mcp-persona-traverse-") as tmp:
        state = make_state(kind, Path(tmp), state_path)
        try:
            pool = anyio.run(lambda: run_traverse(target, seed_file, state, server=seed_file.server or reference or "",
                                                  judge_client=judge, model=perturber, perturbations=perturb,
                                                  on_trace=tick, workdir=Path(tmp), self_fc=expander))
        except ValueError as exc:
            raise fail(str(exc)) from exc
        except OSError as exc:
            raise fail(f"cannot start or reach the server: {exc}") from exc
    pool.dump(out)
    if expander is not None:
        report_self_fc(expander, seed_file, grown_path, out.with_suffix(".self-fc.json"))
    failing = sum(1 for t in pool.traces if t.label != "success")
    tools = {t.tool for t in pool.traces}
    classes = sorted({t.error_class for t in pool.traces if t.error_class})
    console.print(f"{len(pool.traces)} calls over {len(tools)}/{len(pool.header.tools)} tools, {failing} failing "
                  f"({100 * failing / max(1, len(pool.traces)):.0f}%), classes: {', '.join(classes) or '-'} -> {out}")


def report_self_fc(expander, given, grown_path: Path, report_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Write the grown seed file and the proposal-by-proposal report; print the counts."""
    grown = expander.grown
    grown_path.parent.mkdir(parents=True, exist_ok=True)
    grown_path.write_text(grown.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8")
    report_path.write_text(json.dumps(expander.report.to_dict(), ensure_ascii=False, indent=2) + "\n",
                           encoding="utf-8")
    c = expander.report.counts()
    reasons = ", ".join(f"{k} {v}" for k, v in c["rejected_by_reason"].items()) or "-"
    console.print(f"Self-FC: {c['proposed']} calls proposed in {c['requests']} requests, {c['accepted']} accepted, "
                  f"{c['rejected']} rejected ({reasons}); {c['unusable_replies']} unusable replies, "
                  f"{c['failed_requests']} failed requests; seeds {len(given.seeds)} -> {len(grown.seeds)}: "
                  f"{grown_path} (each proposal: {report_path})", soft_wrap=True)


def make_model(spec: str, base_url: str | None, api_key_env: str | None = None,  # type: ignore[no-untyped-def]
               max_tokens: int | None = None):
    from mcp_persona.llm import make_client

    try:
        return make_client(spec, base_url=base_url, api_key_env=api_key_env, max_tokens=max_tokens)
    except ValueError as exc:
        raise fail(str(exc)) from exc


def synthesize(
    pool: Annotated[Path, typer.Option(help="a trace pool written by 'traverse'", exists=True, dir_okay=False)],
    model: Annotated[str, typer.Option(help="the model that writes the simulator: 'local', 'openai:NAME' or "
                                            "'anthropic:NAME'")],
    out: Annotated[Path, typer.Option(help="the simulator folder to write (new, or empty)")],
    holdout: Annotated[Path | None, typer.Option(help="score on this pool (e.g. other probes of the same server) "
                                                      "and build the prompts from all of --pool",
                                                 exists=True, dir_okay=False)] = None,
    holdout_share: Annotated[float | None, typer.Option(help="the share of each tool's successes and of its errors "
                                                             "kept out of the prompts for scoring (default 0.3)")]
    = None,
    split_seed: Annotated[int | None, typer.Option(help="which traces a --holdout-share split holds out "
                                                        "(default 0)")] = None,
    tools: Annotated[str | None, typer.Option(help="only these tools (comma-separated; default: every tool the "
                                                   "pool has traces of)")] = None,
    app_name: Annotated[str | None, typer.Option("--app", help="the app whose Context-Tree hierarchy the "
                                                               "simulator works on (default: the pool's server)")]
    = None,
    threshold: Annotated[float, typer.Option(min=0.0, max=1.0, help="a tool's code is accepted when it agrees with "
                                                                   "this share of its training traces")] = 0.95,
    attempts: Annotated[int, typer.Option(min=1, help="answers asked per tool (each retry shows the mismatches)")]
    = 3,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint of the model")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="environment variable with the API key")] = None,
    max_tokens: Annotated[int, typer.Option(min=1, help="the model's answer length limit")] = 2048,
    as_json: Annotated[bool, typer.Option("--json", help="print the manifest (machine-readable)")] = False,
) -> None:
    """Code-as-Simulation: a model writes each tool's simulator from the pool's traces; the accepted code is
    written into OUT as a simulator app, and scored on held-out traces (fidelity)."""
    from mcp_persona.apps import app_names, get_app
    from mcp_persona.traverse.fidelity import AppSimulator, evaluate
    from mcp_persona.traverse.kernel_app import HELDOUT, load_simulator, write_manifest, write_simulator
    from mcp_persona.traverse.models import Pool, load_pool
    from mcp_persona.traverse.reconstruct import reconstruct
    from mcp_persona.traverse.synthesize import KernelError, module_source, split_pool, synthesize_tool

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise fail(f"--out {out} exists and is not an empty folder: give a new one")
    if holdout is not None and (holdout_share is not None or split_seed is not None):
        raise fail(f"give --holdout or {'--holdout-share' if holdout_share is not None else '--split-seed'}, "
                   "not both (a --holdout pool is scored whole)")
    share = 0.3 if holdout_share is None else holdout_share
    if not 0.0 < share < 1.0:
        raise fail(f"--holdout-share must be between 0 and 1 (exclusive), got {share}")
    try:
        loaded = load_pool(pool)
        held_pool = load_pool(holdout) if holdout is not None else None
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from exc
    if held_pool is not None and held_pool.header.server != loaded.header.server:
        raise fail(f"--holdout is a pool of {held_pool.header.server!r}, --pool of {loaded.header.server!r}")
    name = app_name or loaded.header.server
    if name not in app_names():
        raise fail(f"no app {name!r} for the Context-Tree hierarchy" + ("" if app_name else " (the pool's server)")
                   + f": give --app (known: {', '.join(app_names())})")
    base = get_app(name)
    traced = [t for t in loaded.tool_names if any(tr.tool == t for tr in loaded.traces)]
    chosen = traced
    if tools is not None:
        chosen = [t.strip() for t in tools.split(",") if t.strip()]
        unknown = [t for t in chosen if t not in traced]
        if not chosen or unknown:
            raise fail(f"--tools: no traces of {', '.join(unknown) or '(none given)'} in {pool} "
                       f"(traced: {', '.join(traced)})")
    if not chosen:
        raise fail(f"{pool} holds no trace")

    def only(p: Pool) -> Pool:
        return Pool(header=p.header, traces=[t for t in p.traces if t.tool in chosen])

    if held_pool is not None:
        train, heldout = only(loaded), only(held_pool)
        split = {"method": "pool", "heldout_pool": str(holdout)}
    else:
        train, heldout = split_pool(only(loaded), share, seed=split_seed or 0)
        split = {"method": "share", "share": share, "seed": split_seed or 0}
    split |= {"train": [t.id for t in train.traces], "heldout": [t.id for t in heldout.traces]}
    if not heldout.traces:
        raise fail("no held-out trace to score on: use a pool with more traces per tool, or --holdout")
    client = make_model(model, base_url, api_key_env, max_tokens)

    async def write_code():  # type: ignore[no-untyped-def]
        results = {}
        for tool in chosen:
            r = results[tool] = await synthesize_tool(client, train, tool, base, threshold=threshold,
                                                      max_attempts=attempts)
            best = max(r.attempts, key=lambda a: (a.agreement, a.rouge))
            err.print(f"  {tool}: {'accepted' if r.accepted else 'rejected'} after {len(r.attempts)} answer(s), "
                      f"agreement {best.agreement:.2f} on {sum(1 for t in train.traces if t.tool == tool)} traces"
                      + (f" ({best.error})" if best.error else ""), soft_wrap=True)
        return results

    results = anyio.run(write_code)
    manifest = {"server": loaded.header.server, "app": name, "model": getattr(client, "name", model),
                "pool": str(pool), "threshold": threshold, "attempts": attempts, "split": split,
                "tools": {tool: {"accepted": r.accepted,
                                 "attempts": [{"agreement": a.agreement, "rouge": a.rouge,
                                               "mismatches": len(a.mismatches), "error": a.error}
                                              for a in r.attempts]} for tool, r in results.items()}}
    if not any(r.accepted for r in results.values()):
        reasons = "; ".join(f"{tool}: " + (r.attempts[-1].error or f"best agreement "
                                           f"{max(a.agreement for a in r.attempts):.2f} < {threshold}")
                            for tool, r in results.items())
        error_line(f"no tool's code was accepted, nothing written: {reasons}")
        raise typer.Exit(1)
    first = next((t.pre_state for t in train.traces if t.pre_state is not None), None)
    start = reconstruct(first, app=base)
    write_simulator(out, source=module_source(results, server=loaded.header.server, app=name,
                                              tools=loaded.header.tools),
                    manifest=manifest, train=train, heldout=heldout, start=start)
    try:
        app = load_simulator(out)
    except KernelError as exc:
        error_line(f"the simulator written to {out} does not load: {exc}")
        raise typer.Exit(1) from None
    report = anyio.run(lambda: evaluate(heldout, AppSimulator(app, name="Synthesized", replica=False)))
    manifest["heldout_fidelity"] = report.summary()
    write_manifest(out, manifest)
    if as_json:
        typer.echo(json.dumps(manifest, ensure_ascii=False, indent=2))
        return
    accepted = [t for t, r in results.items() if r.accepted]
    console.print(f"{len(accepted)}/{len(results)} tools accepted ({', '.join(accepted)}); trained on "
                  f"{len(train.traces)} traces, held out {len(heldout.traces)}", soft_wrap=True)
    console.print(f"held-out fidelity: {report.n} traces, TP {report.tp} TN {report.tn} FP {report.fp} FN {report.fn}, "
                  f"accuracy {100 * report.accuracy:.1f}%, F1 {100 * report.f1:.1f}%, ROUGE-L {report.rouge:.4f}"
                  + ("" if report.state_match is None else f", state {100 * report.state_match:.1f}%"),
                  soft_wrap=True)
    console.print(f"-> {out} (mcp-persona fidelity --pool {out / HELDOUT} --simulator {out})", soft_wrap=True)


def fidelity(
    pool: Annotated[Path, typer.Option(help="a trace pool written by 'traverse'", exists=True, dir_okay=False)],
    simulator: Annotated[str, typer.Option(help="the simulated app to replay against, e.g. memory, filesystem, or "
                                                "a folder written by 'synthesize'")],
    baseline: Annotated[Baseline, typer.Option(help="the documentation-only baseline to compare with")]
    = Baseline.vanilla,
    strict: Annotated[bool, typer.Option(help="replay against the app's strict (benchmark) server instead of its "
                                              "replica mode")] = False,
    include_unverified: Annotated[bool, typer.Option(help="also replay traces labelled unexpected_failure")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Replay a trace pool against a simulator: the paper's Table 4 (fidelity)."""
    from mcp_persona.apps import app_names, get_app
    from mcp_persona.traverse.fidelity import HEADERS, AppSimulator, evaluate, table_rows, to_json
    from mcp_persona.traverse.kernel_app import is_simulator_dir, load_simulator
    from mcp_persona.traverse.models import load_pool
    from mcp_persona.traverse.synthesize import KernelError
    from mcp_persona.traverse.vanilla import VanillaSimulator

    synthesized = None
    if is_simulator_dir(simulator):
        if strict:
            raise fail("--strict applies to an app of the library, not to a synthesized simulator")
        try:
            synthesized = load_simulator(simulator)
        except KernelError as exc:
            raise fail(str(exc)) from exc
    elif simulator not in app_names():
        raise fail(f"unknown simulator {simulator!r}: neither an app (known: {', '.join(app_names())}) nor a "
                   "folder written by 'synthesize'")
    try:
        loaded = load_pool(pool)
    except (ValueError, OSError) as exc:
        raise fail(f"{pool}: {exc}") from exc

    async def go():  # type: ignore[no-untyped-def]
        sims = []
        if baseline is Baseline.vanilla:
            sims.append(VanillaSimulator(loaded.header.tools))
        if synthesized is not None:
            sims.append(AppSimulator(synthesized, name="Synthesized", replica=False))
        else:
            sims.append(AppSimulator(get_app(simulator), replica=not strict))
        return [await evaluate(loaded, s, include_unverified=include_unverified) for s in sims]

    reports = anyio.run(go)
    if as_json:
        typer.echo(to_json(loaded, reports))
        return
    failing = sum(1 for t in loaded.traces if t.label != "success")
    from mcp_persona.report.fit import Column, print_table

    print_table(console, [Column(h, "left" if h == "Method" else "right") for h in HEADERS],
                [list(row) for row in table_rows(reports)],
                title=f"Simulation fidelity on {loaded.header.server} ({reports[-1].n} traces, {failing} failing "
                      "in the pool)")
    for r in reports:
        console.print(f"[dim]{r.simulator}: {r.note}[/dim]")
    console.print(f"[dim]METEOR: {reports[-1].meteor_mode}; State: share of replays whose post-call state "
                  f"matches the real one; {reports[-1].excluded} unverified traces left out[/dim]")
    mismatched = [o for o in reports[-1].outcomes if not o.agree]
    if mismatched:
        console.print(json.dumps([{"trace": o.trace_id, "tool": o.tool, "rule": o.rule} for o in mismatched]))


def register(app: typer.Typer) -> None:
    app.command()(traverse)
    app.command()(synthesize)
    app.command()(fidelity)
