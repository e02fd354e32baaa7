"""Self-FC (paper §3.1, after Self-Instruct): a model grows the seed calls, and the real server decides.

Human-written seeds cover each tool's success path once or twice. Self-FC asks a model, tool by tool, for
more *valid* calls: it sees the tool's description and input schema, the state every call starts from (the
seed file's fixture) and the valid calls known so far for that tool (the seeds, then the calls accepted in
earlier rounds), and proposes new ones that differ from them. Each proposal is made on the real server from
the fixture, exactly as a probe is; only a call the server accepts (the discriminator's ``success``: no
error) is kept, as a new seed. The traversal then probes the grown seed set, perturbations included, so
the pool grows with it.

Every proposal is accounted for: accepted, or rejected with its reason (``malformed``: not an object with
an ``arguments`` object; ``duplicate``: a call already known; ``server_error``: the server answered with an
error, whose text is kept; ``server_failure``: a crash or a transport error). A reply that is not a JSON
list of proposals is counted as unusable, never guessed at.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mcp_persona.context_tree import canonical_json
from mcp_persona.llm.base import ChatClient, ModelError
from mcp_persona.traverse.models import Seed, SeedFile, Trace

Reason = Literal["malformed", "duplicate", "server_error", "server_failure"]
REASONS: tuple[Reason, ...] = ("malformed", "duplicate", "server_error", "server_failure")
FIXTURE_CHARS = 6000  # the fixture shown to the model, at most (a bigger one is cut, and the model told so)

SYSTEM = (
    "You write function calls for testing an MCP tool against its real server. Every call you write must be "
    "valid: the server must carry it out without an error, starting from the state shown. Write calls that "
    "differ from the known valid calls: other values, other entities or paths of the state, other "
    "combinations of the optional arguments, edge cases that are still valid."
)

INSTRUCTIONS = """\
Answer with a JSON list of {how_many} objects and nothing else:
[{{"arguments": {{...the call's arguments...}}, "note": "what the call does, in a few words"}}, ...]
Every call starts from the state shown (a call never sees another's changes).{placeholders}"""


@dataclass
class Proposal:
    tool: str
    arguments: Any
    note: str
    round: int
    status: Literal["accepted", "rejected"]
    reason: Reason | None = None
    detail: str = ""  # the server's answer to a rejected call (cut), or what is malformed
    seed_id: str = ""  # the new seed's id, when accepted


@dataclass
class SelfFCReport:
    model: str
    rounds: int
    per_tool: int
    requests: int = 0
    unusable_replies: int = 0
    failed_requests: list[str] = field(default_factory=list)
    unusable: list[str] = field(default_factory=list)  # "tool: the reply's start", for each unusable reply
    proposals: list[Proposal] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        accepted = sum(1 for p in self.proposals if p.status == "accepted")
        reasons = Counter(p.reason for p in self.proposals if p.reason is not None)
        return {"requests": self.requests, "unusable_replies": self.unusable_replies,
                "failed_requests": len(self.failed_requests), "proposed": len(self.proposals),
                "accepted": accepted, "rejected": len(self.proposals) - accepted,
                "rejected_by_reason": {r: reasons[r] for r in REASONS if reasons[r]}}

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "rounds": self.rounds, "per_tool": self.per_tool, **self.counts(),
                "failed_request_errors": self.failed_requests, "unusable_reply_texts": self.unusable,
                "proposals": [asdict(p) for p in self.proposals]}


Execute = Callable[[Seed], Awaitable[Trace]]


class SelfFC:
    """Grows a seed file with model-proposed calls the real server accepts (see the module's docstring)."""

    def __init__(self, client: ChatClient, *, rounds: int = 1, per_tool: int = 4, max_examples: int = 8,
                 progress: Callable[[str], None] | None = None) -> None:
        if rounds < 1 or per_tool < 1:
            raise ValueError("Self-FC needs at least one round and one call per tool")
        self.client = client
        self.progress = progress or (lambda line: None)
        self.rounds = rounds
        self.per_tool = per_tool
        self.max_examples = max_examples
        self.report = SelfFCReport(model=getattr(client, "name", ""), rounds=rounds, per_tool=per_tool)
        self.grown: SeedFile | None = None  # the seed file after expand

    def prompt(self, tool: dict[str, Any], examples: list[dict[str, Any]], fixture: dict[str, Any] | None,
               placeholders: list[str]) -> list[dict[str, Any]]:
        state = json.dumps(fixture, ensure_ascii=False) if fixture is not None else "(no fixture: the server's "\
            "own starting state)"
        if len(state) > FIXTURE_CHARS:
            state = state[:FIXTURE_CHARS] + " ... (cut here)"
        marks = ""
        if placeholders:
            marks = ("\nStrings may hold these placeholders, filled in before the call as in the known calls: "
                     + ", ".join("{" + p + "}" for p in placeholders) + ".")
        user = "\n".join([
            f"TOOL: {tool['name']}",
            f"DESCRIPTION: {tool.get('description', '')}",
            f"INPUT SCHEMA: {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}",
            f"STATE: {state}",
            "KNOWN VALID CALLS (arguments):" if examples else "KNOWN VALID CALLS: none yet",
            *[json.dumps(e, ensure_ascii=False) for e in examples[-self.max_examples:]],
            "",
            INSTRUCTIONS.format(how_many=self.per_tool, placeholders=marks),
        ])
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def parse(self, raw: str) -> list[Any] | None:
        """The reply's list of proposals, or None when it is not one (a ```json fence is tolerated)."""
        text = raw.strip()
        fenced = re.findall(r"```(?:json)?\s*\n(.*?)```", text, re.DOTALL)
        if fenced:
            text = max(fenced, key=len).strip()
        try:
            items = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            return None
        return items if isinstance(items, list) else None

    async def expand(self, seeds: SeedFile, tools: dict[str, dict[str, Any]], execute: Execute,
                     placeholders: list[str]) -> SeedFile:
        """``seeds`` with the accepted proposals added after them; ``execute`` makes a
        call on the real server from the fixture and returns its trace."""
        known = {(s.tool, canonical_json(s.arguments)) for s in seeds.seeds}
        added: dict[str, list[Seed]] = {name: [] for name in tools}
        serial = 0
        for n in range(1, self.rounds + 1):
            for name, tool in tools.items():
                examples = [s.arguments for s in seeds.seeds if s.tool == name] + [s.arguments for s in added[name]]
                self.report.requests += 1
                try:
                    reply = await self.client.complete(self.prompt(tool, examples, seeds.fixture, placeholders), [])
                except ModelError as exc:
                    self.report.failed_requests.append(f"{name}: {exc}")
                    self.progress(f"round {n}, {name}: the request failed: {exc}")
                    continue
                items = self.parse(reply.content or "")
                if items is None:
                    self.report.unusable_replies += 1
                    self.report.unusable.append(f"{name}: {(reply.content or '')[:300]}")
                    self.progress(f"round {n}, {name}: the reply is no JSON list of calls")
                    continue
                before = len(self.report.proposals)
                for item in items[: self.per_tool]:
                    proposal = await self._judge(item, name, n, known, execute)
                    self.report.proposals.append(proposal)
                    if proposal.status == "accepted":
                        serial += 1
                        seed = Seed(id=f"{name}-fc{serial}", tool=name, arguments=proposal.arguments,
                                    note=f"self-fc: {proposal.note}".rstrip(": "))
                        proposal.seed_id = seed.id
                        added[name].append(seed)
                judged = self.report.proposals[before:]
                self.progress(f"round {n}, {name}: {len(judged)} proposed, "
                              f"{sum(1 for p in judged if p.status == 'accepted')} accepted")
        grown = list(seeds.seeds) + [s for name in tools for s in added[name]]  # the seeds' own traces keep their ids
        self.grown = seeds.model_copy(update={"seeds": grown})
        return self.grown

    async def _judge(self, item: Any, tool: str, n: int, known: set[tuple[str, str]], execute: Execute) -> Proposal:
        if not isinstance(item, dict) or not isinstance(item.get("arguments"), dict):
            return Proposal(tool, item, "", n, "rejected", "malformed",
                            'not an object with an "arguments" object')
        args, note = item["arguments"], str(item.get("note", ""))
        key = (tool, canonical_json(args))
        if key in known:
            return Proposal(tool, args, note, n, "rejected", "duplicate", "a call already known")
        known.add(key)
        trace = await execute(Seed(id=f"{tool}-proposal", tool=tool, arguments=args, note=note))
        if trace.label == "success":
            return Proposal(tool, args, note, n, "accepted")
        reason: Reason = "server_error" if trace.label == "structured_error" else "server_failure"
        return Proposal(tool, args, note, n, "rejected", reason, trace.response[:300])
