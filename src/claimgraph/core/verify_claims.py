"""The deep check's shell: hand the cited source to the model command once, fold its verdicts in.

``logic.verify`` writes the task and reads the reply; this module supplies what it needs. The
source is the text the floor check already read (``FileReads``: no file is opened twice),
redacted (``logic.redact``) because it leaves the machine if the model command is remote. One
call, paid from its own one-call ``Budget``, with ``llm_cmd`` and ``llm_timeout_ms`` from the
settings unless given. The model never receives a path it could open: it starts in an empty
temp directory (``model_command.run_model_command``).

A model that cannot be run, or whose reply holds no verdict vector, does not raise: the checks
come back with ``deep: None`` and the deep report says what failed and what to do, so the
floor's findings are never lost to a model's failure.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from claimgraph.config import load_settings
from claimgraph.core.audit import FileReads
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import verify as V
from claimgraph.logic.redact import redact
from claimgraph.model_command import Budget, UsageLog, command_argv, log_to_stdlib, run_model_command

#: The most prompt one deep check may send (the source part is capped well below this).
DEEP_INPUT_CHARS = 200_000
REPLY_EXCERPT_CHARS = 120


def sources_for(checks: Sequence[Mapping[str, Any]], reads: FileReads) -> dict[str, str]:
    """Cited file (as the claim wrote it) -> its redacted text, for each file that was read."""
    sources: dict[str, str] = {}
    for check in checks:
        file, path = check.get("file"), check.get("path")
        if file and path and file not in sources:
            content = reads.content(Path(path))
            if content is not None:
                sources[file] = redact(content)
    return sources


def deep_verify(checks: Sequence[Mapping[str, Any]], reads: FileReads, *,
                llm_cmd: str | None = None, timeout_ms: int | None = None,
                environ: Mapping[str, str] | None = None,
                on_usage: UsageLog = log_to_stdlib) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(the checks with ``deep`` merged in, the deep report ``{status, command, counts,
    ignored, prompt_chars[, reason][, error]}``); status is ok, partial (some claims the
    reply did not judge), skipped (nothing to send: no claims, or no cited file readable
    here), failed (the command could not run or answer) or unparseable (it answered, but
    no verdict in its reply names a claim)."""
    sources = sources_for(checks, reads)
    if not checks or not sources:
        reason = "no claims" if not checks else "none of the cited files could be read here"
        return V.merge_verdicts(checks, None), _report("skipped", checks, reason=reason)
    cmd, limit = _model_settings(llm_cmd, timeout_ms, environ)
    prompt = V.verify_task(checks, sources)
    try:
        _fits(prompt)
        reply = run_model_command(cmd, prompt, timeout_ms=limit, environ=environ,
                                  budget=Budget(1, DEEP_INPUT_CHARS), on_usage=on_usage).text
    except ClaimgraphError as err:
        merged = V.merge_verdicts(checks, None)
        return merged, _report("failed", merged, cmd, prompt, error=err.to_dict())
    return _merge_reply(checks, reply, cmd, prompt)


def _model_settings(llm_cmd: str | None, timeout_ms: int | None,
                    environ: Mapping[str, str] | None) -> tuple[str, int]:
    """The command and its deadline: as given, else the settings' (env, config file, default)."""
    if llm_cmd is not None and timeout_ms is not None:
        return llm_cmd, timeout_ms
    settings = load_settings(environ=environ)
    return (llm_cmd if llm_cmd is not None else settings.value("llm_cmd"),
            timeout_ms if timeout_ms is not None else settings.value("llm_timeout_ms"))


def _fits(prompt: str) -> None:
    if len(prompt) > DEEP_INPUT_CHARS:
        raise ClaimgraphError(
            "deep-prompt-too-large", f"the deep check's prompt is {len(prompt)} characters, "
            f"over its limit of {DEEP_INPUT_CHARS}", hint="check a smaller document (or its "
            "parts one at a time) with --deep; the floor check above has no such limit")


def _merge_reply(checks: Sequence[Mapping[str, Any]], reply: str, cmd: str,
                 prompt: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    parsed = V.parse_verdicts(reply)
    merged = V.merge_verdicts(checks, parsed["verdicts"])
    if parsed["verdicts"] is None:
        return merged, _report("unparseable", merged, cmd, prompt, error=_unparseable(cmd, reply))
    ids = {check["id"] for check in checks}
    seen: set[int] = set()
    strays = 0
    for verdict in parsed["verdicts"]:
        strays += verdict["id"] not in ids or verdict["id"] in seen
        seen.add(verdict["id"])
    report = _report("ok", merged, cmd, prompt, ignored=parsed["ignored"] + strays)
    if report["counts"]["unjudged"] == len(checks):
        report.update(status="unparseable", error=_unmatched(cmd, len(checks)))
    elif report["counts"]["unjudged"]:
        report["status"] = "partial"
    return merged, report


def _unmatched(cmd: str, count: int) -> dict[str, Any]:
    return ClaimgraphError(
        "deep-reply-unmatched", f"the model command {_program(cmd)!r} answered with verdicts, "
        f"but none names a claim id (0 to {count - 1})",
        hint="the reply's \"id\" must be the claim's id from the prompt; run the command by "
             "hand on the prompt to see what it prints").to_dict()


def _report(status: str, checks: Sequence[Mapping[str, Any]], cmd: str | None = None,
            prompt: str = "", **extra: Any) -> dict[str, Any]:
    return {"status": status, "command": _program(cmd) if cmd else None,
            "counts": V.deep_counts(checks), "ignored": extra.pop("ignored", 0),
            "prompt_chars": len(prompt), **extra}


def _program(cmd: str) -> str:
    try:
        return os.path.basename(command_argv(cmd)[0])
    except ClaimgraphError:
        return str(cmd)


def _unparseable(cmd: str, reply: str) -> dict[str, Any]:
    first = next((line.strip() for line in reply.splitlines() if line.strip()), "")
    if len(first) > REPLY_EXCERPT_CHARS:
        first = first[:REPLY_EXCERPT_CHARS - 1] + "…"
    said = f"its reply holds no verdict vector (it begins: {first!r})" if first else \
        "its reply was empty"
    return ClaimgraphError(
        "deep-reply-unparseable", f"the model command {_program(cmd)!r} answered, but {said}",
        hint="llm_cmd must answer a prompt on stdin with text, as `claude -p` does; run it by "
             "hand to see what it prints").to_dict()
