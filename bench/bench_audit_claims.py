"""``audit --claims`` throughput: a large agent report checked against a synthetic repository.

Measures, interleaved over ``--runs`` rounds in one process:
- floor: ``load_document`` + ``audit_claims`` (walk, locate, read each file once, match);
- least work: the same citations matched by ``logic.evidence_match`` alone, on file texts already
  in memory, each file prepared for matching once (no walk, no path checks, no reads);
- per citation: the same, preparing the file text for every citation (what each check cost
  before reads were prepared once per file);
- task: building the ``--deep`` prompt for the same checks (``logic.verify.verify_task``).
Prints medians and the ratios of the floor to both baselines. Run: ``.venv/bin/python bench/bench_audit_claims.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from claimgraph.core.audit_document import audit_claims, load_document  # noqa: E402
from claimgraph.logic import evidence_match as P  # noqa: E402
from claimgraph.logic.verify import verify_task  # noqa: E402


def make_repo(root: Path, files: int, lines: int) -> dict[str, str]:
    texts = {}
    for f in range(files):
        body = "\n".join(f"def func_{f}_{i}(arg_{i}):\n    return helper_call(arg_{i}, {i})"
                         for i in range(lines))
        path = root / "pkg" / f"mod_{f}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        texts[f"pkg/mod_{f}.py"] = body
    return texts


def make_report(claims: int, files: int, lines: int) -> dict:
    findings = []
    for c in range(claims):
        f, i = c % files, c % lines
        real = f"pkg/mod_{f}.py: `def func_{f}_{i}(arg_{i}):` calls helper_call"
        made_up = f"pkg/mod_{f}.py: `retry_forever_{c}(conn)` wraps func_{f}_{i}"
        findings.append({"title": f"finding {c}", "severity": "low",
                         "details": {"area": "pkg"}, "evidence": [real, made_up]})
    return {"summary": "synthetic review", "findings": findings}


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=5000)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        texts = make_repo(root, args.files, args.lines)
        report_path = root / "report.json"
        report_path.write_text(json.dumps(make_report(args.claims, args.files, args.lines)))
        citations = [e for item in json.loads(report_path.read_text())["findings"]
                     for e in item["evidence"]]

        def floor() -> dict:
            return audit_claims(load_document(report_path), root)

        def least_work() -> None:
            prepared = {file: P.searchable(text) for file, text in texts.items()}
            for evidence in citations:
                parsed = P.parse_evidence(evidence)
                P.match_evidence(parsed, texts[parsed["file"]], prepared[parsed["file"]])

        def per_citation() -> None:
            for evidence in citations:
                parsed = P.parse_evidence(evidence)
                P.match_evidence(parsed, texts[parsed["file"]])

        checks = floor()["checks"]
        runs: dict[str, list[float]] = {"floor": [], "least": [], "per": [], "task": []}
        for _ in range(args.runs):
            runs["floor"].append(timed(floor))
            runs["least"].append(timed(least_work))
            runs["per"].append(timed(per_citation))
            runs["task"].append(timed(lambda: verify_task(checks, texts)))
    f, least, per, task = (statistics.median(runs[k]) for k in ("floor", "least", "per", "task"))
    print(f"{len(citations)} citations in {args.claims} claims over {args.files} files "
          f"({args.runs} runs, medians)")
    print(f"audit_claims       {f * 1000:8.1f} ms  ({len(citations) / f:,.0f} citations/s)")
    print(f"matcher, each file prepared once (least work) {least * 1000:8.1f} ms")
    print(f"matcher, file prepared per citation           {per * 1000:8.1f} ms")
    print(f"ratio audit_claims / least work   {f / least:.2f}")
    print(f"ratio audit_claims / per citation {f / per:.2f}")
    print(f"deep task build    {task * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
