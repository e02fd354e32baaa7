"""The four content-generation methods and cross-entity linking, on one seeded object."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from mcp_persona.context_tree.hierarchy import Hierarchy
from mcp_persona.context_tree.ids import generate_id
from mcp_persona.contextgen.cast import Cast, Person

T = TypeVar("T")
Method = Literal["enumerate", "free_form", "random", "authentic", "link"]
MethodLog = Counter  # "entity.field" / method -> count, for the Table 2 style audit


@cache
def _corpus(kind: str, name: str) -> Any:
    path = resources.files("mcp_persona") / "data" / "corpus" / kind / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


class Gen:
    """What a per-app generator draws from. Seeded: the same (app, persona) gives the same context."""

    def __init__(self, app: str, persona: str, cast: Cast, hierarchy: Hierarchy, *, seed: int = 0) -> None:
        self.app = app
        self.persona = persona
        self.cast = cast
        self.hierarchy = hierarchy
        self.rng = random.Random(f"{app}/{persona}/{seed}")
        self.log: Counter[str] = Counter()
        self.me: Person = cast.me(persona)
        self.circle: list[Person] = cast.circle(persona)
        self.tz = ZoneInfo(cast.personas[persona].timezone)

    def _note(self, field: str, method: Method) -> None:
        self.log[f"{field}/{method}"] += 1

    # -- the four methods ------------------------------------------------------------------------
    def enumerate(self, field: str, options: Sequence[T]) -> T:
        """Enumerate: one value from a fixed set."""
        self._note(field, "enumerate")
        return self.rng.choice(list(options))

    def free_form(self, field: str, pool: str, **slots: str) -> str:
        """Free-Form: a written text from ``data/corpus/free_form/<pool>.json`` (a list of templates)."""
        self._note(field, "free_form")
        template: str = self.rng.choice(_corpus("free_form", pool))
        return template.format(**slots) if slots else template

    def random_id(self, field: str, fmt: str) -> str:
        """Random: an id or code from a format template such as ``oc_{hex:32}``."""
        self._note(field, "random")
        return generate_id(fmt, self.rng)

    def new_id(self, entity_type: str) -> str:
        """Random: an id in the hierarchy's declared format for ``entity_type``."""
        fmt = self.hierarchy.entities[entity_type].id_format
        if fmt is None:
            raise ValueError(f"{self.app}: {entity_type} has no id format to generate from")
        return self.random_id(f"{entity_type}.{self.hierarchy.entities[entity_type].id_field}", fmt)

    def authentic(self, field: str, corpus: str, k: int = 1) -> list[dict[str, Any]]:
        """Authentic: ``k`` distinct realistic items (posts, notes, messages) from a sanitized corpus."""
        self._note(field, "authentic")
        items: list[dict[str, Any]] = _corpus("authentic", corpus)
        if k > len(items):
            raise ValueError(f"corpus {corpus!r} has {len(items)} items, {k} asked")
        return self.rng.sample(items, k)

    # -- links and helpers -----------------------------------------------------------------------
    def link(self, field: str, candidates: Sequence[T], k: int = 1) -> list[T]:
        """Cross-entity linking: ``k`` distinct existing entities (ids) to reference."""
        self._note(field, "link")
        return self.rng.sample(list(candidates), min(k, len(candidates)))

    def people(self, k: int, *, include_me: bool = False, active_only: bool = True) -> list[Person]:
        pool = [p for p in self.circle if not (active_only and p.left_company)]
        chosen = self.rng.sample(pool, min(k, len(pool)))
        return [self.me, *chosen] if include_me else chosen

    def moment(self, start: datetime, end: datetime, *, step_minutes: int = 5) -> datetime:
        """A time between ``start`` and ``end`` (aware, in the persona's zone), on a step grid."""
        span = int((end - start).total_seconds() // (60 * step_minutes))
        return start + timedelta(minutes=step_minutes * self.rng.randint(0, max(span, 0)))

    def local(self, y: int, m: int, d: int, hh: int = 0, mm: int = 0) -> datetime:
        return datetime(y, m, d, hh, mm, tzinfo=self.tz)
