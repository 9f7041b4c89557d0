"""Secret redaction: no credential that a transcript carries ever reaches the store
(docs/capture.md, "Secrets").

Transcripts are plaintext and every tool output lands in them, keys included, so capture runs
every text through here before the evidence tier, an extractor, a log line or a fact sees
it. A secret becomes a typed placeholder such as ``[REDACTED:github-token]``: a reader still
learns that a token was there and of which kind, while the names, users and hosts around it,
which are what memory is about, stay. Counts per kind go to the capture log.

The detector is layered, not a list (docs/capture.md, "Secrets"). The text is first read as
its view (``logic.redact.views``: line numbers blanked or removed, split literals and wrapped
lines joined; finds are mapped back). One trigger scan (``logic.redact.scan``) then finds
every place a rule could start, our own triggers and the vendored gitleaks rules' keywords
(``logic.redact.rules``: their token formats join layer 1, their named assignments layer 2),
then
1. structure and self-naming tokens: PEM blocks (whole, headless or bare bodies), vendor
   prefixes (``logic.redact.tokens``), URL credentials parsed as URLs (``logic.redact.urls``),
   other armours, cookies and ``.pgpass`` lines (``logic.redact.armour``), Kubernetes Secret
   data, a secret-printing command's output line;
2. context (``logic.redact.cues``, ``logic.redact.blocks``): values under secret-like
   names, flags and query parameters, JSON escaped inside JSON, passwords said in prose,
   short password flags of known commands, a high-entropy fallback after a secret word, and
   env-style assignments of generated values whatever the name.
Finds that are placeholders (``your-key``, ``xxx``, AWS's ``…EXAMPLE`` keys) are dropped.
Layer 2 never looks inside what layer 1 found, and its value that starts where a layer-1
token starts is that token (``GH_TOKEN=[REDACTED:github-token]``); otherwise overlapping
finds merge. A placeholder holds no trigger, so redacting twice changes nothing.

Every rule looks a bounded distance from its trigger, and a trigger inside a found secret is
skipped, so the work is linear in the text. Lone UTF-16 surrogates (half an emoji, as a
JavaScript slice writes them) become U+FFFD here too, so every string we keep encodes.
"""

from __future__ import annotations

import bisect
from collections import Counter
from typing import Any, Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.redact import armour
from claimgraph.logic.redact import blocks
from claimgraph.logic.redact.cues import companion, env_assignments, run_spans
from claimgraph.logic.redact.names import (
    is_placeholder, is_secret_name, keeps_value, name_strength)
from claimgraph.logic.redact.rules import vendor_rules
from claimgraph.logic.redact.scan import TriggerScan
from claimgraph.logic.redact.tokens import MARKED_RULES, TOKEN_RULES, TokenRule
from claimgraph.logic.redact.urls import url_credentials
from claimgraph.logic.redact.views import LINE_MARKERS, blank_listing, view_of

__all__ = ["PLACEHOLDER_PREFIX", "placeholder", "redact", "redact_with_counts", "redact_value",
           "is_secret_name", "MAX_DEPTH", "replace_surrogates"]

PLACEHOLDER_PREFIX = "[REDACTED:"
#: Deeper structures are not walked (a hostile transcript nests 10,000 levels): dropped.
MAX_DEPTH = 100
#: Text holding secrets is looked at again after their removal; crafted text may need more.
MAX_PASSES = 4
Span = tuple[int, int, str]
Rule = Callable[[str, int], list[Span]]
_SECRET_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "bearer")
_QUERY_NAMES = ("sig=", "Signature=", "signature=", "code=")
_NAME_TAIL = lazy_regex(r"[\w-]{0,128}")
_LONGEST_NAME = 128
#: Finds that carry their whole secret: no companion token is looked for after them.
_ALONE = frozenset(("private-key", "url-password", "url-token", "discord-webhook", "k8s-secret",
                    "command-output", "jwt",
                    "slack-webhook", "password-hash", "session-cookie", "encoded-credentials"))


def placeholder(kind: str) -> str:
    """The typed marker left where a secret was."""
    return f"{PLACEHOLDER_PREFIX}{kind}]"


def _token_rule(rule: TokenRule) -> Rule:
    edge = lazy_regex(rule.edge)

    def spans(text: str, at: int) -> list[Span]:
        if at and edge.match(text, at - 1):
            return []
        found = rule.pattern.match(text, at)
        return [(at, found.end(), rule.kind)] if found else []
    return spans


def _marked_rule(marker: str) -> Rule:
    """Walk back from the marker to where its token's run starts, then match from there."""
    kind, before, pattern = MARKED_RULES[marker]

    def spans(text: str, at: int) -> list[Span]:
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in before:
            start -= 1
        found = pattern.match(text, start)
        return [(start, found.end(), kind)] if found and found.end() > at else []
    return spans


def _word_run(text: str, at: int) -> tuple[int, int] | None:
    """The run of name characters around ``at``, or None when it is too long to be a name."""
    start = at
    while start > 0:  # ``[\w-]`` one character at a time: \w is what ``isalnum`` says, or _
        ch = text[start - 1]
        if not (ch.isalnum() or ch == "_" or ch == "-"):
            break
        start -= 1
        if at - start > _LONGEST_NAME:
            return None
    if text.endswith(PLACEHOLDER_PREFIX, max(0, start - len(PLACEHOLDER_PREFIX)), start):
        return None  # a placeholder's kind names a secret; it holds none
    tail = _NAME_TAIL.match(text, at)
    assert tail is not None  # the pattern matches the empty string too
    end = tail.end()
    return None if end - at >= _LONGEST_NAME else (start, end)


def _rules() -> tuple[dict[str, list[Rule]], dict[str, list[Rule]]]:
    """Per trigger literal: its layer-1 rules and its layer-2 rules (the word rule is special)."""
    first: dict[str, list[Rule]] = {}
    for rule in TOKEN_RULES:
        for prefix in rule.prefixes:
            first.setdefault(prefix, []).append(_token_rule(rule))
    for marker in MARKED_RULES:
        first.setdefault(marker, []).append(_marked_rule(marker))
    find: Rule
    for literal, find in (("-----BEGIN", blocks.pem_begin), ("MII", blocks.pem_body),
                          ("b3BlbnNzaC1rZXktdjE", blocks.pem_body), ("://", url_credentials),
                          ("kind: Secret", blocks.k8s_secret),
                          ('"kind": "Secret"', blocks.k8s_secret),
                          ('"kind":"Secret"', blocks.k8s_secret)):
        first.setdefault(literal, []).append(find)
    for literal, find in armour.TRIGGERS.items():
        first.setdefault(literal, []).append(find)
    for literal in blocks.PRINTING_COMMANDS:
        first.setdefault(literal, []).append(blocks.printed_secret)
    second: dict[str, list[Rule]] = {}
    for literal, name in blocks.COMMAND_TRIGGERS.items():
        second.setdefault(literal, []).append(blocks.command(name))
    second.setdefault("password-stdin", []).append(blocks.password_stdin)
    second.setdefault("pass:", []).append(blocks.openssl_pass)
    second.setdefault("::add-mask::", []).append(blocks.add_mask)
    return first, second


_FIRST, _SECOND = _rules()
_WORD_LITERALS = frozenset(variant for word in _SECRET_WORDS
                           for variant in (word, word.capitalize(), word.upper())) | set(
    _QUERY_NAMES) | {"_PAT", "_pat"}
_VENDOR_KEYWORDS = vendor_rules().variants()
_OWN_LITERALS = frozenset([*_FIRST, *_SECOND, *_WORD_LITERALS, "-----END"])
#: Where a token (or a header's value) may start: what a split literal or a wrap could cut.
_TOKEN_STARTS = frozenset([*_FIRST, "Bearer", "bearer", "BEARER"])
_VENDOR_TOKEN_STARTS = vendor_rules().token_keywords()
#: The view's line markers (``logic.redact.views``) ride on the same scan, which then says
#: whether a text holds one: eight substring searches of every text with a trigger saved.
_LINE_MARKERS = frozenset(LINE_MARKERS)
SCAN = TriggerScan([*_FIRST, *_SECOND, *_WORD_LITERALS, "-----END", *_VENDOR_KEYWORDS,
                    *LINE_MARKERS])


class _Finder:
    """The spans of one text, layer by layer (module docstring)."""

    def __init__(self, text: str, scan: TriggerScan) -> None:
        self.text, self.scan = text, scan
        self.hits, self.vendor_hits = [], []
        #: Whether a line marker occurs; None when the scan does not look for them all.
        self.line_marked: bool | None = False if scan.covers(_LINE_MARKERS) else None
        for at, literals in scan.hits(text):
            own = [literal for literal in literals if literal in _OWN_LITERALS]
            if own:
                self.hits.append((at, own))
            self.vendor_hits += [(_VENDOR_KEYWORDS[literal], at) for literal in literals
                                 if literal in _VENDOR_KEYWORDS]
            if self.line_marked is False and not _LINE_MARKERS.isdisjoint(literals):
                self.line_marked = True
        self.first: list[Span] = []
        self.second: list[Span] = []

    def spans(self) -> list[Span]:
        tokens, assignments = vendor_rules().spans(self.text, self.vendor_hits)
        environment = env_assignments(self.text)
        if not (self.hits or tokens or assignments or environment):
            return []  # nearly all text: no rule can start anywhere
        self._layer(self.first, self._first_rules, ())
        self.first = _add_disjoint(self.first, tokens)
        self.first += self._companions()
        self._layer(self.second, self._second_rules, self.first)
        cover = _cover(self.first)
        self.second = _add_disjoint(self.second, [
            span for span in assignments + environment if not _covered(span[0], cover)])
        return [span for span in _merge(self.first, self.second)
                if not is_placeholder(self.text[span[0]:span[1]])]

    def _companions(self) -> list[Span]:
        """A random token right after a known credential is its other half (an account id
        and its secret passed side by side: Twilio's SID and token, AWS's key id and key)."""
        found: list[Span] = []
        for _, end, kind in self.first:
            if kind not in _ALONE:
                found += [(s, e, "high-entropy") for s, e, _ in companion(self.text, end)]
        return found

    def _layer(self, found: list[Span], rules_at: Callable[[int, list[str]], list[Span]],
               earlier: list[Span] | tuple[()]) -> None:
        if not self.hits:
            return
        skip_to = _cover(list(earlier))
        for at, literals in self.hits:
            if _covered(at, skip_to) or (found and at < found[-1][1]):
                continue
            found.extend(sorted(rules_at(at, literals)))

    def _first_rules(self, at: int, literals: list[str]) -> list[Span]:
        spans: list[Span] = []
        for literal in literals:
            for rule in _FIRST.get(literal, ()):
                spans += rule(self.text, at)
            if literal == "-----END":
                floor = self.first[-1][1] if self.first else 0
                spans += blocks.pem_end(self.text, at, floor)
            if spans:
                return spans[:1]
        return []

    def _second_rules(self, at: int, literals: list[str]) -> list[Span]:
        spans: list[Span] = []
        for literal in literals:
            for rule in _SECOND.get(literal, ()):
                spans += rule(self.text, at)
            if literal in _WORD_LITERALS and not spans:
                run = _word_run(self.text, at)
                spans += run_spans(self.text, *run) if run else []
            if spans:
                return spans
        return []


def _add_disjoint(ours: list[Span], vendored: list[Span]) -> list[Span]:
    """The vendored finds that overlap none of ours (ours name the kind better), merged in."""
    if not vendored:
        return ours
    cover = _cover(ours)
    starts = cover[0]
    kept = [span for span in vendored
            if not _covered(span[0], cover) and not _covered(span[1] - 1, cover)
            and bisect.bisect_left(starts, span[1]) == bisect.bisect_left(starts, span[0])]
    merged: list[Span] = []
    for span in sorted(ours + kept):
        if merged and span[0] < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], span[1]), last[2])
        else:
            merged.append(span)
    return merged


def _cover(spans: list[Span]) -> tuple[list[int], list[int]]:
    ordered = sorted(spans)
    return [start for start, _, _ in ordered], [end for _, end, _ in ordered]


def _covered(at: int, cover: tuple[list[int], list[int]]) -> bool:
    """Whether ``at`` lies inside one of the (sorted, disjoint) spans."""
    starts, ends = cover
    index = bisect.bisect_right(starts, at) - 1
    return index >= 0 and at < ends[index]


def _merge(first: list[Span], second: list[Span]) -> list[Span]:
    """A layer-2 span inside a layer-1 one adds nothing; overlaps merge, named by the first
    span (a layer-1 one where both start together)."""
    ends = {start: end for start, end, _ in first}
    ordered = sorted([(s, 0, e, k) for s, e, k in first] +
                     [(s, 1, e, k) for s, e, k in second if e > ends.get(s, s)])
    merged: list[Span] = []
    for start, _, end, kind in ordered:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    return merged


def replace_surrogates(text: str) -> str:
    """Lone surrogates (never valid in UTF-8) become U+FFFD; everything else is kept."""
    if text.isascii():  # a flag of the string, no scan: most text is ASCII
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def redact_with_counts(text: str, scan: TriggerScan = SCAN) -> tuple[str, Counter[str]]:
    """The redacted text and how many secrets of each kind it held, for the capture log.

    A placeholder changes what stands beside it (``-----END …-----sk-…`` hides the key's start
    until the block is gone), so text that held a secret is looked at again, until nothing
    more is found: redacting the result changes nothing.
    """
    text = replace_surrogates(text)
    counts: Counter[str] = Counter()
    for _ in range(MAX_PASSES):
        spans = _spans(text, scan) if text else []
        if not spans:
            break
        text = _splice(text, spans, counts)
    return text, counts


def _spans(text: str, scan: TriggerScan) -> list[Span]:
    """What the text holds, read through its view (``logic.redact.views``) when it has one:
    the view lacks only line numbers, the quotes between joined literals and the breaks of
    wrapped lines, none of which is part of a secret, so one pass over it finds everything."""
    text = blank_listing(text)  # same length: spans found here hold for the original
    finder = _Finder(text, scan)
    if not (finder.hits or finder.vendor_hits or ("=" in text and env_assignments(text))):
        return []  # no rule can start anywhere, and a view only removes (see _Finder.spans)
    view = view_of(text, [at for at, literals in finder.hits
                          if any(literal in _TOKEN_STARTS for literal in literals)]
                   + [at for keyword, at in finder.vendor_hits if keyword in _VENDOR_TOKEN_STARTS],
                   finder.line_marked)
    if view is None:
        return finder.spans()
    found = view.spans_back(_Finder(view.text, scan).spans())
    return [span for span in found if span[1] > span[0]]


def _splice(text: str, spans: list[Span], counts: Counter[str]) -> str:
    parts: list[str] = []
    done = 0
    for start, end, kind in spans:
        parts += (text[done:start], placeholder(kind))
        counts[kind] += 1
        done = end
    parts.append(text[done:])
    return "".join(parts)


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by its typed placeholder."""
    return redact_with_counts(text)[0]


def redact_value(value: Any, counts: Counter[str] | None = None, depth: int = 0) -> Any:
    """Redact every string inside a tool input; a secret-named field loses its whole value.

    Dict keys are kept as they are: they name things, and rewriting them could merge entries.
    Past ``MAX_DEPTH`` levels a structure is dropped for a placeholder instead of walked.
    """
    counts = Counter() if counts is None else counts
    if isinstance(value, str):
        text, found = redact_with_counts(value)
        if found:  # nearly never: an empty update still costs a Python call per string
            counts.update(found)
        return text
    if not isinstance(value, (dict, list, tuple)):
        return value
    if depth >= MAX_DEPTH:
        counts["too-deep"] += 1
        return placeholder("too-deep")
    if isinstance(value, dict):
        return {_key(key): _redact_field(key, item, counts, depth + 1)
                for key, item in value.items()}
    items = [redact_value(item, counts, depth + 1) for item in value]
    return items if isinstance(value, list) else tuple(items)


def _key(key: Any) -> Any:
    return replace_surrogates(key) if isinstance(key, str) else key


def _redact_field(key: Any, item: Any, counts: Counter[str], depth: int) -> Any:
    """A field named like a secret holds one even without a ``NAME=`` around it."""
    redacted = redact_value(item, counts, depth)
    if not isinstance(key, str) or not isinstance(redacted, str):
        return redacted
    strength = name_strength(key)
    if strength and not keeps_value(strength, redacted, quoted=True):
        counts["secret"] += 1
        return placeholder("secret")
    return redacted
