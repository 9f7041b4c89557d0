"""A whole file the person attached to a prompt (``@path``) is read like a file a tool read."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph.capture.extract.attached import attached_files
from claimgraph.capture.extract.builtin import extract
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.readers import read_transcript

from .extract_helpers import ROOT, Session, only

GUIDE = "# Guide\n\n- Always run `make check` before committing.\n- Keep the API stable.\n"
SCRIPTS = '{\n  "scripts": {\n    "test": "vitest run",\n    "build": "tsc -b"\n  }\n}\n'


def _attach(session: Session, name: str, content: str, *, kind: str = "file",
            first: int = 1, whole: bool = True, **fields: object) -> None:
    """What the Claude Code reader gives for a ``file`` attachment (``harness_files``)."""
    lines = content.removesuffix("\n").split("\n")
    text = "\n".join(f"{first + n}\t{line}" for n, line in enumerate(lines))
    session.event("observed", text=text, derived=True, extras={
        "path": f"{ROOT}/{name}", "whole": whole, "attachment": kind}, **fields)


def _conventions(session: Session) -> set[str]:
    return {fact["object"] for fact in only(session.extract(), "x/convention")}


def test_an_instruction_file_the_person_attached_is_read():
    session = Session()
    session.prompt("follow @CONTRIBUTING.md while you fix the build")
    _attach(session, "CONTRIBUTING.md", GUIDE)
    assert _conventions(session) == {"Always run `make check` before committing",
                                     "Keep the API stable"}


def test_a_file_re_attached_after_a_compaction_is_not_the_persons():
    session = Session()
    session.prompt("follow CONTRIBUTING.md while you fix the build")  # names it, without @
    session.event("compaction", text="Summary: the agent read CONTRIBUTING.md.", derived=True)
    _attach(session, "CONTRIBUTING.md", GUIDE)
    assert _conventions(session) == set()
    after_prompt = Session()
    after_prompt.prompt("go on")
    _attach(after_prompt, "CONTRIBUTING.md", GUIDE)  # right after a prompt that does not name it
    assert _conventions(after_prompt) == set()


def test_an_attachment_after_the_agent_spoke_is_not_the_prompts():
    session = Session()
    session.prompt("follow @CONTRIBUTING.md")
    session.event("assistant", text="Reading it.")
    _attach(session, "CONTRIBUTING.md", GUIDE)
    assert _conventions(session) == set()


def test_a_partial_attachment_is_not_a_read_of_the_file():
    session = Session()
    session.prompt("see @CONTRIBUTING.md")
    _attach(session, "CONTRIBUTING.md", GUIDE, whole=False)
    assert _conventions(session) == set()


def test_a_subagents_attachment_is_not_the_persons():
    session = Session()
    session.prompt("see @CONTRIBUTING.md", subagent_id="a1")
    _attach(session, "CONTRIBUTING.md", GUIDE, subagent_id="a1")
    assert _conventions(session) == set()


def test_several_files_named_in_one_prompt_are_each_read_in_place():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/README.md"}, output="# Shop\n")
    session.prompt('check @package.json and @"docs/CONTRIBUTING.md" before you start.')
    _attach(session, "package.json", SCRIPTS)
    _attach(session, "docs/CONTRIBUTING.md", GUIDE, kind="already_read_file")
    session.bash("npm run test", output="ok")
    view = SessionView.of(session.transcript(), None)
    assert [event.line for event in attached_files(view)] == [4, 5]
    looks = surviving_looks(view)
    [scripts] = looks[f"{ROOT}/package.json"]
    assert (scripts.how, scripts.attached, scripts.text) == ("read", True, SCRIPTS.rstrip("\n"))
    assert [look.attached for look in looks[f"{ROOT}/README.md"]] == [False]
    [runs] = only(session.extract(), "x/runs")
    assert runs["object"] == "`npm run test` runs `vitest run`"
    assert runs["evidence"] == ['package.json: `"test": "vitest run",`',
                                "transcript#L4: the person attached @package.json"]


def test_a_later_edit_of_the_attached_file_is_what_counts():
    session = Session()
    session.prompt("tidy @CONTRIBUTING.md")
    _attach(session, "CONTRIBUTING.md", GUIDE)
    session.edit(f"{ROOT}/CONTRIBUTING.md", "- Always run `make check` before committing.",
                 "- Always run `make verify` before committing.")
    assert _conventions(session) == {"Always run `make verify` before committing",
                                     "Keep the API stable"}


def test_from_a_claude_code_transcript_the_mentioned_file_reaches_the_rules(tmp_path: Path):
    def attachment(uuid: str, after: str, name: str) -> dict:
        return {"type": "attachment", "uuid": uuid, "parentUuid": after, "cwd": ROOT,
                "attachment": {"type": "file", "filename": f"{ROOT}/{name}",
                               "displayPath": name, "content": {"type": "text", "file": {
                                   "filePath": f"{ROOT}/{name}", "content": GUIDE,
                                   "startLine": 1, "numLines": 4, "totalLines": 4}}}}
    records = [
        {"type": "user", "uuid": "u1", "cwd": ROOT,
         "message": {"role": "user", "content": "keep to @AGENTS.md please"}},
        attachment("a1", "u1", "AGENTS.md"),
        {"type": "system", "subtype": "compact_boundary", "uuid": "s1", "cwd": ROOT},
        {"type": "user", "uuid": "u2", "cwd": ROOT, "isCompactSummary": True,
         "message": {"role": "user", "content": "This session is being continued..."}},
        attachment("a2", "u2", "docs/CONTRIBUTING.md"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    found = extract(read_transcript(path), project_root=ROOT)
    assert {(c["object"], *c["evidence"]) for c in only(found, "x/convention")} == {
        ("Always run `make check` before committing",
         "AGENTS.md: `- Always run `make check` before committing.`",
         "transcript#L2: the person attached @AGENTS.md"),
        ("Keep the API stable", "AGENTS.md: `- Keep the API stable.`",
         "transcript#L2: the person attached @AGENTS.md")}


def test_a_line_a_tool_also_showed_is_cited_as_the_file_alone():
    session = Session()
    session.prompt("follow @CONTRIBUTING.md")
    _attach(session, "CONTRIBUTING.md", GUIDE)
    session.edit(f"{ROOT}/CONTRIBUTING.md", "- Always run `make check` before committing.",
                 "- Always run `make verify` before committing.")
    evidence = {c["object"]: c["evidence"] for c in only(session.extract(), "x/convention")}
    assert evidence == {
        "Always run `make verify` before committing":
            ["CONTRIBUTING.md: `- Always run `make verify` before committing.`"],
        "Keep the API stable": ["CONTRIBUTING.md: `- Keep the API stable.`",
                                "transcript#L2: the person attached @CONTRIBUTING.md"]}
