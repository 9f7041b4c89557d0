"""A corpus of secret shapes, one line each, grouped by class (issue 10 §1).

Each entry is ``(class, kind, secret, text)``: ``text`` holds ``secret`` where ``{}`` stands,
and ``kind`` is the placeholder it must become (None: any kind will do). Every fake value is
assembled here from a seeded generator, so no secret-shaped literal sits in the repository for
scanners to flag, and the values look random (the high-entropy layer sees what it would see).
"""

from __future__ import annotations

import base64
import random
import string

_RNG = random.Random(10)
HEX, ALNUM = "0123456789abcdef", string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def rand(alphabet: str, size: int) -> str:
    """Random text that always mixes digits and letters, as generated keys do."""
    body = "".join(_RNG.choice(alphabet) for _ in range(size - 2))
    digits = [c for c in alphabet if c.isdigit()] or ["0"]
    letters = [c for c in alphabet if c.isalpha()] or ["a"]
    return _RNG.choice(letters) + body + _RNG.choice(digits)


def pem_lines(count: int = 6) -> list[str]:
    return ["MII" + rand(B64, 61)] + [rand(B64, 64) for _ in range(count - 1)]


def pem(label: str = "RSA ", count: int = 6) -> str:
    body = "\n".join(pem_lines(count))
    return f"-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----"


UUID = "-".join(rand(HEX, n) for n in (8, 4, 4, 4, 12))
DSN = base64.b64encode(f"postgres://app:{rand(ALNUM, 14)}@db:5432/prod".encode()).decode()
TWILIO_SID = "AC" + rand(HEX, 32)
AWS_ID = "AKIA" + rand(string.ascii_uppercase + "234567", 16)

CORPUS: list[tuple[str, str | None, str, str]] = [
    # --- credentials given as command-line values ------------------------------------------
    ("cli-value", "secret", rand(ALNUM, 12), "pytest -q --db-password {}"),
    ("cli-value", "secret", rand(ALNUM, 10), "./deploy.sh --password {} --env staging"),
    ("cli-value", "secret", rand(ALNUM, 10), "mytool --password={} sync"),
    ("cli-value", "secret", rand(ALNUM, 24), "gh-release --token {} v1.2"),
    ("cli-value", "secret", rand(ALNUM, 24), "client --api-key '{}' --verbose"),
    ("cli-value", "secret", rand(ALNUM, 16), 'tool --client-secret "{}"'),
    ("cli-value", "secret", rand(ALNUM, 9), "sshpass -p {} ssh deploy@10.0.0.5"),
    ("cli-value", "secret", rand(ALNUM, 9), "sshpass -p'{}' scp f host:"),
    ("cli-value", "secret", rand(ALNUM, 11), "mysql -uroot -p{} shop_db"),
    ("cli-value", "secret", rand(ALNUM, 11), "mysqldump -u admin -p{} --all-databases"),
    ("cli-value", "secret", rand(ALNUM, 11), "mariadb -h db -u app -p{} -e 'select 1'"),
    ("cli-value", "secret", rand(ALNUM, 12), "curl -u alice:{} https://api.example.com/v1"),
    ("cli-value", "secret", rand(ALNUM, 12), "curl --user 'bob:{}' -X POST https://x.io"),
    ("cli-value", "secret", rand(ALNUM, 20), "docker login -u ci -p {} registry.example.com"),
    ("cli-value", "secret", rand(ALNUM, 20), "podman login --username ci -p {} quay.io"),
    ("cli-value", "secret", rand(ALNUM, 20), "helm registry login ghcr.io -u me -p {}"),
    ("cli-value", "secret", rand(ALNUM, 20), "twine upload -u __token__ -p {} dist/*"),
    ("cli-value", "secret", rand(ALNUM, 10), "mongosh mongodb://db:27017 -u root -p {}"),
    ("cli-value", "secret", rand(ALNUM, 10), "redis-cli -h cache -a {} ping"),
    ("cli-value", "secret", rand(ALNUM, 10), "sqlcmd -S db -U sa -P {} -Q 'select 1'"),
    ("cli-value", "secret", rand(ALNUM, 10), "zip -P {} backup.zip notes.txt"),
    ("cli-value", "secret", rand(ALNUM, 10), "7z a -p{} archive.7z dir/"),
    ("cli-value", "secret", rand(ALNUM, 10), "smbclient //fs/share -U alice%{}"),
    ("cli-value", "secret", rand(ALNUM, 10), "keytool -list -keystore k.jks -storepass {}"),
    ("cli-value", "secret", rand(ALNUM, 10), "openssl rsa -in k.pem -passin pass:{}"),
    ("cli-value", "secret", rand(ALNUM, 10), "htpasswd -b .htpasswd admin {}"),
    ("cli-value", "secret", rand(ALNUM, 12), "echo {} | docker login -u ci --password-stdin"),
    ("cli-value", "secret", rand(ALNUM, 10), "wget --user=bob --password={} https://x.io/f"),
    ("cli-value", "secret", rand(ALNUM, 10), "az login -u me@corp.com -p {}"),
    ("cli-value", None, "hvs." + rand(URLSAFE, 24), "vault login {}"),
    ("cli-value", "secret", rand(ALNUM, 26), "vault login {}"),
    # --- names that do not end in exactly PASSWORD/SECRET/TOKEN ----------------------------
    ("name", "secret", rand(ALNUM, 9), "DB_PASS={}"),
    ("name", "secret", rand(ALNUM, 9), "export PGPASSWORD={}; psql -h db"),
    ("name", "secret", rand(ALNUM, 9), "SMTP_PWD={} ./send"),
    ("name", "secret", rand(ALNUM, 16), "REDIS_CREDS={}"),
    ("name", "secret", rand(ALNUM, 16), "STRIPE_APIKEY={}"),
    ("name", "secret", rand(ALNUM, 24), "const apiKey = '{}';"),
    ("name", "secret", rand(ALNUM, 24), "x-api-key: {}"),
    ("name", "secret", rand(B64, 88),
     "DefaultEndpointsProtocol=https;AccountKey={};EndpointSuffix=x"),
    ("name", "secret", rand(HEX, 64), "SECRET_KEY_BASE={}"),
    ("name", "secret", rand(ALNUM, 20), "client_credentials: {}"),
    ("name", "secret", rand(ALNUM, 20), "'password' => '{}',"),
    ("name", "secret", rand(ALNUM, 20), "db.password := \"{}\""),
    ("name", "shopify-token", "shpat_" + rand(HEX, 32), "SHOPIFY_ADMIN={}"),
    ("name", "secret", rand(ALNUM, 8) + "&" + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 8) + "," + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 8) + ";" + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 8) + ")" + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 8) + "}" + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 8) + "#" + rand(ALNUM, 5), "PASSWORD={}"),
    ("name", "secret", rand(ALNUM, 10), "machine api.example.com login bob password {}"),
    ("name", "secret", rand(ALNUM, 10), "machine git.corp\n  login bob\n  password {}\n"),
    ("name", "secret", rand(ALNUM, 16), '{{"client_secret": "{}", "type": "service_account"}}'),
    # --- vendor prefixes --------------------------------------------------------------------
    ("prefix", "sendgrid-api-key", "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43),
     "SENDGRID={}"),
    ("prefix", "stripe-webhook-secret", "whsec_" + rand(ALNUM, 32), "webhook secret {} set"),
    ("prefix", "stripe-key", "sk_live_" + rand(ALNUM, 24), "stripe.api_key = \"{}\""),
    ("prefix", "stripe-key", "rk_test_" + rand(ALNUM, 24), "restricted {} key"),
    ("prefix", "vault-token", "hvs." + rand(URLSAFE, 90), "VAULT={}"),
    ("prefix", "vault-token", "hvb." + rand(URLSAFE, 140), "batch {}"),
    ("prefix", "huggingface-token", "hf_" + rand(ALNUM, 34), "login with {}"),
    ("prefix", "npm-token", "npm_" + rand(ALNUM, 36), "//registry.npmjs.org/:_authToken={}"),
    ("prefix", "npm-token", "npm_" + rand(ALNUM, 36), "see {} here"),
    ("prefix", "docker-token", "dckr_pat_" + rand(URLSAFE, 27), "docker hub {}"),
    ("prefix", "google-oauth-token", "ya29." + rand(URLSAFE, 60), "curl -H x {}"),
    ("prefix", None, "AIza" + rand(URLSAFE, 35),
     "https://maps.googleapis.com/maps/api/geocode/json?address=x&key={}&lang=en"),
    ("prefix", None, rand(ALNUM, 20) + "%2B" + rand(ALNUM, 20) + "%3D",
     "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sp=r&sig={}"),
    ("prefix", "telegram-bot-token", "123456789:AA" + rand(URLSAFE, 33),
     "https://api.telegram.org/bot{}/getMe"),
    ("prefix", "telegram-bot-token", "987654321:AA" + rand(URLSAFE, 33), "TG bot {} up"),
    ("prefix", "twilio-key", TWILIO_SID, "client = Client('{}', 'x')"),
    ("prefix", None, rand(HEX, 32), "client = Client('" + TWILIO_SID + "', '{}')"),
    ("prefix", None, rand(B64, 40), "aws configure set " + AWS_ID + " {}"),
    ("prefix", "aws-access-key", AWS_ID, "aws_access_key_id = {}"),
    ("prefix", "github-token", "ghp_" + rand(ALNUM, 36), "git push https://{}@github.com/o/r"),
    ("prefix", "github-token", "github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59), "{}"),
    ("prefix", "gitlab-token", "glpat-" + rand(URLSAFE, 20), "PRIVATE-TOKEN: {}"),
    ("prefix", "slack-token", "xoxb-" + rand("0123456789", 11) + "-" + rand(ALNUM, 24), "bot {}"),
    ("prefix", "openai-api-key", "sk-proj-" + rand(URLSAFE, 48), "OpenAI(api_key='{}')"),
    ("prefix", "anthropic-api-key", "sk-ant-api03-" + rand(URLSAFE, 93) + "AA", "key {}"),
    ("prefix", "pypi-token", "pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 60), "token {}"),
    ("prefix", "digitalocean-token", "dop_v1_" + rand(HEX, 64), "DO {}"),
    ("prefix", "linear-api-key", "lin_api_" + rand(ALNUM, 40), "linear {}"),
    ("prefix", "doppler-token", "dp.pt." + rand(ALNUM, 43), "doppler {}"),
    ("prefix", "postman-api-key", "PMAK-" + rand(HEX, 24) + "-" + rand(HEX, 34), "pm {}"),
    ("prefix", "age-secret-key",
     "AGE-SECRET-KEY-1" + rand(string.ascii_uppercase + "023456789", 58),
     "age {}"),
    ("prefix", "databricks-token", "dapi" + rand(HEX, 32), "dbx {}"),
    ("prefix", "square-token", "sq0atp-" + rand(URLSAFE, 22), "square {}"),
    ("prefix", "jwt",
     "eyJ" + rand(URLSAFE, 20) + ".eyJ" + rand(URLSAFE, 40) + "." + rand(URLSAFE, 43),
     "cookie session={}; Path=/"),
    ("prefix", "password-hash", "$6$" + rand(ALNUM, 16) + "$" + rand(ALNUM + "./", 86),
     "root:{}:19000:0:99999:7:::"),
    ("prefix", "password-hash", "$2b$12$" + rand(ALNUM + "./", 53), "hash {}"),
    ("prefix", "password-hash", "$argon2id$v=19$m=65536,t=3,p=4$" + rand(B64, 22), "h={}"),
    ("prefix", "command-output", UUID, "$ heroku auth:token\n{}\n$ "),
    ("prefix", "command-output", rand(URLSAFE, 40),
     "$ gh auth token\n{}\n"),
    ("prefix", "command-output", rand(URLSAFE, 180), "$ gcloud auth print-access-token\n{}"),
    ("prefix", "k8s-secret", DSN,
     "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  DATABASE_URL: {}\n"),
    ("prefix", "k8s-secret", DSN, '{{"kind": "Secret", "data": {{"DSN": "{}"}}}}'),
    # --- secrets inside escaped JSON strings -----------------------------------------------
    ("escaped-json", "secret", rand(ALNUM, 14),
     '{{"SecretString": "{{\\"username\\":\\"admin\\",\\"password\\":\\"{}\\"}}"}}'),
    ("escaped-json", "secret", rand(ALNUM, 20), '"body": "{{\\"api_token\\": \\"{}\\"}}"'),
    ("escaped-json", "secret", rand(ALNUM, 14), '"{{\\\\\\"password\\\\\\": \\\\\\"{}\\\\\\"}}"'),
    ("escaped-json", "private-key", pem("").replace("\n", "\\n"),
     '{{"type": "service_account", "private_key": "{}\\n"}}'),
    # --- private keys, whole or in part ----------------------------------------------------
    ("private-key", "private-key", pem("RSA "), "cat ~/.ssh/id_rsa\n{}\n$ "),
    ("private-key", "private-key", pem("OPENSSH "), "{}"),
    ("private-key", "private-key", pem("EC "), "key.pem:\n{}"),
    ("private-key", "private-key", pem("ENCRYPTED "), "pkcs8 {} done"),
    ("private-key", "private-key", pem(""), "{}"),
    ("private-key", "private-key", pem("PGP ").replace("KEY-----", "KEY BLOCK-----"), "gpg: {}"),
    ("private-key", "private-key", pem("RSA ").split("-----\n", 1)[1],
     "[… 4000 characters of output omitted …]\n{}\nafter"),
    ("private-key", "private-key", "\n".join(pem_lines(8)), "dump:\n{}\nend of dump"),
    ("private-key", "private-key", pem("RSA ").rsplit("\n-----END", 1)[0], "head only:\n{}"),
    # --- passwords said in plain words -----------------------------------------------------
    ("prose", "secret", rand(ALNUM, 10), "the staging db password is {}"),
    ("prose", "secret", rand(ALNUM, 10), "The password was {}, please rotate it."),
    ("prose", "secret", "swordfish" + rand("0123456789", 3), "use password {} for the vpn"),
    ("prose", "secret", rand(ALNUM, 10), "my passphrase is {}."),
    ("prose", "secret", rand(ALNUM, 12), "the api token is '{}'"),
    ("prose", "secret", rand(ALNUM, 12), "Password: {}"),
    ("prose", "secret", rand(ALNUM, 12), "root pwd = {}"),
    # --- URL credentials and query parameters ----------------------------------------------
    ("url", "url-password", rand(ALNUM, 12),
     "DATABASE_URL=postgres://app:{}@db.internal:5432/prod"),
    ("url", "url-password", rand(ALNUM, 12), "redis://:{}@cache:6379/0"),
    ("url", "url-password", rand(ALNUM, 6) + "@" + rand(ALNUM, 6),
     "mongodb+srv://admin:{}@cluster0.example.net/db"),
    ("url", "url-password", rand(ALNUM, 12), "git clone https://bob:{}@git.corp/x.git"),
    ("url", "secret", rand(ALNUM, 32), "https://api.example.com/v1?access_token={}&page=2"),
    ("url", "secret", rand(ALNUM, 32), "https://x.io/cb?code={}&state=abc"),
    ("url", "secret", rand(ALNUM, 32), "GET /hook?apikey={} HTTP/1.1"),
    # --- headers ------------------------------------------------------------------------------
    ("header", "auth-header", base64.b64encode(b"user:" + rand(ALNUM, 10).encode()).decode(),
     "curl -H 'Authorization: Basic {}' https://x"),
    ("header", "auth-header", rand(ALNUM, 24), '{{"Authorization": "token {}"}}'),
    ("header", "bearer-token", rand(ALNUM, 30), "it sends Bearer {} to the api"),
    ("header", "secret", rand(ALNUM, 30), "X-Auth-Token: {}"),
    # --- high entropy next to a secret word ------------------------------------------------
    ("entropy", "high-entropy", rand(HEX, 32), "twilio auth token for prod: {}"),
    ("entropy", "high-entropy", rand(B64, 40), "here is the secret -> {} (rotate monthly)"),
    ("entropy", "high-entropy", rand(URLSAFE, 43), "csrf token {}"),
    # --- plain assignments (the classes that already held) ---------------------------------
    ("assignment", "secret", rand(ALNUM, 8), "export DB_PASSWORD={}"),
    ("assignment", "secret", rand(ALNUM, 16), "client_secret: {}\nscope: read"),
    ("assignment", "secret", rand(ALNUM, 16), '{{"api_token": "{}", "retries": 3}}'),
    ("assignment", "secret", "Fake value " + rand(ALNUM, 6), "SMTP_PASSWD='{}'"),
    ("assignment", "aws-secret-key", rand(B64, 40), "aws_secret_access_key = {}"),
]
