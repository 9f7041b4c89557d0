"""The model judge and episode summaries, pure: prompts, reply parsing, plans, verdict refs.

A model reply is untrusted text (docs/model-calls.md): it is read leniently (a JSON line, else any
balanced object in the text, within fixed caps) and anything unreadable becomes the
``unparseable`` verdict, which nothing acts on. A contradiction is never planned for
automation: only a human picks the side that wins. Verdicts are remembered as episode refs
(``verdict:<a>+<b>=<relation>@<conf>``) so the store itself says which pairs are paid for.
"""

from __future__ import annotations

import json
import math
from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any, Iterator, Mapping, Sequence

from claimgraph.logic.briefing_lines import statement
from claimgraph.logic.names import object_name
from claimgraph.logic.timeutil import to_iso

Fact = Mapping[str, Any]
RELATIONS = ("contradicts", "duplicate", "supersedes", "compatible")
UNPARSEABLE = "unparseable"
DEFAULT_MIN_CONFIDENCE = 0.8
SCAN_LIMIT_CHARS = 1024 * 1024
SCAN_MAX_OBJECTS = 64
MAX_SUMMARY_CHARS = 600
MAX_SUMMARY_FACTS = 100
_REF = lazy_regex(r"^verdict:([^+=@\s]+)\+([^+=@\s]+)=([a-z]+)@(\d+(?:\.\d+)?)$")

JUDGE_HEAD = """\
You judge whether two facts in a project's long-term memory conflict.
Fact A is the newer assertion; fact B is the established one.
Relations: "contradicts" (both cannot hold), "duplicate" (A says what B says), "supersedes" \
(A replaces B, which held until A), "compatible" (both can hold).
Reply with a single JSON object and nothing else: \
{"relation": "<one of the four>", "confidence": <0 to 1>, "rationale": "<one sentence>"}"""

SUMMARY_HEAD = """\
Summarize this episode of a project's long-term memory in 1 to 3 plain sentences. Lead with \
the decisions and preferences it records, then what else it established. No lists, no \
markdown, no preamble."""


# --- the judge ----------------------------------------------------------------------------

def fact_summary(fact: Fact) -> dict[str, Any]:
    """The fields the model sees: enough to weigh the two, nothing it could act on."""
    return {"id": fact.get("id"), "subject": (fact.get("subject") or {}).get("name"),
            "predicate": fact.get("predicate"), "object": object_name(fact),
            "epistemic": fact.get("epistemic"), "source-type": fact.get("source_type"),
            "scope": fact.get("scope"), "confidence": fact.get("confidence"),
            "recorded-at": to_iso(fact.get("recorded_at"))}


def judge_prompt(fact_a: Fact, fact_b: Fact, pred_rows: Mapping[str, Mapping[str, Any]]) -> str:
    """The judge's prompt: the relations, each predicate's definition, both facts as JSON."""
    preds = sorted({str(fact_a.get("predicate")), str(fact_b.get("predicate"))})
    defs = [f"  {p} — {(pred_rows.get(p) or {}).get('definition') or '(no definition)'}"
            for p in preds]
    return "\n".join([JUDGE_HEAD, "", "Predicates:", *defs, "",
                      "Fact A: " + json.dumps(fact_summary(fact_a), ensure_ascii=False),
                      "Fact B: " + json.dumps(fact_summary(fact_b), ensure_ascii=False), ""])


def parse_verdict(text: str) -> dict[str, Any]:
    """The first object naming a known relation: JSON lines first, then a brace scan."""
    for line in text.splitlines():
        verdict = _as_verdict(_loads(line.strip()))
        if verdict:
            return verdict
    head = text[:SCAN_LIMIT_CHARS]
    for quote_aware in (True, False):
        for chunk in _balanced_objects(head, quote_aware):
            verdict = _as_verdict(_loads(chunk))
            if verdict:
                return verdict
    return {"relation": UNPARSEABLE, "confidence": 0.0, "rationale": ""}


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _as_verdict(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    relation = str(value.get("relation") or "").strip().lstrip(":").lower()
    if relation not in RELATIONS:
        return None
    rationale = value.get("rationale")
    return {"relation": relation, "confidence": clamp_confidence(value.get("confidence")),
            "rationale": " ".join(rationale.split()) if isinstance(rationale, str) else ""}


def clamp_confidence(value: Any) -> float:
    """Into [0, 1]; anything but a finite number is 0.0 (the model gave no confidence)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return min(1.0, max(0.0, float(value))) if math.isfinite(value) else 0.0


def _balanced_objects(text: str, quote_aware: bool) -> Iterator[str]:
    """Outermost ``{…}`` spans, at most SCAN_MAX_OBJECTS; quote-aware skips braces in strings."""
    depth, start, found, in_string, escaped = 0, 0, 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if quote_aware and ch == '"' and depth:
            in_string = True
        elif ch == "{":
            start, depth = (i if depth == 0 else start), depth + 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                yield text[start:i + 1]
                found += 1
                if found >= SCAN_MAX_OBJECTS:
                    return


def resolution_plan(pair: Mapping[str, Fact], verdict: Mapping[str, Any],
                    min_conf: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
    """What the verdict would do to the pair (the newer ``fact`` and the older ``candidate``)."""
    fact, candidate = pair["fact"], pair["candidate"]
    relation = verdict.get("relation")
    if relation == "contradicts":
        return {"action": "none", "reason": "needs-human"}
    if relation not in RELATIONS:
        return {"action": "none", "reason": UNPARSEABLE}
    if clamp_confidence(verdict.get("confidence")) < min_conf:
        return {"action": "none", "reason": "low-confidence"}
    if relation == "duplicate":
        return {"action": "invalidate", "fact": fact["id"], "kind": "judged-duplicate",
                "successor": candidate["id"], "reason": f"judged duplicate of {candidate['id']}"}
    if relation == "supersedes":
        return {"action": "invalidate", "fact": candidate["id"], "kind": "judged-superseded",
                "successor": fact["id"], "reason": f"judged superseded by {fact['id']}"}
    return {"action": "unlink", "fact": fact["id"], "candidate": candidate["id"]}


# --- verdict records ----------------------------------------------------------------------

def verdict_ref(a_id: str, b_id: str, relation: str, conf: float) -> str:
    """Ids sorted, so the pair has one ref whichever side holds the link."""
    low, high = sorted((a_id, b_id))
    return f"verdict:{low}+{high}={relation}@{clamp_confidence(conf):.2f}"


def parse_verdict_ref(ref: str | None) -> tuple[frozenset[str], dict[str, Any]] | None:
    """(pair, {relation, confidence}) from a verdict ref; None for any other ref."""
    match = _REF.match(ref or "")
    if not match or match.group(3) not in RELATIONS:
        return None
    pair = frozenset((match.group(1), match.group(2)))
    return pair, {"relation": match.group(3), "confidence": float(match.group(4))}


def recorded_verdicts(
        episodes: Sequence[Mapping[str, Any]]) -> dict[frozenset[str], dict[str, Any]]:
    """Every pair some curation episode records a verdict for."""
    found = {}
    for episode in episodes:
        if episode.get("source_type") == "curation":
            parsed = parse_verdict_ref(episode.get("ref"))
            if parsed:
                found[parsed[0]] = parsed[1]
    return found


def verdict_summary(pair: Mapping[str, Fact], verdict: Mapping[str, Any]) -> str:
    return (f"judged {verdict['relation']} ({clamp_confidence(verdict['confidence']):.2f}): "
            f"{statement(pair['fact'])} vs {statement(pair['candidate'])} — "
            f"{verdict.get('rationale') or 'no rationale given'}")


# --- episode summaries --------------------------------------------------------------------

def summary_prompt(episode: Mapping[str, Any], facts: Sequence[Fact]) -> str:
    """The episode's facts as statements (capped at MAX_SUMMARY_FACTS); the model leads with
    its decisions and preferences, as the instructions ask."""
    lines = [f"- {statement(f)}" for f in facts[:MAX_SUMMARY_FACTS]]
    if len(facts) > MAX_SUMMARY_FACTS:
        lines.append(f"- … and {len(facts) - MAX_SUMMARY_FACTS} more")
    return "\n".join([SUMMARY_HEAD, "", f"Episode: {episode.get('source_type')} "
                      f"({episode.get('ref')})", "Facts:", *lines, ""])


def parse_summary(text: str) -> str | None:
    """Fences stripped, lines joined, capped at 600 characters with "…"; blank → None."""
    kept = [line.strip() for line in text.splitlines() if not line.strip().startswith("```")]
    joined = " ".join(" ".join(kept).split())
    if not joined:
        return None
    return joined if len(joined) <= MAX_SUMMARY_CHARS else joined[:MAX_SUMMARY_CHARS - 1] + "…"
