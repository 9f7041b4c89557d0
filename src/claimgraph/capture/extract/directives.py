"""prefers / decided-against from what the person typed, and only from that.

Only ``Event.is_human_prompt`` text is read: never assistant text, harness-injected meta
events, compaction summaries or a subagent's prompt (the parent agent's words). A sentence
counts only when it STARTS as a standing directive ("always …", "never …", "don't use …",
"prefer X over Y", "use X instead of Y", "we decided …", "remember that …", "I always …")
and reads as one: questions, hedges ("if", "maybe", "should"), task-scoped wording ("for
now", "until", "this time") and pronoun objects ("don't do that") are skipped, and the verb
must be one that names a durable practice -- "don't stop until it works" is an instruction
for today, not a convention. Code blocks, quoted lines and pasted code are not sentences.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence

CONFIDENCE = 0.8
PREFERS, AGAINST = "core/prefers", "core/decided-against"
#: Verbs whose object is the thing chosen; two-word ones are matched before one-word verbs.
_CHOOSING = frozenset({"use", "prefer", "choose", "pick", "adopt", "go with", "stick with",
                       "switch to", "move to", "migrate to"})
_DONT_VERBS = frozenset({
    "use", "add", "import", "install", "commit", "push", "merge", "mock", "hardcode",
    "hard-code", "log", "print", "swallow", "rely", "depend", "vendor", "pin", "bypass",
    "disable", "suppress", "force-push", "expose", "store", "call", "catch", "ignore"})
_NEVER_VERBS = _DONT_VERBS | frozenset({
    "edit", "modify", "touch", "delete", "remove", "change", "skip", "leak", "return", "raise",
    "throw", "write", "run", "rebase", "amend", "squash", "upgrade", "bump", "reformat",
    "generate", "introduce", "block", "sleep", "deploy", "release", "publish", "avoid"})
_ALWAYS_VERBS = frozenset({
    "use", "add", "write", "run", "test", "format", "lint", "commit", "push", "pin", "prefer",
    "keep", "put", "store", "log", "document", "type", "annotate", "name", "prefix", "check",
    "validate", "include", "follow", "squash", "rebase", "merge", "update", "bump", "create",
    "wrap", "return", "raise", "handle", "sort", "escape", "sanitize", "avoid", "choose",
    "pick", "target", "support", "deploy", "release", "open", "close", "pass", "import"})
_WHO = r"(?:(?P<who>we|i)\s+)?"
_FORMS = tuple((form, re.compile(pattern, re.IGNORECASE)) for form, pattern in (
    ("decided", r"^(?P<who>we|i)\s*(?:'ve|\s+have)?\s+decided\s+(?P<rest>.+)$"),
    ("remember", r"^remember\s+(?:(?P<that>that)\s+|to\s+)(?P<rest>.+)$"),
    ("instead", _WHO + r"use\s+(?P<x>.+?)\s+(?:instead\s+of|rather\s+than)\s+(?P<y>.+)$"),
    ("prefer", _WHO + r"prefer\s+(?P<rest>.+)$"),
    ("always", _WHO + r"always\s+(?P<rest>.+)$"),
    ("never", _WHO + r"never\s+(?P<rest>.+)$"),
    ("dont", _WHO + r"(?:don't|dont|do\s+not)\s+(?P<rest>.+)$"),
))
_REQUEST_MARK = "## My request for Codex:"
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_CODE_HINTS = re.compile(r"[{}]|;\s*$|=>|</|/>|^\s*(?:import|from|const|let|def|function|class)\s")
_SPLIT = re.compile(r"(?<=[.!?;])\s+|,\s*(?=(?:and\s+|but\s+)?(?:always|never|don't|do not)\b)",
                    re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_LEAD = re.compile(r"^(?:(?:please|also|and|but|so|ok|okay|btw|note|important|fyi|just)"
                   r"\b[,:!]?\s*)+", re.IGNORECASE)
_QUESTION = re.compile(r"^(?:should|could|can|would|will|do(?!\s+not\b)|does|did|is|are|was|"
                       r"were|what|why|how|when|where|which|who|shall|may)\b", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:if|maybe|perhaps|might|could|would|should|unless|probably|"
                    r"possibly|think|guess|not sure|wonder|whether)\b", re.IGNORECASE)
_TEMPORARY = re.compile(r"\b(?:for now|yet|until|right now|this time|today|tonight|"
                        r"at the moment|in this (?:pr|task|session|commit|branch|file))\b",
                        re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\s+(?:over|rather\s+than|instead\s+of)\s+", re.IGNORECASE)
_REASON = re.compile(r"(?:\s+(?:because|since|as it|so that|which)\b|[,:;]\s|\s[—–-]\s).*$",
                     re.IGNORECASE)
_DEICTIC = frozenset({"it", "this", "that", "these", "those", "them", "here", "there",
                      "something", "anything", "everything", "stuff", "things", "so", "one",
                      "ones", "same", "above", "below"})
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_NAME_TOKEN = re.compile(r"[\w@.+/-]+")


def directive_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    for event in view.transcript.events:
        if not event.is_human_prompt or event.subagent_id:
            continue
        for sentence in sentences(event.text):
            for predicate, obj, epistemic, who in parse_directive(sentence):
                if who == "i" or view.project:
                    yield _candidate(view, predicate, obj, epistemic, who, event.line, sentence)


def sentences(text: str) -> Iterator[str]:
    """Prose sentences of a prompt: fences, quotes, headings and code-like lines dropped."""
    text = text.split(_REQUEST_MARK, 1)[-1]
    for line in _FENCE.sub("\n", text).replace("’", "'").splitlines():
        line = _BULLET.sub("", line.strip())
        if not line or line.startswith((">", "#", "|", "$")) or _CODE_HINTS.search(line):
            continue
        for sentence in _SPLIT.split(line):
            if 2 <= len(sentence.split()) and len(sentence) <= 200:
                yield " ".join(sentence.split())


def parse_directive(sentence: str) -> list[tuple[str, str, str, str | None]]:
    """(predicate, object, epistemic, who) for each claim the sentence makes, or []."""
    core = _LEAD.sub("", sentence).strip()
    if not core or core.endswith("?") or _QUESTION.match(core) or _HEDGE.search(core) \
            or _TEMPORARY.search(core):
        return []
    core = core.rstrip(".!;: ")
    for form, pattern in _FORMS:
        match = pattern.match(core)
        if match:
            groups = {name: value for name, value in match.groupdict().items() if value}
            return _read_form(form, groups)
    return []


def _read_form(form: str, groups: dict[str, str]) -> list[tuple[str, str, str, str | None]]:
    who = groups.get("who", "").lower() or None
    rest = groups.get("rest", "")
    if form == "decided":
        return [(p, o, "commitment", None) for p, o, _ in _decision(rest)]
    if form == "remember":
        return parse_directive(rest) if groups.get("that") else _tag(
            _practice(rest, True, _ALWAYS_VERBS), "preference", who)
    if form == "instead":
        return _tag(_choice(groups["x"], groups["y"], commitment=True), None, who)
    if form == "prefer":
        return _tag(_preference(rest), None, who)
    verbs = {"always": _ALWAYS_VERBS, "never": _NEVER_VERBS, "dont": _DONT_VERBS}[form]
    facts = _practice(rest, form == "always", verbs)
    return _tag(facts, None, who)


def _tag(facts: list[tuple[str, str, str]], epistemic: str | None,
         who: str | None) -> list[tuple[str, str, str, str | None]]:
    return [(p, o, epistemic or e, who) for p, o, e in facts]


def _decision(rest: str) -> list[tuple[str, str, str]]:
    lowered = rest.lower()
    if lowered.startswith("against "):
        return _one(AGAINST, _thing(rest[8:]), "commitment")
    if lowered.startswith("not to "):
        return _practice(rest[7:], False, _NEVER_VERBS | _ALWAYS_VERBS)
    if lowered.startswith("to "):
        return _practice(rest[3:], True, _ALWAYS_VERBS | _NEVER_VERBS)
    return []


def _practice(phrase: str, positive: bool, verbs: frozenset[str]) -> list[tuple[str, str, str]]:
    """A verb phrase as a stance: choosing verbs give their object, others the practice."""
    verb, rest = _verb(phrase, verbs)
    if not verb or not rest:
        return []
    if verb == "prefer" and positive:
        return _preference(rest)
    if _ALTERNATIVE.search(rest):  # "X over Y" reads only as a positive choice
        first, second = _ALTERNATIVE.split(rest, maxsplit=1)
        return _choice(first, second, commitment=True) if verb == "use" and positive else []
    if verb == "avoid":
        positive, verb = not positive, "use"
    predicate = PREFERS if positive else AGAINST
    epistemic = "preference" if positive else "commitment"
    obj = _thing(rest) if verb in _CHOOSING else _clause(phrase)
    return _one(predicate, obj, epistemic)


def _verb(phrase: str, verbs: frozenset[str]) -> tuple[str | None, str]:
    """The leading verb (a two-word choosing verb like "go with" first) and what follows."""
    words = phrase.split(" ")
    two = " ".join(words[:2]).lower()
    if two in _CHOOSING:
        return two, " ".join(words[2:])
    verb = words[0].lower()
    return (verb, " ".join(words[1:])) if verb in verbs else (None, "")


def _preference(rest: str) -> list[tuple[str, str, str]]:
    """``prefer X over Y``: X preferred, Y set aside (a preference, not a ban)."""
    parts = _ALTERNATIVE.split(rest, maxsplit=1)
    as_practice = parts[0].lower().startswith("to ")
    chosen = _clause(parts[0][3:]) if as_practice else _thing(parts[0])
    facts = _one(PREFERS, chosen, "preference")
    if facts and len(parts) == 2:
        rejected = _clause(parts[1]) if as_practice else _thing(parts[1])
        facts += _one(AGAINST, rejected, "preference")
    return facts


def _choice(chosen: str, rejected: str, commitment: bool) -> list[tuple[str, str, str]]:
    facts = _one(PREFERS, _thing(chosen), "preference")
    if facts:
        facts += _one(AGAINST, _thing(rejected), "commitment" if commitment else "preference")
    return facts


def _one(predicate: str, obj: str | None, epistemic: str) -> list[tuple[str, str, str]]:
    return [(predicate, obj, epistemic)] if obj else []


def _thing(text: str) -> str | None:
    """A short noun phrase: reasons cut off, articles and quotes dropped, pronouns refused."""
    thing = _ARTICLE.sub("", _REASON.sub("", text).strip()).strip("`'\" ")
    words = thing.split()
    if not words or len(words) > 6 or len(thing) > 60:
        return None
    return None if any(word.lower().strip("`'\".,") in _DEICTIC for word in words) else thing


def _clause(text: str) -> str | None:
    """A practice as a short literal ("commit directly to main"), or None if it leans on
    context ("do that", "touch it") or rambles."""
    clause = _REASON.sub("", text).strip()
    words = clause.split()
    if not words or len(words) > 12 or len(clause) > 100:
        return None
    if any(word.lower().strip("`'\".,") in _DEICTIC for word in words[1:]):
        return None
    return clause


def _candidate(view: SessionView, predicate: str, obj: str, epistemic: str, who: str | None,
               line: int, sentence: str) -> dict[str, Any]:
    personal = who == "i"
    subject = "user" if personal else view.project
    kind = "entity" if _NAME_TOKEN.fullmatch(obj) else "literal"
    return candidate("directives", subject or "", predicate, obj,
                     evidence=[transcript_evidence(line, sentence)], epistemic=epistemic,
                     confidence=CONFIDENCE, source_type="user-assertion",
                     scope="user" if personal else "project", object_kind=kind,
                     subject_type=None if personal else "project")
