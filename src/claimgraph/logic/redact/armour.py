"""Key blocks in the armours beyond PEM, and secrets whose shape says what they are.

- PuTTY ``.ppk``: the ``Private-Lines: N`` lines after it and the ``Private-MAC``;
- SSH2 / RFC 4716 private keys: the body between ``---- BEGIN SSH2 … PRIVATE KEY ----`` and
  its END (the public armour, ``SSH2 PUBLIC KEY``, is public);
- JWK private keys: the private members (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``, and an
  octet key's ``k``) of the JSON object after ``"kty"``;
- base64-encoded JSON credentials (a service account's key file passed as one env value);
- session cookies (Flask, Django, Rails, Express: ``session=…``, ``sessionid=…``);
- ``.pgpass`` lines, ``host:port:db:user:password``;
- ``auth=('user', 'X')`` in code, "basic auth is user:X" in prose, and a Discord bot token
  handed to its client (``bot.run('…')``), which has no prefix to be found by;
- a key listed as ``{"keyName": …, "value": "X"}`` (Azure's ``keys list``);
- Terraform's ``default = "X"`` inside a ``variable "db_password"`` block, and a user and
  password pair in prose ("creds: admin / X", "login as deploy / X").
Each rule starts at its trigger literal (``logic.redact.scan``) and looks a bounded distance.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.redact.names import keeps_value, name_strength

Span = tuple[int, int, str]
WINDOW = 16_384
_PPK_LINES = lazy_regex(r"Private-Lines:[ \t]*(\d{1,3})[ \t]*\r?\n")
_PPK_MAC = lazy_regex(r"[ \t]*Private-MAC:[ \t]*([0-9a-fA-F]{16,})")
_SSH2 = lazy_regex(r"---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----[^\n]*\n(?P<body>.*?)"
                   r"(?:\n[^\n]*?---- END SSH2 (?:ENCRYPTED )?PRIVATE KEY ----|\Z)", re.DOTALL)
_JWK_PRIVATE = lazy_regex(r"[\"'](?:d|p|q|dp|dq|qi|"
                          r"k)[\"'][ \t]*:[ \t]*[\"']([A-Za-z0-9_-]{16,})[\"']")
_B64_JSON = lazy_regex(r"[A-Za-z0-9+/]{120,}={0,2}")
_B64_SECRET_FIELDS = (b'"private_key"', b'"client_secret"', b'"password"', b'"secret"',
                      b'"refresh_token"', b'"access_token"')
_COOKIE = lazy_regex(r"=[ \t]*(?P<v>\.?[A-Za-z0-9%_.:+/=-]{16,4096})")
_PGPASS = lazy_regex(r"[^\s:]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,128}:[^\s:]{1,128}:(?P<v>[^\s]{1,512})"
                     r"[ \t]*(?=\r?\n|\Z)")
_LINE_HEAD = lazy_regex(r"(?:^|\n)(?:[^\n]*?[ \t>])?\Z")


def ppk(text: str, at: int) -> list[Span]:
    """The private lines of a PuTTY key, from its ``Private-Lines: N`` on."""
    found = _PPK_LINES.match(text, at)
    if found is None:
        return []
    start = end = found.end()
    for _ in range(int(found[1])):
        line_end = text.find("\n", end, end + 200)
        end = len(text) if line_end < 0 else line_end + 1
    mac = _PPK_MAC.match(text, end)
    end = mac.end() if mac else end
    return [(start, end, "private-key")]


def ssh2(text: str, at: int) -> list[Span]:
    found = _SSH2.match(text, at, min(len(text), at + WINDOW))
    return [(found.start("body"), found.end("body"), "private-key")] if found and found["body"] \
        else []


def jwk(text: str, at: int) -> list[Span]:
    """The private members of the JWK object holding ``"kty"`` at ``at``."""
    start = text.rfind("{", max(0, at - 200), at)
    if start < 0:
        return []
    depth, end = 0, min(len(text), start + WINDOW)
    for index in range(start, end):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                end = index
                break
    return [(m.start(1), m.end(1), "private-key") for m in _JWK_PRIVATE.finditer(text, at, end)]


def encoded_json(text: str, at: int) -> list[Span]:
    """Base64 of a JSON object that holds a credential field (a key file as one value)."""
    if at and (text[at - 1].isalnum() or text[at - 1] in "+/"):
        return []
    found = _B64_JSON.match(text, at, min(len(text), at + 65_536))
    if found is None:
        return []
    blob = found[0]
    try:
        decoded = base64.b64decode(blob[:len(blob) - len(blob) % 4] or blob, validate=False)
    except (binascii.Error, ValueError):
        return []
    if any(field in decoded for field in _B64_SECRET_FIELDS):
        return [(found.start(), found.end(), "encoded-credentials")]
    return []


def session_cookie(text: str, at: int) -> list[Span]:
    """``session=…`` / ``sessionid=…``: a signed session is a login, whatever its shape."""
    if at and (text[at - 1].isalnum() or text[at - 1] == "_") and text[at] != "_":
        return []
    eq = text.find("=", at, at + 24)
    found = _COOKIE.match(text, eq) if eq >= 0 else None
    if found is None:
        return []
    value = found["v"].rstrip(";")
    if value.startswith("eyJ") and ".eyJ" in value:
        return []  # a JWT: its own rule names it
    kinds = (any(c.isdigit() for c in value), any(c.isalpha() for c in value))
    if not all(kinds):
        return []
    return [(found.start("v"), found.start("v") + len(value), "session-cookie")]


def pgpass(text: str, at: int) -> list[Span]:
    """A ``.pgpass`` line around a ``:5432:``/``:*:`` trigger: its last field."""
    line_start = text.rfind("\n", max(0, at - 400), at) + 1
    found = _PGPASS.match(text, line_start)
    if found is None or found.start("v") < at:
        return []
    value = found["v"]
    if value in ("*",) or value.startswith(("$", "[REDACTED:")):
        return []
    return [(found.start("v"), found.end("v"), "secret")]


_AUTH_TUPLE = lazy_regex(r"(?:auth|HTTPBasicAuth|HTTPDigestAuth)[ \t]*(?:=[ \t]*)?\([ \t]*"
                         r"(?P<q1>[\"'])[^\"'\n]{0,128}(?P=q1)[ \t]*,[ \t]*(?P<q>[\"'])"
                         r"(?P<v>[^\"'\n]{1,256})(?P=q)")
_BASIC_AUTH = lazy_regex(r"(?i:basic[ -]?auth)(?:[ \t]+(?:is|was|=|:)|[ \t]*[:=])?[ \t]*"
                         r"[\w.@+-]{1,64}:(?P<v>[^\s\"'`]{1,256})")
_DISCORD_BOT = lazy_regex(r"[\"' ]?(?P<v>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\."
                          r"[A-Za-z0-9_-]{27,38})")


def _value(pattern: re.Pattern[str], kind: str) -> Callable[[str, int], list[Span]]:
    """A rule: the ``v`` group of ``pattern`` matched at the trigger, unless a reference."""
    def spans(text: str, at: int) -> list[Span]:
        found = pattern.match(text, at, min(len(text), at + 1024))
        if found is None or found["v"].startswith(("$", "{", "[REDACTED:", "<")):
            return []
        return [(found.start("v"), found.end("v"), kind)]
    return spans


def discord_bot(text: str, at: int) -> list[Span]:
    """A bot token handed to the Discord client (``bot.run(…)``, ``Authorization: Bot …``)."""
    found = _DISCORD_BOT.search(text, at, min(len(text), at + 160))
    return [(found.start("v"), found.end("v"), "discord-bot-token")] if found else []


_TF_VARIABLE = lazy_regex(r"variable[ \t]+\"(?P<name>[\w-]{1,128})\"[ \t]*\{")
_TF_DEFAULT = lazy_regex(r"\n[ \t]*default[ \t]*=[ \t]*\"(?P<v>[^\"\n]{1,1024})\"")
_USER_SLASH_PASSWORD = lazy_regex(
    r"(?:[ \t]*[:=])?[ \t]+(?:as[ \t]+)?[\w.@+-]{1,64}[ \t]*/[ \t]*(?P<v>[^\s\"'`/]{6,256})"
    r"(?=[\s,;.)]|\Z)")


def terraform_default(text: str, at: int) -> list[Span]:
    """``variable "db_password" { … default = "X" }``: the default of a secret-named variable."""
    found = _TF_VARIABLE.match(text, at)
    if found is None or name_strength(found["name"]) < 2:
        return []
    close = text.find("}", found.end(), found.end() + 2048)
    default = _TF_DEFAULT.search(text, found.end(), close if close >= 0 else found.end() + 2048)
    if default is None or keeps_value(2, default["v"], quoted=True):
        return []
    return [(default.start("v"), default.end("v"), "secret")]


def user_slash_password(text: str, at: int) -> list[Span]:
    """"creds: admin / X", "login as deploy / X": the second of a user and password pair, when
    it reads as a password (digits or symbols in it)."""
    end = text.find(" ", at, at + 24)
    word_end = at + len(text[at:end if end >= 0 else at + 24].rstrip(":="))
    found = _USER_SLASH_PASSWORD.match(text, word_end)
    if found is None:
        return []
    value = found["v"].rstrip(".,;:")
    if not (any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)) \
            or value.startswith(("$", "[REDACTED:", "<", "{")):
        return []
    return [(found.start("v"), found.start("v") + len(value), "secret")]


_KEY_LIST_VALUE = lazy_regex(r"[\"']value[\"'][ \t]*:[ \t]*"
                             r"[\"'](?P<v>[A-Za-z0-9+/]{40,}={0,2})[\"']")


def listed_key(text: str, at: int) -> list[Span]:
    """``az storage account keys list`` and the like: ``{"keyName": "key1", "value": "…"}``."""
    close = text.find("}", at, at + 1024)
    found = _KEY_LIST_VALUE.search(text, at, close if close >= 0 else at + 1024)
    return [(found.start("v"), found.end("v"), "secret")] if found else []


#: Trigger literal -> rule (layer 1).
TRIGGERS = {
    "Private-Lines:": ppk, "---- BEGIN SSH2": ssh2, '"kty"': jwk, "'kty'": jwk,
    "eyJ": encoded_json, "ewog": encoded_json, "ewoi": encoded_json,
    "session=": session_cookie, "sessionid=": session_cookie, "SESSID=": session_cookie,
    "_session=": session_cookie, "connect.sid=": session_cookie,
    ":5432:": pgpass, ":*:": pgpass, ":5433:": pgpass, ":6432:": pgpass,
    **{literal: _value(_AUTH_TUPLE, "secret") for literal in (
        "auth=(", "auth = (", "HTTPBasicAuth(", "HTTPDigestAuth(")},
    **{literal: _value(_BASIC_AUTH, "secret") for literal in (
        "basic auth", "Basic auth", "basic-auth", "Basic Auth", "BASIC AUTH", "basic_auth")},
    'variable "': terraform_default, '"keyName"': listed_key,
    **{literal: user_slash_password for literal in (
        "creds", "Creds", "credentials", "Credentials", "login as", "Login as", "log in as",
        "Log in as", "logged in as", "sign in as", "ssh as")},
    **{literal: discord_bot for literal in ("bot.run(", "client.run(", "Authorization: Bot ",
                                            "DISCORD_TOKEN", "DISCORD_BOT_TOKEN")},
}
