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
from typing import Any, Callable

PLACEHOLDER_PREFIX = "[REDACTED:"
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


#: Most specific first: a token is named by the first shape that matches it.
_TOKEN_SHAPES = (
    ("private-key", _shape("-----BEGIN", r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
                           r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)")),
    ("anthropic-api-key", _shape("sk-ant-", r"[A-Za-z0-9_-]{20,}", _RUN_CHARS)),
    ("openai-api-key", _shape("sk-", r"(?=[A-Za-z0-9_-]*?[0-9])(?=[A-Za-z0-9_-]*?[a-z])"
                              r"(?=[A-Za-z0-9_-]*?[A-Z])[A-Za-z0-9_-]{20,}", _RUN_CHARS)),
    ("github-token", _shape("g", r"(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})",
                            _ALNUM)),
    ("gitlab-token", _shape("gl", r"(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}", _ALNUM)),
    ("slack-webhook", _shape("https://hooks.slack.com/",
                             r"(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}")),
    ("slack-token", _shape("xox", r"[abprs]-[A-Za-z0-9-]{10,}", _ALNUM)),
    ("stripe-key", _shape("sk_", r"(?:live|test)_[A-Za-z0-9]{16,}", _ALNUM)),
    ("stripe-key", _shape("rk_", r"(?:live|test)_[A-Za-z0-9]{16,}", _ALNUM)),
    ("aws-access-key", _shape("A", r"(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])", _ALNUM)),
    ("jwt", _shape("eyJ", r"[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", _RUN_CHARS)),
)
_URL_PASSWORD = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9+.-]{1,30}://"
                           r"[^\s:/?#@\[\]\"'<>]{0,256}:)([^\s/?#\"'<>]{1,256})(?=@)")
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


_PASSES = (
    *((re.compile(shape), _whole(kind)) for kind, shape in _TOKEN_SHAPES),
    (_URL_PASSWORD, _labelled("url-password")),
    (_AUTH_HEADER, _labelled("auth-header", keep=_is_scheme_word)),
    (_BEARER, _labelled("bearer-token", keep=_is_wordlike)),
    (_ASSIGNMENT, _assignment),
)


def redact_with_counts(text: str) -> tuple[str, Counter[str]]:
    """The redacted text and how many secrets of each kind it held, for the capture log."""
    counts: Counter[str] = Counter()
    for pattern, replace in _PASSES:
        text = pattern.sub(lambda match: replace(match, counts), text)
    return text, counts


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
