"""Secret redaction: no credential that a transcript carries ever reaches the store (DESIGN §6).

Transcripts are plaintext and every tool output lands in them, keys included, so capture runs
every text through here before the evidence tier or an extractor sees it. A secret becomes a
typed placeholder such as ``[REDACTED:github-token]``: a reader still learns that a token was
there and of which kind, while the names, users and hosts around it, which are what memory is
about, stay. Counts per kind go to the capture log; the secrets themselves go nowhere.

Passes run most specific first: PEM blocks, tokens with a vendor prefix (``sk-ant-`` before
``sk-``), passwords in URLs, Authorization headers, bare bearer tokens, and last ``NAME=value``
assignments, which see only what the earlier passes left. A value that already begins with a
placeholder is left alone, so redacting twice changes nothing.

Every pattern is linear: a match may start only where a run of token characters starts, and
each quantifier is bounded by a constant or ends where its character class ends.

Most text holds no secret, so each pass first asks whether it could match at all: a substring
every match must contain (a vendor prefix, ``authorization``, ``bearer``) or, for assignments,
the runs of name characters that hold a secret word. Only those runs are tried, since a name
is always a whole run; scanning every word start for one was most of the cost of capture.
Case-blind words are looked up in ``str.lower()`` text, which agrees with the regex engine's
case folding except on three characters (``İ``, ``ı``, ``ſ``); text holding one takes the
plain path of every pass.

Assignments are the one pass that judges context. A value under a secret-like name
(``*password``, ``*passwd``, ``*passphrase``, ``*secret``, ``*token``, ``*api_key``,
``*access_key``, ``*private_key``, ``*credentials``; weakly ``*_key``, ``*Key`` and ``auth``)
is redacted, its name kept, unless it reads as code or prose rather than a secret:
- it is empty, already redacted, or a reference (``$VAR``, ``${VAR}``, ``%VAR%``, ``{x}``,
  ``<your-token>``);
- unquoted, it is a keyword or type name (``None``, ``null``, ``true``, ``str``), a call,
  subscript or parenthesis (``getpass()``, ``os.environ["X"]``, ``(t: string) =>``), or an
  identifier that is itself secret-named and not credential-shaped (``token=token``,
  ``api_key = settings.OPENAI_API_KEY``);
- after a colon and unquoted, it is a short lowercase word ("the token: we rotate it");
- under a weak name, it is not credential-shaped (12+ characters, no spaces, a digit and a
  letter), so ``primary_key=True`` and ``sort_key = "name"`` stay.
Only a name's ending counts: ``token_count=5`` and ``password_hash = …`` are never touched.
Known gaps: a password given as a separate argument (``-p hunter2``) and JSON escaped inside a
string (``\\"token\\": …``) are not recognised; vendor-prefixed tokens there still are.
"""

from __future__ import annotations

import re
from collections import Counter
from re import Match
from typing import Any, Callable, Iterator

PLACEHOLDER_PREFIX = "[REDACTED:"
#: Whether a pass could match ``text`` at all, given its lowercase copy (None: not trustworthy).
_Gate = Callable[[str, "str | None"], bool]
_RUN_CHARS, _ALNUM = "[A-Za-z0-9_-]", "[A-Za-z0-9]"


def _shape(head: str, rest: str, edge: str | None = None) -> str:
    """A pattern that starts with a literal, so the engine skips ahead to candidates quickly.

    ``edge`` is a character class that must not precede ``head``: a match may start only where
    a run of token characters starts, never inside one, which would rescan the run from every
    offset. The check sits after the first character because a leading look-behind would cost
    the engine its literal-prefix fast path.
    """
    first = re.escape(head[0])
    guard = f"(?<!{edge}{first})" if edge else ""
    return first + guard + re.escape(head[1:]) + rest


#: Most specific first: a token is named by the first shape that matches it. The third item lists
#: substrings of which every match holds one, so a pass is skipped on text that has none.
_TOKEN_SHAPES = (
    ("private-key", _shape("-----BEGIN", r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
                           r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"), ("-----BEGIN",)),
    ("anthropic-api-key", _shape("sk-ant-", r"[A-Za-z0-9_-]{20,}", _RUN_CHARS), ("sk-ant-",)),
    ("openai-api-key", _shape("sk-", r"(?=[A-Za-z0-9_-]*?[0-9])(?=[A-Za-z0-9_-]*?[a-z])"
                              r"(?=[A-Za-z0-9_-]*?[A-Z])[A-Za-z0-9_-]{20,}", _RUN_CHARS), ("sk-",)),
    ("github-token", _shape("g", r"(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})",
                            _ALNUM), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab-token", _shape("gl", r"(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}", _ALNUM),
     ("glpat-", "gldt-", "glrt-", "glptt-")),
    ("slack-webhook", _shape("https://hooks.slack.com/",
                             r"(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}"), ("https://hooks.slack.com/",)),
    ("slack-token", _shape("xox", r"[abprs]-[A-Za-z0-9-]{10,}", _ALNUM),
     ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-")),
    ("stripe-key", _shape("sk_", r"(?:live|test)_[A-Za-z0-9]{16,}", _ALNUM),
     ("sk_live_", "sk_test_")),
    ("stripe-key", _shape("rk_", r"(?:live|test)_[A-Za-z0-9]{16,}", _ALNUM),
     ("rk_live_", "rk_test_")),
    ("aws-access-key", _shape("A", r"(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])", _ALNUM),
     ("AKIA", "ASIA")),
    ("jwt", _shape("eyJ", r"[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", _RUN_CHARS),
     (".eyJ",)),
)
_URL_PASSWORD = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9+.-]{1,30}://"
                           r"[^\s:/?#@\[\]\"'<>]{0,256}:)([^\s/?#\"'<>]{1,256})(?=@)")
#: What every URL password match holds from ``://`` on; its literal start makes it cheap to seek.
_URL_PASSWORD_TAIL = re.compile(r"://[^\s:/?#@\[\]\"'<>]{0,256}:[^\s/?#\"'<>]{1,256}@")
_AUTH_HEADER = re.compile(
    r"(?i:(authorization[\"']?[ \t]*[:=][ \t]*(?:[rbfu]{0,2}[\"'])?"
    r"(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?))([^\s\"',;]+)")
_AUTH_SCHEMES = {"bearer", "basic", "token", "digest", "negotiate"}
_BEARER = re.compile(r"(?i:\b(bearer[ \t]+))([A-Za-z0-9._~+/=-]{16,})")

_STRONG_NAMES = (r"pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key"
                 r"|private[_-]?key|credentials?")
_NAME_END = re.compile(rf"(?i:{_STRONG_NAMES}|key|auth)\Z")
_STRONG_NAME_END = re.compile(rf"(?i:{_STRONG_NAMES})\Z")
_AWS_SECRET_NAME = re.compile(
    r"(?i:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)\Z")
_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+=]{40}\Z")
_WEAK_NAME_SHAPE = re.compile(
    r"(?:[_-](?i:key|auth)|[a-z0-9](?:Key|KEY|Auth|AUTH)|\A(?i:auth))\Z")
_ASSIGNMENT = re.compile(
    rf"(?<![\w-])(?P<name>(?i:[\w-]{{0,80}}?(?:{_STRONG_NAMES}|key|auth)))"
    r"(?P<sep>[\"']?\]?[ \t]{0,20}(?:=(?![=>~])|:(?![:=]))[ \t]{0,20})"
    r"(?:(?P<open>[rbfuRBFU]{0,2}(?P<quote>[\"'`]))"
    r"(?P<quoted>(?:\\.|(?!(?P=quote))[^\\\n])*)(?P<close>(?P=quote))?"
    r"|(?P<bare>[^\s\"'`,;&<>)}]+))")
#: A value that starts with a placeholder was redacted by an earlier pass: the secret began there.
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z-]+\]")
_REFERENCE = re.compile(r"\$[{\w]|%\w+%|\{|<[^<>]*>\Z")
_CODE_EXPRESSION = re.compile(r"[(\[]|[A-Za-z_][\w.]*[(\[]")
_IDENTIFIER_PATH = re.compile(r"[A-Za-z_][\w.]*\Z")
_PROSE_WORD = re.compile(r"[a-z]{1,7}\Z")
_CODE_WORDS = frozenset("none null nil true false undefined str string bytes int bool boolean"
                        " number any object optional".split())
_CREDENTIAL_MIN_CHARS = 12
#: Every secret-like name ends in a word that holds one of these; sought in lowercased text.
_NAME_WORD = re.compile("pass|secret|token|key|auth|credential")
#: ``[\w-]{0,80}`` and the longest name word (``credentials``): no name is longer.
_LONGEST_NAME = 80 + len("credentials")
_RUN_REST = re.compile(r"[\w-]*")
_RUN_TO_END = re.compile(r"(?<![\w-])[\w-]+\Z")
#: Characters ``re.IGNORECASE`` folds to an ASCII letter that ``str.lower()`` does not.
_FOLD_MISMATCH = ("\u0130", "\u0131", "\u017f")


def placeholder(kind: str) -> str:
    """The typed marker left where a secret was."""
    return f"{PLACEHOLDER_PREFIX}{kind}]"


def _looks_like_credential(value: str) -> bool:
    """Long, unbroken and mixing digits with letters: how generated keys look, words do not."""
    return (len(value) >= _CREDENTIAL_MIN_CHARS and not any(ch.isspace() for ch in value)
            and any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value))


def is_secret_name(name: str) -> bool:
    """A field or variable whose value is a secret; weak suffixes need a separator or a hump."""
    if _STRONG_NAME_END.search(name):
        return True
    return bool(_NAME_END.search(name)) and bool(_WEAK_NAME_SHAPE.search(name))


def _keeps_value(name: str, value: str, *, quoted: bool, after_colon: bool) -> bool:
    """True when the value is code or prose rather than a secret; the module docstring has why."""
    if not value or _PLACEHOLDER.match(value) or _REFERENCE.match(value):
        return True
    if not _STRONG_NAME_END.search(name) and not _looks_like_credential(value):
        return True
    if quoted:
        return False
    return (value.lower() in _CODE_WORDS or bool(_CODE_EXPRESSION.match(value))
            or (bool(_IDENTIFIER_PATH.match(value)) and is_secret_name(value)
                and not _looks_like_credential(value))
            or (after_colon and bool(_PROSE_WORD.match(value))))


def _assignment(match: Match[str], counts: Counter[str]) -> str:
    """Replace only the value: the name is what memory needs, the value is what must not leak."""
    name, quoted = match["name"], match["quote"] is not None
    value = match["quoted"] if quoted else match["bare"]
    if not is_secret_name(name) or _keeps_value(
            name, value, quoted=quoted, after_colon=":" in match["sep"]):
        return match[0]
    kind = ("aws-secret-key" if _AWS_SECRET_NAME.search(name) and _AWS_SECRET_VALUE.match(value)
            else "secret")
    counts[kind] += 1
    return f"{name}{match['sep']}{match['open'] or ''}{placeholder(kind)}{match['close'] or ''}"


def _whole(kind: str) -> Callable[[Match[str], Counter[str]], str]:
    """A pass for self-describing tokens: the whole match is the secret."""
    def replace(match: Match[str], counts: Counter[str]) -> str:
        counts[kind] += 1
        return placeholder(kind)
    return replace


def _labelled(kind: str, keep: Callable[[str], bool] | None = None,
              ) -> Callable[[Match[str], Counter[str]], str]:
    """A pass that keeps group 1 (the label) and redacts group 2 unless ``keep`` says otherwise."""
    def replace(match: Match[str], counts: Counter[str]) -> str:
        if _PLACEHOLDER.match(match[2]) or _REFERENCE.match(match[2]) or (
                keep is not None and keep(match[2])):
            return match[0]
        counts[kind] += 1
        return match[1] + placeholder(kind)
    return replace


def _is_scheme_word(value: str) -> bool:
    """``Authorization: Bearer $TOKEN`` leaves only the scheme for the value: nothing to hide."""
    return value.lower() in _AUTH_SCHEMES


def _is_wordlike(value: str) -> bool:
    """Outside a header, "bearer" is often prose; a token after it has digits, words do not."""
    return not any(ch.isdigit() for ch in value)


def _holds_any(needles: tuple[str, ...]) -> _Gate:
    """A case-sensitive pass can only match text that holds one of its literal prefixes."""
    def gate(text: str, folded: str | None) -> bool:
        return any(needle in text for needle in needles)
    return gate


def _holds_word(word: str) -> _Gate:
    """A case-blind pass needs its word in the lowercase copy; without a copy it must run."""
    def gate(text: str, folded: str | None) -> bool:
        return folded is None or word in folded
    return gate


def _holds_url_password(text: str, folded: str | None) -> bool:
    """The URL pass starts at every letter; what follows ``://`` rules most text out at once."""
    return _URL_PASSWORD_TAIL.search(text) is not None


_Pass = tuple[re.Pattern[str], Callable[[Match[str], Counter[str]], str], _Gate]
_TOKEN_PASSES: tuple[_Pass, ...] = tuple(
    (re.compile(shape), _whole(kind), _holds_any(needles)) for kind, shape, needles in _TOKEN_SHAPES)
#: One search for every token prefix at once: most text holds none, and then no pass runs.
_ANY_TOKEN_PREFIX = re.compile("|".join(
    re.escape(needle) for _, _, needles in _TOKEN_SHAPES for needle in needles))
_LABELLED_PASSES: tuple[_Pass, ...] = (
    (_URL_PASSWORD, _labelled("url-password"), _holds_url_password),
    (_AUTH_HEADER, _labelled("auth-header", keep=_is_scheme_word), _holds_word("authorization")),
    (_BEARER, _labelled("bearer-token", keep=_is_wordlike), _holds_word("bearer")),
)


def _folded(text: str) -> str | None:
    """``text`` lowercased for the case-blind gates, or None where that could miss a match."""
    if not text.isascii() and any(ch in text for ch in _FOLD_MISMATCH):
        return None
    return text.lower()


def _name_run_ends(text: str, folded: str) -> list[int]:
    """Where each run of name characters holding a secret word ends, in order.

    A name is always a whole run (its separator is no name character), so only these runs can
    hold one. Words are letters, so each run holding one yields a hit even though hits do not
    overlap, and each run is walked once however many words it holds.
    """
    ends, reached = [], 0
    for word in _NAME_WORD.finditer(folded):
        if (at := word.start()) >= reached:
            reached = _RUN_REST.match(text, at).end()  # type: ignore[union-attr]
            ends.append(reached)
    return ends


def _assignment_matches(text: str, run_ends: list[int]) -> Iterator[Match[str]]:
    """The matches ``_ASSIGNMENT.sub`` would make, sought only at the runs that end a name."""
    done = 0
    for end in run_ends:
        run = _RUN_TO_END.search(text, max(done, end - _LONGEST_NAME - 1), end)
        if run is not None and (match := _ASSIGNMENT.match(text, run.start())):
            done = match.end()
            yield match


def _redact_assignments(text: str, folded: str | None, counts: Counter[str]) -> str:
    """The assignment pass, last, so it sees only what the token passes left."""
    if folded is None:
        return _ASSIGNMENT.sub(lambda match: _assignment(match, counts), text)
    kept, done = [], 0
    for match in _assignment_matches(text, _name_run_ends(text, folded)):
        kept += (text[done:match.start()], _assignment(match, counts))
        done = match.end()
    return "".join(kept) + text[done:] if kept else text


def _run_passes(text: str, folded: str | None, passes: tuple[_Pass, ...],
                counts: Counter[str]) -> tuple[str, str | None]:
    """Each pass in order over what the previous left, skipping those that cannot match."""
    for pattern, replace, may_match in passes:
        if may_match(text, folded):
            redacted = pattern.sub(lambda match: replace(match, counts), text)
            if redacted is not text:
                text, folded = redacted, _folded(redacted)
    return text, folded


def redact_with_counts(text: str) -> tuple[str, Counter[str]]:
    """The redacted text and how many secrets of each kind it held, for the capture log."""
    counts: Counter[str] = Counter()
    folded = _folded(text)
    if _ANY_TOKEN_PREFIX.search(text):
        text, folded = _run_passes(text, folded, _TOKEN_PASSES, counts)
    text, folded = _run_passes(text, folded, _LABELLED_PASSES, counts)
    return _redact_assignments(text, folded, counts), counts


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by its typed placeholder."""
    return redact_with_counts(text)[0]


def redact_value(value: Any, counts: Counter[str] | None = None) -> Any:
    """Redact every string inside a tool input; a secret-named field loses its whole value.

    Dict keys are kept as they are: they name things, and rewriting them could merge entries.
    """
    counts = Counter() if counts is None else counts
    if isinstance(value, str):
        text, found = redact_with_counts(value)
        counts.update(found)
        return text
    if isinstance(value, dict):
        return {key: _redact_field(key, item, counts) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_value(item, counts) for item in value]
    if isinstance(value, tuple):
        return tuple(redact_value(item, counts) for item in value)
    return value


def _redact_field(key: Any, item: Any, counts: Counter[str]) -> Any:
    """A field named like a secret holds one even without a ``NAME=`` around it."""
    redacted = redact_value(item, counts)
    if (isinstance(key, str) and isinstance(redacted, str) and is_secret_name(key)
            and not _keeps_value(key, redacted, quoted=True, after_colon=False)):
        counts["secret"] += 1
        return placeholder("secret")
    return redacted
