"""The decisions of a plan the person approved: the agent's words, taken up by the person.

In Claude Code's plan mode the agent writes a plan and puts it to the person (``ExitPlanMode``,
its ``plan`` input); the tool's result says whether they approved it ("User has approved your
plan") or turned it down. A plan accepted with the context cleared starts a new context with a
message the harness composed whole: "Implement the following plan:" and the plan
(``planContent``; the Claude Code reader keeps it as a ``meta`` event, the person typed none of
it). Either way the text is the agent's and the approval is the person's (docs/capture.md,
"An approved plan").

Of such a plan only the choices it makes are kept, as decisions (``x/decided``):

- the items of a section that says it holds them ("Decisions", "Design decisions",
  "Approach", "Key choices", "Conventions"), each whole, numbered or not (a bullet, or a
  labelled line: "**Plan format**: free-form markdown"); its nested details are the item's,
  not decisions of their own;
- the sentences of the plan's stated goal or decision as a labelled line ("**Goal**: …",
  "**Decision**: …"), but one that leans on the sentence before it ("This applies …").

A step of the work is never a decision: an item that starts with an action on the code ("Add
…", "Create …", "Update …", "Run the tests") unless it says the action stands ("whenever
possible", "always", "before every commit": a rule), a file list (an item led by a path), a
code block, and every section about steps, files, changes, verification, tests, risks, open
questions or alternatives, or titled as one step ("1. Install X", "Step 2: …"). Each kept
item must also pass the reviewer's guards on the agent's words (``logic.agent_said``:
speculative, offered, question, fragment, own activity, a description of the code as it is)
and the note's form checks (``claim_mood``).

What the person approved is read: their own edit of the plan when they made one (the result
quotes it: "## Approved Plan (edited by user):"), else the call's ``plan``. A plan the person
turned down is not read, and of a plan presented again under the same title only the last
version decides (turned down, no version of it counts). Plan mode is Claude Code's: another
agent's session yields nothing here. A section ends at any heading (``#``, bold, setext) or
a label line naming something else ("Alternatives considered:"); an "Approach" section's
numbered items are its steps. What the session did after the approval is
``reconcile``'s: a decision a later edit or later words reversed is dropped as for any note.

The facts carry the agent's source (``agent-note``, trusted least) and a record that the person
approved them: the evidence cites the plan and the line of the approval, and ``approved`` holds
that line. The approval does not stand in for the record: like every agent's note, a decision
is kept only when the session bore it out (``corroborate``: what it names is in a file the
session left, or the person said it in their own words), and the context block and recall
show it only once a later capture reinforces it (``logic.trust_tiers.shown``). A plan approved
and then never carried out is a lead, not a fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import (
    SessionView, candidate, short_quote, transcript_evidence)
from claimgraph.capture.extract.standing import addresses_person, agent_report
from claimgraph.capture.extract.tools import PLAN
from claimgraph.logic.agent_said import not_standing
from claimgraph.logic.claim_mood import not_a_fact
from claimgraph.logic.lazy_regex import lazy_regex

RULE, DECIDED = "approved_plan", "x/decided"
#: The candidate's field holding the transcript line where the person approved the plan.
APPROVED = "approved"
#: The harness's words for an approved plan (ExitPlanMode's result) and a handed-over one.
_APPROVED = ("User has approved", "User approved")
_HANDED_OVER = lazy_regex(r"^\s*Implement the following plan:\s*", re.IGNORECASE)
#: The harness's closing note on a handed-over plan: where the old transcript is.
_HARNESS_TAIL = "If you need specific details from before exiting plan mode"
#: The heading before the plan in an approval's result when the person edited it first: the
#: text after it is what they approved (the call's ``plan`` is the agent's draft).
_EDITED_TEXT = lazy_regex(r"^## Approved Plan \(edited by user\):[ \t]*\n", re.MULTILINE)
#: The only agent whose plan mode this reads (``ExitPlanMode``, its handed-over plan).
_PLAN_AGENT = "claude-code"
_HEADING = lazy_regex(r"^\s*#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_BOLD_HEADING = lazy_regex(r"^\s*\*\*(?P<title>[^*]{2,60}?):?\*\*:?\s*$")
#: A setext heading's underline ("Decisions" over "---------"): the line above is the title.
_SETEXT = lazy_regex(r"^\s{0,3}(?:=+|-+)\s*$")
#: A plain line that labels what follows ("Alternatives considered:"): it ends a decision
#: section when it names something else (``_NOT_DECISIONS``).
_LABEL_LINE = lazy_regex(r"^\s{0,3}(?P<title>[^\s\-*•#>|`\d][^:]{0,60}):\s*$")
#: A heading's section number ("3. Approach", "2) Design decisions").
_SECTION_NUMBER = lazy_regex(r"^\d+[.):]\s*(?P<rest>.*)$")
#: What a numbered heading that names a decision section says after its number: such
#: words only ("Key decisions", "Approach"), not an action ("Decide the approach").
_SECTION_NAME = lazy_regex(
    r"^(?:(?:key|core|main|design|technical|architectural|architecture|overall|chosen|"
    r"proposed)\s+)*(?:decisions?|approach|design|choices|conventions?|principles?)$",
    re.IGNORECASE)
_BULLET = lazy_regex(r"^(?P<indent>\s*)(?P<mark>[-*•]|\d+[.)])\s+(?P<text>.+)$")
#: A labelled line: "**Goal**: …", "- **Plan format**: …".
_LABELLED = lazy_regex(r"^\s*(?:[-*•]\s+)?\*\*(?P<label>[^*]{2,40}?):?\*\*:?\s+(?P<text>\S.*)$")
#: A section whose items are the plan's choices.
_DECISIONS = lazy_regex(r"\b(?:decisions?|decided|approach|design|choices?|conventions?|"
                        r"principles?)\b", re.IGNORECASE)
_APPROACH = lazy_regex(r"\bapproach\b", re.IGNORECASE)
_CHOICE = lazy_regex(r"\b(?:decisions?|decided|design|choices?|conventions?|principles?)\b",
                     re.IGNORECASE)
#: A section about something else, though its title names a decision word: choices weighed
#: or left open, the steps of the work, its files and checks ("Design alternatives",
#: "Implementation approach steps", "Open design questions").
_NOT_DECISIONS = lazy_regex(
    r"\b(?:alternatives?|options?|considered|trade-?offs?|pros|cons|open|questions?|"
    r"undecided|tbd|rejected|steps?|files?|changes?|tasks?|phases?|verif\w*|tests?|testing|"
    r"risks?|todo|follow[- ]?ups?|future|later|out of scope|non[- ]goals?|rollout|migration "
    r"steps|implementation)\b", re.IGNORECASE)
#: A label that states what the plan settles, on a line of its own anywhere in the plan.
_SETTLING_LABEL = lazy_regex(r"^(?:goal|decision|key decision|chosen approach|approach)$",
                             re.IGNORECASE)
#: An item that starts with an action on the work: a step, not a choice.
_STEP = lazy_regex(
    r"^(?:add|create|modify|update|implement|install|run|write|remove|delete|fix|test|verify|"
    r"check|commit|push|move|rename|wire|pass|call|import|export|extract|refactor|change|"
    r"bump|build|deploy|tag|edit|insert|wrap|define|introduce|expose|mark|handle|return|"
    r"read|load|parse|render|show|display|apply|ensure|make|register|extend|convert|split|"
    r"merge|hook|append|include|adjust|replace|set up|setup|configure|document|open|close|"
    r"start|stop|restart|clean|drop|generate|migrate|upgrade|downgrade|release|publish|"
    r"search|find|look|investigate|confirm|review|inspect|debug|log|print|measure|"
    r"benchmark|profile|cover|mock|stub|assert|expect|then|next|first|finally|after|before|"
    r"step|phase|also|optionally)\b", re.IGNORECASE)
#: An item led by a path or a code span naming a file: a file list's entry.
_FILE_LED = lazy_regex(r"^(?:\*\*)?(?:`[^`\s]*[/.][^`\s]*`|(?:[\w@.-]+/)*[\w@-]+\.[a-z]{1,5}\b)"
                       r"(?:\*\*)?\s*(?:[-–—:(]|\((?:new|modified)|$)", re.IGNORECASE)
#: What makes an action a standing rule rather than a step ("Add `#[derive(Default)]`
#: whenever possible", "Run the formatter before every commit").
_STANDING = lazy_regex(r"\b(?:always|never|whenever|wherever|every\s+(?:time|\w+)|"
                       r"by default|only (?:when|if)|must|instead of|rather than)\b",
                       re.IGNORECASE)
_MARKDOWN = lazy_regex(r"\*\*|__")
#: A sentence that leans on the one before it ("This applies at every level"): alone, it
#: says nothing the next session can act on.
_LEANS = lazy_regex(r"^(?:this|that|these|those|it|they|them|its|their|both|each of them)\b",
                    re.IGNORECASE)
#: Most decisions one plan yields: a plan is read for its few choices, not transcribed.
MAX_PER_PLAN = 8


@dataclass(frozen=True)
class ApprovedPlan:
    """A plan the person approved: its text, the event that holds it, and the approval."""

    text: str
    source: Event
    approval: Event

    @property
    def title(self) -> str:
        return plan_title(self.text)


def approved_plan_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Each decision of each plan the person approved (the last version of each plan)."""
    if not view.project:
        return
    for plan in approved_plans(view):
        shown = 0
        for decision in plan_decisions(plan.text):
            yield _candidate(view, plan, decision)
            shown += 1
            if shown >= MAX_PER_PLAN:
                break


def approved_plans(view: SessionView) -> list[ApprovedPlan]:
    """The plans the person approved in the main session, in order: each ExitPlanMode call
    whose result says approved and whose ``plan`` input holds the plan, and each message the
    harness composed to hand an approved plan over. A plan approved again later under the
    same title was revised: only its last version is kept."""
    if view.transcript.agent != _PLAN_AGENT:
        return []
    found: list[tuple[ApprovedPlan, bool]] = []  # each plan put to the person, and whether
    for action in of_kind(view, PLAN):           # they approved it
        result = action.result
        if result is None or action.call.subagent_id or action.call.is_sidechain:
            continue
        approved = result.text.lstrip().startswith(_APPROVED)
        text = (approved_text(result.text) if approved else None) or action.content
        if text.strip():
            found.append((ApprovedPlan(text, action.call, result), approved))
    for event in view.transcript.events:
        if event.kind in ("meta", "prompt") and not event.subagent_id \
                and not event.is_sidechain and _HANDED_OVER.match(event.text):
            text = without_harness_tail(_HANDED_OVER.sub("", event.text, count=1))
            found.append((ApprovedPlan(text, event, event), True))
    found.sort(key=lambda pair: pair[0].approval.line)
    titles = [plan.title for plan, _ in found]
    last = {title: index for index, title in enumerate(titles) if title}
    return [plan for index, (plan, approved) in enumerate(found)
            if approved and last.get(titles[index], index) == index]


def approved_text(result: str) -> str | None:
    """The plan the person edited before approving it, as the approval's result quotes it
    after its heading ("## Approved Plan (edited by user):"), or None when they did not edit
    it (the call's ``plan`` is what they approved). A result capture capped is read up to
    its cut (``segment.output_head``)."""
    from claimgraph.capture.segment import output_head
    heading = _EDITED_TEXT.search(result)
    return output_head(result)[heading.end():] if heading else None


def without_harness_tail(text: str) -> str:
    """A handed-over plan without the harness's closing note (where the old transcript is):
    the note's words found from the end, the line they start cut off with all after it."""
    at = text.rfind(_HARNESS_TAIL)
    if at < 0 or text[:at].rstrip(" \t")[-1:] not in ("\n", ""):
        return text
    return text[:at].rstrip()


def plan_title(text: str) -> str:
    """The plan's first heading, lowered, without a "Plan:" prefix ("" when it has none)."""
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            title = re.sub(r"^plan\s*:\s*", "", heading["title"].strip(" *"), flags=re.I)
            return " ".join(title.lower().split())
        if line.strip():
            return ""
    return ""


def plan_decisions(text: str) -> Iterator[str]:
    """The choices a plan's text makes, in order, each once (see the module's docstring)."""
    seen: set[str] = set()
    for item in _decision_items(text):
        said = " ".join(item.split()).rstrip(" .;")
        key = said.lower()
        if key not in seen and decision_form(said):
            seen.add(key)
            yield said


def _decision_items(text: str) -> Iterator[str]:
    """The items of the decision sections (top-level bullets and labelled lines, with the
    lines they wrap onto) and every settling labelled line ("**Goal**: …"), outside code
    blocks."""
    inside = False  # under a decision section's heading
    stepwise = False  # under an "Approach" heading: its numbered items are steps
    fenced = False
    top: int | None = None  # the indent of the section's first item: deeper is a detail
    item: list[str] = []  # the open item's lines
    previous = ""  # the line before, outside code blocks (a setext heading's title)
    for line in text.splitlines():
        bullet = _BULLET.match(line)
        fence = line.lstrip().startswith(("```", "~~~"))
        if item and line.strip() and not bullet and line[:1].isspace() and not fenced \
                and not fence and not _HEADING.match(line):
            item.append(line.strip())  # the item wraps onto this line
            continue
        if item:
            yield _labelled_item(" ".join(item))
            item = []
        if fence:
            fenced = not fenced
            continue
        if fenced:
            continue
        title, previous = _section_title(line, previous), line
        if title is not None:
            inside, stepwise = _decision_section(title), _stepwise_section(title)
            top = None
            continue
        if _LABEL_LINE.match(line) and _NOT_DECISIONS.search(line):
            inside, top = False, None  # "Alternatives considered:" ends the section
            continue
        labelled = _LABELLED.match(line)
        if labelled and _SETTLING_LABEL.match(labelled["label"].strip()) and not bullet:
            yield from _sentences(labelled["text"])
            continue
        if not inside or not bullet:
            continue
        indent = len(bullet["indent"])
        top = indent if top is None else top
        if indent <= top and not (stepwise and bullet["mark"][0].isdigit()):
            item = [bullet["text"]]  # deeper: a detail of the item above; numbered under
            # "Approach": one step of the sequence
    if item:
        yield _labelled_item(" ".join(item))


def _stepwise_section(title: str) -> bool:
    """"Approach" and no word of choice ("decisions", "conventions", "design"): numbered, its
    items are the work in order, whatever verb leads them ("1. Validate the schema")."""
    return bool(_APPROACH.search(title)) and not _CHOICE.search(title)


def _section_title(line: str, before: str) -> str | None:
    """The title ``line`` gives a section: an ATX or bold heading's, or, when ``line`` is a
    setext underline, the plain line ``before`` it (None: no heading)."""
    heading = _HEADING.match(line) or _BOLD_HEADING.match(line)
    if heading:
        title = heading["title"]
    elif _SETEXT.match(line) and before.strip() and not _BULLET.match(before) \
            and not _HEADING.match(before):
        title = before
    else:
        return None
    return _MARKDOWN.sub("", title).strip(" :")


def _decision_section(title: str) -> bool:
    """Whether a section so titled holds the plan's choices ("Design decisions", "3.
    Approach"), not its steps or what it weighed."""
    if not _DECISIONS.search(title) or _NOT_DECISIONS.search(title):
        return False
    numbered = _SECTION_NUMBER.match(title)
    if numbered:  # a section's number, or one step of the plan's sequence ("1. Install X")
        return bool(_SECTION_NAME.match(numbered["rest"].strip(" :")))
    return not _numbered_title(title)


def _numbered_title(title: str) -> bool:
    """"Step 2: …", "Phase 1 …": one step of the plan's sequence, whatever it names."""
    return bool(re.match(r"^(?:step|change|phase)\s+\d+", title, re.I))


def _labelled_item(text: str) -> str:
    """A bullet as a sentence: "**Plan format**: Free-form markdown" keeps its label."""
    return _MARKDOWN.sub("", text).strip()


def _sentences(item: str) -> list[str]:
    return [" ".join(s.split()).rstrip(" .;") for s in sentences(item) if s.strip()]


def decision_form(sentence: str) -> bool:
    """Whether a plan's sentence reads as a choice that stands: not a step of the work, a
    file list's entry, a report of the agent's turn, advice to the person, nor anything the
    agent-said guards or the note's form checks turn away."""
    plain = sentence.strip()
    if not plain or plain.endswith(":") or _FILE_LED.match(plain) or _LEANS.match(plain):
        return False
    if _STEP.match(plain) and not _STANDING.search(plain):
        return False  # an action on the work, said once: a step (a standing one is a rule)
    if agent_report(plain) or addresses_person(plain):
        return False
    return not (not_a_fact(plain) or not_standing(plain))


def _candidate(view: SessionView, plan: ApprovedPlan, decision: str) -> dict[str, Any]:
    evidence = [transcript_evidence(plan.source.line, short_quote(decision))]
    if plan.approval is not plan.source:
        evidence.append(transcript_evidence(plan.approval.line, plan.approval.text))
    return candidate(RULE, view.project or "", DECIDED, decision, evidence=evidence,
                     object_kind="literal", subject_type="project",
                     at=plan.approval.timestamp, **{APPROVED: plan.approval.line})
