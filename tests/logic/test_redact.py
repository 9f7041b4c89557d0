"""Secret redaction: one planted example per kind, the false positives we refuse, invariants.

Every fake secret is assembled in code ("ghp_" + "A" * 36): it has the right shape for the
redactor but no secret-shaped literal sits in the repository for scanners to flag.
"""

from __future__ import annotations

import base64
import json
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.logic import redact as redact_module
from claimgraph.logic.redact import (
    is_secret_name, placeholder, redact, redact_value, redact_with_counts,
)


def b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def pem(label: str, body_lines: int = 3, end: bool = True) -> str:
    """A PEM block whose body is obviously fake."""
    body = "\n".join("MIIFake" + "Q" * 57 for _ in range(body_lines))
    block = f"-----BEGIN {label}PRIVATE KEY-----\n{body}\n"
    return block + (f"-----END {label}PRIVATE KEY-----" if end else "")


AWS_KEY_ID = "AKIA" + "FAKE" * 4
AWS_SESSION_KEY_ID = "ASIA" + "FAKE" * 4
AWS_SECRET = "Fake/Secret+Key0" * 2 + "Fake/Sec"
OPENAI_LEGACY = "sk-" + "Fake0Key" * 6
OPENAI_PROJECT = "sk-proj-" + "Fake0Key_" * 12
ANTHROPIC = "sk-ant-api03-" + "Fake0Key-" * 10 + "AA"
GITLAB = "glpat-" + "Fake0" * 4
SLACK_WEBHOOK = "https://hooks.slack.com/services/" + "T0FAKE00/B0FAKE00/" + "Fake0" * 5
STRIPE_LIVE = "sk_live_" + "Fake0" * 5
STRIPE_RESTRICTED = "rk_live_" + "Fake0" * 5
STRIPE_TEST = "sk_test_" + "Fake0" * 5
JWT = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "fake-user"}),
                "Fake0Signature" * 3])
BEARER = "Fake0Bearer" * 3


def slack(prefix: str) -> str:
    return f"{prefix}-{'0' * 11}-{'0' * 12}-{'Fake' * 6}"


PLANTED = [
    # kind, secret, text around it ({} is where the secret sits)
    ("aws-access-key", AWS_KEY_ID, "aws_access_key_id = {}\nregion = eu-west-1"),
    ("aws-access-key", AWS_SESSION_KEY_ID, "the role gave us {} for an hour"),
    ("aws-secret-key", AWS_SECRET, "aws_secret_access_key = {}\n"),
    ("aws-secret-key", AWS_SECRET, '{{"SecretAccessKey": "{}", "Expiration": "soon"}}'),
    ("github-token", "ghp_" + "A" * 36, "git remote set-url origin https://{}@github.com/o/r"),
    ("github-token", "gho_" + "B" * 36, "oauth returned {} ok"),
    ("github-token", "ghu_" + "C" * 36, "user-to-server {}."),
    ("github-token", "ghs_" + "D" * 36, "installation token ({})"),
    ("github-token", "ghr_" + "E" * 36, "refresh: {}"),
    ("github-token", "github_pat_" + "A" * 22 + "_" + "B" * 59, "export GH_TOKEN={}"),
    ("gitlab-token", GITLAB, "curl --header 'PRIVATE-TOKEN: {}' https://gitlab.example.com"),
    ("openai-api-key", OPENAI_LEGACY, "client = OpenAI(api_key='{}')"),
    ("openai-api-key", OPENAI_PROJECT, "OPENAI_API_KEY={}\nnext line"),
    ("anthropic-api-key", ANTHROPIC, "ANTHROPIC_API_KEY={} claude -p hi"),
    ("slack-token", slack("xoxb"), "bot token {} posted"),
    ("slack-token", slack("xoxp"), "user token {} posted"),
    ("slack-token", slack("xoxa"), "app token {} posted"),
    ("slack-token", slack("xoxr"), "refresh token {} posted"),
    ("slack-token", slack("xoxs"), "session token {} posted"),
    ("slack-webhook", SLACK_WEBHOOK, "curl -X POST {} -d '{{\"text\": \"hi\"}}'"),
    ("stripe-key", STRIPE_LIVE, "stripe.api_key = \"{}\""),
    ("stripe-key", STRIPE_RESTRICTED, "restricted {} key"),
    ("stripe-key", STRIPE_TEST, "test mode uses {} here"),
    ("jwt", JWT, "the cookie session={}; Path=/"),
    ("private-key", pem("RSA "), "id_rsa:\n{}\nafter the key"),
    ("private-key", pem("OPENSSH "), "cat ~/.ssh/id_ed25519\n{}\n$ "),
    ("private-key", pem("EC "), "{}"),
    ("private-key", pem(""), "key.pem holds {} and nothing else"),
    ("private-key", pem("ENCRYPTED "), "pkcs8 {}"),
    ("private-key", pem("PGP ").replace("KEY-----", "KEY BLOCK-----"), "gpg export: {} done"),
    ("url-password", "s3cr3t-Fake", "DATABASE_URL=postgres://app:{}@db.internal:5432/prod"),
    ("url-password", "Fake0pass", "redis://:{}@cache:6379/0"),
    ("url-password", "p@ss-Fake", "mongodb+srv://admin:{}@cluster0.example.net/db"),
    ("auth-header", "dXNlcjpGYWtlUGFzcw==", "curl -H 'Authorization: Basic {}' https://x"),
    ("auth-header", "Fake0Token", 'headers = {{"Authorization": "token {}"}}'),
    ("bearer-token", BEARER, "it sends Bearer {} to the api"),
    ("secret", "hunter2", "PASSWORD={}"),
    ("secret", "hunter2", "export DB_PASSWORD={}"),
    ("secret", "Fake-Secret-Value", "client_secret: {}\nscope: read"),
    ("secret", "Fake-Secret-Value", '{{"api_token": "{}", "retries": 3}}'),
    ("secret", "Fake value with spaces", "SMTP_PASSWD='{}'"),
    ("secret", "Fake0AuthValue123", "AUTH={}"),
    ("secret", "Fake0Mapbox0Key", "MAPBOX_KEY={}"),
    ("secret", "Fake0Key0Value99", "const apiKey = \"{}\";"),
    ("secret", "Fake0Pass", "DB_PASSPHRASE={} ./run"),
    ("secret", "Fake0Cred", "GOOGLE_CREDENTIALS={}"),
]


@pytest.mark.parametrize(("kind", "secret", "around"), PLANTED,
                         ids=[f"{kind}-{i}" for i, (kind, _, _) in enumerate(PLANTED)])
def test_planted_secret_becomes_its_typed_placeholder_and_the_text_around_it_stays(
        kind, secret, around):
    text, counts = redact_with_counts(around.format(secret))
    assert text == around.format(placeholder(kind))
    assert counts == Counter({kind: 1})


def test_anthropic_key_wins_over_the_general_openai_shape():
    assert redact(f"key {ANTHROPIC}") == "key [REDACTED:anthropic-api-key]"


def test_jwt_in_a_bearer_header_is_named_a_jwt():
    assert redact(f"Authorization: Bearer {JWT}") == "Authorization: Bearer [REDACTED:jwt]"


def test_truncated_private_key_is_redacted_to_the_end_of_the_text():
    text = "here is the key:\n" + pem("RSA ", end=False) + "MIIMore\nstill key material"
    assert redact(text) == "here is the key:\n[REDACTED:private-key]"


def test_private_key_inside_a_json_string_is_redacted_on_its_line():
    key = pem("").replace("\n", "\\n")
    text = f'{{"type": "service_account", "private_key": "{key}\\n", "client_email": "x@y"}}'
    assert redact(text) == ('{"type": "service_account", "private_key": "[REDACTED:private-key]'
                            '\\n", "client_email": "x@y"}')


def test_two_private_keys_keep_the_text_between_them():
    text = pem("RSA ") + "\nbetween\n" + pem("EC ")
    assert redact(text) == "[REDACTED:private-key]\nbetween\n[REDACTED:private-key]"


def test_url_password_keeps_scheme_user_host_and_path():
    text = "clone https://alice:Fake0Pass@git.example.com/team/repo.git now"
    assert redact(text) == ("clone https://alice:[REDACTED:url-password]@git.example.com"
                            "/team/repo.git now")


def test_authorization_header_keeps_the_scheme():
    expected = "Authorization: Bearer [REDACTED:auth-header]"
    assert redact("Authorization: Bearer Fake0Token") == expected


FALSE_POSITIVES = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Dev <dev@example.com>",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request 550e8400-e29b-41d4-a716-446655440000 failed",
    "task-list, risk-free, desk-lamp and ask-for-review-before-merge-please",
    "pip install scikit-learn  # import sk-learn as an alias? no",
    "git checkout sk-add-login-page-and-session-handling",
    "token_count=5\nmax_tokens: 4096\nnum_tokens = len(tokens)",
    "password_hash = bcrypt.hashpw(raw, salt)",
    "password = getpass()",
    "PASSWORD=\nSECRET=''",
    "def login(user: str, password: str, token: Optional[str] = None) -> bool:",
    "self.token = token\nclient = Client(api_key=api_key)",
    "api_key = settings.OPENAI_API_KEY",
    "secret = os.environ['SECRET']\ntoken = request.headers[\"X-Token\"]",
    "TOKEN=${GITHUB_TOKEN}\nexport PASSWORD=$DB_PASSWORD",
    "password: <your-password-here>\ntoken: {{ secrets.TOKEN }}",
    "Reset your password: click the link. The token: we rotate it weekly.",
    "We store the password hash, never the password itself.",
    "primary_key=True, sort_key = \"name\", foreign_key='users.id'",
    "monkey = 'banana'\nhotkey: ctrl+shift+p",
    "auth: basic\nauth = None",
    "if token == 'EOF': token := next(it)",
    "PWD=/home/dev/project\nOLDPWD=/home/dev",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    'headers = {"Authorization": f"Bearer {token}"}',
    "Bearer authentication is described in RFC 6750.",
    "https://example.com:8080/path?user=a@b and ssh://git@host:22/repo and git@github.com:o/r",
    "AKIA is the prefix of an access key id; AKIAlowercase is not one",
    "eyJ starts many base64 JSON blobs: eyJhbGciOi",
]


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_ordinary_code_and_prose_pass_through_unchanged(text):
    assert redact_with_counts(text) == (text, Counter())


@pytest.mark.parametrize(("name", "secret"), [
    ("DB_PASSWORD", True), ("apiKey", True), ("client-secret", True), ("STRIPE_KEY", True),
    ("sortKey", True), ("AUTH", True), ("token", True), ("token_count", False),
    ("monkey", False), ("key", False), ("password_hash", False), ("oauth", False),
])
def test_secret_names_are_judged_by_their_last_component(name, secret):
    assert is_secret_name(name) is secret


def test_redact_value_walks_nested_tool_inputs_and_counts_what_it_removed():
    tool_input = {
        "command": f"GITHUB_TOKEN={'ghp_' + 'A' * 36} gh pr list",
        "env": {"DB_PASSWORD": "hunter2", "HOME": "/home/dev", "password": None},
        "args": ["--verbose", ("nested", f"key={OPENAI_LEGACY}")],
        "timeout": 30,
    }
    counts: Counter[str] = Counter()
    assert redact_value(tool_input, counts) == {
        "command": "GITHUB_TOKEN=[REDACTED:github-token] gh pr list",
        "env": {"DB_PASSWORD": "[REDACTED:secret]", "HOME": "/home/dev", "password": None},
        "args": ["--verbose", ("nested", "key=[REDACTED:openai-api-key]")],
        "timeout": 30,
    }
    assert counts == Counter({"github-token": 1, "secret": 1, "openai-api-key": 1})
    assert tool_input["env"]["DB_PASSWORD"] == "hunter2"


def test_redact_value_keeps_a_typed_placeholder_in_a_secret_named_field():
    assert redact_value({"token": "ghp_" + "A" * 36}) == {"token": "[REDACTED:github-token]"}


def test_redact_value_leaves_non_secret_fields_and_scalars_alone():
    value = {"sort_key": "name", "count": 3, "flag": True, "items": [1.5, None]}
    assert redact_value(value) == value


def test_every_kind_at_once_leaves_no_secret_behind():
    document = "\n".join(around.format(secret) for _, secret, around in PLANTED)
    text, counts = redact_with_counts(document)
    for _, secret, _ in PLANTED:
        assert secret not in text
    assert counts == Counter(kind for kind, _, _ in PLANTED)
    assert redact(text) == text


SECRETISH = st.sampled_from(
    [secret for _, secret, _ in PLANTED] + [placeholder("secret"), "[REDACTED:", "PASSWORD",
     "api_key", "Authorization", "Bearer ", "https://", "u:p@h", "=", ": ", "\"", "'", "`",
     "\\", "-----BEGIN ", "PRIVATE KEY-----", "-----END ", "sk-", "eyJ", ".", "@", "$", "{", "\n"])
TEXTISH = st.lists(st.one_of(SECRETISH, st.text(max_size=8)), max_size=25).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTISH)
def test_redaction_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLANTED), min_size=1, max_size=6),
       st.lists(st.text(alphabet=" \n,;", min_size=1, max_size=3), min_size=6, max_size=6))
def test_planted_secrets_never_survive_any_arrangement(planted, glue):
    document = "".join(around.format(secret) + sep
                       for (_, secret, around), sep in zip(planted, glue))
    redacted = redact(document)
    for _, secret, _ in planted:
        assert secret not in redacted


FIVE_MB = 5 * 1024 * 1024
ADVERSARIAL_CHUNKS = [
    "a", "sk-", "eyJ-", "eyJaaaaa.", "-----BEGIN ", "a://u:", "x://u:p@", "password=",
    "token: ", "a_token ", 'token="', "Bearer ", "Authorization: ", "ghp_", "AKIA", " ", "a.",
    "=", '"', "s://" + ":" * 16, "aws_secret_access_key=",
]


@pytest.mark.timeout(120)
def test_a_five_megabyte_adversarial_text_is_handled_in_linear_time():
    chunk_size = FIVE_MB // len(ADVERSARIAL_CHUNKS)
    text = "\n".join((seed * (chunk_size // len(seed) + 1))[:chunk_size]
                     for seed in ADVERSARIAL_CHUNKS)
    assert len(text) >= FIVE_MB - len(ADVERSARIAL_CHUNKS)
    redacted = redact(text)
    assert isinstance(redacted, str) and redacted.count("\n") >= len(ADVERSARIAL_CHUNKS) - 1


def redact_every_pass(text: str) -> tuple[str, Counter[str]]:
    """The reference: every pass over the whole text in order, with no gate and no shortcut."""
    counts: Counter[str] = Counter()
    passes = [(re.compile(shape), redact_module._whole(kind))
              for kind, shape, _ in redact_module._TOKEN_SHAPES]
    passes += [(pattern, replace) for pattern, replace, _ in redact_module._LABELLED_PASSES]
    passes.append((redact_module._ASSIGNMENT, redact_module._assignment))
    for pattern, replace in passes:
        text = pattern.sub(lambda match: replace(match, counts), text)
    return text, counts


NAMES_AND_CASES = st.sampled_from([
    "DB_PASSWORD", "apiKey", "client-secret", "sortKey", "AUTH", "token", "token_count",
    "x" * 85 + "_token", "my-" + "k" * 78 + "_credentials", "passkey", "PassWord", "oauth",
    "api-key", "aws_secret_access_key", "\u212aEY", "S\u0130", "\u017fecret", "pa\u017f\u017f",
    "au\u0131h", "AUTHORIZATION: ", "authorization=", "bearer ", "BEARER\t", "=", ":", " = ",
    '"', "'", "]", '["', "://", "ghp_", "github_pat_", "glpat-", "xoxb-", "sk_live_", "rk_test_",
    "AKIA", "ASIA", ".eyJ", "hooks.slack.com/services/", "[REDACTED:secret]", "${X}", "None",
    "getpass()", "-", "_", " ", "\n", "\t", ",", ";", "Fake0Value0123456"])
MIXED = st.lists(st.one_of(SECRETISH, NAMES_AND_CASES, st.text(max_size=6)),
                 max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(MIXED)
def test_the_gated_passes_redact_exactly_what_every_pass_would(text):
    assert redact_with_counts(text) == redact_every_pass(text)


@pytest.mark.parametrize(("kind", "secret", "around"), PLANTED,
                         ids=[f"{kind}-{i}" for i, (kind, _, _) in enumerate(PLANTED)])
def test_planted_secrets_in_text_with_unicode_case_folds_still_match_every_pass(
        kind, secret, around):
    text = "\u017f \u0130 \u0131 \u212a " + around.format(secret) + " pa\u017f\u017fword=x1"
    assert redact_with_counts(text) == redact_every_pass(text)
