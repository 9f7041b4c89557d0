"""Credentials that name themselves: tokens whose vendor prefix says what they are.

The table follows the rule sets of the best-kept scanners (gitleaks' ``config/gitleaks.toml``
and detect-secrets' plugins) for every provider a coding session plausibly touches. Each row
is ``(kind, prefixes, pattern)``: the literal prefixes are what the trigger scan looks for
(``logic.redact.scan``), and the pattern, matched AT a prefix, decides whether a real token
starts there. A token never starts inside a run of letters and digits (``task-list`` holds
no ``sk-`` key); rows marked ``RUN`` also refuse a start after ``_`` or ``-``.

Shapes that cannot be told from an identifier without context (a bare UUID, 32 hex digits)
are not here: the context layer (``logic.redact.cues``) judges them by the name, flag or
command around them.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from claimgraph.logic.lazy_regex import lazy_regex

ALNUM, RUN = "[A-Za-z0-9]", "[A-Za-z0-9_-]"
ALNUM_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_END = r"(?![A-Za-z0-9])"


class TokenRule(NamedTuple):
    kind: str
    prefixes: tuple[str, ...]
    pattern: re.Pattern[str]
    edge: str = ALNUM


def _rule(kind: str, prefixes: str, pattern: str, edge: str = ALNUM) -> TokenRule:
    return TokenRule(kind, tuple(prefixes.split()), lazy_regex(pattern), edge)


#: Most specific first: where two rows match at one place, the earlier names the token.
TOKEN_RULES: tuple[TokenRule, ...] = (
    _rule("anthropic-api-key", "sk-ant-", r"sk-ant-[A-Za-z0-9_-]{20,}", RUN),
    _rule("openai-api-key", "sk-", r"sk-(?=[A-Za-z0-9_-]*?[0-9])(?=[A-Za-z0-9_-]*?[a-z])"
          r"(?=[A-Za-z0-9_-]*?[A-Z])[A-Za-z0-9_-]{20,}", RUN),
    _rule("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", r"gh[pousr]_[A-Za-z0-9]{36,}"),
    _rule("github-token", "github_pat_", r"github_pat_[A-Za-z0-9_]{22,}"),
    _rule("gitlab-token", "glpat- gldt- glrt- glptt- glcbt- glft- glsoat- gloas- glimt- "
          "glagent- glffct-", r"gl(?:pat|dt|rt|ptt|cbt|ft|soat|oas|imt|agent|ffct)-"
          r"[A-Za-z0-9_.-]{20,}"),
    _rule("gitlab-token", "GR1348941", r"GR1348941[A-Za-z0-9_-]{20,}"),
    _rule("slack-webhook", "https://hooks.slack.com/",
          r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}"),
    _rule("discord-webhook", "https://discord.com/api/webhooks/ "
          "https://discordapp.com/api/webhooks/ https://ptb.discord.com/api/webhooks/ "
          "https://canary.discord.com/api/webhooks/",
          r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,20}/[A-Za-z0-9_-]{30,}"),
    _rule("aws-session-token", "IQoJb3JpZ2luX2Vj FwoGZXIvYXdz",
          r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz)[A-Za-z0-9+/]{60,}={0,2}"),
    _rule("password-hash", "{SHA} {SSHA} {SHA256} {SSHA256} {SHA512} {SSHA512}",
          r"\{S?SHA(?:256|512)?\}[A-Za-z0-9+/]{20,}={0,2}", r"[A-Za-z0-9]"),
    _rule("slack-token", "xoxa- xoxb- xoxp- xoxr- xoxs- xoxe- xoxo- xapp- xoxe.",
          r"x(?:ox[abprseo]|app)[.-][A-Za-z0-9.-]{10,}"),
    _rule("stripe-key", "sk_live_ sk_test_ sk_prod_ rk_live_ rk_test_ rk_prod_",
          r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    _rule("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{20,}"),
    _rule("aws-access-key", "AKIA ASIA ABIA ACCA A3T",
          r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}" + _END),
    _rule("aws-bedrock-key", "ABSK", r"ABSK[A-Za-z0-9+/]{100,}={0,2}"),
    _rule("grafana-token", "eyJrIjoi", r"eyJrIjoi[A-Za-z0-9]{70,}={0,3}"),
    _rule("jwt", "eyJ", r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", RUN),
    _rule("sendgrid-api-key", "SG.", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    _rule("vault-token", "hvs. hvb. hvr.", r"hv[sbr]\.[A-Za-z0-9_-]{20,}"),
    _rule("huggingface-token", "hf_", r"hf_[A-Za-z0-9]{30,}"),
    _rule("huggingface-token", "api_org_", r"api_org_[A-Za-z]{30,}"),
    _rule("npm-token", "npm_", r"npm_[A-Za-z0-9]{36}" + _END),
    _rule("docker-token", "dckr_pat_ dckr_oat_", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    _rule("google-oauth-token", "ya29.", r"ya29\.[A-Za-z0-9_-]{20,}"),
    _rule("google-api-key", "AIza", r"AIza[A-Za-z0-9_-]{35}" + _END),
    _rule("twilio-key", "AC SK", r"(?:AC|SK)[0-9a-fA-F]{32}" + _END),
    _rule("shopify-token", "shpat_ shpca_ shppa_ shpss_", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _rule("pypi-token", "pypi-AgEIcHlwaS5vcmc", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),
    _rule("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", r"do[opr]_v1_[a-f0-9]{64}"),
    _rule("linear-api-key", "lin_api_", r"lin_api_[A-Za-z0-9]{40}"),
    _rule("doppler-token", "dp.pt. dp.st. dp.sa. dp.ct. dp.scim. dp.audit.",
          r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}"),
    _rule("postman-api-key", "PMAK-", r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
    _rule("newrelic-key", "NRAK- NRJS- NRII-", r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}"),
    _rule("age-secret-key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1[A-Z0-9]{58}"),
    _rule("databricks-token", "dapi", r"dapi[a-f0-9]{32}(?:-\d)?" + _END),
    _rule("pulumi-token", "pul-", r"pul-[a-f0-9]{40}"),
    _rule("grafana-token", "glc_ glsa_", r"gl(?:c_[A-Za-z0-9+/]{32,}={0,3}|sa_[A-Za-z0-9]{32}"
          r"_[A-Fa-f0-9]{8})"),
    _rule("atlassian-token", "ATATT3", r"ATATT3[A-Za-z0-9_=-]{100,}"),
    _rule("square-token", "sq0atp- sq0csp- EAAA", r"(?:sq0(?:atp|csp)-|EAAA)[A-Za-z0-9_-]{22,}"),
    _rule("facebook-token", "EAAC EAAM", r"EAA[CM][A-Za-z0-9]{100,}"),
    _rule("sendinblue-key", "xkeysib-", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _rule("sentry-token", "sntrys_ sntryu_", r"sntry(?:s_eyJ[A-Za-z0-9+/=_]{50,}|u_[a-f0-9]{64})"),
    _rule("rubygems-token", "rubygems_", r"rubygems_[a-f0-9]{48}"),
    _rule("planetscale-token", "pscale_tkn_ pscale_oauth_ pscale_pw_",
          r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}"),
    _rule("perplexity-api-key", "pplx-", r"pplx-[A-Za-z0-9]{48}"),
    _rule("prefect-token", "pnu_", r"pnu_[A-Za-z0-9]{36}"),
    _rule("notion-token", "ntn_", r"ntn_[0-9]{11}[A-Za-z0-9]{35}"),
    _rule("notion-token", "secret_", r"secret_[A-Za-z0-9]{43}" + _END),
    _rule("readme-api-key", "rdme_", r"rdme_[a-z0-9]{70}"),
    _rule("onepassword-token", "ops_eyJ", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    _rule("artifactory-key", "AKCp", r"AKCp[A-Za-z0-9]{69}"),
    _rule("alibaba-access-key", "LTAI", r"LTAI[A-Za-z0-9]{20}" + _END),
    _rule("heroku-api-key", "HRKU-AA", r"HRKU-AA[A-Za-z0-9_-]{58}"),
    _rule("flutterwave-key", "FLWSECK", r"FLWSECK(?:_TEST)?-[A-Za-z0-9]{32}-X"),
    _rule("infracost-key", "ico-", r"ico-[A-Za-z0-9]{32}" + _END),
    _rule("openshift-token", "sha256~", r"sha256~[A-Za-z0-9_-]{43}"),
    _rule("mailgun-key", "key-", r"key-[0-9a-f]{32}" + _END),
    _rule("clojars-token", "CLOJARS_", r"CLOJARS_[a-z0-9]{60}"),
    _rule("dynatrace-token", "dt0c01.", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    _rule("easypost-key", "EZAK EZTK", r"EZ[AT]K[A-Za-z0-9]{54}"),
    _rule("flyio-token", "fo1_ fm1a_ fm1r_ fm2_", r"f(?:o1_[A-Za-z0-9_-]{43}|m(?:1[ar]|2)_"
          r"[A-Za-z0-9+/]{100,}={0,3})"),
    _rule("frameio-token", "fio-u-", r"fio-u-[A-Za-z0-9_=-]{64}"),
    _rule("harness-token", "pat. sat.", r"[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\."
          r"[A-Za-z0-9]{20}"),
    _rule("scalingo-token", "tk-us-", r"tk-us-[A-Za-z0-9_-]{48}"),
    _rule("duffel-token", "duffel_test_ duffel_live_", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    _rule("shippo-token", "shippo_live_ shippo_test_", r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    _rule("cloudflare-origin-key", "v1.0-", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    _rule("password-hash", "$1$ $2a$ $2b$ $2x$ $2y$ $5$ $6$ $7$ $y$ $gy$ $apr1$ $argon2 "
          "$pbkdf2 $scrypt$ $sha1$", r"\$(?:1|2[abxy]|5|6|7|y|gy|apr1|argon2(?:id|i|d)|"
          r"pbkdf2(?:-sha\d+)?|scrypt|sha1)\$[./A-Za-z0-9$=,+-]{8,}", r"[A-Za-z0-9$]"),
)

#: The few tokens found by a marker inside them: ``marker: (kind, characters the token has
#: before the marker, pattern)``; the pattern is matched from where those characters start.
MARKED_RULES: dict[str, tuple[str, str, re.Pattern[str]]] = {
    ":AA": ("telegram-bot-token", "0123456789",
            lazy_regex(r"\d{5,16}:AA[A-Za-z0-9_-]{30,40}" + _END)),
    "Q~": ("azure-client-secret", ALNUM_CHARS + "_~.",
           lazy_regex(r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}")),
    ".atlasv1.": ("terraform-token", "abcdefghijklmnopqrstuvwxyz0123456789",
                  lazy_regex(r"[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}")),
    "-us": ("mailchimp-key", "0123456789abcdef", lazy_regex(r"[0-9a-f]{32}-us\d{1,2}" + _END)),
}
