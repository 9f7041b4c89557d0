"""Issue 25: the generated corpus of secret shapes and look-alike public values, the real
fixture transcripts, and the vendored rule set.

The corpus is drawn from a fresh seed on every run (shown on failure): its shapes are fixed,
its bodies random, so a rule that matched one body by accident does not pass for long.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

from claimgraph.logic.redact import redact, redact_with_counts
from claimgraph.logic.redact.rules import LEFT_TO_OUR_LAYERS, load_data, vendor_rules

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tools"))
from secret_shapes import held_out, leaked, lookalikes, shapes  # noqa: E402
from vendor_gitleaks import convert, convert_rules  # noqa: E402

SEED = random.SystemRandom().randrange(1 << 30)
SHAPES = shapes(SEED)
CLASSES = ("url-password", "url-user-token", "webhook", "bare-name", "command", "code",
           "bare-token", "split", "wrapped", "prose", "line-numbered", "armour")


@pytest.mark.parametrize("index", range(len(SHAPES)),
                         ids=[f"{cls}-{i}" for i, (cls, _, _) in enumerate(SHAPES)])
def test_every_generated_secret_shape_is_redacted_and_stays_redacted(index):
    cls, secret, text = SHAPES[index]
    redacted = redact(text)
    assert not leaked(secret, redacted), f"seed {SEED}: {redacted!r}"
    assert redact(redacted) == redacted


def test_the_corpus_covers_every_class_issue_25_names():
    assert {cls for cls, _, _ in SHAPES} == set(CLASSES)
    assert len(SHAPES) >= 75


def test_at_most_two_percent_of_look_alike_public_values_are_altered():
    values = lookalikes(SEED)
    altered = [(cls, redact(text)) for cls, text in values if redact(text) != text]
    assert len(values) >= 75
    assert len(altered) <= 0.02 * len(values), altered


def test_the_once_blind_set_leaks_nothing_and_keeps_its_public_values():
    secrets, public = held_out(SEED)
    assert [(cls, redact(text)) for cls, secret, text in secrets
            if leaked(secret, redact(text))] == [], SEED
    assert [text for _, text in public if redact(text) != text] == []


def test_the_whole_corpus_in_one_text_leaks_nothing():
    document = "\n\n".join(text for _, _, text in SHAPES)
    redacted = redact(document)
    assert [cls for cls, secret, _ in SHAPES if leaked(secret, redacted)] == [], SEED


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_the_real_fixture_transcripts_hold_no_secret_and_nothing_in_them_is_redacted():
    """Every string of every recorded session (Claude Code, Codex, Gemini): none is a secret
    (each redaction the old redactor made there was reviewed: zod schemas, "a single pass of",
    ``your-url``, a CSRF meta tag, a Phoenix test config's self-declared test key)."""
    changed = []
    paths = sorted((HERE.parents[0] / "fixtures" / "transcripts").rglob("*.json*"))
    assert len(paths) >= 3
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        rows = text.splitlines() if path.suffix == ".jsonl" else [text]
        for row in rows:
            try:
                strings = list(_strings(json.loads(row)))
            except ValueError:
                strings = [row]
            for string in strings:
                out, counts = redact_with_counts(string)
                if counts:
                    changed.append((path.name, dict(counts)))
    assert changed == []


# --- the vendored rule set ------------------------------------------------------------------

def test_the_vendored_rule_set_records_its_source_version_licence_and_counts():
    data = load_data()
    assert data["license"] == "MIT" and "Permission is hereby granted" in data["license_text"]
    assert data["version"].startswith("v8.") and len(data["commit"]) == 40
    counts = data["counts"]
    assert counts["kept"] + counts["skipped"] == counts["upstream"] >= 200
    assert counts["kept"] == len(data["rules"]) and counts["skipped"] == len(data["skipped"])
    assert all(re.compile(rule["regex"]) for rule in data["rules"])
    assert len(vendor_rules().rules) == counts["kept"] - len(
        LEFT_TO_OUR_LAYERS & {r["id"] for r in data["rules"]}) - sum(
        not r["keywords"] for r in data["rules"])
    assert all(len(keyword) >= 3 for keyword in vendor_rules().keywords)


@pytest.mark.parametrize(("go", "python"), [
    (r"\b(p8e-(?i)[a-z0-9]{32})", r"\b(p8e-(?i:[a-z0-9]{32}))"),
    (r"(?:\"(?i)A\"|'(?i)B')", r"(?:\"(?i:A\")|(?i:'B'))"),
    (r"x(?:\s|\z)", r"x(?:\s|\Z)"),
    (r"\b(pat[[:alnum:]]{14})", r"\b(pat[a-zA-Z0-9]{14})"),
    (r"(?i)abc(?i)def", r"(?i)abc(?:def)"),
])
def test_go_syntax_is_converted_to_python(go, python):
    assert convert(go) == python
    re.compile(python)


def test_a_rule_that_does_not_compile_is_skipped_and_counted():
    rules, skipped = convert_rules({"rules": [
        {"id": "ok", "regex": r"tok_[a-z]{10}", "keywords": ["tok_"]},
        {"id": "bad", "regex": r"\p{Greek}+(", "keywords": ["x"]},
        {"id": "path-only", "path": r"\.p12$"}]})
    assert [r["id"] for r in rules] == ["ok"]
    assert {s["id"] for s in skipped} == {"bad", "path-only"}


def test_vendored_rules_find_formats_our_own_rules_never_listed():
    """Formats we never wrote a rule for (Adobe, Typeform): the vendored set finds them by
    their keyword and format."""
    rng = random.Random(SEED)
    body = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(32))
    assert redact(f"adobe p8e-{body} here") == "adobe [REDACTED:adobe-client-secret] here"
    body = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(59))
    assert redact(f"typeform = tfp_{body}") == "typeform = [REDACTED:typeform-api-token]"
