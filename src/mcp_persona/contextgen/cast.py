"""The shared cast of people behind every app's contexts (``data/cast.json``)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict


class Person(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    organization: str
    email: str
    mobile: str
    department: str
    title: str
    city: str
    timezone: str
    personal_email: str
    handle: str  # the base of usernames on social apps
    left_company: bool = False

    @property
    def first_name(self) -> str:
        return self.name.split()[0]


class Persona(BaseModel):
    """A user whose apps are simulated: one person of the cast and the circle around them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    person: str
    description: str
    timezone: str
    circle: list[str]


class Cast(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    personas: dict[str, Persona]
    people: dict[str, Person]

    def me(self, persona: str) -> Person:
        return self.people[self.personas[persona].person]

    def circle(self, persona: str) -> list[Person]:
        return [self.people[p] for p in self.personas[persona].circle]


@cache
def load_cast() -> Cast:
    text = (resources.files("mcp_persona") / "data" / "cast.json").read_text(encoding="utf-8")
    cast = Cast.model_validate(json.loads(text))
    for name, persona in cast.personas.items():
        missing = [p for p in [persona.person, *persona.circle] if p not in cast.people]
        if missing:
            raise ValueError(f"cast.json: persona {name} names unknown people {missing}")
    return cast
