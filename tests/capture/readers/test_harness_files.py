"""Claude Code attachments that record a file's content become ``observed`` events."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from claimgraph.capture.readers import read_transcript
from claimgraph.capture.segment import read_cleaned
from claimgraph.logic.observed_lines import numbered


def _read(tmp_path: Path, *attachments: dict) -> list:
    lines = [{"type": "attachment", "uuid": f"a{n}", "cwd": "/repo", "attachment": attachment}
             for n, attachment in enumerate(attachments)]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return list(read_transcript(path).events)


def test_a_file_changed_outside_the_agents_tools_is_observed_with_its_numbered_lines(tmp_path):
    snippet = "3\tTAG ?= 1.0.1\n4\tREGISTRY ?= localhost\n\n... [12 lines truncated] ..."
    [event] = _read(tmp_path, {"type": "edited_text_file", "filename": "/repo/Makefile",
                               "snippet": snippet})
    assert (event.kind, event.derived, event.extras["path"]) == ("observed", True,
                                                                 "/repo/Makefile")
    assert numbered(event.text) == {3: "TAG ?= 1.0.1", 4: "REGISTRY ?= localhost"}
    assert event.extras["whole"] is False


def test_an_attached_file_is_whole_only_when_every_line_is_shown(tmp_path):
    def attached(first: int, shown: int, total: int) -> dict:
        return {"type": "file", "filename": "/repo/a.json", "content": {"type": "text", "file": {
            "filePath": "/repo/a.json", "content": "{\n}\n", "startLine": first,
            "numLines": shown, "totalLines": total}}}
    whole, part = _read(tmp_path, attached(1, 2, 2), attached(5, 2, 40))
    assert numbered(whole.text) == {1: "{", 2: "}"} and whole.extras["whole"] is True
    assert numbered(part.text) == {5: "{", 6: "}"} and part.extras["whole"] is False


def test_other_attachments_hold_no_files_content(tmp_path):
    events = _read(tmp_path, {"type": "compact_file_reference", "filename": "/repo/a.py"},
                   {"type": "hook_additional_context", "content": ["<claimgraph-context>"]},
                   {"type": "edited_text_file", "filename": "/repo/a.py", "snippet": " "},
                   {"type": "nested_memory", "path": "/repo/CLAUDE.md",
                    "content": {"content": "Always run make check"}})
    assert events == []


def test_a_secret_in_the_recorded_lines_is_redacted_before_anything_reads_them(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "logic"))
    from secret_corpus import CORPUS

    planted = [(secret, text.format(secret)) for _, _, secret, text in CORPUS[:5]]
    snippet = "\n".join(f"{n}\t{line}" for n, (_, line) in enumerate(planted, 1))
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "attachment", "cwd": "/repo", "attachment": {
        "type": "edited_text_file", "filename": "/repo/.env", "snippet": snippet}}) + "\n")
    [event] = read_cleaned(str(path), "claude-code")[0].events
    assert event.kind == "observed"
    assert not [secret for secret, _ in planted if secret in event.text]


def test_a_long_observed_file_is_held_packed_and_reads_back_the_same(tmp_path):
    from claimgraph.capture.packed import PackedEvent

    snippet = "\n".join(f"{n}\tsetting_{n} = {n}" for n in range(1, 80))
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "attachment", "uuid": "a0", "cwd": "/repo",
                                "attachment": {"type": "edited_text_file",
                                               "filename": "/repo/conf.py",
                                               "snippet": snippet}}) + "\n")
    [plain] = read_transcript(path).events
    [held] = read_cleaned(str(path), "claude-code")[0].events
    assert isinstance(held, PackedEvent) and not isinstance(plain, PackedEvent)
    assert held.text == plain.text and numbered(held.text)[79] == "setting_79 = 79"
