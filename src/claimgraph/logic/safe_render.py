"""Stored text shown to an agent is data, never instructions (docs/context.md, "Context is data").

Facts come from transcripts, teammates' logs and agents' tool calls, so any of them may hold
text written to steer the next agent: a fake ``</claimgraph-context>`` that closes our block
early and speaks after it, terminal escapes, bidi overrides that make a line read differently
from what it says, or a "decision" to pipe a download into a shell. Two pure functions guard
every place such text is shown (the SessionStart block, ``claimgraph context``, MCP answers):

- ``safe_text`` strips control, bidi and zero-width characters and lone surrogates, and escapes
  our own tags wherever they occur (``<`` becomes ``&lt;``), so no line can close or open the
  block;
- ``held_reason`` names why a fact must not be shown as memory at all (an instruction to fetch
  and run remote code, or to send credentials somewhere): such a fact is held for review.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

#: C0 and C1 controls (tab and newline included: a shown line is one line), DEL, bidi
#: embeddings/overrides/isolates and marks, zero-width characters and the BOM, and lone
#: surrogates (which cannot even be encoded).
_INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")
#: An opening or closing tag of ours, however spaced or cased: ``<claimgraph-context>``,
#: ``</ Claimgraph-Context >``, ``<claimgraph …``.
_OUR_TAG = re.compile(r"<(\s*/?\s*claimgraph)", re.IGNORECASE)

_FETCH = r"(?:curl|wget|fetch|aria2c|http(?:ie)?)\b"
_SHELL = r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|da|fi|c|tc)?sh\b|python[0-9.]*\b|perl\b|ruby\b|node\b"
_PS_FETCH = (r"(?:iwr|irm|invoke-webrequest|invoke-restmethod"
             r"|new-object\s+(?:system\.)?net\.webclient|downloadstring)\b")
_REMOTE_RUN = "|".join((
    rf"\b{_FETCH}[^|\n]{{0,400}}\|\s*(?:{_SHELL})",                       # curl … | sh
    rf"\b(?:{_SHELL})\s+(?:-\S+\s+)*['\"]?[<$]\(\s*{_FETCH}",               # sh -c "$(curl …)"
    rf"\b(?:eval|source|\.)\s+['\"]?[<$]\(\s*{_FETCH}",                      # eval "$(curl …)"
    rf"\b{_PS_FETCH}.{{0,400}}(?:\|\s*iex\b|invoke-expression)",           # iwr … | iex
    rf"\b(?:iex|invoke-expression)\b\s*\(?\s*\(?\s*{_PS_FETCH}",          # iex (iwr …)
))
_SECRET = (r"(?:(?:access|auth|api|bearer|session|github|gh|npm|pypi|aws|openai|anthropic)?"
           r"[ _-]?tokens?|api[ _-]?keys?|secrets?|credentials?|passwords?|passphrases?|"
           r"(?:ssh|private|signing)[ _-]keys?|id_rsa|id_ed25519|\.env\b|cookies?)")
_SEND = r"(?:send|post|upload|exfiltrat\w*|e-?mail|paste|transmit|leak|share)\w*"
_WHERE = (r"(?:to|into|at|on)\s+(?:https?://|\S+@\S+\.\w+|(?:the|a|an|this|my|our|their|some)\s+"
          r"(?:\w+\s+)?(?:server|endpoint|webhook|url|address|channel|gist|pastebin|host|site))")
_SENDS_SECRET = "|".join((
    rf"\b{_SEND}\b[^.\n]{{0,80}}\b{_SECRET}[^.\n]{{0,60}}\b{_WHERE}",
    rf"\b{_SEND}\b[^.\n]{{0,80}}\b{_SECRET}[^.\n]{{0,60}}https?://",
    rf"\b{_FETCH}[^|\n]{{0,200}}(?:-d|--data\S*|-F|--form|-H|--header|-T|--upload-file)\s+"
    r"\S*\$\{?\w*(?:TOKEN|KEY|SECRET|PASSWORD|PASS|CRED)",
))
_NEGATED = (r"\b(?:never|don'?t|do\s+not|must\s+not|mustn'?t|avoid|no|not|without|"
            r"stop)\b[^.\n]{0,24}$")
#: Words a match of the patterns above cannot do without, each as those patterns spell it
#: (same flags, so the same characters match): every alternative of ``_REMOTE_RUN`` holds a
#: ``_FETCH`` or ``_PS_FETCH`` word; of ``_SENDS_SECRET``, a ``_SECRET`` word (or one of the
#: upper-case names, which these include) and a ``_SEND`` or ``_FETCH`` word. A text without
#: them is not held, and the patterns (~4 ms to compile, on an MCP server's first search) are
#: compiled only for a text that has them (``_patterns``). Plain words, so a store can look
#: for them in SQL too (``may_be_held``).
FETCH_WORDS = ("curl", "wget", "fetch", "aria2c", "http", "iwr", "irm", "invoke-webrequest",
               "invoke-restmethod", "new-object", "downloadstring")
SEND_WORDS = ("send", "post", "upload", "exfiltrat", "email", "e-mail", "paste", "transmit",
              "leak", "share")
SECRET_WORDS = ("token", "key", "secret", "cred", "pass", "id_rsa", "id_ed25519", ".env",
                "cookie")
#: The characters outside ASCII that ``re.IGNORECASE`` takes for a letter of those words
#: (dotted and dotless i, the long s, the Kelvin sign): SQL's ``lower`` folds ASCII only,
#: so a text holding one of them is a candidate whatever its words (``may_be_held``).
CASE_LOOKALIKES = ("\u0130", "\u0131", "\u017f", "\u212a")


def _any_word(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)


_FETCH_WORD, _SEND_WORD, _SECRET_WORD = (_any_word(FETCH_WORDS), _any_word(SEND_WORDS),
                                         _any_word(SECRET_WORDS))


def may_be_held(text: str) -> bool:
    """Whether ``held_reason`` could name a reason for a text: it holds a fetch word, or a
    secret word and a send word, in ASCII case folding (as SQL's ``lower``), or one of the
    ``CASE_LOOKALIKES``. True for every text ``held_reason`` holds (a test walks every code
    point), so a store may answer "which facts could be held" in SQL, with these plain words
    (``Store.held_candidate_ids``), and only those facts are read and judged."""
    if any(char in text for char in CASE_LOOKALIKES):
        return True
    folded = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)
    if any(word in folded for word in FETCH_WORDS):
        return True
    return any(w in folded for w in SECRET_WORDS) and any(w in folded for w in SEND_WORDS)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(remote run, sends a secret, negated), compiled once, when first needed."""
    return (re.compile(_REMOTE_RUN, re.IGNORECASE), re.compile(_SENDS_SECRET, re.IGNORECASE),
            re.compile(_NEGATED, re.IGNORECASE))


def safe_text(text: Any) -> str:
    """``text`` fit to show inside our block: invisible characters gone, our tags escaped."""
    cleaned = _INVISIBLE.sub("", str(text))
    return _OUR_TAG.sub(r"&lt;\1", cleaned)


def safe_value(value: Any) -> Any:
    """``safe_text`` over every string of a JSON-shaped value (keys included), iteratively:
    a deeply nested value cannot exhaust the stack."""
    if isinstance(value, str):
        return safe_text(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    root: list[Any] = [None]
    work: list[tuple[Any, list[Any] | dict[str, Any], Any]] = [(value, root, 0)]
    while work:
        item, parent, key = work.pop()
        if isinstance(item, str):
            parent[key] = safe_text(item)
        elif isinstance(item, dict):
            copy: dict[str, Any] = {}
            parent[key] = copy
            for k, v in item.items():
                name = safe_text(k) if isinstance(k, str) else k
                copy[name] = None
                work.append((v, copy, name))
        elif isinstance(item, (list, tuple)):
            items: list[Any] = [None] * len(item)
            parent[key] = items
            work.extend((v, items, i) for i, v in enumerate(item))
        else:
            parent[key] = item
    return root[0]


def held_reason(text: str) -> str | None:
    """Why a fact saying ``text`` is held for review rather than shown, or None."""
    flat = " ".join(_INVISIBLE.sub(" ", str(text)).split())
    fetches = _FETCH_WORD.search(flat) is not None
    if not fetches and not (_SECRET_WORD.search(flat) and _SEND_WORD.search(flat)):
        return None  # neither pattern can match (``_FETCH_WORD``)
    remote_run, sends_secret, negated = _patterns()
    if fetches and remote_run.search(flat):
        return "it tells the agent to fetch and run remote code"
    if not _SECRET_WORD.search(flat):
        return None
    for match in sends_secret.finditer(flat):
        if not negated.search(flat[:match.start()]):
            return "it tells the agent to send credentials somewhere"
    return None


def fact_words(fact: Mapping[str, Any]) -> str:
    """Everything a fact would show: subject, predicate and object (entity name or literal)."""
    subject = fact.get("subject")
    subject = subject.get("name") if isinstance(subject, Mapping) else subject
    obj = fact.get("object_ref")
    obj = obj.get("name") if isinstance(obj, Mapping) else None
    return " ".join(str(part) for part in (subject, fact.get("predicate"), obj,
                                           fact.get("object_lit")) if part is not None)


def fact_held(fact: Mapping[str, Any]) -> str | None:
    """``held_reason`` of a fact's shown words."""
    return held_reason(fact_words(fact))
