#!/usr/bin/env python3
"""What the next agent is SHOWN of memory, judged line by line (issue 22).

``review.py`` judges every fact capture admits; the next agent reads only the SessionStart
block: a ranked, budgeted selection that hides the agent's own notes until corroborated. This
captures each repository's sessions of a named set into ONE throw-away store, in the order they
happened and each at the time it ended (as the hook would on a user's machine), compiles
``claimgraph context`` for every project the store holds at a fixed instant one minute after
the last session, maps each line of each block back to its stored fact, and the fact to its
verdict of record (``review.Verdicts``, keyed by transcript and the fact's review text
``subject | predicate | object``; a fact whose text several transcripts' captures admitted has a
verdict under each, and the worst is taken).

    python bench/memory/shown.py --out OUT [--src FROZEN/src] [--mine MINE.tsv] SET...
    # OUT/shown.json (for the lead) and OUT/shown.txt (the table and every non-K line)

SET as in ``score_sets.py`` (``dev``, ``open``, a set's name); a BLIND set is refused unless
``--allow-blind`` is given (the lead's final measurement only). ``--mine`` adds verdicts given
by this run's reader to lines nobody judged (same format; reported apart as ``mine``).

A repository is ``sessions.json``'s for the set's own transcripts, else the ``owner__name__``
prefix of the file name, else the first ``cwd`` the transcript records. The clock is moved, not
faked per call: each ``claimgraph`` process runs with ``time.time``/``time.time_ns`` shifted so
that it starts at the instant wanted (``LAUNCHER``), so capture records each session at its end
and decay is measured from there, as on the machine the sessions ran on. Capture runs with
``--no-curate`` (no shortlist is stored: the block is compiled live, as the hook does when no
stored shortlist holds) and the block is asked without ``--agent`` (the sessions' folders are
empty here, so no instruction file would be left out anyway). A project capture scoped by a
Windows folder (``C:/Users/…``) cannot be asked for by ``--cwd`` here: its block is asked with
the project's id set to that scope (``SHOWN_PROJECT_ID``, read by ``LAUNCHER`` only), as the hook
on that machine would name it. Facts under an ``unplaced:`` scope (a session that recorded no
folder) are in no block: no next session can be shown them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blocks import context_at_path, context_at_remote, first_stamp  # noqa: E402
from review import Verdicts, digest, read_lines  # noqa: E402
from score_sets import AGENTS, BLIND, HERE, ROOT, expand, locate  # noqa: E402

WORST = "DWNK"  # D is worst
TIERS = ("you said", "you asked, done", "seen", "a file", "agent's note", "from a teammate",
         "changed", "conflict")
MAX_OBJECT_CHARS = 300  # logic.briefing_lines.MAX_OBJECT_CHARS
LAUNCHER = """import sys, time
_target = int(sys.argv.pop(1)) / 1000.0
_time, _time_ns = time.time, time.time_ns
_offset = _target - _time()
time.time = lambda: _time() + _offset
time.time_ns = lambda: _time_ns() + int(_offset * 1e9)
sys.argv[0] = "claimgraph"
import os
_project = os.environ.get("SHOWN_PROJECT_ID")
if _project:  # a Windows folder the session ran in: the block of the id capture gave it
    import claimgraph.cli.briefing as _briefing
    _resolve = _briefing.resolve_project
    _briefing.resolve_project = lambda cwd, environ=None, **kw: _resolve(
        cwd, environ, **kw)._replace(id=_project, source="windows-path")
from claimgraph.cli.main import main
sys.exit(main())
"""
_STAMP = re.compile(r'"(?:timestamp|lastUpdated|startTime)"\s*:\s*"(\d{4}-\d\d-\d\dT[0-9:.]+Z?)')
_WINDOWS = re.compile(r"^[A-Za-z]:/")
_CWD = re.compile(r'"cwd"\s*:\s*"([^"]+)"')
_CHANGE = re.compile(r"^- (?P<head>.*): (?P<old>.*) → (?P<new>.*) "
                     r"\((?:(?P<tier>[^()]*), )?(?P<date>\d{4}-\d\d-\d\d)\)$")
_SIDE_TIER = re.compile(r" \([^()]*\)$")  # a contended value's " (TIER)"
_CONFLICT = re.compile(r"^- (?P<head>.*): (?P<n>\d+) claims in contention — (?P<objects>.*)$")


# --- pure: a dump's facts, their texts, and the block's lines mapped back to them ----------

def one_line(text: str, limit: int = MAX_OBJECT_CHARS) -> str:
    """As ``logic.briefing_lines.one_line``: whitespace collapsed, cut with an ellipsis."""
    collapsed = " ".join(str(text).split())
    return collapsed if len(collapsed) <= limit else collapsed[:limit - 1].rstrip() + "…"


def review_text(fact: dict[str, Any], names: dict[str, str]) -> str:
    """The fact as the gold scorer (and so every verdict of record) words it."""
    obj = fact.get("object_lit")
    if obj is None:
        obj = names.get(fact.get("object_ref") or "", fact.get("object_ref"))
    subject = names.get(fact.get("subject") or "", fact.get("subject"))
    return f"{subject} | {str(fact.get('predicate', '')).split('/')[-1]} | {obj}"


def heads(fact: dict[str, Any], names: dict[str, str]) -> list[str]:
    """``subject predicate`` as a block line may start: the predicate without its namespace
    (``core/`` and capture's own) or with it (any other namespace)."""
    subject = one_line(names.get(fact.get("subject") or "", "?") or "?")
    pred = str(fact.get("predicate") or "?")
    forms = [pred.split("/", 1)[-1], pred]
    return [f"{subject} {p}" for p in dict.fromkeys(forms)]


def object_text(fact: dict[str, Any], names: dict[str, str]) -> str:
    if fact.get("object_lit") is not None:
        return f'"{one_line(fact["object_lit"])}"'
    return one_line(names.get(fact.get("object_ref") or "", "?") or "?")


def statements(fact: dict[str, Any], names: dict[str, str]) -> list[str]:
    return [f"{h} {object_text(fact, names)}" for h in heads(fact, names)]


def tier_word(tier: str) -> str:
    """A line's tier as one of ``TIERS``: a cited file's path reads "a file"."""
    if tier in TIERS:
        return tier
    if tier.startswith("from "):
        return "from a teammate"
    return "a file"


def block_lines(text: str) -> list[tuple[str, str]]:
    """(section title, line) for every fact line of a block; "… N more" lines left out."""
    out, section = [], ""
    for line in text.splitlines():
        if line.startswith("### "):
            section = line[4:]
        elif line.startswith("- ") and section and not line.startswith("- … "):
            out.append((section, line))
    return out


def map_line(line: str, facts: list[dict[str, Any]], names: dict[str, str],
             taken: set[str] | frozenset[str] = frozenset()) -> tuple[list[str], str]:
    """The ids of the facts a block line shows, and its tier ("" when no fact matches).

    A ranked or standing line is ``- STATEMENT (TIER, TAIL)``: the longest statement it starts
    with wins, a fact no earlier line of the block (``taken``) showed first (two long objects
    cut to the same 300 characters give two equal lines). A change line names its new value
    (that fact is judged; "(no longer)" names none); a contention line, every valid fact of
    its slot whose object it lists."""
    best: tuple[int, bool, str, str] | None = None
    for fact in facts:
        for said in statements(fact, names):
            prefix = f"- {said} ("
            fresh = fact["id"] not in taken  # two facts cut to one text: one line each
            if line.startswith(prefix) and line.endswith(")") and (
                    best is None or (len(prefix), fresh) > best[:2]):
                rest = line[len(prefix):-1]
                best = (len(prefix), fresh, fact["id"], rest.rsplit(", ", 1)[0])
    if best is not None:
        return [best[2]], tier_word(best[3])
    twin = _twin(line, facts, names, taken)
    if twin is not None:
        return [twin[0]], tier_word(twin[1])
    change = _CHANGE.match(line)
    if change:  # its objects may hold ": " and " → " too: each valid fact's own words decide
        said = line[:change.start("tier" if change["tier"] else "date") - 2]
        ids = [f["id"] for f in facts if not f.get("t_invalid")
               and said.endswith(f" → {object_text(f, names)}")
               and any(line.startswith(f"- {h}: ") for h in heads(f, names))]
        return ids, tier_word(change["tier"]) if change["tier"] else "changed"
    conflict = _CONFLICT.match(line)
    if conflict:
        listed = {_SIDE_TIER.sub("", o) for o in conflict["objects"].split(" / ")}
        ids = [f["id"] for f in facts if not f.get("t_invalid")
               and conflict["head"] in heads(f, names) and object_text(f, names) in listed]
        return ids, "conflict"
    return [], ""


def _twin(line: str, facts: list[dict[str, Any]], names: dict[str, str],
          taken: set[str] | frozenset[str]) -> tuple[str, str] | None:
    """(id, tier) of the fact a line cut where it parts from a twin shows
    (``logic.briefing_lines.cut_apart``: ``"START … FROM WHERE IT PARTS"``), or None."""
    found = re.match(r'^- (?P<said>.*?) "(?P<start>.*?) … (?P<rest>.*?)…?" \((?P<tail>.*)\)$',
                     line)
    if found is None:
        return None
    for fact in sorted(facts, key=lambda f: f["id"] in taken):
        text = " ".join(str(fact.get("object_lit") or "").split())
        if (text.startswith(found["start"]) and found["rest"] in text
                and found["said"] in heads(fact, names)):
            return fact["id"], found["tail"].rsplit(", ", 1)[0]
    return None


def worst(found: list[str]) -> str | None:
    """The worst of several verdicts (D, then W, N, K); None when there is none."""
    for kind in WORST:
        if kind in found:
            return kind
    return None


def judge(texts: list[str], transcripts: list[str], known: Verdicts,
          mine: Verdicts | None = None) -> tuple[str, list[str], bool]:
    """(verdict or "?", the transcripts a verdict was found under, whether it is this run's
    reader's): the worst verdict of record over every transcript of the repository whose
    capture admitted that text; the reader's own only when none of record exists."""
    found, under = [], []
    for text in texts:
        for transcript in transcripts:
            verdict = known.get(transcript, text)
            if verdict:
                found.append(verdict)
                under.append(transcript)
    if found:
        return worst(found) or "?", under, False
    if mine is not None:
        own = [v for text in texts for t in transcripts if (v := mine.get(t, text))]
        if own:
            return worst(own) or "?", [], True
    return "?", [], False


def tally(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of shown lines by verdict, and by tier then verdict."""
    by_tier: dict[str, Counter] = {}
    for line in lines:
        by_tier.setdefault(line["tier"] or "unmapped", Counter())[line["verdict"]] += 1
    verdicts = Counter(line["verdict"] for line in lines)
    return {"shown": len(lines), "verdicts": dict(verdicts),
            "mine": sum(1 for line in lines if line["mine"]),
            "by_tier": {t: dict(c) for t, c in sorted(by_tier.items())}}


# --- plumbing: capture one repository's sessions into one store, ask for its blocks -------

def stamps(path: Path) -> tuple[str, str]:
    """(first, last) timestamp a transcript records, ISO text ("" when it records none)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    found = _STAMP.findall(text)
    first = first_stamp(path) or (found[0] if found else "")
    return first, max(found) if found else first


def epoch_ms(iso: str) -> int:
    """Milliseconds since the epoch of an ISO stamp (UTC when it names no zone)."""
    day, _, frac = iso.rstrip("Z").partition(".")
    stamp = datetime.fromisoformat(f"{day}.{frac[:6]}" if frac else day)
    return int(stamp.replace(tzinfo=stamp.tzinfo or timezone.utc).timestamp() * 1000)


def repository_of(path: Path, rel: str, listed: dict[str, str]) -> str:
    """The repository a transcript's sessions worked in (see the module's docstring)."""
    if rel in listed:
        return listed[rel]
    parts = path.name.split("__")
    if len(parts) >= 3:
        return f"{parts[0]}/{parts[1]}"
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            found = _CWD.search(line)
            if found:
                return found[1]
    return path.name


def listed_repositories(name: str) -> dict[str, str]:
    """The repository ``sessions.json`` names for each transcript of the set (by ``rel``)."""
    manifest = HERE / "sessions.json"
    if not manifest.is_file():
        return {}
    prefix = f"gold-{name}/sessions/"
    return {row["file"][len(prefix):]: row["repository"]
            for row in json.loads(manifest.read_text(encoding="utf-8"))
            if row["file"].startswith(prefix)}


def capture_repository(python: str, src: Path, paths: list[Path]) -> dict[str, Any]:
    """Every session captured in order into one store, then each project's block."""
    with tempfile.TemporaryDirectory(prefix="shown-", ignore_cleanup_errors=True) as tmp:
        launcher = Path(tmp) / "launch.py"
        launcher.write_text(LAUNCHER, encoding="utf-8")
        env = dict(os.environ, HOME=tmp, XDG_DATA_HOME=f"{tmp}/data",
                   XDG_CONFIG_HOME=f"{tmp}/config", XDG_STATE_HOME=f"{tmp}/state",
                   CLAIMGRAPH_DB=f"{tmp}/db/claims.db", PYTHONPATH=str(src))
        os.makedirs(f"{tmp}/db")
        at, order = 0, []
        for path in sorted(paths, key=lambda p: stamps(p)[0]):
            _first, last = stamps(path)
            at = max(at, epoch_ms(last) + 60_000 if last else at)
            command = [python, str(launcher), str(at or _now_ms())]
            agent = AGENTS.get(path.parent.name, "claude-code")
            subprocess.run([*command, "capture", str(path), "--agent", agent, "--no-curate"],
                           env=env, capture_output=True, text=True, timeout=900, check=True)
            order.append({"transcript": path.name, "first": _first, "captured_at": at})
        now = at + 60_000 if at else _now_ms()
        command = [python, str(launcher), str(now)]
        dump = [json.loads(line) for line in subprocess.run(
            [*command, "dump"], env=env, capture_output=True, text=True, timeout=300,
            check=True).stdout.splitlines() if line.strip()]
        scopes = sorted({r.get("scope") for r in dump if r.get("record") == "fact"
                         and r.get("scope") not in (None, "user")})
        blocks = {}
        for scope in scopes:
            if scope.startswith("/"):
                blocks[scope] = context_at_path(command, env, scope)
            elif "/" in scope and not scope.startswith("unplaced:") and ":" not in scope:
                blocks[scope] = context_at_remote(command, env, scope, tmp)
            elif _WINDOWS.match(scope):
                blocks[scope] = subprocess.run(
                    [*command, "context", "--cwd", tmp], env={**env, "SHOWN_PROJECT_ID": scope},
                    capture_output=True, text=True, timeout=300).stdout
        return {"order": order, "now": now, "dump": dump, "blocks": blocks}


def _now_ms() -> int:
    return int(datetime.now().timestamp() * 1000)


# --- the report ------------------------------------------------------------------------------

def measure_repository(captured: dict[str, Any], transcripts: list[str], known: Verdicts,
                       mine: Verdicts | None, admitted: dict[str, set[str]]) -> dict[str, Any]:
    """Each block's lines with fact, tier and verdict; the valid facts no block shows."""
    dump = captured["dump"]
    names = {r["id"]: r.get("name", "") for r in dump if r.get("record") == "entity"}
    facts = [r for r in dump if r.get("record") == "fact"]
    by_id = {f["id"]: f for f in facts}
    shown_ids: set[str] = set()
    blocks = []
    last_start = max((o["first"] for o in captured["order"]), default="")
    for scope, text in captured["blocks"].items():
        lines = []
        taken: set[str] = set()
        for section, line in block_lines(text):
            ids, tier = map_line(line, facts, names, taken)
            taken.update(ids)
            shown_ids.update(ids)
            texts = [review_text(by_id[i], names) for i in ids]
            verdict, under, own = judge(texts, transcripts, known, mine)
            lines.append({"section": section, "line": line, "tier": tier, "facts": ids,
                          "texts": texts, "verdict": verdict if ids else "unmapped",
                          "under": under, "mine": own, "scope": by_id[ids[0]]["scope"]
                          if ids else None, "admitted_by": sorted(
                              {t for t in transcripts for x in texts if x in admitted.get(t, ())}),
                          "t_valid": min((by_id[i].get("t_valid") or "" for i in ids),
                                         default=None),
                          "evidence": [e for i in ids for e in by_id[i].get("evidence", [])][:3],
                          "earlier_session": bool(ids) and all(
                              (by_id[i].get("t_valid") or "") < last_start for i in ids)})
        asked = ("windows-id" if _WINDOWS.match(scope) else "path" if scope.startswith("/")
                 else "remote")
        blocks.append({"project": scope, "asked_as": asked, "text": text, "lines": lines,
                       **tally(lines)})
    hidden, replaced = [], []
    asked = set(captured["blocks"]) | {"user"}
    for fact in facts:
        if fact["id"] in shown_ids:
            continue
        text = review_text(fact, names)
        verdict, _under, own = judge([text], transcripts, known, mine)
        row = {"text": text, "verdict": verdict, "mine": own,
               "source_type": fact.get("source_type"), "scope": fact.get("scope"),
               "dormant": fact.get("dormant_since") is not None,
               "no_block": fact.get("scope") not in asked}
        (replaced if fact.get("t_invalid") else hidden).append(row)
    return {"blocks": blocks, "hidden": hidden, "replaced": replaced,
            "order": captured["order"], "now": captured["now"]}


def admitted_texts(base: Path | None, name: str) -> dict[str, set[str]]:
    """transcript -> the fact texts its own capture admitted (``score_sets.py`` output)."""
    path = base / f"{name}.json" if base else None
    if path is None or not path.is_file():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {i["transcript"]: {f["text"] for f in i["facts"]} for i in doc["per_transcript"]}


def run_set(name: str, python: str, src: Path, known: Verdicts, mine: Verdicts | None,
            base: Path | None, jobs: int) -> dict[str, Any]:
    gold_dir, folder = locate(name)
    listed = listed_repositories(name)
    groups: dict[str, list[str]] = {}
    for gold in sorted(gold_dir.glob("*.gold.json")):
        rel = json.loads(gold.read_text(encoding="utf-8"))["transcript"]
        groups.setdefault(repository_of(folder / rel, rel, listed), []).append(rel)
    alone = admitted_texts(base, name)

    def one(item: tuple[str, list[str]]) -> dict[str, Any]:
        repo, rels = item
        captured = capture_repository(python, src, [folder / r for r in rels])
        admitted = {r: alone.get(r, set()) for r in rels}
        return {"repository": repo, "transcripts": rels,
                **measure_repository(captured, rels, known, mine, admitted)}

    with ThreadPoolExecutor(jobs) as pool:
        repos = list(pool.map(one, sorted(groups.items())))
    lines = [line for r in repos for b in r["blocks"] for line in b["lines"]]
    hidden = [h for r in repos for h in r["hidden"]]
    replaced = [h for r in repos for h in r.get("replaced", [])]
    return {"set": name, "src": str(src), **tally(lines),
            "hidden": {"facts": len(hidden), "verdicts": dict(Counter(h["verdict"]
                                                                     for h in hidden)),
                       "no_block": sum(h["no_block"] for h in hidden),
                       "agent_sources": sum(h["source_type"] in ("agent-note", "inferred")
                                            for h in hidden)},
            "replaced": {"facts": len(replaced), "verdicts": dict(Counter(
                h["verdict"] for h in replaced))},
            "windows_lines": sum(len(b["lines"]) for r in repos for b in r["blocks"]
                                 if b["asked_as"] == "windows-id"),
            "not_admitted_alone": sum(1 for line in lines
                                      if line["texts"] and not line["admitted_by"]),
            "repositories": repos}


def table(results: list[dict[str, Any]]) -> str:
    """The short text report: per set and in total, then every non-K shown line."""
    kinds = ("K", "N", "W", "D", "?", "unmapped")
    cells = " ".join(f"{k:>4}" for k in kinds[:5])
    head = f"{'set':14} {'lines':>5} {cells} {'unmap':>5} {'mine':>4} | {'hidden':>6} {cells}"
    out = [head]
    total: Counter = Counter()
    hidden_total: Counter = Counter()
    tiers: dict[str, Counter] = {}
    n_lines = n_hidden = n_mine = 0
    for r in results:
        v, h = Counter(r["verdicts"]), Counter(r["hidden"]["verdicts"])
        total += v
        hidden_total += h
        n_lines += r["shown"]
        n_hidden += r["hidden"]["facts"]
        n_mine += r["mine"]
        for tier, counts in r["by_tier"].items():
            tiers.setdefault(tier, Counter()).update(counts)
        out.append(f"{r['set']:14} {r['shown']:>5} " + " ".join(f"{v[k]:>4}" for k in kinds[:5])
                   + f" {v['unmapped']:>5} {r['mine']:>4} | {r['hidden']['facts']:>6} "
                   + " ".join(f"{h[k]:>4}" for k in kinds[:5]))
    out.append(f"{'TOTAL':14} {n_lines:>5} " + " ".join(f"{total[k]:>4}" for k in kinds[:5])
               + f" {total['unmapped']:>5} {n_mine:>4} | {n_hidden:>6} "
               + " ".join(f"{hidden_total[k]:>4}" for k in kinds[:5]))
    out += ["", "hidden = valid facts no block shows (of them: agent's notes; in a scope no "
            "block is asked for); replaced = facts a later session of the store invalidated; "
            "unadmitted = shown lines no single transcript's capture admitted:"]
    for r in results:
        rep = Counter(r.get("replaced", {}).get("verdicts", {}))
        out.append(f"  {r['set']:14} hidden {r['hidden']['facts']:>3} (agent "
                   f"{r['hidden'].get('agent_sources', 0):>3}, no block "
                   f"{r['hidden'].get('no_block', 0):>3})  replaced "
                   f"{r.get('replaced', {}).get('facts', 0):>3} ("
                   + " ".join(f"{k} {rep[k]}" for k in kinds[:5])
                   + f")  unadmitted {r.get('not_admitted_alone', 0)}"
                   + f"  windows-id lines {r.get('windows_lines', 0)}")
    out += ["", "shown lines by tier:"]
    for tier, counts in sorted(tiers.items(), key=lambda kv: -sum(kv[1].values())):
        out.append(f"  {tier:22} {sum(counts.values()):>5} "
                   + " ".join(f"{k} {counts[k]:>3}" for k in kinds))
    out += ["", "every shown line that is not K (verdict, set, repository, tier, line):"]
    for r in results:
        for repo in r["repositories"]:
            for block in repo["blocks"]:
                for line in block["lines"]:
                    if line["verdict"] != "K":
                        mark = "*" if line["mine"] else " "
                        out.append(f"{line['verdict']}{mark} {r['set']:12} {repo['repository']:30}"
                                   f" [{line['tier']}] {line['line'][:220]}")
    out.append("(* = this run's reader's verdict, none of record)")
    out += ["", "state lines learned before the repository's last session began (verdicts of "
            "record judge one session: read these for staleness):"]
    for r in results:
        for repo in r["repositories"]:
            for block in repo["blocks"]:
                for line in block["lines"]:
                    if line.get("earlier_session") and any(
                            " | state | " in t for t in line["texts"]):
                        out.append(f"{line['verdict']}  {r['set']:12} {repo['repository']:30} "
                                   f"{line['line'][:200]}")
    return "\n".join(out) + "\n"


def unread(results: list[dict[str, Any]]) -> list[str]:
    """Shown lines nobody judged, as verdict lines to fill in (one per transcript)."""
    rows = []
    for r in results:
        for repo in r["repositories"]:
            for block in repo["blocks"]:
                for line in block["lines"]:
                    if line["verdict"] == "?":
                        where = line["admitted_by"] or repo["transcripts"][-1:]
                        for text in line["texts"]:
                            rows.append(f"?\t{where[0]}\t"
                                        f"{text[:160].replace(chr(9), ' ')}\t{digest(text)}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--src", type=Path, help="a frozen src/ to run instead of this tree's")
    parser.add_argument("--verdicts", type=Path, action="append",
                        help="verdict files of record (default: reviews/verdicts-open.tsv)")
    parser.add_argument("--mine", type=Path, help="this reader's verdicts for unjudged lines")
    parser.add_argument("--base", type=Path,
                        help="score_sets.py outputs of the same build: flags shown facts no "
                             "single transcript's capture admitted")
    parser.add_argument("--allow-blind", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    refused = [] if args.allow_blind else [s for s in args.sets if s == "blind" or s in BLIND]
    names = expand([s for s in args.sets if s not in refused])  # a refused set is never read
    if refused:
        print(f"refusing BLIND sets {refused} (only with --allow-blind)", file=sys.stderr)
        if not names:
            return 2
    rows = [r for p in (args.verdicts or [HERE / "reviews" / "verdicts-open.tsv"])
            for r in read_lines(p)]
    known = Verdicts(rows)
    mine = Verdicts(read_lines(args.mine)) if args.mine else None
    src = (args.src or ROOT / "src").resolve()
    python = str(ROOT / ".venv" / "bin" / "python")
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for name in names:
        results.append(run_set(name, python, src, known, mine, args.base, args.jobs))
        (args.out / f"{name}.json").write_text(json.dumps(results[-1], indent=1),
                                               encoding="utf-8")
        print(f"{name}: {results[-1]['shown']} lines shown, {results[-1]['verdicts']}",
              flush=True)
    (args.out / "shown.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    report = table(results)
    (args.out / "shown.txt").write_text(report, encoding="utf-8")
    (args.out / "unread.tsv").write_text("".join(r + "\n" for r in unread(results)),
                                         encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
