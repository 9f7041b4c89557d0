"""Credentials in URLs, found by parsing the URL rather than by a pattern over it.

A password may hold any character once percent-encoding is forgotten, which people do:
``postgresql://app:pa/ss?w#rd@db/prod`` is how a generated password lands in a shell. A
pattern that stops the user info at ``/``, ``?`` or ``#`` leaks the password's tail. So the
user info here runs to the LAST ``@`` of the URL that a host name follows, the user info is
split at its first ``:``, and the URL is then handed to ``urllib.parse`` (with the user info
percent-encoded) to confirm it parses with a host. A token may also be the user name alone
(``https://<PAT>@dev.azure.com/…``, ``https://<40 hex>@github.com/…``): a user name that
reads as a generated string is redacted as a token.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.redact.names import is_placeholder, is_reference
from claimgraph.logic.redact.tokens import TOKEN_RULES

Span = tuple[int, int, str]
_SCHEME = lazy_regex(r"[A-Za-z][A-Za-z0-9+.-]{1,30}\Z")
_URL_END = lazy_regex(r"[\s\"'<>`]")
_HOST_AFTER_AT = lazy_regex(r"@(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))"
                            r"(?::\d{1,5})?(?=[/?#),;]|\Z)")
_PORT_AND_PATH = lazy_regex(r"\d{1,5}(?:[/?#]|\Z)")
MAX_URL = 4096
_LONG_HEX = lazy_regex(r"[0-9a-fA-F]{32,}")
#: Passwords that say "the user name is the token" (GitHub's and others' conventions).
_TOKEN_MARKERS = frozenset(("x-oauth-basic", "x", "", "x-token-auth"))


def url_credentials(text: str, at: int) -> list[Span]:
    """The password and any token user name of the URL whose ``://`` is at ``at``."""
    scheme = _SCHEME.search(text, max(0, at - 31), at)
    if scheme is None:
        return []
    end_match = _URL_END.search(text, at + 3, at + MAX_URL)
    end = end_match.start() if end_match else min(len(text), at + MAX_URL)
    url = text[at + 3:end]
    at_sign = _last_host_at(url)
    if at_sign is None:
        return []
    userinfo = url[:at_sign]
    if "[REDACTED:" in userinfo:
        return []  # found already (a placeholder is no user name)
    user, colon, password = userinfo.partition(":")
    if "/" in user or not _parses(scheme[0], userinfo, url[at_sign + 1:]):
        return []
    base = at + 3
    spans: list[Span] = []
    if colon and password not in _TOKEN_MARKERS and not _PORT_AND_PATH.match(password) \
            and not is_reference(password) and not is_placeholder(password):
        start = base + len(user) + 1
        spans.append((start, start + len(password), "url-password"))
    if (not colon or password in _TOKEN_MARKERS) and is_token(user) \
            and not _vendor_token(user):  # its own rule names it
        spans.append((base, base + len(user), "url-token"))
    return spans


def _vendor_token(user: str) -> bool:
    """Whether a vendor's token rule matches the user name, so that rule names it. A prefix
    alone is not enough: ``SK…`` opens a Twilio key, and a 32-character random user name
    that merely starts with ``SK`` was left to a rule that then did not match it."""
    return any(user.startswith(prefix) and rule.pattern.match(user)
               for rule in TOKEN_RULES for prefix in rule.prefixes)


def _last_host_at(url: str) -> int | None:
    """Index of the last ``@`` in ``url`` that a host name follows, if any."""
    index = url.rfind("@")
    while index > 0:
        if _HOST_AFTER_AT.match(url, index):
            return index
        index = url.rfind("@", 0, index)
    return None


def _parses(scheme: str, userinfo: str, rest: str) -> bool:
    """Whether the URL, its user info percent-encoded, parses with a host."""
    try:
        parts = urlsplit(f"{scheme}://{quote(userinfo, safe=':%')}@{rest}")
        return bool(parts.hostname) and parts.username is not None
    except ValueError:
        return False


def is_token(user: str) -> bool:
    """A user name that is a generated string: long, unbroken, random-looking."""
    if len(user) < 20 or not re.fullmatch(r"[A-Za-z0-9_~.+/=-]+", user):
        return False
    if "." in user and not any(ch.isdigit() for ch in user.split(".")[0]):
        return False  # first.last.name
    kinds = sum((any(c.isdigit() for c in user), any(c.islower() for c in user),
                 any(c.isupper() for c in user)))
    if _LONG_HEX.fullmatch(user):  # a classic 40-hex token: 16 symbols, so fewer distinct ones
        return kinds >= 2
    return kinds >= 2 and len(set(user)) >= 12
