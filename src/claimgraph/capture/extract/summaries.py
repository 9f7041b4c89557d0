"""The agent's own summaries: compaction summaries and the message that closes a turn.

When an agent summarizes, it writes down what a careful reviewer would: decisions with their
reasons, errors and how they were fixed, what a file is for, rules it discovered. The bullets of
such a summary are read by their section and their shape:

- under a heading about errors, issues or fixes, a bullet that names a fix ("X → Y",
  "X - fixed by Y", "X; fix: Y") is a lesson (``core/failure-mode``) -- when it has the shape
  of one (a problem in words and a fix in words: not a before/after figure "(16,684 → 392)",
  not a commit subject "`fix: use …`") and the session saw that problem fail in a tool's
  output before the summary (``corroborated``): the agent's account of an error nobody saw
  fail is its story, not a lesson; and when the first run that showed the problem was next
  run by the same program and failed again, or only commands ran before it passed and the
  fix the account names is none of them, the fix it names is not what made it pass
  (``fix_held``): the agent's diagnosis, which the next failure may have refuted;
- under a heading about decisions, adaptations, approach or design, and any bullet that says
  "instead of" / "rather than", a decision (``x/decided``); a heading that introduces
  reasons ("Why this is faster", "Reasons") lists reasons, not decisions, and is skipped;
  so is one that weighs choices ("Trade-offs", "Pros and cons", "Alternatives considered",
  "A vs B"), and a bullet labelled as one side of a choice ("Pro: …", "Option B: …"): the
  agent's options are not decided until the user picks one or the session builds it;
- a bullet that starts with a file path and says what it does ("`src/db.ts:14` exports the
  service-role client") is what that file is for (``x/role``);
- a bullet that states a rule ("must", "always", "never", "enforces") is a convention --
  unless it is nested under an item (a bullet that is not a label ending in ":") in a section
  with no heading of its own ("- Rules added (rules.py)" / "  - Sanity checks:" / "    - fan
  speed must be 0-100"): then it says what that item, the code the turn wrote, does, which a
  glance at the code tells. Under a label only ("2. Key Technical Concepts:" / "  - use
  `.majorVersion`, not `toString()`") it is read as any other.

A compaction summary's "Key Technical Concepts" and a troubleshooting section ("If you see a
404:") are read as any other: what they say of a library or of the setup ("make sure Pages is
enabled: Settings → Pages") is often the lesson.

A decision or convention bullet that reports the agent's turn (it speaks of itself, reports
what happened, says what it is doing, or a state that holds only for now: "No config files
touched by me", "The branch is still 3 commits behind `main`") is left out
(``standing.agent_report``); so is a bullet that speaks to the person (advice the session did
not take up, ``standing.addresses_person``) and one that only quotes someone's words (theirs,
read where they were said, never the agent's note).

These are the agent's words, not the user's and not a tool's verdict: source ``agent-note``
(trusted least), observation, lower confidence. A claim about a file the session deleted later
is dropped (the session contradicted it); what a function or hook does is kept only when the
user or a lesson names it (like ``defined-in``: otherwise a glance at the code says it).
Plans, proposals and next steps are not facts about the project: sections named like that are
skipped, and so is a whole message the agent marks as a proposed plan (Codex's
``<proposed_plan>``): what of it holds is what the session then carried out and reported. A
numbered step of a design ("1. Accept OTLP payloads. 2. Parse them as spans.") is a step of
one sequence, not a decision on its own. The closing message of a turn counts only
when it is a summary (several bullets or headings), not a remark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.held import acted_between, changed_outside_between
from claimgraph.capture.extract.lessons import run_verdict, same_command_key
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, failed_results, transcript_evidence)
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations
from claimgraph.capture.extract.standing import addresses_person, agent_report
from claimgraph.capture.extract.statements import CONVENTION, classify
from claimgraph.capture.extract.structure import named
from claimgraph.capture.extract.writes import file_ops, removes, session_ops

DECIDED, ROLE, LESSON = "x/decided", "x/role", "core/failure-mode"
_SETUP = frozenset({"cd", "source", ".", "export", "set", "sleep"})
MAX_PER_SUMMARY = 12
_MIN_BULLETS = 3
_HEADING = lazy_regex(r"^\s*(?:#{1,6}\s*|"
                      r"\d+\.\s+(?=[A-Z][\w ]+:\s*$))?(?:\*\*)?(?P<title>[A-Z][^*#\n]{2,60}?)"
                      r"(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$")
_BOLD_LABEL = lazy_regex(r"^\s*[-*]?\s*\*\*(?P<title>[^*]{3,60}?)\*\*:?\s*$")
_BULLET = lazy_regex(r"^(?P<indent>\s*)(?:[-*•]|\d+[.)])\s+(?P<text>.+)$")
#: Checked in order: a heading that introduces reasons ("Why it is faster", "Reasons")
#: lists reasons, not decisions (a count that explains a speed-up is no decision); a
#: proposal's words come next, so "Recommended approach" or "Fix plan" is a plan (nothing in
#: it was done yet), not a decision or a lesson. A "why" later in a heading ("What changed
#: and why") leaves its bullets to their shape.
_SECTIONS = (
    (None, lazy_regex(r"^\W*(?:why|reasons?|because)\b", re.I)),
    (None, lazy_regex(r"plan|next|todo|pending|remaining|propos|phase|recommend|suggest|"
                      r"consideration|question|summary request|intent|request|option|"
                      r"if you want|would you like", re.I)),
    # choices weighed, none picked: trade-offs, pros and cons, alternatives, a comparison
    (None, lazy_regex(r"trade-?offs?|\bpros\b|\bcons\b|alternative|considered|\bvs\.?\b|"
                      r"versus|compar|candidates|possible|approaches|"
                      # a lead-in to possibilities: "Two ways to fix this", "We could"
                      # ("Key design choices", "Choices made" report what was picked)
                      r"\bways?\b|\bcould\b|\beither\b|\bideas\b|"
                      r"(?<!design\s)(?<!key\s)\bchoices\b(?!\s+made)", re.I)),
    (LESSON, lazy_regex(r"error|issue|problem|fix|gotcha|pitfall|lesson|bug", re.I)),
    (DECIDED, lazy_regex(r"decision|adaptation|approach|design|chose|choice|"
                         r"rationale", re.I)),
    (None, lazy_regex(r"step", re.I)),
)
_FIX = lazy_regex(r"\s*(?:→|->|=>|\s[-–—]\s*(?:fixed|solved|resolved)\s+(?:by|with)|"
                  r";?\s*fix(?:ed)?:|"
                  r"\bfixed by\b|\bresolved by\b|\bsolution:)\s*", re.I)
_PATH_LEAD = lazy_regex(r"^(?:\*\*)?`(?P<path>(?:[\w@.-]+/)*[\w@-]+\.[a-z]{1,5}|"
                        r"[A-Za-z_][\w.]*\(\))"
                        r"(?::[\d-]+)?`"
                        r"(?:\*\*)?\s*(?:[-–—:]\s*|\((?:new|modified|created)[^)]*\)\s*[-–—:]?\s*)?"
                        r"(?P<rest>.+)$", re.I)
_PROPOSAL = lazy_regex(r"<proposed_plan>")
#: "Replaced external `audience` input with `github-app`": what the session changed, in the
#: closing report -- the state it left, named on both sides.
_REPLACED = lazy_regex(r"^(?:replaced|swapped)\s+.*`[^`]+`.*\s(?:with|by)\s+.*`[^`]+`", re.I)
_NUMBERED = lazy_regex(r"^\s*\d+[.)]\s")
#: The person asked to choose among what the message lists, or to approve it as a plan.
_GO_AHEAD = (r"(?:proceed|go\s+ahead|start|begin|implement\s+(?:it|(?:this|that|these|the)"
             r"(?:\s+\w+)?))"
             r"(?:\s+with\s+(?:this|the|that|these)(?:\s+\w+)?)?\s*\?")
_ASKS_CHOICE = lazy_regex(
    r"\bwhich\b[^.!?]*\?|\b(?:do|would)\s+you\s+(?:prefer|rather)\b|"
    r"\blet\s+me\s+know\s+(?:which|what\s+you\s+prefer|if\s+(?:this|that|the\s+plan)\b)|"
    r"\b(?:shall|should|can|may)\s+i\s+" + _GO_AHEAD + r"|"
    r"\b(?:want|like)\s+me\s+to\s+" + _GO_AHEAD + r"|"
    r"\b(?:does|do|is)\s+(?:this|that|these|the)\s*(?:plan|approach|design|proposal)?\s+"
    r"(?:look|sound|seem)s?\s+(?:good|right|ok(?:ay)?|reasonable)\b[^.!]*\?|"
    r"^\W*(?:sound|look)s?\s+good\s*\?|\bok(?:ay)?\s+(?:to\s+proceed|with\s+(?:this|that|"
    r"the\s+plan))\b[^.!]*\?|\bbefore\s+i\s+(?:start|begin|implement|proceed)\b",
    re.I)
#: A bullet labelled as one side of a choice ("Pro: …", "Option B: …", "Downside: …").
_WEIGHED = lazy_regex(r"^(?:pros?|cons?|upsides?|downsides?|benefits?|drawbacks?|costs?|"
                      r"risks?|advantages?|disadvantages?|caveats?|alternatives?|"
                      r"(?:option|approach|choice|variant|alternative)\s*(?:[A-Z]|\d+)?)"
                      r"\s*[:—–-]", re.I)
_INSTEAD = lazy_regex(r"\b(?:instead of|rather than)\b", re.I)
_VERB_START = lazy_regex(r"^(?:[a-z]+s|is|are|has|holds|wraps|defines|exports|owns|keeps|"
                         r"creates|runs|compensates?|contains|provides|handles)\b")
_MARKDOWN = lazy_regex(r"\*\*|__")
#: A bullet that is one quotation and nothing else (the person's words, echoed back).
_WHOLE_QUOTE = lazy_regex(r'^\s*(?:"[^"]+"|“[^”]+”)\s*$')
#: What happened to a file or what it lacks ("was not updated", "does NOT pass criteria"):
#: a report of the turn or a diagnosis, not what the file is for.
#: So is a change the turn made to it ("updates the entity definitions …", "adds a retry …"):
#: what the session did today, which the diff tells, not what the file is for.
_NOT_A_ROLE = lazy_regex(r"^(?:was|were|has been|had|(?:\w+\s+)?(?:not|never)\b|"
                         r"(?:does|did|is|has)\s*n[o']t\b|lacks|"
                         r"(?:updates|refreshes|adds|removes|drops|renames|rewrites|changes|"
                         r"extends|adjusts|tweaks|bumps|fixes|expands|reworks|now)\b)", re.I)
#: A test file: its name already says what it checks, so what it "verifies" is a glance away.
_TEST_FILE = lazy_regex(r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_[^/]*$|"
                        r"[._-](?:test|spec)\.[a-z]+$|_test\.[a-z]+$", re.I)
#: A citation or a conversational tail after what a file does ("…, which explains the …").
_ASIDE = lazy_regex(r"\s*\(`[^`]*`\)|,\s*which (?:explains|is why|means)\b.*$")
_ATTEMPTS = lazy_regex(r"\b(?:tried|attempts?|attempted)\b", re.I)
_CHOICE = lazy_regex(r"^(?:used|use|chose|chosen|went with|picked|kept|modell?ed|represented|"
                     r"switched|replaced|preferred|opted)\b", re.I)
#: A change log ("Updated `docs.yml` checkout SHA: `34e…` → `11b…`"), not an error and its fix.
_CHANGE_REPORT = lazy_regex(r"^(?:updated|changed|bumped|renamed|set|moved|added|removed|"
                            r"replaced|switched|pinned|upgraded|downgraded)\b", re.I)
#: What the agent did ("`av-dsc`: clarified that storage must …"): a report, not a rule.
_DONE_REPORT = lazy_regex(r"^(?:`[^`]+`\s*:?\s*|[\w.-]+:\s+)?(?!need)[a-z]+ed\b", re.I)
#: "No 5 KB limit": a property in a comparison, not a rule -- unless it names the thing it
#: rules out ("No backward compatibility for `.agentv/results/runs/`").
_BARE_NO = lazy_regex(r"^no\s+(?!\w+ing\b)(?:\S+\s+){0,4}\S+$", re.I)
#: A noun phrase whose only rule is its closing relative clause ("Order ids in the exports
#: that must stay stable"): an item of a list whose head said what it lists, no rule alone.
_RELATIVE_ONLY = lazy_regex(r"^(?!.*\b(?:must|should|always|never|shall)\b.*\b(?:that|which|"
                            r"who)\s)[^;:]*?\b(?:that|which|who)\s+(?:must|should|shall|"
                            r"always|never|(?:has|have|need) to)\s+(?:\S+\s+){0,3}\S+$", re.I)
#: A word with a letter in it: a problem or a fix is told in words, not in figures.
_WORD = lazy_regex(r"[A-Za-z]{2,}")
#: A commit reference or a conventional-commit subject at the start of a bullet: the log of
#: what was committed, not an error and its fix.
_COMMIT = lazy_regex(r"^`?(?:[0-9a-f]{7,40}\b|(?:fix|feat|ci|docs|chore|refactor|test|build|"
                     r"style|perf)(?:\([^)]*\))?!?:)", re.I)
#: Words any failure output or account of one holds: they point at no failure in particular.
_GENERIC = frozenset("""error errors failed failing fails failure failures issue issues problem
problems build builds test tests when with from that this were have been because could would
should which there their then than into after before while using used does didn't doesn't
not none only also just like make made need needs needed work works worked working still
""".split())
_CODE_SPAN = lazy_regex(r"`([^`]{3,})`")
#: A token that names something (a path, an identifier, a flag, a version): one shared with
#: a failure's output ties the account to it.
_NAMING = lazy_regex(r"[\w.-]*(?:[_./:]|\d[A-Za-z]|[a-z][A-Z])[\w./:-]*|--?[a-z][\w-]+")
#: Slips in the session's own new code are not lessons about the project.
_OWN_SLIP = lazy_regex(r"compile error|syntax error|typo|undefined (?:variable|function)|"
                       r"unused (?:variable|import|alias)|missing (?:import|require)", re.I)


@dataclass(frozen=True)
class Claim:
    predicate: str
    subject: str | None  # a file path for x/role, else the project
    text: str


def summary_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    deleted = _deleted_paths(view)
    failures = [(line, _output_of(view, result)) for line, result in failed_results(view)]
    for event in summary_events(view):
        shown = 0
        for claim in claims(event.text):
            if claim.predicate == LESSON and not corroborated(
                    claim.text.split("; fixed: ", 1)[0],
                    [text for line, text in failures if line < event.line]):
                continue  # an error nobody saw fail: the agent's story
            if claim.predicate == LESSON and not fix_held(
                    view, *claim.text.split("; fixed: ", 1), event.line):
                continue  # the next run failed again: the fix it names is not what worked
            if claim.subject and any(removes(gone, claim.subject) for gone in deleted):
                continue
            if claim.subject and not _is_path(claim.subject) \
                    and claim.subject not in named(view):
                continue  # what a function does, told only by the agent: a glance at the code
            yield _candidate(view, event, claim)
            shown += 1
            if shown >= MAX_PER_SUMMARY:
                break


def _is_path(subject: str) -> bool:
    return "/" in subject or "." in subject


def summary_events(view: SessionView) -> Iterator[Event]:
    """Compaction summaries, and the last summary-shaped agent message of each turn (a turn
    may go on after it: a Stop hook sends the agent back to commit)."""
    last: Event | None = None
    for event in view.transcript.events:
        if event.kind == "compaction" and not event.subagent_id:
            yield event
        elif event.is_human_prompt and not event.subagent_id:
            if last is not None:
                yield last
            last = None
        elif event.kind == "assistant" and not event.is_sidechain and not event.subagent_id \
                and _is_summary(event.text):
            last = event
    if last is not None:
        yield last


def _is_summary(text: str) -> bool:
    if _PROPOSAL.search(text) or asks_to_choose(text):
        return False
    return sum(bool(_BULLET.match(line)) for line in text.splitlines()) >= _MIN_BULLETS


def asks_to_choose(text: str) -> bool:
    """The message closes by putting what it lists to the person: asking which option they
    prefer, or for a go-ahead on the plan ("Which approach do you prefer?", "Shall I
    proceed?", "Does this plan look right?"). What it lists is offered, not done or decided:
    what holds of it is what the session then builds. A closing offer of a further step
    after the work ("Want me to go ahead and push?") asks about that step only."""
    lines = text.rstrip().splitlines()
    last_bullet = max((index for index, line in enumerate(lines) if _BULLET.match(line)),
                      default=-1)
    return bool(_ASKS_CHOICE.search(" ".join(lines[last_bullet + 1:])))


def claims(text: str) -> Iterator[Claim]:
    """Each claim a summary makes, by the section it is in and the shape of its bullet."""
    section: str | None = ""
    tried_below: int | None = None  # the indent under a "tried …:" line: failed attempts
    above: list[tuple[int, bool]] = []  # the bullets this one is nested in: (indent, a label?)
    for line in text.splitlines():
        heading = _BOLD_LABEL.match(line) or (None if _BULLET.match(line) else _HEADING.match(line))
        if heading:
            section, tried_below, above = _section(heading["title"]), None, []
            continue
        bullet = _BULLET.match(line)
        if not bullet or section is None:
            continue
        indent = len(bullet["indent"])
        while above and above[-1][0] >= indent:
            above.pop()
        under_item = any(not label for _, label in above)
        above.append((indent, _MARKDOWN.sub("", bullet["text"]).rstrip().endswith(":")))
        if tried_below is not None and indent > tried_below:
            continue
        tried_below = indent if _ATTEMPTS.search(bullet["text"]) else None
        claim = read_bullet(_MARKDOWN.sub("", bullet["text"]).strip(), section)
        if claim and claim.predicate == CONVENTION and under_item and section == "":
            continue  # a detail of the item above it (what a rule or a flag just added does)
        if claim and claim.predicate in (CONVENTION, DECIDED) and agent_report(claim.text):
            continue  # the agent's report of its turn, not a rule of the project
        if claim and addresses_person(claim.text):
            continue  # advice to the person ("if you tag releases …"), not what a file is
        if claim and _WHOLE_QUOTE.match(claim.text):
            continue  # someone's words quoted whole: theirs, read where they were said
        if claim and claim.predicate == DECIDED and _WEIGHED.match(claim.text):
            continue  # a pro, a con or an option of the agent's: weighed, not picked
        if claim and claim.predicate == DECIDED and _NUMBERED.match(line) \
                and not _INSTEAD.search(claim.text):
            continue  # one step of a sequence, not a decision on its own
        if claim:
            yield claim


def _section(title: str) -> str | None:
    """The predicate a section's bullets default to; None for sections that are not facts."""
    for predicate, pattern in _SECTIONS:
        if pattern.search(title):
            return predicate
    return ""


def read_bullet(text: str, section: str) -> Claim | None:
    if len(text.split()) < 4 or text.endswith(":"):
        return None
    if section == LESSON:
        problem, _, fix = _split_fix(text)
        if not problem or not fix or _OWN_SLIP.search(problem) or _CHANGE_REPORT.match(problem) \
                or not lesson_shape(problem, fix):
            return None
        return Claim(LESSON, None, f"{problem.rstrip(' .;:')}; fixed: {fix.rstrip('.')}")
    if section == DECIDED or (_CHOICE.match(text) and _INSTEAD.search(text)):
        return Claim(DECIDED, None, text.rstrip("."))
    located = _PATH_LEAD.match(text)
    if located and _VERB_START.match(located["rest"]) \
            and not _NOT_A_ROLE.match(located["rest"]):
        if _TEST_FILE.search(located["path"]):
            return None  # what a test checks: its name says it
        role = _ASIDE.sub("", located["rest"]).rstrip(" .")
        return Claim(ROLE, located["path"].removesuffix("()"), role)
    if _REPLACED.match(text):
        return Claim(DECIDED, None, text.rstrip("."))
    if classify(text) == CONVENTION and not _DONE_REPORT.match(text) \
            and not _RELATIVE_ONLY.match(text.rstrip(".")) \
            and not (_BARE_NO.match(text.rstrip(".")) and "`" not in text):
        return Claim(CONVENTION, None, text.rstrip("."))
    return None


def lesson_shape(problem: str, fix: str) -> bool:
    """Whether "problem → fix" reads as an error and its fix: the problem in at least three
    words and the fix in at least two, the split not inside a parenthesis or a code span (a
    before/after figure, "Reduced size by 91% (9.0M → 784K)"), and not a commit's subject
    ("`fix: use the 22.04 runner`")."""
    if len(_WORD.findall(problem)) < 3 or len(_WORD.findall(fix)) < 2:
        return False
    if problem.count("(") != problem.count(")") or problem.count("`") % 2:
        return False
    return not _COMMIT.match(problem)


def corroborated(problem: str, failures: Sequence[str | _Output]) -> bool:
    """Whether one failure's output shows the problem: it holds a naming token of the
    problem (a path, an identifier, a flag, a code span's text) or two of its plain words
    that are not generic failure words. A caller that checks many problems against the same
    outputs passes them read once (``_Output``)."""
    return _shows(problem, [f if isinstance(f, _Output) else _Output(f) for f in failures])


class _Words:
    """The plain words of a view's failed outputs as one index: each word once, with a bit
    mask of the outputs that hold it (bit ``n`` for the ``n``-th output read). A frozenset of
    words per output held every word again for every output it appears in (5.5 MB of a
    200 MB transcript's extraction peak, most of it the same few thousand words); the index
    holds each word and one integer, and a word's test for one output is a bit test."""

    __slots__ = ("masks", "count")

    def __init__(self) -> None:
        self.masks: dict[str, int] = {}
        self.count = 0

    def add(self, words: frozenset[str]) -> int:
        """Index one output's words; returns its number (its bit)."""
        serial, bit = self.count, 1 << self.count
        self.count += 1
        masks = self.masks
        for word in words:
            masks[word] = masks.get(word, 0) | bit
        return serial

    def count_held(self, words: frozenset[str] | set[str], serial: int) -> int:
        """How many of ``words`` the output numbered ``serial`` holds (``w`` holds when
        ``re.search(rf"\\b{w}\\b", lowered)`` finds it, for a word of letters: a match
        between word boundaries is a maximal run of ``\\w``)."""
        masks = self.masks
        return sum(1 for word in words if masks.get(word, 0) >> serial & 1)

    def holding_two(self, words: frozenset[str] | set[str]) -> int:
        """The mask of the outputs indexed so far that hold two of ``words`` or more: one
        pass over the words' masks, however many outputs there are."""
        once = twice = 0
        masks = self.masks
        for word in words:
            mask = masks.get(word, 0)
            twice |= once & mask
            once |= mask
        return twice


class _Output:
    """A failure's output as ``corroborated`` reads it, read once: every lesson of every
    summary is checked against every earlier failure, and lowering each output and searching
    it word by word again per lesson made a long session's extraction quadratic (most of a
    200 MB transcript's extraction time). Kept small, since every failure's is kept through
    the summaries: the lowered text as UTF-8 (a substring of it is the UTF-8 of a substring),
    and its words (four ASCII letters or more, not generic) in an index the view's outputs
    share (``_Words``), where this one is a number.
    """

    __slots__ = ("_text", "_lowered", "_index", "_serial")

    def __init__(self, text: str | Event, index: _Words | None = None) -> None:
        #: a result event until read: its text may be held compressed (capture/packed.py),
        #: and every failure's text held inflated until the summaries read it was a
        #: long session's extraction peak
        self._text = text
        self._lowered = b""
        self._index = index
        self._serial = -1

    def _read(self) -> None:
        lowered = (self._text if isinstance(self._text, str) else self._text.text).lower()
        self._lowered = lowered.encode("utf-8", "surrogatepass")
        if self._index is None:
            self._index = _Words()
        self._serial = self._index.add(frozenset(_PLAIN_WORD.findall(lowered)) - _GENERIC)
        self._text = ""

    @property
    def lowered(self) -> bytes:
        if self._serial < 0:
            self._read()
        return self._lowered

    def place(self) -> tuple[_Words, int]:
        """The word index this output is in, and its number there."""
        if self._serial < 0:
            self._read()
        assert self._index is not None
        return self._index, self._serial

    @property
    def words(self) -> frozenset[str]:
        """Its whole words (for a reader; ``holds`` is the rule's test): a scan of the index."""
        if self._serial < 0:
            self._read()
        assert self._index is not None
        return frozenset(word for word, mask in self._index.masks.items()
                         if mask >> self._serial & 1)


def _output_of(view: SessionView, result: Event) -> _Output:
    """One ``_Output`` per failed result for the whole view: the summaries' failures and
    ``fix_held``'s runs are mostly the same results, and each kept its own lowered copy and
    word set (several MB of a 200 MB transcript's extraction peak). Their words share one
    index (``_Words``)."""
    known = view.remembered("summaries.outputs", lambda _: ({}, _Words()))
    held = known[0].get(id(result))
    if held is None or held[0] is not result:  # the view holds its results: ids stay theirs
        held = known[0][id(result)] = (result, _Output(result, known[1]))
    return held[1]


#: A whole word (a maximal run of ``\w``) of four ASCII letters or more, in lowered text:
#: what the runs of ``\w+`` that are ASCII, alphabetic and that long are, found by ``re``
#: rather than each run tested in Python (most of a long session's summaries rule).
_PLAIN_WORD = lazy_regex(r"(?<!\w)[a-z]{4,}(?!\w)")


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _shows(problem: str, failures: list[_Output]) -> bool:
    terms = _Terms(problem)
    return any(terms.shown_by(output) for output in failures)


class _Terms:
    """What ``corroborated`` looks for of one problem in an output, found in it once:
    ``fix_held`` asks it of every failed run of the session, one at a time, and reading the
    problem again for each made a long session's summaries quadratic in its failed runs."""

    __slots__ = ("terms", "plain", "_two")

    def __init__(self, problem: str) -> None:
        spans = [_utf8(span.lower()) for span in _CODE_SPAN.findall(problem)]
        naming = [_utf8(token.lower().strip(".:")) for token in _NAMING.findall(problem)
                  if len(token.strip(".:")) >= 4]
        #: code spans' texts and naming tokens: any one in the output shows the problem
        self.terms = tuple(dict.fromkeys([*spans, *naming]))
        self.plain = {word.lower() for word in re.findall(r"[A-Za-z]{4,}", problem)} - _GENERIC
        #: (index, outputs it held then, mask of those holding two plain words): the
        #: plain-word test of every output at once, instead of a word test per output per
        #: problem (``summary_candidates`` asks every lesson of every earlier failure)
        self._two: tuple[_Words, int, int] | None = None

    def shown_by(self, output: _Output) -> bool:
        seen = output.lowered
        for term in self.terms:
            if term in seen:
                return True
        return len(self.plain) >= 2 and self._two_words(output)

    def _two_words(self, output: _Output) -> bool:
        index, serial = output.place()
        two = self._two
        if two is None or two[0] is not index:
            two = self._two = (index, index.count, index.holding_two(self.plain))
        if serial < two[1]:
            return bool(two[2] >> serial & 1)
        return index.count_held(self.plain, serial) >= 2  # read since: asked one by one


def fix_held(view: SessionView, problem: str, fix: str, before: int) -> bool:
    """Whether the runs that showed ``problem`` (before line ``before``) bear the account out:
    each was next run by the same program with success, and when nothing but commands ran
    in between (no file was edited), the fix the account names is one of those commands
    (shares a word with it). Otherwise the account names a change that did not make the
    command pass: the agent's diagnosis ("import the modules before patching") that the
    next failure refuted, while the real fix was an install. A failure no command run showed
    (an edit refused, a tool's own error) is not judged here; a command never run again
    after its failure proves no fix either. Nor does a fix that did not hold to the end: a
    run after the account showing the problem again, the person acting themselves before
    the run passed ("I restarted it, try again"), or a change outside the project meanwhile
    (``held``)."""
    runs = _program_runs(view)
    terms = _Terms(problem)  # ``corroborated(problem, [output])`` for each run, read once
    shown = [index for index, (line, _, verdict, output, _) in enumerate(runs)
             if verdict == FAILED and terms.shown_by(output)]
    if any(runs[index][0] > before and _fails_on(view, problem, runs[index][4])
           for index in shown):
        return False  # the problem failed again after the account: the fix did not hold
    shown = [index for index in shown if runs[index][0] < before]
    for index in shown:
        line, program = runs[index][0], runs[index][1]
        later = next((run for run in runs[index + 1:] if run[1] == program), None)
        if later is None or later[2] != OK:
            return False
        if acted_between(view, line, later[0]) \
                or changed_outside_between(view, line, later[0]):
            return False  # the person, or a change outside the project, may have fixed it
        commands = _commands_only(view, line, later[4])
        if commands is not None and not _content(fix) & _content(" ".join(commands)):
            return False
    return True


#: A line of output that reports a failure, not one that lists a test that passed.
_FAILING_LINE = lazy_regex(r"\b(?:FAILED|FAIL|ERROR|[Ee]rror|[A-Z]\w*(?:Error|Exception)|"
                           r"[Ff]ailed|panicked|fatal)\b")


def _fails_on(view: SessionView, problem: str, call: Event) -> bool:
    """Does a failed run's output report a failure on the problem's own names (a line that
    says it failed and holds one of its code spans or naming tokens)? Looser ties -- two
    plain words anywhere, a name in a list of passed tests -- are no proof the same problem
    came back."""
    result = view.results.get(call.call_id or "")
    terms = [span.lower() for span in _CODE_SPAN.findall(problem)] + \
        [token.lower().strip(".:") for token in _NAMING.findall(problem)
         if len(token.strip(".:")) >= 4]
    if result is None or not terms:
        return False
    return any(term in line for line in _failing_lines(view, result) for term in terms)


def _failing_lines(view: SessionView, result: Event) -> list[str]:
    """A result's lines that report a failure (``_FAILING_LINE``), lowered, found once per
    result: ``_fails_on`` asks every problem of every summary about the same failed runs,
    and inflating and searching each output again made a long session's summaries
    quadratic. Few lines of an output say it failed: kept whole, they are a few KB."""
    found = view.remembered("summaries.failing_lines", lambda _: {})
    known = found.get(id(result))
    if known is None or known[0] is not result:  # the view holds its results: ids stay theirs
        known = found[id(result)] = (result, [line.lower() for line in result.text.splitlines()
                                              if _FAILING_LINE.search(line)])
    return known[1]


def _commands_only(view: SessionView, after: int, passed: Event) -> list[str] | None:
    """The commands run between a failure and the run that passed (with those chained
    before it in the passing line), or None when a file was edited in between."""
    commands: list[str] = []
    for call in view.calls():
        if call.line <= after or call.line > passed.line:
            continue
        if file_ops(view, call):
            return None
        command = command_text(call)
        runs = invocations(command, call_cwd(call)) if command else []
        chained = runs[:-1] if call is passed else runs
        commands += [" ".join(run.argv) for run in chained if run.argv[0] not in _SETUP]
    return commands


def _content(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"[A-Za-z][\w-]{3,}", text)} - _GENERIC


def _program_runs(view: SessionView) -> list[tuple[int, str, str, _Output, Event]]:
    """(line, program, verdict, output, call) of every shell run the lessons rule reads. The
    output is a failed run's only, the one ``fix_held`` reads, as an ``_Output`` (read once
    for every account checked against it): kept as text for every run, it held a long
    session's shell outputs decompressed all extraction (5 MB of a 200 MB transcript's)."""
    def compute(v: SessionView) -> list[tuple[int, str, str, _Output, Event]]:
        found = []
        for call in v.calls():
            command = command_text(call)
            runs = invocations(command, call_cwd(call)) if command else []
            key = same_command_key(runs[-1].argv) if runs else None
            if key is None:
                continue
            result = v.results.get(call.call_id or "")
            verdict = run_verdict(v, call)
            found.append((call.line, key[0], verdict, _output_of(v, result)
                          if result is not None and verdict == FAILED else _Output(""), call))
        return found
    return list(view.remembered("summaries.program_runs", compute))


def _split_fix(text: str) -> tuple[str, str, str]:
    match = _FIX.search(text)
    if not match:
        return "", "", ""
    fix = re.sub(r"^(?:fixed|solved|resolved)\s+(?:by|with)\s+|^fix:\s*", "",
                 text[match.end():].strip(), flags=re.I)
    return text[:match.start()].strip(), match.group(0), fix


def _deleted_paths(view: SessionView) -> list[str]:
    return [view.relative(op.path) or op.path for _, _, ops in session_ops(view)
            for op in ops if op.kind == "delete"]


def _candidate(view: SessionView, event: Event, claim: Claim) -> dict[str, Any]:
    subject = claim.subject or view.project or ""
    return candidate("summaries", subject, claim.predicate, claim.text,
                     evidence=[transcript_evidence(event.line, claim.text)],

                     object_kind="literal", subject_type="file" if claim.subject else "project",
                     at=event.timestamp)
