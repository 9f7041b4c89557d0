"""Issue 25's corpus, generated at test time: secret shapes in real formats with random bodies,
and look-alike public values under secret-ish names.

Nothing here is a real secret, and no secret-shaped literal sits in the file: every token is
assembled from pieces and a random body when ``shapes(rng)`` runs (push protection and
scanners would flag a committed look-alike). ``shapes`` returns ``(class, secret, text)``;
``lookalikes`` returns ``(class, text)``, texts the redactor must leave exactly as they are.
Both lists are meant to grow: a new miss becomes a new line.
"""

from __future__ import annotations

import base64
import json
import random
import string

HEX, ALNUM = "0123456789abcdef", string.ascii_letters + string.digits
B64, URLSAFE = ALNUM + "+/", ALNUM + "_-"
LOWER_B32 = string.ascii_lowercase + "234567"


class Gen:
    """Random bodies from one seeded generator (the seed is printed when a test fails)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def s(self, alphabet: str, size: int) -> str:
        """Random text that mixes digits and letters, as generated keys do."""
        body = "".join(self.rng.choice(alphabet) for _ in range(size - 2))
        digits = [c for c in alphabet if c.isdigit()] or ["0"]
        letters = [c for c in alphabet if c.isalpha()] or digits[1:] or digits
        return self.rng.choice(letters) + body + self.rng.choice(digits)

    def password(self, size: int = 14, extra: str = "") -> str:
        """A password with a symbol of ``extra`` in its middle when given."""
        left = self.s(ALNUM, size // 2)
        return left + (self.rng.choice(extra) if extra else "") + self.s(ALNUM, size - size // 2)

    def b64_lines(self, count: int, width: int = 64, head: str = "") -> list[str]:
        lines = [head + self.s(B64, width - len(head))]
        return lines + [self.s(B64, width) for _ in range(count - 1)]


def _pem(g: Gen, label: str) -> str:
    body = "\n".join(g.b64_lines(8, head="MII"))
    return f"-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----"


def _numbered(lines: list[str], style: str, first: int = 12) -> str:
    out = []
    for n, line in enumerate(lines, first):
        if style == "read":
            out.append(f"{n:>6}\u2192{line}")
        elif style == "cat-n":
            out.append(f"{n:>6}\t{line}")
        elif style == "grep-n":
            out.append(f"config/deploy.pem:{n}:{line}")
        elif style == "grep-n-bare":
            out.append(f"{n}:{line}")
        else:  # nl
            out.append(f"{n:>6}  {line}")
    return "\n".join(out)


def _ppk(g: Gen) -> tuple[str, str]:
    private = "\n".join(g.b64_lines(14))
    public = "\n".join(g.b64_lines(6, head="AAAAB3NzaC1yc2E"))
    return private, (f"PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\n"
                     f"Public-Lines: 6\n{public}\nPrivate-Lines: 14\n{private}\n"
                     f"Private-MAC: {g.s(HEX, 64)}")


def _ssh2(g: Gen) -> tuple[str, str]:
    body = "\n".join(g.b64_lines(9, width=70))
    return body, ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-20240101\"\n"
                  f"{body}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----")


def _jwk(g: Gen) -> tuple[str, str]:
    d = g.s(URLSAFE, 342)
    key = {"kty": "RSA", "kid": "sig-2024", "use": "sig", "n": g.s(URLSAFE, 342), "e": "AQAB",
           "d": d, "p": g.s(URLSAFE, 171), "q": g.s(URLSAFE, 171)}
    return d, json.dumps(key, indent=2)


def _gh() -> str:
    return "gh" + "p_"


def shapes(seed: int) -> list[tuple[str, str, str]]:
    """Every class issue 25 names, in real formats with random bodies."""
    g = Gen(seed)
    out: list[tuple[str, str, str]] = []

    def add(cls: str, secret: str, template: str) -> None:
        out.append((cls, secret, template.replace("{}", secret)))

    # URL passwords holding / ? # : and @
    for _scheme, template in (("postgresql", "psql 'postgresql://app:{}@db.internal:5432/prod'"),
                             ("amqp", "BROKER=amqp://worker:{}@rabbit:5672/vhost"),
                             ("ftp", "curl ftp://upload:{}@files.example.org/in/"),
                             ("mongodb", "mongosh \"mongodb://root:{}@mongo:27017/admin\""),
                             ("mysql", "DATABASE_URL=mysql://shop:{}@10.0.0.7/shop"),
                             ("redis", "redis-cli -u redis://default:{}@cache:6379")):
        for symbol in "/?#":
            add("url-password", g.password(14, symbol), template)
    add("url-password", g.password(12, "@"), "postgres://svc:{}@pg:5432/x")
    # a token as the URL's user name
    add("url-user-token", g.s(LOWER_B32, 52),
        "git clone https://{}@dev.azure.com/contoso/web/_git/web")
    add("url-user-token", g.s(HEX, 40), "git remote add origin https://{}@github.com/acme/api.git")
    add("url-user-token", _gh() + g.s(ALNUM, 36), "https://{}:x-oauth-basic@github.com/a/b")
    add("url-user-token", g.s(ALNUM, 32), "pip install -i https://{}@pypi.fury.io/acme/ pkg")
    # webhooks
    add("webhook", g.s(URLSAFE, 68), "curl -X POST https://discord.com/api/webhooks/"
        f"{g.s('0123456789', 19)}/{{}} -d @msg.json")
    add("webhook", g.s(HEX, 32), "TEAMS=https://acme.webhook.office.com/webhookb2/"
        f"{g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 12)}@"
        f"{g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 12)}/"
        f"IncomingWebhook/{{}}/{g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-"
        f"{g.s(HEX, 12)}")
    # names with no secret word
    add("bare-name", g.s(LOWER_B32, 52), "export AZURE_DEVOPS_EXT_PAT={}")
    add("bare-name", f"{g.s(HEX, 32)}-{g.s(HEX, 8)}-{g.s(HEX, 8)}", "MAILGUN={}")
    add("bare-name", g.s(ALNUM, 40), "SENTRY_DSN_PRIVATE={}")
    add("bare-name", g.s(URLSAFE, 43), "ALGOLIA_ADMIN={}")
    # command lines, per program
    add("command", g.password(16), "docker login -u ci -p{} registry.acme.io")
    add("command", g.password(12), "sqlcmd -S db -U sa -P'{}' -Q 'select 1'")
    add("command", g.password(12), "ldapsearch -x -D cn=admin,dc=acme -w {} -b dc=acme")
    add("command", g.password(12), "redis-cli -h cache AUTH {}")
    add("command", g.password(12), "redis-cli -h cache\ncache:6379> AUTH {}\nOK")
    add("command", g.password(12), "ssh-keygen -t ed25519 -N '{}' -f ~/.ssh/deploy")
    add("command", g.password(16), "printf '%s' '{}' | docker login -u ci --password-stdin r.io")
    add("command", g.password(16), "echo \"::add-mask::{}\"")
    add("command", g.password(12), "sqlplus system/{}@//db.acme:1521/ORCL")
    add("command", g.password(12), "psql \"host=db user=app password={} dbname=prod\"")
    add("command", g.password(12), "mysql --user=root --password={} shop")
    add("command", g.password(12), "PGPASSWORD={} pg_dump -h db prod")
    # code
    add("code", g.password(14), "requests.get(url, auth=('admin', '{}'))")
    add("code", g.s(ALNUM, 32), "headers = {'Authorization': 'Bearer ' + '{}'}")
    add("code", g.password(14), 'variable "db_password" {\n  type    = string\n'
        '  default = "{}"\n}')
    add("code", g.s(B64, 48), "auth:\n  secret: |\n    {}\n  user: svc")
    add("code", g.s(B64, 48), "  client_secret: >-\n    {}\n")
    # bare tokens
    add("bare-token", f"{'M' + g.s(URLSAFE, 25)}.{g.s(URLSAFE, 6)}.{g.s(URLSAFE, 38)}",
        "bot.run('{}')")
    add("bare-token", "IQoJb3JpZ2luX2Vj" + g.s(B64, 300),
        "$ aws sts get-session-token --output "
        f"text\nCREDENTIALS\tASIA{g.s(string.ascii_uppercase + '234567', 16)}"
        f"\t2030-01-01T00:00:00Z\t{g.s(B64, 40)}\t{{}}")
    add("bare-token", "FwoGZXIvYXdzE" + g.s(B64, 200), "aws_session_token = {}")
    sa = {"type": "service_account", "project_id": "acme-prod", "private_key_id": g.s(HEX, 40),
          "private_key": _pem(g, ""), "client_email": "ci@acme-prod.iam.gserviceaccount.com"}
    add("bare-token", base64.b64encode(json.dumps(sa).encode()).decode(),
        "GOOGLE_APPLICATION_CREDENTIALS_B64={}")
    add("bare-token", base64.b64encode(json.dumps(sa).encode()).decode(),
        "echo {} | base64 -d > sa.json")
    add("bare-token", "$apr1$" + g.s(ALNUM, 8) + "$" + g.s(ALNUM + "./", 22), "admin:{}")
    add("bare-token", "{SHA}" + base64.b64encode(g.s(ALNUM, 20).encode()).decode(),
        "deploy:{}")
    flask = (base64.urlsafe_b64encode(json.dumps({"user_id": 7, "_fresh": True}).encode())
             .decode().rstrip("=") + "." + g.s(URLSAFE, 6) + "." + g.s(URLSAFE, 27))
    add("bare-token", flask, "Set-Cookie: session={}; HttpOnly; Path=/")
    add("bare-token",
        "." + "eJw" + g.s(URLSAFE, 60) + "." + g.s(URLSAFE, 6) + "." + g.s(URLSAFE, 27),
        "cookie session={}")
    add("bare-token", g.s(string.ascii_lowercase + string.digits, 32),
        "Cookie: sessionid={}; csrftoken=x")
    add("bare-token", g.password(14), "db.acme.internal:5432:prod:app:{}")
    add("bare-token", g.password(14), "cat ~/.pgpass\n*:*:*:postgres:{}")
    # split and wrapped
    token = _gh() + g.s(ALNUM, 36)
    add("split", token, "")
    out[-1] = ("split", token, f'TOKEN = "{token[:20]}" "{token[20:]}"')
    token = _gh() + g.s(ALNUM, 36)
    out.append(("split", token, f"const t = '{token[:18]}' +\n    '{token[18:]}';"))
    token = "sk_" + "live_" + g.s(ALNUM, 99)
    wrapped = "\n".join(token[i:i + 20] for i in range(0, len(token), 20))
    out.append(("wrapped", token, f"$ echo $STRIPE | fold -w 20\n{wrapped}\n$ "))
    token = "xox" + "b-" + g.s("0123456789", 12) + "-" + g.s("0123456789",
                                                             12) + "-" + g.s(ALNUM, 24)
    wrapped = "\n".join(token[i:i + 16] for i in range(0, len(token), 16))
    out.append(("wrapped", token, f"{wrapped}\n"))
    # prose
    add("prose", g.password(12), "the staging basic auth is admin:{}")
    add("prose", g.password(12), "admin pw is {}")
    add("prose", g.password(12), "ok, the root pw for the box is {} — rotate after")
    add("prose", g.password(12), "login as deploy / {} on the jump host")
    add("prose", g.password(12), "creds: admin / {}")
    # line-numbered key blocks and files
    for style in ("read", "cat-n", "grep-n", "grep-n-bare", "nl"):
        key = _pem(g, "RSA ")
        lines = key.splitlines()
        out.append(("line-numbered", "\n".join(lines[1:-1]), _numbered(lines, style)))
    env = ["DB_HOST=db", f"DB_PASSWORD={g.password(14)}", "DEBUG=0"]
    out.append(("line-numbered", env[1].split("=", 1)[1], _numbered(env, "read", 1)))
    key = _pem(g, "OPENSSH ")
    lines = key.splitlines()
    out.append(("line-numbered", "\n".join(lines[1:-1]), _numbered(lines, "read")))
    # other armours
    private, ppk = _ppk(g)
    out.append(("armour", private, ppk))
    private, ssh2 = _ssh2(g)
    out.append(("armour", private, ssh2))
    d, jwk = _jwk(g)
    out.append(("armour", d, jwk))
    private, ppk = _ppk(g)
    out.append(("armour", private, _numbered(ppk.splitlines(), "read", 1)))
    return out


#: Public values under secret-ish names: nothing here may change.
def lookalikes(seed: int) -> list[tuple[str, str]]:
    g = Gen(seed)
    uuid = f"{g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 12)}"
    acct = g.s("0123456789", 12)
    out = [
        ("prose", "Always run the second pass of linting only after review."),
        ("prose", "a single pass of the formatter is enough"),
        ("prose", "The first pass is cheap; the second pass was slow."),
        ("prose", "the password was wrong, so the login failed"),
        ("prose", "the token is refreshed every hour by the sidecar"),
        ("prose", "pass is fine here, the tests pass"),
        ("prose", "Every secret is read from the vault at start."),
        ("prose", "The key is the user id, the value is the session."),
        ("prose", "auth is handled by the gateway; the key was rotated"),
        ("prose", "admin pw is in 1Password under Staging"),
        ("url", "NEXTAUTH_URL=http://localhost:3000"),
        ("url", "TOKEN_URL=https://oauth2.googleapis.com/token"),
        ("url", "AUTH_URL=https://login.microsoftonline.com/common/oauth2/v2.0/authorize"),
        ("url", "SECRET_MANAGER_ENDPOINT=https://secretmanager.googleapis.com"),
        ("url", "jwks_uri: https://acme.auth0.com/.well-known/jwks.json"),
        ("url", "git clone https://github.com/acme/secret-scanner.git"),
        ("url", "ssh://git@github.com:22/acme/api.git"),
        ("url", "postgres://localhost:5432/dev"),
        ("url", "http://user@example.com/path?next=/home#top"),
        ("url", "https://api.example.com/v1/tokens?page=2&per_page=50"),
        ("arn", f"KMS_KEY_ID=arn:aws:kms:us-east-1:{acct}:key/{uuid}"),
        ("arn", f"SECRET_ARN=arn:aws:secretsmanager:eu-west-1:{acct}:secret:prod/db-AbC12d"),
        ("arn", f"secret_arn = \"arn:aws:secretsmanager:us-east-2:{acct}:secret:api-key-x9Y8z7\""),
        ("arn", f"role: arn:aws:iam::{acct}:role/deploy-token-issuer"),
        ("key-id", f"GPG_KEY_ID={g.s('0123456789ABCDEF', 16)}"),
        ("key-id", f"KEY_ID={uuid}"),
        ("key-id", "\"private_key_id_field\": \"kid\""),
        ("key-id", f"kms_key_id = \"alias/{g.s(string.ascii_lowercase, 8)}\""),
        ("key-id", f"SSH_KEY_FINGERPRINT=SHA256:{g.s(B64, 43)}"),
        ("key-id", "API_KEY_NAME=prod-reader"),
        ("domain", "AUTH0_DOMAIN=dev-acme.us.auth0.com"),
        ("domain", "COGNITO_AUTH_DOMAIN=acme.auth.us-east-1.amazoncognito.com"),
        ("domain", "SECRET_HOST=vault.internal"),
        ("domain", "TOKEN_AUDIENCE=api://default"),
        ("domain", "TOKEN_ISSUER=https://acme.okta.com/oauth2/default"),
        ("code", "partition_key = 'tenant_id'"),
        ("code", "cache_key = f\"user:{user_id}:profile\""),
        ("code", "sort_key: created_at"),
        ("code", "idempotency_key = request.headers.get('Idempotency-Key')"),
        ("code", "API_KEY: z.string().min(1),"),
        ("code", "SECRET: z.string().optional(),"),
        ("code", "password: z.string().min(8).max(128)"),
        ("code", "token_type = 'Bearer'"),
        ("code", "const passwordInput = document.getElementById('password')"),
        ("code", "password_reset_timeout = 3600"),
        ("code", "AUTH_TYPE=oauth2"),
        ("code", "TOKEN_TTL_SECONDS=3600"),
        ("code", "KEY_ROTATION_DAYS=90"),
        ("code", "primary_key=True, foreign_key='users.id'"),
        ("code", "secret_name = \"prod/db/credentials\""),
        ("example", "AWS_ACCESS_KEY_ID=AKIA" + "IOSFODNN7EXAMPLE"),
        ("example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"),
        ("placeholder", "OPENAI_API_KEY=your-key"),
        ("placeholder", "api_key: \"your-api-key-here\""),
        ("placeholder", "PASSWORD=changeme"),
        ("placeholder", "DB_PASSWORD=xxx"),
        ("placeholder", "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx"),
        ("placeholder", "token: <paste-your-token>"),
        ("placeholder", "SECRET_KEY=replace-me"),
        ("placeholder", "password: \"********\""),
        ("placeholder", "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}"),
        ("placeholder", "client_secret: REPLACE_WITH_CLIENT_SECRET"),
        ("hash", f"commit {g.s(HEX, 40)}"),
        ("hash", f"GIT_SHA={g.s(HEX, 40)}"),
        ("hash", f"sha256:{g.s(HEX, 64)}"),
        ("hash", f"BUILD_ID={uuid}"),
        ("hash", f"integrity: sha512-{g.s(B64, 86)}=="),
        ("hash", f"image: ghcr.io/acme/api@sha256:{g.s(HEX, 64)}"),
        ("cli", "docker login -u ci --password-stdin ghcr.io < token.txt"),
        ("cli", "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519"),
        ("cli", "redis-cli -h cache AUTH $REDIS_PASSWORD"),
        ("cli", "echo \"::add-mask::$TOKEN\""),
        ("cli", "ldapsearch -x -W -b dc=acme"),
        ("cli", "sqlcmd -S db -U sa -P \"$SA_PASSWORD\""),
        ("cli", "grep -n password src/settings.py"),
        ("numbered",
         _numbered(["import os", "PASSWORD = os.environ['DB_PASSWORD']", "DEBUG = False"],
                               "read", 1)),
        ("numbered", _numbered(["def login(user, password):", "    return check(user, password)"],
                               "cat-n", 40)),
        ("public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g.s(B64, 43) + " dev@laptop"),
        ("public-key",
         json.dumps({"kty": "RSA", "kid": "pub-1", "use": "sig", "n": g.s(URLSAFE, 342),
                                   "e": "AQAB"})),
    ]
    return out


def leaked(secret: str, redacted: str, window: int = 10) -> bool:
    """Whether any ``window`` characters of the secret (within one of its lines) survive: a
    secret split over two literals or wrapped over lines leaks by any piece of it."""
    for line in secret.splitlines():
        if len(line) <= window:
            if line in redacted and len(line) >= 6:
                return True
            continue
        if any(line[i:i + window] in redacted for i in range(len(line) - window + 1)):
            return True
    return False


def held_out(seed: int) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """Shapes and look-alikes written after the redactor was tuned on the lists above and
    measured once, blind (bench/secret_corpus_report.py --held-out): how it does on what it
    was not tuned on. Blind, it leaked 3 of 18 (openssl's -k, a key listed under "value",
    "use X as the admin password"; main's redactor 5) and altered 0 of 22; those three are
    fixed and the set is now tested like the rest. The next blind set starts empty."""
    g = Gen(seed)
    pw = g.password
    secrets = [
        ("cli-value", pw(14), "kubectl create secret generic db --from-literal=password={}"),
        ("cli-value", pw(14), "docker run -e POSTGRES_PASSWORD={} -d postgres:16"),
        ("cli-value", pw(14), "openssl enc -aes-256-cbc -k {} -in a -out b"),
        ("cli-value", pw(14), "mysql -h db -u root --password {} shop"),
        ("cli-value", g.s(B64, 40), "aws configure set aws_secret_access_key {}"),
        ("cli-value", "rk_" + "live_" + g.s(ALNUM, 24), "heroku config:set STRIPE_KEY={}"),
        ("url-password", pw(12, "@"), "pg_dump \"postgresql://u:{}@h/db\""),
        ("url-password", pw(12, "/"), "https://deploy:{}@git.corp.example/x.git"),
        ("header", g.s(ALNUM, 32), "curl -H \"X-API-Key: {}\" https://api.x.io"),
        ("name", g.s(ALNUM, 48), "JWT_SECRET={}"),
        ("name", g.s(ALNUM, 40), "ANTHROPIC_AUTH_TOKEN={}"),
        ("name", "oy2" + g.s(string.ascii_lowercase + string.digits, 43), "NUGET_API_KEY={}"),
        ("name", base64.b64encode(f"me:{pw(12)}".encode()).decode(), "_auth={}"),
        ("json", g.s(B64, 86) + "==",
         '{{"keyName": "key1", "permissions": "FULL", "value": "{}"}}'),
        ("prefix", "sk-" + "ant-admin01-" + g.s(URLSAFE, 80) + "AA", "key {}"),
        ("prefix", "ops_" + "eyJ" + g.s(B64, 120), "export OP_SERVICE_ACCOUNT_TOKEN={}"),
        ("prose", pw(12), "the new password for grafana is {}"),
        ("prose", pw(12), "use {} as the admin password"),
    ]
    public = [
        ("name", "RESET_TOKEN_EXPIRY=3600"), ("name", "PASSWORD_MIN_LENGTH=12"),
        ("code", "token.type == TokenType.IDENT"), ("code", "const key = `${prefix}:${id}`"),
        ("name", "KEYCLOAK_REALM=master"), ("name", "AWS_REGION=us-east-1"),
        ("yaml", "key_bindings: vim"), ("prose", "the passenger list is sorted"),
        ("hash", f"sha1: {g.s(HEX, 40)}"), ("id", f"session_id={g.s(HEX, 8)}-{g.s(HEX, 4)}"),
        ("id",
         f"X-Request-Id: {g.s(HEX, 8)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 4)}-{g.s(HEX, 12)}"),
        ("path", "npm_config_cache=/tmp/npm"), ("ref", "CI_JOB_TOKEN=$CI_JOB_TOKEN"),
        ("code", "SECRET_KEY_BASE=$(openssl rand -hex 64)"), ("yaml", "pass: true"),
        ("yaml", "api_version: 2023-10-01"), ("prose", "I will pass the key to the function"),
        ("code", "secret_santa.py assigns pairs"),
        ("code", "if password_confirmation != password:"),
        ("url", "OAUTH_CALLBACK_URL=https://app.example.com/auth/callback"),
        ("hash", f"BUNDLE_HASH={g.s(HEX, 64)}"), ("name", f"CLIENT_ID={g.s(ALNUM, 24)}"),
    ]
    return [(c, s, t.replace("{}", s)) for c, s, t in
            [(c, s, t.replace("{{", "{").replace("}}", "}") if "{{" in t else t)
             for c, s, t in secrets]], public
