"""Texts taken from single lines of the fixture transcripts, so parser tests can run on what real
sessions wrote and read without pasting those texts into the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


def record(relative: str, line_number: int) -> dict[str, Any]:
    """The JSON record on 1-based ``line_number`` of a fixture transcript."""
    with (TRANSCRIPTS / relative).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if number == line_number:
                return json.loads(line)
    raise LookupError(f"{relative} has no line {line_number}")


def tool_input(relative: str, line_number: int) -> dict[str, Any]:
    """The input of the (first) Claude Code tool call on that line."""
    blocks = record(relative, line_number)["message"]["content"]
    return next(block["input"] for block in blocks if block.get("type") == "tool_use")


def tool_result(relative: str, line_number: int) -> str:
    """The text of the (first) Claude Code tool result on that line."""
    blocks = record(relative, line_number)["message"]["content"]
    content = next(block["content"] for block in blocks if block.get("type") == "tool_result")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content


def codex_output(relative: str, line_number: int) -> str:
    """The command output of a Codex function_call_output on that line."""
    payload = record(relative, line_number)["payload"]
    return json.loads(payload["output"])["output"]
