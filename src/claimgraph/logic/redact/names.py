"""Which names hold secrets, and which values under them are code or prose rather than secrets.

A name is split into its words (``DB_PASSWORD`` → db, password; ``apiKey`` → api, key;
``PGPASSWORD`` → pgpassword). It is STRONG when its last word ends in a secret word
(password, passwd, passphrase, pass, pwd, secret, token, credential(s), creds), or is ``key``
after a word that makes it one (api, access, private, secret, client, signing…): whatever
value it holds is a secret unless it reads as code or prose. It is WEAK when any word merely
holds a secret word (``token_count``, ``password_hash``, ``private_key_id``, ``sort_key``,
``AUTH``): only a credential-shaped value (12+ characters, no spaces, digits and letters) is
taken for a secret, so ``primary_key=True`` and ``max_tokens: 4096`` stay. Common words that
merely contain one (author, monkey, keyboard, bypass, signal, design) are not secret words,
and an absolute path is a file's name (``PWD=/home/dev``, the shell's working directory).

A name whose last word says it holds something public (``*_URL``, ``*_DOMAIN``, ``*_ID``,
``*_ARN``, ``*_NAME``, ``*_TTL``…) or that is about a CSRF token is not a secret's name at
all, nor is a token or key named for what it points at: an id a protocol hands around in
the open (MCP's ``progressToken``, an API's ``nextPageToken`` or ``continuation_token``, an
``Idempotency-Key``). ``*_PAT`` and ``*_PW`` are strong.

A value is kept (not a secret) when it is empty, already a placeholder, a stand-in
(``your-key``, ``changeme``, ``xxx``, AWS's documented ``…EXAMPLE`` keys), a URL or an ARN
(a URL's password is the URL rule's to find), or a reference
(``$VAR``, ``${VAR}``, ``%VAR%``, ``{{ x }}``, ``<your-token>``); and, unquoted, when it is a
keyword or type name (``None``, ``str``), a call, subscript or parenthesis, or an identifier
that is itself secret-named and holds no digit (``token=token``,
``api_key = settings.OPENAI_API_KEY``); after a
colon, a short lowercase word ("the token: we rotate it").
"""

from __future__ import annotations

import functools
from claimgraph.logic.lazy_regex import lazy_regex

STRONG_ENDINGS = ("password", "passwd", "passphrase", "pass", "pwd", "secret", "secrets",
                  "token", "credential", "credentials", "creds", "apikey", "privatekey",
                  "accesskey", "secretkey")
SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "credential", "cred")
#: ``key`` after one of these is a credential's name, not a dictionary's.
KEY_QUALIFIERS = frozenset(("api", "access", "private", "secret", "client", "signing",
                            "encryption", "master", "account", "storage", "license", "service",
                            "app", "consumer", "session", "shared", "auth", "admin", "write",
                            "deploy", "personal", "subscription", "primary", "secondary"))
#: Words holding a secret word that are not about secrets.
NOT_SECRET_WORDS = frozenset((
    "author", "authors", "authored", "authoring", "authority", "authorities", "authorize",
    "authorized", "authorizer", "monkey", "turkey", "hockey", "donkey", "jockey", "whiskey",
    "keyboard", "keyboards", "keyword", "keywords", "keystroke", "keystrokes", "keyframe",
    "keyframes", "keypad", "keyed", "bypass", "compass", "surpass", "overpass", "underpass",
    "trespass", "encompass", "passenger", "passengers", "passage", "passive", "passthrough",
    "tokenizer", "tokenize", "tokenized", "tokenizers", "credit", "credits", "incredible",
    "secretary", "keynote", "passport", "turnkey", "hotkey", "hotkeys"))
#: A name whose last word is one of these holds a public value: an address, an id, a size.
#: (A token inside it is still found by its own format: layer 1 looks at every value.)
PUBLIC_LAST_WORDS = frozenset((
    "url", "urls", "uri", "uris", "endpoint", "endpoints", "domain", "domains", "host", "hosts",
    "hostname", "issuer", "audience", "arn", "arns", "id", "ids", "region", "name", "names",
    "type", "types", "ttl", "timeout", "seconds", "secs", "days", "hours", "minutes", "length",
    "size", "count", "fingerprint", "path", "paths", "file", "dir", "version", "header",
    "headers", "field", "fields", "prefix", "format", "algorithm", "alg", "label", "scope",
    "scopes", "expiry", "expires", "expiration", "lifetime", "rotation", "provider", "mode",
    "policy", "store", "vault", "manager", "location", "bucket", "table", "column", "index",
    "env", "enabled", "required", "max", "min", "limit", "input", "placeholder", "regex"))
#: Names holding one of these words are about something public (a CSRF form token is no
#: credential: it is printed into every page; gitleaks excludes it too).
PUBLIC_WORDS = frozenset(("csrf", "xsrf", "public", "publishable"))
#: A token or key after one of these is an id, not a credential (``progressToken``).
ID_QUALIFIERS = frozenset(("progress", "page", "continuation", "pagination", "cursor",
                           "idempotency", "correlation", "cancellation"))
#: Values that stand in for a secret in docs and templates, or that AWS documents as examples.
_PLACEHOLDER_VALUE = lazy_regex(
    r"(?i:(?:your|my|the|insert|enter|put|paste|add)[_ -][\w -]*|change[_-]?me|change[_-]?it|"
    r"replace[_-]?(?:me|with[\w-]*)?|replace_[\w]+|todo|tbd|fixme|dummy[\w-]*|example[\w-]*|"
    r"placeholder[\w-]*|redacted|secret|password|token|test|none|null|undefined|"
    r"x{3,}|\*{3,}|\.{3,}|•{3,}|[\w/+-]*(?:EXAMPLE|EXAMPLEKEY))\Z"
    r"|.*(?:x{8,}|X{8,}|\*{6,})")
#: A value that says of itself that it is no secret: words joined by - or _, one of which is
#: test, example, dummy, fake, sample, insecure… ("test-only-secret-base-minimum-64-bytes").
_SELF_DECLARED = lazy_regex(r"(?i:(?=.*(?:^|[-_ ])(?:test|testing|example|dummy|fake|sample|"
                            r"insecure|placeholder|not)(?:[-_ ]|$))"
                            r"(?:[a-z]{2,}|\d{1,4})(?:[-_ ](?:[a-z]{2,}|\d{1,4})){2,})\Z")
_URL_VALUE = lazy_regex(r"[A-Za-z][A-Za-z0-9+.-]{1,30}://")
_ARN_VALUE = lazy_regex(r"arn:aws[\w-]*:")
_WORDS = lazy_regex(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_REFERENCE = lazy_regex(r"\$[{(\w]|%\w+%|\{|<[^<>]*>\Z|\[REDACTED:")
_CODE_EXPRESSION = lazy_regex(r"[(\[]|[A-Za-z_][\w.]*[(\[]|(?:lambda|new|await|function)\b")
#: An absolute path names a file, never holds a secret (``PWD=/home/dev/project``).
_PATH = lazy_regex(r"~?/[\w.@+-]+(?:/[\w.@+-]*)+\Z|/[a-z._-]+\Z")
_IDENTIFIER_PATH = lazy_regex(r"[A-Za-z_][\w.]*\Z")
_PROSE_WORD = lazy_regex(r"[a-z]{1,7}\Z")
_CODE_WORDS = frozenset("none null nil true false undefined str string bytes int bool boolean"
                        " number any object optional void required self this".split())
CREDENTIAL_MIN_CHARS = 12


def words_of(name: str) -> list[str]:
    """``DB_PASSWORD`` → ["db", "password"]; ``apiKey`` → ["api", "key"]."""
    return [word.lower() for word in _WORDS.findall(name)]


def _holds_secret_word(word: str) -> bool:
    return word not in NOT_SECRET_WORDS and any(w in word for w in SECRET_WORDS)


@functools.lru_cache(maxsize=4096)
def name_strength(name: str) -> int:
    """2 strong, 1 weak, 0 not a secret's name (module docstring)."""
    words = words_of(name)
    if not words:
        return 0
    last = words[-1]
    if last in PUBLIC_LAST_WORDS or any(public in word for word in words
                                        for public in PUBLIC_WORDS):
        return 0
    if last in ("token", "tokens", "key") and len(words) > 1 and words[-2] in ID_QUALIFIERS:
        return 0
    if last not in NOT_SECRET_WORDS and last.endswith(STRONG_ENDINGS) or last in ("pat", "pw"):
        return 2
    if last == "key" and len(words) > 1 and words[-2] in KEY_QUALIFIERS:
        return 2
    return 1 if any(_holds_secret_word(word) for word in words) else 0


def is_secret_name(name: str) -> bool:
    """A name whose value is taken for a secret (weak names only with a credential's shape)."""
    return name_strength(name) > 0


def looks_like_credential(value: str) -> bool:
    """Long, unbroken and mixing digits with letters: how generated keys look, words do not."""
    return (len(value) >= CREDENTIAL_MIN_CHARS and not any(ch.isspace() for ch in value)
            and any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value))


def is_reference(value: str) -> bool:
    """``$VAR``, ``${VAR}``, ``%VAR%``, a template, a ``<placeholder>`` or a redaction."""
    return bool(_REFERENCE.match(value))


def keeps_value(strength: int, value: str, *, quoted: bool, after_colon: bool = False) -> bool:
    """True when the value under a name of this strength is code or prose, not a secret."""
    if not value or is_reference(value) or _PATH.match(value) or is_public_value(value):
        return True
    if not quoted and (value.lower() in _CODE_WORDS or _CODE_EXPRESSION.match(value)):
        return True
    if strength < 2:
        return not looks_like_credential(value)
    if quoted:
        return False
    return ((bool(_IDENTIFIER_PATH.match(value)) and is_secret_name(value)
                and not any(ch.isdigit() for ch in value))
            or (after_colon and bool(_PROSE_WORD.match(value))))


def is_placeholder(value: str) -> bool:
    """``your-key``, ``changeme``, ``xxx``, ``********``, AWS's ``…EXAMPLE`` keys: no secret."""
    value = value.strip("\"'`")
    return bool(_PLACEHOLDER_VALUE.match(value) or _SELF_DECLARED.match(value))


def is_public_value(value: str) -> bool:
    """A placeholder, a URL (its password, if any, is the URL rule's: ``logic.redact.blocks``)
    or an ARN: what a secret-ish name may hold in the open."""
    return is_placeholder(value) or bool(_URL_VALUE.match(value) or _ARN_VALUE.match(value))
