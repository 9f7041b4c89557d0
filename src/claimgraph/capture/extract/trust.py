"""How far each rule's facts are trusted, in one table: what they are, how sure, who said it.

A fact's trust is three things the store keeps (docs/capture.md, "Trust tiers"): its
``epistemic`` kind (a commitment someone made, an observation of what happened, a
preference), its starting ``confidence``, and its ``source_type``, from which the context
derives the tier each line names ("you said", the cited file, "seen", "agent's note"). They
are chosen here, per rule (and per kind of fact where a rule makes two), so that they can be
read and compared in one place, and a rule cannot quietly raise the agent's words to the
user's. ``session.candidate`` looks a rule's trust up by its name.
"""

from __future__ import annotations

from typing import NamedTuple


class Trust(NamedTuple):
    epistemic: str
    confidence: float
    source_type: str


USER, SEEN, FAILURE, AGENT = "user-assertion", "session-log", "failure-report", "agent-note"

TRUST: dict[str, Trust] = {
    # the user's own words
    "statements": Trust("commitment", 0.8, USER),        # a preference is "preference"
    "answers": Trust("commitment", 0.8, USER),           # a picked option, a turned-down one
    "statements.said": Trust("commitment", 0.7, USER),  # how a thing is (logic/said.py)
    "statements.request": Trust("commitment", 0.7, USER),  # a request the session carried out
    "answers.plan": Trust("commitment", 0.65, USER),     # an approved plan's exclusions
    "answers.approved": Trust("commitment", 0.65, USER),  # an agent's option the user picked
    # a project file declares it (cited, audited against the file)
    "instructions": Trust("commitment", 0.7, SEEN),
    "recipes": Trust("observation", 0.75, SEEN),         # a recipe file the session wrote
    "recipes.read": Trust("observation", 0.65, SEEN),    # one it only read
    "manifests": Trust("observation", 0.75, SEEN),       # a manifest the session changed
    "manifests.read": Trust("observation", 0.65, SEEN),
    "module-index": Trust("observation", 0.7, SEEN),
    "defined-in": Trust("observation", 0.7, SEEN),
    # seen: a tool's outcome, a gate, a failure and its fix
    "gates": Trust("observation", 0.7, SEEN),
    "gates.lesson": Trust("observation", 0.5, FAILURE),
    "lessons": Trust("observation", 0.5, FAILURE),
    "refutations": Trust("observation", 0.5, FAILURE),
    "causes": Trust("observation", 0.5, FAILURE),         # a cause the record proved
    "fix-commits": Trust("observation", 0.5, FAILURE),    # a fix commit's cause, borne out
    "git-state": Trust("observation", 0.7, SEEN),       # where the work stands in git
    "left-open": Trust("observation", 0.7, SEEN),       # a check left failing (left_open.py)
    "left-open.published": Trust("observation", 0.7, SEEN),  # a version a registry took
    "tooling": Trust("observation", 0.7, SEEN),          # tested-by / built-with
    "checks": Trust("observation", 0.7, SEEN),           # the checks run together as the gate
    "packages": Trust("observation", 0.7, SEEN),         # a package the session installed
    "dev-server": Trust("observation", 0.6, SEEN),
    # the agent's own words: trusted least, shown only once corroborated
    "summaries": Trust("observation", 0.5, AGENT),
    "approved_plan": Trust("commitment", 0.55, AGENT),  # a decision of a plan the user approved
}


def trust_of(name: str) -> Trust:
    """The trust of a rule (or ``rule.kind``); a rule missing from the table is an error
    in the code, not in the data, so it fails loudly."""
    return TRUST[name]
