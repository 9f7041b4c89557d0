"""Secrets known by their structure: key blocks, URLs, command lines and manifests.

- PEM private keys: ``BEGIN … PRIVATE KEY``, its body lines and its ``END`` (the body's last
  line when the end is missing, as in a cut text); an ``END`` line with no ``BEGIN`` (the head was
  cut off) takes the base64 lines above it; and a body alone is known by its shape (64-column base64
  lines opening with ``MII`` or ``b3BlbnNzaC1rZXktdjE``, the DER and OpenSSH key headers) unless a
  ``BEGIN`` line that is not a private key's (a certificate) stands right above it. Lines may
  be real newlines or ``\\n`` escapes (a key inside a JSON string).
- URL credentials: ``scheme://user:PASSWORD@host``.
- Command lines whose password is a positional or a short flag: ``mysql -pX``,
  ``sshpass -p X``, ``docker|podman|helm|cf|az … login -p X``, ``twine upload -p X``,
  ``mongosh -p X``, ``redis-cli -a X``, ``sqlcmd -P X``, ``zip -P X``, ``7z -pX``,
  ``smbclient -U user%X``, ``curl -u user:X``, ``htpasswd -b FILE USER X``,
  ``vault login X``, ``echo X | … --password-stdin`` and openssl's ``pass:X``;
  ``docker login -pX``, ``sqlcmd -P'X'``, ``ldapsearch -w X``, ``redis-cli``'s ``AUTH X``,
  ``ssh-keygen -N X``, ``sqlplus user/X@db``, ``openssl enc -k X`` and GitHub Actions'
  ``::add-mask::X``.
- The line a secret-printing command wrote (``heroku auth:token``, ``gh auth token``,
  ``gcloud auth print-access-token``, ``aws ecr get-login-password``…) after the command.
- Kubernetes Secret manifests: every value under ``data:``/``stringData:`` (YAML or JSON).
"""

from __future__ import annotations

import re
from typing import Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.redact.names import is_reference

Span = tuple[int, int, str]
_PEM_MARK = r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
#: A key block: its body lines (newlines real or escaped; header lines allowed) and its END,
#: which may be missing (the text was cut): then the block ends with its last body line.
_PEM_BEGIN = lazy_regex(
    r"-----BEGIN" + _PEM_MARK + r"(?:(?:\r?\n|\\r?\\n)[ \t]*(?:[A-Za-z0-9+/=]{1,100}"
    r"(?=[ \t]*(?:\r?\n|\\r?\\n|-----END|[\"']|\Z))"
    r"|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[^\n\\]{0,200}"
    r"|(?=\r?\n|\\r?\\n))"
    r"|[ \t]+[A-Za-z0-9+/=]{16,100})*(?:(?:\r?\n|\\r?\\n|[ \t])*-----END" + _PEM_MARK + ")?")
_PEM_END = lazy_regex(r"-----END" + _PEM_MARK)
_PEM_LINE_BREAK = lazy_regex(r"\r?\n|\\r?\\n")
_PEM_BODY_LINE = lazy_regex(r"[ \t]*(?:[A-Za-z0-9+/=]{1,100}|(?:Proc-Type|DEK-Info):[^\n]*)"
                            r"[ \t]*\Z")
_PEM_BODY = lazy_regex(r"(?:[A-Za-z0-9+/]{60,76}(?:\r?\n|\\r?\\n)){2,200}[A-Za-z0-9+/=]{0,76}")
_PEM_LOOKBACK = 16_384
_PEM_FULL_LINE = lazy_regex(r"[A-Za-z0-9+/]{60,76}\r?")
_SEGMENT_END = lazy_regex(r"\n|;|&&|\|\||\|")
#: How far a rule looks along a line: a command or a key line is never longer.
LINE_WINDOW = 4096
#: How far after ``kind: Secret`` its data may start.
MANIFEST_WINDOW = 4096
_FLAG_VALUE = r"(?P<q>[\"']?)(?P<v>[^\s\"']+)(?P=q)"
_COMMAND_RULES: dict[str, re.Pattern[str]] = {
    "mysql": lazy_regex(r"(?<=\s)-p(?P<v>[^\s-][^\s]*)"),
    "sshpass": lazy_regex(r"(?<=\s)-p[ \t]*" + _FLAG_VALUE),
    "login": lazy_regex(r"(?<=\s)-p(?:[ \t]+|(?=[^\s-]))" + _FLAG_VALUE),
    "ldap": lazy_regex(r"(?<=\s)-w(?:[ \t]+|(?=[^\s-]))" + _FLAG_VALUE),
    "ssh-keygen": lazy_regex(r"(?<=\s)-[NP](?:[ \t]+|(?=[^\s-]))" + _FLAG_VALUE),
    "sqlplus": lazy_regex(r"(?<=\s)[\w$#.-]{1,64}/(?P<v>[^\s@/\"']{1,256})(?=@|\s|\Z)"),
    "redis-auth": lazy_regex(r"(?<=AUTH)[ \t]+(?:[\w.-]{1,64}[ \t]+)?" + _FLAG_VALUE
                             + r"[ \t]*(?=\r?\n|\Z)"),
    "twine": lazy_regex(r"(?<=\s)-p[ \t]+" + _FLAG_VALUE),
    "mongo": lazy_regex(r"(?<=\s)-p[ \t]+" + _FLAG_VALUE),
    "redis-cli": lazy_regex(r"(?<=\s)-a[ \t]+" + _FLAG_VALUE),
    "sqlcmd": lazy_regex(r"(?<=\s)-P(?:[ \t]+|(?=[^\s-]))" + _FLAG_VALUE),
    "zip": lazy_regex(r"(?<=\s)-P[ \t]+" + _FLAG_VALUE),
    "7z": lazy_regex(r"(?<=\s)-p(?P<v>[^\s-][^\s]*)"),
    "smbclient": lazy_regex(r"(?<=\s)-U[ \t]+[\"']?[^\s%\"']*%(?P<v>[^\s\"']+)"),
    "curl": lazy_regex(r"(?<=\s)(?:-u|--user|--proxy-user|-U)(?:=|[ \t]+)?[\"']?[^\s:\"']*:"
                       r"(?P<v>[^\s\"']+)"),
    "htpasswd": lazy_regex(r"(?<=\s)-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-\w+[ \t]+)*\S+[ \t]+\S+[ \t]+"
                           + _FLAG_VALUE),
    "vault": lazy_regex(r"\blogin[ \t]+(?!-)" + _FLAG_VALUE),
    "openssl": lazy_regex(r"(?<=\s)-k[ \t]+" + _FLAG_VALUE),
}
#: The trigger words of the command rules, each with the rule it runs.
COMMAND_TRIGGERS: dict[str, str] = {
    **{name: "mysql" for name in ("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport",
                                  "mysqlcheck", "mysqlsh", "mysqlpump")},
    "sshpass": "sshpass", "login": "login", "twine": "twine", "redis-cli": "redis-cli",
    **{name: "mongo" for name in ("mongo", "mongosh", "mongodump", "mongorestore",
                                  "mongoexport", "mongoimport")},
    "sqlcmd": "sqlcmd", "bcp": "sqlcmd", "zip": "zip", "unzip": "zip", "7z": "7z", "7za": "7z",
    "unrar": "7z", "smbclient": "smbclient", "rpcclient": "smbclient", "curl": "curl",
    "htpasswd": "htpasswd", "vault": "vault", "ssh-keygen": "ssh-keygen", "sqlplus": "sqlplus",
    "openssl": "openssl",
    **{name: "ldap" for name in ("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete",
                                 "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn")},
    "AUTH": "redis-auth",
}
PRINTING_COMMANDS = ("auth:token", "auth token", "print-access-token", "print-identity-token",
                     "get-login-password", "auth print-token", "token create")
SECRET_PRINTING_COMMAND = lazy_regex(
    r"\b(?:heroku\s+auth:token|gh\s+auth\s+token|gcloud\s+(?:auth\s+)?(?:application-default\s+)?"
    r"print-(?:access|identity)-token|aws\s+ecr(?:-public)?\s+get-login-password|"
    r"(?:npm|vault|doctl|kubectl)\s+[\w\s-]*token\s+create|kubectl\s+create\s+token|"
    r"az\s+account\s+get-access-token|printenv\s+\w*(?:TOKEN|SECRET|PASS|KEY)\w*|"
    r"echo\s+[\"']?\$\{?\w*(?:TOKEN|SECRET|PASS|KEY)\w*)")
_NEXT_LINE_TOKEN = lazy_regex(r"\n[ \t]*([A-Za-z0-9._~+/=-]{16,512})[ \t]*\r?(?:\n|\Z)")
_STDIN_PIPE = lazy_regex(r"(?:echo|printf)[ \t]+(?:-n[ \t]+)?(?:[\"']%s(?:\\n)?[\"'][ \t]+)?"
                         + _FLAG_VALUE +
                         r"[ \t]*\|[^|\n]*--password-stdin")
_OPENSSL_PASS = lazy_regex(r"pass:(?P<v>[^\s\"']+)")
_K8S_DATA_YAML = lazy_regex(r"^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*$", re.MULTILINE)
_YAML_ENTRY = lazy_regex(r"(?P<indent>[ \t]+)[\w.-]+:[ \t]*[\"']?(?P<v>[^\s\"'#][^\"'\n]*?)"
                         r"[\"']?[ \t]*$")
_K8S_DATA_JSON = lazy_regex(r"\"(?:data|stringData)\"[ \t]*:[ \t]*\{(?P<body>[^{}]{0,65536})\}")
_JSON_STRING_VALUE = lazy_regex(r"\"[\w.-]+\"[ \t]*:[ \t]*\"(?P<v>[^\"\\]{1,8192})\"")


def pem_begin(text: str, at: int) -> list[Span]:
    found = _PEM_BEGIN.match(text, at)
    return [(at, found.end(), "private-key")] if found else []


def pem_end(text: str, at: int, floor: int = 0) -> list[Span]:
    """An END line whose BEGIN is gone: the base64 lines above it (back to ``floor``, where
    the previous block ended) are the key."""
    marker = _PEM_END.match(text, at)
    if marker is None:
        return []
    window_start = max(floor, at - _PEM_LOOKBACK)
    breaks = list(_PEM_LINE_BREAK.finditer(text, window_start, at))
    start = at
    for index in range(len(breaks) - 1, -1, -1):
        line_start = breaks[index - 1].end() if index else window_start
        if not _PEM_BODY_LINE.match(text[line_start:breaks[index].start()]):
            break
        start = line_start
    return [(start, marker.end(), "private-key")]


def pem_body(text: str, at: int) -> list[Span]:
    """Base64 lines that open like a key, with no marker: a BEGIN line above the run that is
    not a private key's (a certificate, a public key) excuses them."""
    if at and text[at - 1] not in "\n\"'" and text[max(0, at - 2):at] != "\\n":
        return []
    found = _PEM_BODY.match(text, at)
    if found is None:
        return []
    head = _body_run_start(text, at)
    previous = text[max(0, head - 80):head]
    if "-----BEGIN" in previous and "PRIVATE" not in previous:
        return []
    return [(at, found.end(), "private-key")]


def _body_run_start(text: str, at: int) -> int:
    """Where the run of full-width base64 lines holding ``at`` starts."""
    start = at
    while start > 0:
        line_start = text.rfind("\n", max(0, start - 80), start - 1) + 1
        if not _PEM_FULL_LINE.fullmatch(text, line_start, start - 1):
            return start
        start = line_start
    return start


def command(rule: str) -> Callable[[str, int], list[Span]]:
    """The rule for one trigger word: it must stand as a word, and its flag lies after it."""
    pattern = _COMMAND_RULES[rule]

    def spans(text: str, at: int) -> list[Span]:
        if at and not (text[at - 1].isspace() or text[at - 1] in "/;|&(\"'`$"):
            return []
        if rule == "redis-auth" and not _redis_line(text, at):
            return []
        cut = _SEGMENT_END.search(text, at, at + LINE_WINDOW)
        segment_end = cut.start() if cut else min(len(text), at + LINE_WINDOW)
        return [(m.start("v"), m.end("v"), "secret")
                for m in pattern.finditer(text, at, segment_end)
                if not is_reference(m["v"])]
    return spans


def _redis_line(text: str, at: int) -> bool:
    """``AUTH`` is redis's when its line starts a redis-cli command or a redis prompt."""
    line_start = text.rfind("\n", max(0, at - LINE_WINDOW), at) + 1
    head = text[line_start:at]
    return "redis" in head or bool(re.search(r"\d>[ \t]*\Z", head))


def printed_secret(text: str, at: int) -> list[Span]:
    """The single token a secret-printing command wrote on the next line."""
    line_end = text.find("\n", at, at + LINE_WINDOW)
    line_start = text.rfind("\n", max(0, at - LINE_WINDOW), at) + 1
    if line_end < 0 or SECRET_PRINTING_COMMAND.search(text, line_start, line_end) is None:
        return []
    found = _NEXT_LINE_TOKEN.match(text, line_end)
    return [(found.start(1), found.end(1), "command-output")] if found else []


def password_stdin(text: str, at: int) -> list[Span]:
    line_start = text.rfind("\n", max(0, at - LINE_WINDOW), at) + 1
    found = _STDIN_PIPE.search(text, line_start, at + len("password-stdin"))
    if found is None or is_reference(found["v"]):
        return []
    return [(found.start("v"), found.end("v"), "secret")]


_ADD_MASK = lazy_regex(r"::add-mask::(?P<v>[^\s\"'`]{1,1024})")


def add_mask(text: str, at: int) -> list[Span]:
    """GitHub Actions' ``::add-mask::VALUE`` names the value to hide: it is a secret."""
    found = _ADD_MASK.match(text, at)
    if found is None or is_reference(found["v"]):
        return []
    return [(found.start("v"), found.end("v"), "secret")]


def openssl_pass(text: str, at: int) -> list[Span]:
    if at and (text[at - 1].isalnum() or text[at - 1] in "_-"):
        return []
    found = _OPENSSL_PASS.match(text, at)
    if found is None or is_reference(found["v"]):
        return []
    return [(found.start("v"), found.end("v"), "secret")]


def k8s_secret(text: str, at: int) -> list[Span]:
    """Every value under the manifest's first ``data``/``stringData`` after ``at`` (base64 is
    no protection), YAML or JSON."""
    window = min(len(text), at + MANIFEST_WINDOW)
    as_json = _K8S_DATA_JSON.search(text, at, window)
    as_yaml = _K8S_DATA_YAML.search(text, at, window)
    if as_yaml and not (as_json and as_json.start() < as_yaml.start()):
        return _yaml_block_values(text, as_yaml.end() + 1, len(as_yaml["indent"]))
    if as_json:
        return [(m.start("v"), m.end("v"), "k8s-secret") for m in
                _JSON_STRING_VALUE.finditer(text, as_json.start("body"), as_json.end("body"))]
    return []


def _yaml_block_values(text: str, position: int, indent: int) -> list[Span]:
    spans: list[Span] = []
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        entry = _YAML_ENTRY.match(text, position, line_end)
        if entry is None or len(entry["indent"]) <= indent:
            break
        if not is_reference(entry["v"]):
            spans.append((entry.start("v"), entry.end("v"), "k8s-secret"))
        position = line_end + 1
    return spans
