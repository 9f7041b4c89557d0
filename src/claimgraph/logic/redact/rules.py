r"""The vendored rule set: gitleaks' secret formats, run behind a keyword prefilter.

Vendors publish new token formats every month; a list we grow by hand is always behind. So the
bulk of the format knowledge is gitleaks' ``config/gitleaks.toml`` (MIT), vendored as data in
``logic/redact/data/gitleaks-rules.json`` by ``tools/vendor_gitleaks.py``, which also converts the
Go regular expressions to Python's dialect and lists the rules it could not convert. The file
records the upstream version, commit and licence (docs/capture.md, "Secrets").

Each rule names lowercase keywords; a text where none occurs cannot hold its secret. The
redactor's one Aho-Corasick pass (``logic.redact.scan``) also looks for every keyword in its
lowercase, UPPERCASE and Capitalized spellings (gitleaks ignores case altogether; a token's
prefix is written one of those ways), and a rule's expression then
runs only on windows around its keywords' hits (``BEFORE`` characters back, ``AFTER`` ahead,
overlapping windows merged), so the cost follows the keywords in the text, not the number of
rules. A match is kept as gitleaks keeps it: its secret is the rule's ``secretGroup`` (else the
first group that matched, else the whole match), it must reach the rule's entropy, and no
allowlist of the rule or the global one may excuse it.

The token formats' finds join our first layer, the named assignments' (``(?i)[\w.-]{0,50}?``
then a vendor's name then a value) our second: where our context rules find the same value,
theirs names it. A few rules are left to our own layers, which know transcripts better
(``LEFT_TO_OUR_LAYERS``): their find would only repeat or widen what those layers already judge with
more context.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

try:  # pragma: no cover - which branch runs depends on the installation
    from ahocorasick_rs import AhoCorasick, MatchKind
except ImportError:  # pragma: no cover
    AhoCorasick = None  # type: ignore[assignment,misc]  # the regex engine stands in

Span = tuple[int, int, str]
DATA_FILE = "gitleaks-rules.json"
#: How far around a keyword a rule's match may start and end: gitleaks' assignment rules allow
#: 50 name characters before the keyword and a value of at most a few hundred after it.
BEFORE, AFTER = 72, 448
#: A token's keyword is its prefix or lies within it: the token starts just before the keyword
#: and no format is longer than this window.
TOKEN_WINDOW = (24, 320)
#: gitleaks rules whose finds our layers make with more context (see the module docstring):
#: the generic assignment (``logic.redact.cues`` judges name and value together), private
#: keys and Kubernetes secrets (``logic.redact.blocks`` handles cut and prefixed blocks), and
#: curl's user/header rules (``logic.redact.blocks``' per-command flags); and JWTs and Twilio
#: keys, whose formats our token table has (``logic.redact.tokens``) while their keywords
#: (``ey``, ``sk``) occur in nearly every text and would run their rules everywhere.
LEFT_TO_OUR_LAYERS = frozenset(("generic-api-key", "private-key", "kubernetes-secret-yaml",
                                "curl-auth-user", "curl-auth-header", "jwt", "twilio-api-key"))
_ASSIGNMENT_HEAD = "(?i)[\\w.-]{0,50}?"
#: Shorter keywords (``s.``, ``q~``) occur in nearly every text and would run their rules
#: everywhere; a rule keeps its longer ones (vault's ``hvs.``), and ours cover the rest
#: (Azure's ``Q~`` secrets in ``logic.redact.tokens``).
MIN_KEYWORD = 3
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Allowlist:
    target: str  # "secret", "match" or "line"
    regexes: tuple[str, ...]  # compiled on first use, like the rules
    stopwords: tuple[str, ...]

    def excuses(self, secret: str, match: str, line: str) -> bool:
        value = {"match": match, "line": line}.get(self.target, secret)
        if any(_compiled(regex).search(value) for regex in self.regexes):
            return True
        lowered = secret.lower()
        return any(word in lowered for word in self.stopwords)


@dataclass(frozen=True)
class VendorRule:
    """One gitleaks rule; its expression is compiled on its keyword's first hit (compiling
    all 200-odd costs a capture process a third of a second it mostly does not need)."""
    id: str
    regex: str
    keywords: tuple[str, ...]
    entropy: float
    secret_group: int
    allowlists: tuple[Allowlist, ...]

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.regex)

    @property
    def is_assignment(self) -> bool:
        """A ``name = value`` rule (a vendor's name before any value), not a token's format."""
        return self.regex.startswith(_ASSIGNMENT_HEAD)

    @property
    def names(self) -> re.Pattern[str] | None:
        """An assignment rule's vendor names (``(?:gocardless)``), which must occur in a
        window for its expression to match there: a cheap search that spares the costly one."""
        return _names_of(self.regex) if self.is_assignment else None

    def secret_of(self, match: re.Match[str]) -> tuple[int, int]:
        """Where the secret lies in the match: gitleaks' choice of group, quotes left out."""
        span = match.span()
        if self.secret_group and match.re.groups >= self.secret_group:
            span = match.span(self.secret_group)
        else:
            for group in range(1, match.re.groups + 1):
                if match.group(group):
                    span = match.span(group)
                    break
        if span[1] - span[0] < 8:
            span = match.span()  # a repeated piece of the match (a UUID's group), not a secret
        start, end = span
        text = match.string
        if end - start >= 2 and text[start] in "\"'`" and text[end - 1] == text[start]:
            start, end = start + 1, end - 1
        return start, end


@functools.lru_cache(maxsize=None)
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


@functools.lru_cache(maxsize=None)
def _names_of(regex: str) -> re.Pattern[str] | None:
    """The group right after ``(?i)[\\w.-]{0,50}?`` in an assignment rule, case-insensitive."""
    rest = regex[len(_ASSIGNMENT_HEAD):]
    if not rest.startswith("(?:"):
        return None
    depth = 0
    for index, ch in enumerate(rest):
        if ch == "(" and rest[index - 1:index] != "\\":
            depth += 1
        elif ch == ")" and rest[index - 1:index] != "\\":
            depth -= 1
            if depth == 0:
                try:
                    return re.compile("(?i:" + rest[:index + 1] + ")")
                except re.error:
                    return None
    return None


def _allowlist(raw: dict[str, Any]) -> Allowlist:
    return Allowlist(raw.get("target", "secret"), tuple(raw["regexes"]), tuple(raw["stopwords"]))


def load_data() -> dict[str, Any]:
    """The vendored file as it is (version, licence, counts, rules, skipped). Read beside this
    module with the builtin ``open`` (``importlib.resources`` alone costs a hook 25 ms)."""
    folder = __file__[:max(__file__.rfind("/"), __file__.rfind("\\"))]
    with open(f"{folder}/data/{DATA_FILE}", encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


class VendorRules:
    """The runnable rule set: compiled rules, and the keyword automaton that gates them."""

    def __init__(self, data: dict[str, Any], left_out: frozenset[str] = LEFT_TO_OUR_LAYERS):
        self.version = data["version"]
        self.rules = tuple(
            VendorRule(raw["id"], raw["regex"], tuple(raw["keywords"]),
                       float(raw["entropy"] or 0), int(raw["secret_group"] or 0),
                       tuple(_allowlist(a) for a in raw["allowlists"]))
            for raw in data["rules"] if raw["id"] not in left_out and raw["keywords"])
        self.global_allowlist = _allowlist(data["global_allowlist"])
        by_keyword: dict[str, list[int]] = defaultdict(list)
        for index, rule in enumerate(self.rules):
            for keyword in rule.keywords:
                if len(keyword) >= MIN_KEYWORD:
                    by_keyword[keyword].append(index)
        self.keywords = sorted(by_keyword)
        self._rules_of = [tuple(by_keyword[k]) for k in self.keywords]
        if AhoCorasick is not None:
            self._automaton = AhoCorasick(self.keywords, matchkind=MatchKind.Standard)
            self._pattern = None
        else:  # pragma: no cover
            self._pattern = re.compile("(?=(" + "|".join(map(re.escape, self.keywords)) + "))")

    def _hits(self, text: str) -> list[tuple[int, int]]:
        """(keyword index, position) of every keyword in ``text``, ignoring ASCII case."""
        lowered = text.lower()  # lower() never shortens; where it lengthens, positions move:
        if len(lowered) != len(text):
            lowered = text.translate(_ASCII_LOWER)
        if self._pattern is None:
            return [(k, start) for k, start, _ in
                    self._automaton.find_matches_as_indexes(lowered, overlapping=True)]
        index = {k: i for i, k in enumerate(self.keywords)}  # pragma: no cover
        return [(index[m[1]], m.start()) for m in self._pattern.finditer(lowered)]

    def token_keywords(self) -> frozenset[int]:
        """Keywords that start a token format (3+ characters, a rule that is no named
        assignment): where a split literal or a wrapped line may hide the rest of a token."""
        return frozenset(index for index, keyword in enumerate(self.keywords)
                         if len(keyword) >= 3 and any(not self.rules[r].is_assignment
                                                      for r in self._rules_of[index]))

    def variants(self) -> dict[str, int]:
        """Each keyword's lowercase, UPPERCASE and Capitalized spellings -> its index: the
        literals a shared case-sensitive scan looks for (``logic.redact``)."""
        return {variant: index for index, keyword in enumerate(self.keywords)
                for variant in (keyword, keyword.upper(), keyword.capitalize())}

    def spans(self, text: str, hits: list[tuple[int, int]] | None = None
              ) -> tuple[list[Span], list[Span]]:
        """Every secret a rule finds in ``text``: ``(start, end, rule id)``, sorted, as two
        lists: the token formats' finds and the named assignments' finds. ``hits`` are the
        ``(keyword index, position)`` pairs when a shared scan found them already."""
        windows: dict[int, list[tuple[int, int]]] = defaultdict(list)
        hits = self._hits(text) if hits is None else hits
        if not hits:
            return [], []
        for keyword, at in hits:
            for index in self._rules_of[keyword]:
                before, after = (BEFORE, AFTER) if self.rules[index].is_assignment else TOKEN_WINDOW
                windows[index].append((max(0, at - before), min(len(text), at + after)))
        tokens: list[Span] = []
        assignments: list[Span] = []
        for rule_index, spans in windows.items():
            rule = self.rules[rule_index]
            into = assignments if rule.is_assignment else tokens
            names = rule.names
            for start, end in _merged(spans):
                if names is None or names.search(text, start, end):
                    into += self._run(rule, text, start, end)
        return sorted(set(tokens)), sorted(set(assignments))

    def _run(self, rule: VendorRule, text: str, start: int, end: int) -> list[Span]:
        found = []
        for match in rule.pattern.finditer(text, start, end):
            s_start, s_end = rule.secret_of(match)
            secret = text[s_start:s_end]
            if not secret or (rule.entropy and shannon_bits(secret) <= rule.entropy):
                continue
            if rule.id.startswith("generic") and not any(ch.isdigit() for ch in secret):
                continue
            line = _line_of(text, s_start, s_end)
            if self.global_allowlist.excuses(secret, match[0], line) or any(
                    allow.excuses(secret, match[0], line) for allow in rule.allowlists):
                continue
            found.append((s_start, s_end, rule.id))
        return found


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _line_of(text: str, start: int, end: int) -> str:
    line_start = text.rfind("\n", max(0, start - 4096), start) + 1
    line_end = text.find("\n", end, end + 4096)
    return text[line_start:line_end if line_end >= 0 else min(len(text), end + 4096)]


def shannon_bits(token: str) -> float:
    counts, size = Counter(token), len(token)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


@functools.lru_cache(maxsize=1)
def vendor_rules() -> VendorRules:
    """The vendored rule set, compiled once per process on first use."""
    return VendorRules(load_data())
