"""Secrets known by their context: the name, flag or words in front of a value.

Every rule here starts from a run of name characters holding a secret word (the trigger scan
found the word; ``logic.redact.names`` judges the name). In order, the run may be:
- a NAME given a value: ``NAME=v``, ``"name": "v"``, ``name: v``, ``'name' => 'v'``, with the
  quotes escaped when JSON sits inside a JSON string (``\\"password\\": \\"v\\"``); in a URL
  query (``?access_token=v&…``) the value ends at ``&``; a bare value runs to whitespace or a
  quote (trailing ``) ] } , ;`` are code), so ``&``, ``#`` or ``,`` inside it never cut it short;
- a FLAG given a value: ``--db-password v``, ``--token=v``, ``-storepass v``;
- PROSE: "the staging db password is v", "password: v", ``.netrc``'s ``password v``, "use v
  as the admin password";
- and, when none of those found a value after a strong word, the HIGH-ENTROPY fallback: a
  long random-looking token later on the same line ("twilio token 0a1b…").
A rule returns spans ``(start, end, kind)`` of text to replace; the name itself always stays.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.redact.names import (
    ID_QUALIFIERS, PUBLIC_LAST_WORDS, is_reference, keeps_value, looks_like_credential,
    name_strength, words_of)

Span = tuple[int, int, str]
_SEPARATOR = lazy_regex(r"(?P<close>\\{0,3}[\"'])?\]?[ \t]{0,20}"
                        r"(?P<op>=>|:=|=(?![=~])|:(?![:=]|//))[ \t]{0,20}")
_VALUE = lazy_regex(
    r"[rbfuRBFU]{0,2}(?P<q>[\"'`])(?P<quoted>(?:\\.|(?!(?P=q))[^\\\n]){0,4096})"
    r"|(?P<esc>\\{1,3})(?P<eq>[\"'])(?P<escaped>(?:(?!(?P=esc)(?P=eq))[^\n]){0,4096})"
    r"|(?P<bare>[^\s\"'`]{1,4096})")
_ARN_INSIDE = lazy_regex(r"arn:aws[\w-]*:[^\s\"'=,;]*\Z")
_BLOCK_SCALAR = lazy_regex(r"[|>][-+]?[ \t]*\r?\n")
_FLAG_GAP = lazy_regex(r"(?:=|[ \t]+)")
_ESCAPE_IN_BARE = lazy_regex(r"\\[nrt\"'\\]")
_TRAILING_CODE = ")]},;"
_QUERY_END = lazy_regex(r"[&#]")
#: Inside a bare value, ``;``, ``&`` or ``,`` before another ``name=`` ends it.
_NEXT_ASSIGNMENT = lazy_regex(r"[;&,](?=[\w.-]{1,100}[ \t]*[=:])")
_PROSE = lazy_regex(r"(?:[ \t]+(?:for|on|of|in|at)[ \t]+(?:the[ \t]+|this[ \t]+|that[ \t]+)?"
                    r"[\w.-]{1,40})?(?:[ \t]+(?:is|was|are|were|of|to|be)\b){1,2}[ \t]*"
                    r"|[ \t]*(?::|=(?!=))[ \t]*|(?P<direct>[ \t]+)")
#: Secret words that are also verbs: in prose they pass things along.
_PROSE_VERBS = frozenset(("pass", "passes", "passed", "key", "keys"))
_PROSE_VALUE = lazy_regex(r"[\"'`([{<]?(?P<value>[^\s\"'`;,]{1,200})")
_PROSE_TRAILING = ".,;:!?)]}"
#: Only these are said right before the password itself ("use password hunter2!").
_SAID_DIRECTLY = frozenset(("password", "passwd", "passphrase", "pwd"))
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~")
_NETRC_LINE = lazy_regex(r"(?:^|\s)(?:machine|login|default)\s", re.MULTILINE)
_HIGH_ENTROPY_TOKEN = lazy_regex(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/=_.-]{20,200}")
_AWS_SECRET_NAME = lazy_regex(
    r"(?i:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)\Z")
_AWS_SECRET_VALUE = lazy_regex(r"[A-Za-z0-9/+=]{40}\Z")
_AUTH_HEADER = lazy_regex(
    r"(?i:authorization[\"']?[ \t]*[:=][ \t]*(?:[rbfu]{0,2}[\"'])?"
    r"(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?)([^\s\"',;]+)")
_AUTH_SCHEMES = frozenset(("bearer", "basic", "token", "digest", "negotiate"))
_BEARER = lazy_regex(r"(?i:bearer[ \t]+)([A-Za-z0-9._~+/=-]{16,})")
QUERY_SECRET_NAMES = frozenset(("sig", "signature", "x-amz-signature", "x-goog-signature",
                                "key", "apikey", "code", "client_secret", "access_token"))
ENTROPY_WINDOW = 80
#: "progress token", "page-token": the word before a bare token or key makes it an id.
_ID_BEFORE = lazy_regex(r"(?i:\b(?:%s)[ \t_-]?)\Z" % "|".join(sorted(ID_QUALIFIERS)))
PROSE_STOPWORDS = frozenset("""
a an the this that these those it its is was be been being are were not no none nothing
set unset stored saved kept required needed missing empty blank wrong incorrect correct
invalid valid expired changed rotated reset revoked updated same different new old too
also still now then here there in on at for from with by via into of to and or but if
hashed encrypted redacted hidden masked secret private public ok okay fine good bad weak
strong long short null true false undefined your my our their his her what which where
when how why who used using use like shown printed logged sent passed given provided
read written generated created defined configured available unavailable correctly
""".split())


def run_spans(text: str, start: int, end: int) -> list[Span]:
    """Spans to redact around the name run ``text[start:end]`` (module docstring)."""
    name = text[start:end].lstrip("-")
    lowered = name.lower()
    if _ARN_INSIDE.search(text, max(0, start - 64), start):
        return []  # a part of an ARN (``arn:aws:secretsmanager:…:secret:name``) names, never holds
    if lowered.endswith("authorization"):
        return _labelled(_AUTH_HEADER.match(text, end - 13), "auth-header", _is_scheme)
    if lowered == "bearer":
        return _labelled(_BEARER.match(text, start), "bearer-token", _is_wordlike)
    strength = name_strength(name)
    if lowered in ("token", "tokens", "key") and _ID_BEFORE.search(text, max(0, start - 20), start):
        return []  # "the progress token 8f3a…": an id, as ``progressToken`` is (``names``)
    if start and text[start - 1] in "?&" and lowered in QUERY_SECRET_NAMES:
        strength = 2
    if not strength:
        return []
    found = _assignment(text, start, end, name, strength)
    if found is None and text[start:start + 1] == "-" and _flag_start(text, start):
        found = _flag(text, end, strength)
    if found is None and strength == 2:
        found = _prose(text, end, name) or _said_before(text, start, name)
    if found is None and strength == 2:
        found = _high_entropy(text, end)
    return found or []


def _assignment(text: str, start: int, end: int, name: str, strength: int) -> list[Span] | None:
    """``name = value`` in any of its spellings; None when no separator follows the name."""
    separator = _SEPARATOR.match(text, end)
    if separator is None:
        return None
    if separator["op"] == ":" and (block := _BLOCK_SCALAR.match(text, separator.end())):
        return _block_scalar(text, start, block.end())
    value = _VALUE.match(text, separator.end())
    if value is None:
        return []
    in_query = start > 0 and text[start - 1] in "?&" and separator["op"] == "="
    if in_query and name.lower() in QUERY_SECRET_NAMES:
        strength = 2
    found = _value_span(value, in_query)
    if found is None:
        return []
    v_start, v_end, quoted = found
    raw = text[v_start:v_end]
    if keeps_value(strength, raw, quoted=quoted, after_colon=separator["op"] == ":"):
        return []
    kind = ("aws-secret-key" if _AWS_SECRET_NAME.search(name) and _AWS_SECRET_VALUE.match(raw)
            else "secret")
    return [(v_start, v_end, kind)]


def _block_scalar(text: str, name_start: int, body: int) -> list[Span]:
    """``secret: |`` (or ``>-``…): the lines indented deeper than the name are the value."""
    line_start = text.rfind("\n", 0, name_start) + 1
    indent = len(text[line_start:name_start]) - len(text[line_start:name_start].lstrip(" \t"))
    end = position = body
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        line = text[position:line_end]
        if line.strip() and len(line) - len(line.lstrip(" \t")) <= indent:
            break
        if line.strip():
            end = line_end
        position = line_end + 1
    start = body
    while start < end and text[start] in " \t\r\n":
        start += 1
    return [(start, end, "secret")] if end > start else []


def _value_span(value: re.Match[str], in_query: bool) -> tuple[int, int, bool] | None:
    """Where the value's text lies, and whether it was quoted."""
    for group in ("quoted", "escaped"):
        if value[group] is not None:
            return value.start(group), value.end(group), True
    start, end = value.span("bare")
    text = value.string
    for stop in (_QUERY_END if in_query else _ESCAPE_IN_BARE, _NEXT_ASSIGNMENT):
        cut = stop.search(text, start, end + 128)  # its look-ahead may reach past the value
        end = cut.start() if cut and cut.start() < end else end
    while end > start and text[end - 1] in _TRAILING_CODE and not in_query:
        end -= 1
    return (start, end, False) if end > start else None


def _flag_start(text: str, start: int) -> bool:
    return start == 0 or text[start - 1] in " \t\n\"'(["


def _flag(text: str, end: int, strength: int) -> list[Span] | None:
    """``--name value``: the value is the next word unless it is another flag."""
    gap = _FLAG_GAP.match(text, end)
    if gap is None or text[gap.end():gap.end() + 1] == "-":
        return None
    value = _VALUE.match(text, gap.end())
    found = _value_span(value, False) if value else None
    if found is None:
        return None
    v_start, v_end, quoted = found
    if keeps_value(strength, text[v_start:v_end], quoted=quoted):
        return []
    return [(v_start, v_end, "secret")]


def _prose(text: str, end: int, name: str) -> list[Span] | None:
    """"the password is v", "password: v", "password hunter2", and ``password v`` in a
    ``.netrc`` entry."""
    if not name.isalpha():
        return None
    lowered_name = name.lower()
    if lowered_name in _PROSE_VERBS:
        return None  # "a second pass of linting", "pass the token along": a verb, no name
    joint = _PROSE.match(text, end)
    value = _PROSE_VALUE.match(text, joint.end()) if joint else None
    if joint is None or value is None or is_reference(
            text[joint.end():value.end()].lstrip("\"'`({<")):
        return None
    v_start, v_end = value.span("value")
    while v_end > v_start and text[v_end - 1] in _PROSE_TRAILING:
        v_end -= 1
    word = text[v_start:v_end]
    if not any(ch.isalnum()
               for ch in word) or is_reference(word) or word.lower() in PROSE_STOPWORDS:
        return None
    if joint["direct"] is not None and not (
            _netrc_line(text, end) or (lowered_name in _SAID_DIRECTLY and _passwordish(word))):
        return None
    if not (_passwordish(word) or _mixed_case(word) or _netrc_line(text, end)):
        return None  # "the token is refreshed", "the key was rotated": words, not secrets
    return [(v_start, v_end, "secret")]


def _mixed_case(word: str) -> bool:
    return len(word) >= 8 and word.isalpha() and not word.istitle() and not word.isupper() \
        and not word.islower()


_USE_AS = lazy_regex(r"\b(?:use|using|set|with)[ \t]+[\"'`]?(?P<v>[^\s\"'`]{6,128})[\"'`]?[ \t]+as"
                     r"[ \t]+(?:(?:the|a|an|our|my|your)[ \t]+)?(?:[\w-]{1,32}[ \t]+)?\Z")


def _said_before(text: str, start: int, name: str) -> list[Span] | None:
    """"use X as the admin password": the value said before the name."""
    if not name.isalpha() or " as " not in text[max(0, start - 48):start]:
        return None
    found = _USE_AS.search(text, max(0, start - 200), start)
    if found is None or not _passwordish(found["v"]) or is_reference(found["v"]):
        return None
    return [(found.start("v"), found.end("v"), "secret")]


def _passwordish(word: str) -> bool:
    """Said without "is": a word with a digit or a symbol in it, not a plain one."""
    return (len(word) >= 6 and not word.isdigit()
            and any(ch.isdigit() or ch in _PASSWORD_SYMBOLS for ch in word))


def _netrc_line(text: str, at: int) -> bool:
    """``password v`` in a ``.netrc`` entry: ``machine``/``login`` stand shortly before it."""
    return _NETRC_LINE.search(text, max(0, at - 300), at) is not None


def companion(text: str, end: int) -> list[Span]:
    """A random-looking token soon after ``end`` on the same line (see ``_high_entropy``)."""
    return _high_entropy(text, end) or []


def _high_entropy(text: str, end: int) -> list[Span] | None:
    """A long random-looking token soon after a strong word, on the same line."""
    stop = text.find("\n", end, end + ENTROPY_WINDOW)
    window_end = stop if stop >= 0 else min(len(text), end + ENTROPY_WINDOW)
    for token in _HIGH_ENTROPY_TOKEN.finditer(text, end, window_end):
        if is_random_token(token[0]):
            return [(token.start(), token.end(), "high-entropy")]
    return None


def is_random_token(token: str) -> bool:
    """Digits and letters mixed with the spread of a generated string, not a word or path."""
    if not looks_like_credential(token) or _path_like(token) or "." in token.strip("="):
        return False
    bits = shannon_bits(token)
    is_hex = all(ch in "0123456789abcdefABCDEF" for ch in token)
    return bits >= (3.0 if is_hex else 3.7)


#: A path's component: a word, maybe capitalised, maybe numbered (``Projects``, ``v2``, ``.git``);
#: a lone letter is not one (a random string's slashes often fall a letter apart).
_PATH_PART = lazy_regex(r"[.~_-]?[A-Za-z][a-z]+[0-9._-]*\Z|[a-z][0-9]+\Z|[0-9]+\Z")


def _path_like(token: str) -> bool:
    """Three or more slashes between parts that are more than half words
    (``home/dev/Projects/app``). A generated key in base64 may hold as many slashes (an AWS
    secret key is 40 characters of ``A-Za-z0-9/+``), but its parts are random: counting
    slashes alone let such a key through."""
    if token.count("/") <= 2:
        return False
    parts = [part for part in token.split("/") if part]
    return sum(1 for part in parts if _PATH_PART.match(part)) * 2 > len(parts)


def shannon_bits(token: str) -> float:
    counts, size = Counter(token), len(token)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _labelled(match: re.Match[str] | None, kind: str,
              keep: Callable[[str], bool]) -> list[Span]:
    """Group 1 of a header-like match, unless ``keep`` says it is no secret."""
    if match is None or is_reference(match[1]) or keep(match[1]):
        return []
    return [(match.start(1), match.end(1), kind)]


def _is_scheme(value: str) -> bool:
    """``Authorization: Bearer $TOKEN`` leaves only the scheme for the value: nothing to hide."""
    return value.lower() in _AUTH_SCHEMES


def _is_wordlike(value: str) -> bool:
    """Outside a header, "bearer" is often prose; a token after it has digits, words do not."""
    return not any(ch.isdigit() for ch in value)


_ENV_VALUE = lazy_regex(r"=[\"']?(?P<v>[A-Za-z0-9+/_~=-]{20,512})(?![A-Za-z0-9+/_~=.-])")
_ENV_NAME = lazy_regex(r"(?<![\w$.-])[A-Z][A-Z0-9_]{2,64}\Z")
#: Words that make an env name hold a digest, an id or a version: public however random.
_DIGEST_WORDS = frozenset(("sha", "hash", "commit", "digest", "checksum", "version", "build",
                           "etag", "nonce", "salt", "uuid", "guid", "ref", "rev", "revision",
                           "tag", "image", "integrity", "run", "trace", "span", "request"))


def env_assignments(text: str) -> list[Span]:
    """``NAME=value`` where NAME is an environment variable's (``AZURE_DEVOPS_EXT_PAT``,
    ``MAILGUN``, ``ALGOLIA_ADMIN``) and the value is a generated string: a credential by its
    shape even when the name holds no secret word. Names that hold a digest, an id or a
    version, or whose last word is public (``*_URL``, ``*_ID``), keep their values."""
    found: list[Span] = []
    for match in _ENV_VALUE.finditer(text):
        name = _ENV_NAME.search(text, max(0, match.start() - 65), match.start())
        if name is None or not is_random_token(match["v"]) or len(match["v"]) < 20:
            continue
        words = set(words_of(name[0]))
        if name_strength(name[0]) or words & _DIGEST_WORDS or words & PUBLIC_LAST_WORDS:
            continue
        found.append((match.start("v"), match.end("v"), "high-entropy"))
    return found
