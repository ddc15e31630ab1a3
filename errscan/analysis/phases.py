"""When and where an error happens: what the engine is doing when it calls the entry points that
reach it (the profile's phases), in which process, and in a background thread if a chain hands the
work to one."""

from __future__ import annotations

import re

from errscan.analysis.advice import handed_over
from errscan.analysis.chains import Reach
from errscan.analysis.examples import program_of
from errscan.analysis.search import FoundChain
from errscan.extract.conditions import render
from errscan.model import ErrorSite
from errscan.profiles import Phase, Profile

MAX_PHASES = 2  # the nearest entries' phases; more make a page long and say little


def phase_of(found: Reach, error: ErrorSite, profile: Profile) -> tuple[str | None, str | None]:
    """What the engine is doing (the entry's phase) and where (a role the chain's condition, the
    raising class or a term of the site's own condition names, else the phase's own), over the
    chains found, nearest first. A term that is a role test alone (`role == Role.SCHEDULER`) says
    where the site can fire whichever way it is entered; terms naming two roles (`role != Role.SCHEDULER
    and role != Role.WORKER`) leave neither."""
    phases: list[str] = []
    places: list[str] = []
    terms = error.trigger.conjuncts if error.trigger else ()
    named = {p.where for p in profile.places for term in terms if re.fullmatch(p.pattern, term)}
    own = named.pop() if len(named) == 1 else None
    for chain in found.chains:
        phase = _phase(chain, profile)
        if phase is None:
            continue
        later = handed_over(chain)
        if later is None:
            phases.append(phase.when)
        elif later[1] == "registered":
            phases.append(f"when `{later[0]}` is called (it is registered {phase.when})")
        else:
            phases.append(f"in the background thread `{later[0]}`, started {phase.when}")
        told = f"{render(chain.condition) or ''} {error.function}."
        places.append(next((p.where for p in profile.places if re.search(p.pattern, told)), own or phase.where))
    if not phases:
        return None, None
    phases = [p for i, p in enumerate(phases) if not any(_same_start(p, q) for q in phases[:i])]
    wheres = list(dict.fromkeys(places))
    wheres = [w for w in wheres if not any(w != other and w in other for other in wheres)]
    return "; or ".join(list(dict.fromkeys(phases))[:MAX_PHASES]), ", ".join(wheres)


def _phase(chain: FoundChain, profile: Profile) -> Phase | None:
    """The profile's phase for the chain's entry; for a module run as a program, which the user
    starts apart from anything else, that program."""
    found = profile.phase(chain.entry.kind, chain.entry.node.rsplit(".", 1)[-1])
    program = program_of(chain.entry) if found is None else None
    if program is not None:
        return Phase((), f"while the program `{program}` runs", f"the `{program}` process", (chain.entry.kind,))
    return found


def in_phase(when: str | None) -> str:
    """The first phase, to follow "raises this": the page lists every phase; one reads best in a sentence."""
    first = when.split("; or ")[0] if when else None
    return " in a background thread" if first and first.startswith("in the background") else f" {first}" if first else ""


def with_cause(timing: str) -> str:
    """`timing` (from `in_phase`) and the word that brings in a cause: "at start-up, if ..." after a
    phase, which itself may read "when ...", else "when ..."; no sentence says "when ... when ..."."""
    return f"{timing}, if" if timing else " when"


def _same_start(one: str, other: str) -> bool:
    """Two phases told the same before their parenthesis ("at engine start-up (when ...)")."""
    return one.split(" (")[0] == other.split(" (")[0]
