"""Sessions written out as the agents write them (Claude Code JSONL, a Codex rollout), then read
back by the real readers and run through the whole built-in extractor: the end-state tests
check what capture keeps from a session as a harness would hand it over, not from events
built by hand."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from claimgraph.capture.extract.builtin import extract
from claimgraph.capture.readers import read_transcript

CWD = "/home/dev/shop"


class ClaudeSession:
    """A Claude Code transcript under construction: one JSON record a line."""

    def __init__(self, cwd: str = CWD) -> None:
        self.cwd = cwd
        self.records: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._parent: str | None = None

    def _record(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        n = next(self._ids)
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        self.records.append({"parentUuid": self._parent, "isSidechain": False,
                             "userType": "external", "cwd": self.cwd,
                             "sessionId": "11111111-2222-4333-8444-555555555555",
                             "version": "2.1.38", "gitBranch": "main", "type": kind,
                             "message": message, "uuid": uuid,
                             "timestamp": f"2026-11-02T10:{n // 60:02d}:{n % 60:02d}.000Z",
                             **extra})
        self._parent = uuid

    def user(self, text: str) -> None:
        self._record("user", {"role": "user", "content": text})

    def agent(self, text: str) -> None:
        n = next(self._ids)
        self._record("assistant", {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                   "model": "claude-opus-4-6",
                                   "content": [{"type": "text", "text": text}]})

    def tool(self, name: str, tool_input: dict[str, Any], output: str = "",
             error: bool = False) -> None:
        """A tool call and its result."""
        n = next(self._ids)
        call_id = f"toolu_{n:08d}"
        self._record("assistant", {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                   "model": "claude-opus-4-6",
                                   "content": [{"type": "tool_use", "id": call_id, "name": name,
                                                "input": tool_input}]})
        self._record("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": output,
             "is_error": error}]})

    def bash(self, command: str, output: str = "", error: bool = False) -> None:
        self.tool("Bash", {"command": command}, output, error)

    def write(self, path: str, content: str) -> None:
        self.tool("Write", {"file_path": f"{self.cwd}/{path}", "content": content},
                  f"File created successfully at: {self.cwd}/{path}")

    def edit(self, path: str, old: str, new: str) -> None:
        self.tool("Edit", {"file_path": f"{self.cwd}/{path}", "old_string": old,
                           "new_string": new},
                  f"The file {self.cwd}/{path} has been updated.")

    def read(self, path: str, content: str) -> None:
        numbered = "\n".join(f"{n:6}\u2192{line}" for n, line in
                             enumerate(content.splitlines(), 1))
        self.tool("Read", {"file_path": f"{self.cwd}/{path}"}, numbered)

    def extract(self, directory: Path) -> list[dict[str, Any]]:
        path = directory / "11111111-2222-4333-8444-555555555555.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return extract(read_transcript(str(path)), project_root=self.cwd)


class CodexSession:
    """A Codex CLI rollout under construction (response items, as the CLI logs them)."""

    def __init__(self, cwd: str = CWD) -> None:
        self.cwd = cwd
        self._ids = itertools.count(1)
        self.records: list[dict[str, Any]] = [self._line("session_meta", {
            "id": "01a23800-5504-7d01-b935-a3d7c9b1de33", "cwd": cwd, "cli_version": "0.171.0",
            "git": {"branch": "main"}})]

    def _line(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        return {"timestamp": f"2026-11-02T10:{n // 60:02d}:{n % 60:02d}.000Z", "type": kind,
                "payload": payload}

    def _item(self, payload: dict[str, Any]) -> None:
        self.records.append(self._line("response_item", payload))

    def user(self, text: str) -> None:
        self._item({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": text}]})

    def agent(self, text: str) -> None:
        self._item({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": text}]})

    def shell(self, command: str, output: str = "", exit_code: int = 0) -> None:
        call_id = f"call_{next(self._ids)}"
        self._item({"type": "function_call", "name": "shell", "call_id": call_id,
                    "arguments": json.dumps({"command": ["bash", "-lc", command],
                                             "workdir": self.cwd})})
        self._item({"type": "function_call_output", "call_id": call_id,
                    "output": json.dumps({"output": output,
                                          "metadata": {"exit_code": exit_code,
                                                       "duration_seconds": 0.1}})})

    def extract(self, directory: Path) -> list[dict[str, Any]]:
        path = directory / "rollout-2026-11-02T10-00-00-01a23800-5504-7d01-b935-a3d7c9b1de33.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return extract(read_transcript(str(path)), project_root=self.cwd)


class GeminiSession:
    """A Gemini CLI session log (JSONL: a metadata line, then one message a line)."""

    def __init__(self, cwd: str = CWD) -> None:
        self.cwd = cwd
        self._ids = itertools.count(1)
        self.records: list[dict[str, Any]] = [{
            "sessionId": "89c95452-94f1-4ed5-8de5-856336a5cf96", "projectHash": "f" * 64,
            "startTime": "2026-11-02T10:00:00.000Z", "lastUpdated": "2026-11-02T10:00:00.000Z",
            "kind": "main"}]

    def _message(self, kind: str, **fields: Any) -> None:
        n = next(self._ids)
        self.records.append({"id": f"m{n:08d}", "timestamp":
                             f"2026-11-02T10:{n // 60:02d}:{n % 60:02d}.000Z", "type": kind,
                             **fields})

    def user(self, text: str) -> None:
        self._message("user", content=[{"text": text}])

    def agent(self, text: str) -> None:
        self._message("gemini", content=text, thoughts=[], model="gemini-2.5-flash")

    def tool(self, name: str, args: dict[str, Any], output: str = "",
             error: bool = False) -> None:
        call_id = f"{name}__{next(self._ids)}"
        response = {"error": output} if error else {"output": output}
        self._message("gemini", content="", thoughts=[], model="gemini-2.5-flash", toolCalls=[{
            "id": call_id, "name": name, "args": args, "status": "error" if error else "success",
            "result": [{"functionResponse": {"id": call_id, "name": name,
                                             "response": response}}]}])

    def shell(self, command: str, output: str = "", error: bool = False) -> None:
        self.tool("run_shell_command", {"command": command}, output, error)

    def write(self, path: str, content: str) -> None:
        self.tool("write_file", {"file_path": f"{self.cwd}/{path}", "content": content},
                  f"Successfully created and wrote to new file: {self.cwd}/{path}.")

    def extract(self, directory: Path) -> list[dict[str, Any]]:
        path = directory / "session-2026-11-02T10-00-89c95452.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return extract(read_transcript(str(path)), project_root=self.cwd)
