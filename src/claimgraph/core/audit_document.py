"""Claim-vs-evidence over ANY JSON document: an agent's plan, review or report, before trusting it.

``logic.claims`` finds every object carrying ``evidence``; each citation is then judged exactly
as the fact audit judges a fact's (``core.audit.check_citation``: the same path refusals, the
same reads, the same verdicts), against ``base``, the repository the document talks about
(default: the project root of the current directory). Nothing here opens the store: checking
a document needs no memory, so it works on a machine where claimgraph never captured a thing,
e.g. as a pre-commit hook.

``deep=True`` adds the model's verdicts (``core.verify_claims``). The report is
``{document, base, claims, summary, checks[, deep]}``; ``summary`` is
``logic.evidence_match.summarize`` of the checks, the fact audit's banner.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any, Mapping

from claimgraph.core.audit import FileReads, audit_root, check_citation, too_wide
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import evidence_match as P
from claimgraph.logic.claims import extract_claims
from claimgraph.model_command import UsageLog, log_to_stdlib

#: A document bigger than this is refused rather than parsed into memory.
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024
STDIN_NAME = "-"


def load_document(source: str | os.PathLike[str], stdin: IO[bytes] | None = None) -> Any:
    """The parsed JSON of a file (``-``: standard input); a one-line error when it is not JSON."""
    name = os.fspath(source)
    data = _read_bytes(name, stdin)
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise _not_json(name, f"it is not UTF-8 text (byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise _not_json(name, f"{err.msg} at line {err.lineno} column {err.colno}") from None
    except RecursionError:
        raise _not_json(name, "it is nested too deeply to parse") from None


def _read_bytes(name: str, stdin: IO[bytes] | None) -> bytes:
    try:
        if name == STDIN_NAME:
            data = (stdin or sys.stdin.buffer).read(MAX_DOCUMENT_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as err:
        raise ClaimgraphError("claims-unreadable", f"cannot read the claims document {name}: "
                              f"{err.strerror or err}", hint="pass a JSON file that exists, "
                              "or - to read standard input", path=name) from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ClaimgraphError("claims-too-large", f"the claims document {name} is over "
                              f"{MAX_DOCUMENT_BYTES // (1024 * 1024)} MB",
                              hint="check the part of it that carries evidence", path=name)
    return data


def _not_json(name: str, why: str) -> ClaimgraphError:
    return ClaimgraphError("claims-not-json", f"the claims document {name} is not valid JSON: "
                           f"{why}", hint="pass the JSON document whose objects carry "
                           "\"evidence\" (an agent's plan or report)", path=name)


def document_root(base: str | os.PathLike[str] | None,
                  environ: Mapping[str, str] | None = None) -> Path | None:
    """``base``, else the project root of the current directory (its git top level, or a
    directory with a project marker); None when there is no real project there, and never
    ``/`` or the home directory (the fact audit's rule: ``core.audit.audit_root``)."""
    environ = os.environ if environ is None else environ
    if base is None:
        return audit_root(os.getcwd(), environ)
    root = Path(base).resolve()
    if not root.is_dir():
        raise ClaimgraphError("base-not-a-directory", f"--base {base} is not a directory",
                              hint="pass the root of the repository the document cites",
                              base=str(base))
    if too_wide(root, environ):
        raise ClaimgraphError(
            "audit-root-refused", f"{root} cannot be an audit's project root: every file "
            "under it would count as the project's", hint="pass --base the project directory "
            "itself (its git root, or where its pyproject.toml or package.json is)",
            base=str(root))
    return root


def check_document(document: Any, root: Path | None, reads: FileReads | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the claims, one check per evidence string), each check numbered by ``id`` from 0."""
    reads = reads or FileReads()
    claims = extract_claims(document)
    checks: list[dict[str, Any]] = []
    for claim in claims:
        for evidence in claim["evidence"]:
            checks.append({"id": len(checks), "label": claim["label"],
                           "json_path": claim["json_path"],
                           **check_citation(evidence, root, reads)})
    return claims, checks


def audit_claims(document: Any, base: str | os.PathLike[str] | None = None, *,
                 deep: bool = False, llm_cmd: str | None = None, timeout_ms: int | None = None,
                 environ: Mapping[str, str] | None = None, name: str | None = None,
                 on_usage: UsageLog = log_to_stdlib) -> dict[str, Any]:
    """Check every evidenced claim of a parsed JSON ``document`` against the files under
    ``base``; with ``deep``, ask the configured model command to refute them too.

    ``llm_cmd`` and ``timeout_ms`` default to the settings (``CLAIMGRAPH_LLM_CMD``,
    config.toml). Returns ``{document, base, claims, summary, checks[, deep]}``; a check is
    ``{id, label, json_path, evidence, file, quote, root, path, verdict, identifiers,
    code_spans, content_hash[, reason][, deep]}``. Raises ClaimgraphError only for a bad
    ``base``; a model that fails is reported in ``deep``, never raised.
    """
    root = document_root(base, environ)
    reads = FileReads()
    claims, checks = check_document(document, root, reads)
    report: dict[str, Any] = {"document": name, "base": str(root), "claims": len(claims),
                              "summary": P.summarize(checks), "checks": checks}
    if deep:
        from claimgraph.core.verify_claims import deep_verify

        report["checks"], report["deep"] = deep_verify(
            checks, reads, llm_cmd=llm_cmd, timeout_ms=timeout_ms, environ=environ,
            on_usage=on_usage)
    return report


def failing(report: Mapping[str, Any], strict: bool = False) -> bool:
    """Whether a gate should stop here: confabulation suspected, a claim the model refuted,
    or (``strict``) a cited file that is not on this machine."""
    summary, deep = report["summary"], report.get("deep") or {}
    return bool(summary["confabulation_suspected"] or (strict and summary["files_missing"])
                or (deep.get("counts") or {}).get("refuted"))
