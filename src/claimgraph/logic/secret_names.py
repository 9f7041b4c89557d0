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

A value is kept (not a secret) when it is empty, already a placeholder, or a reference
(``$VAR``, ``${VAR}``, ``%VAR%``, ``{{ x }}``, ``<your-token>``); and, unquoted, when it is a
keyword or type name (``None``, ``str``), a call, subscript or parenthesis, or an identifier
that is itself secret-named and holds no digit (``token=token``,
``api_key = settings.OPENAI_API_KEY``); after a
colon, a short lowercase word ("the token: we rotate it").
"""

from __future__ import annotations

import functools
import re

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
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_REFERENCE = re.compile(r"\$[{(\w]|%\w+%|\{|<[^<>]*>\Z|\[REDACTED:")
_CODE_EXPRESSION = re.compile(r"[(\[]|[A-Za-z_][\w.]*[(\[]|(?:lambda|new|await|function)\b")
#: An absolute path names a file, never holds a secret (``PWD=/home/dev/project``).
_PATH = re.compile(r"~?/[\w.@+-]+(?:/[\w.@+-]*)+\Z|/[a-z._-]+\Z")
_IDENTIFIER_PATH = re.compile(r"[A-Za-z_][\w.]*\Z")
_PROSE_WORD = re.compile(r"[a-z]{1,7}\Z")
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
    if last not in NOT_SECRET_WORDS and last.endswith(STRONG_ENDINGS):
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
    if not value or is_reference(value) or _PATH.match(value):
        return True
    if strength < 2:
        return not looks_like_credential(value)
    if quoted:
        return False
    return (value.lower() in _CODE_WORDS or bool(_CODE_EXPRESSION.match(value))
            or (bool(_IDENTIFIER_PATH.match(value)) and is_secret_name(value)
                and not any(ch.isdigit() for ch in value))
            or (after_colon and bool(_PROSE_WORD.match(value))))
