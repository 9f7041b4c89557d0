"""The fast front answers as the SDK does: the same conversations, line for line, through
``python -m claimgraph.mcp`` (front first) and ``--sdk-only`` (the SDK throughout), compared as
JSON. Raw JSON-RPC lines cover the hot path of both protocol eras and the inputs the front
leaves to the SDK (unknown methods, bad params, other versions, lines that are not plain
JSON-RPC); the SDK's own client covers what an agent sees."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

import pytest

from claimgraph.store import leases

from .conftest import Served, call, talk

pytestmark = pytest.mark.timeout(600)

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1.0"},
               "io.modelcontextprotocol/clientCapabilities": {}}


#: What Claude Code 2.1.332 sends (measured): its envelope, and a tool call's own _meta keys.
CLAUDE_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {
                   "name": "claude-code", "title": "Claude Code", "version": "2.1.332",
                   "description": "Anthropic's agentic coding tool",
                   "websiteUrl": "https://claude.com/claude-code"},
               "io.modelcontextprotocol/clientCapabilities": {
                   "roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}}}
CALL_META = {"claudecode/toolUseId": "toolu_766320ba0a6540f5b6300c11", "progressToken": 7}


def line(method: str, id: int | None = None, **params: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        message["id"] = id
    if params:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def modern(method: str, id: int, **params: Any) -> bytes:
    return line(method, id, **params, _meta=MODERN_META)


LEGACY_OPENING = [line("initialize", 1, protocolVersion="2025-11-25", capabilities={},
                       clientInfo={"name": "probe", "version": "1.0"}),
                  line("notifications/initialized")]
SEARCH = {"name": "memory_search", "arguments": {"query": "stripe"}}
#: After a line the front leaves to the SDK, the SDK must go on serving the session.
AFTER = line("tools/call", 99, **SEARCH)
MODERN_AFTER = modern("tools/call", 99, **SEARCH)

# (lines, how many answers they get)
LEGACY_HOT = (LEGACY_OPENING + [line("tools/list", 2), line("tools/call", 3, **SEARCH),
                                line("ping", 4), line("tools/call", 5, name="memory_delete"),
                                line("tools/call", 6, name="memory_search",
                                     arguments={"query": "a\u0000b"}),
                                line("tools/call", 7, name="memory_facts",
                                     arguments={"entity": "billing",
                                                "as_of": "2030-01-01"})], 7)
MODERN_HOT = ([modern("server/discover", 1), modern("tools/list", 2),
               modern("tools/call", 3, **SEARCH), modern("tools/call", 4, name="memory_delete"),
               modern("tools/call", 5, name="memory_search", arguments={})], 5)
CLAUDE_HOT = ([line("server/discover", "server-discover-probe-1", _meta=CLAUDE_META),
               line("tools/list", 2, _meta=CLAUDE_META),
               line("tools/call", 3, **SEARCH, _meta={**CLAUDE_META, **CALL_META}),
               line("tools/call", 4, name="memory_recall", arguments={"query": "webhook"},
                    _meta={**CLAUDE_META, **CALL_META})], 4)
LEGACY_PROGRESS = (LEGACY_OPENING + [line("tools/call", 2, **SEARCH, _meta={"progressToken": "p"})],
                   2)
DEEP = {"query": "x", "deep": json.loads("[" * 300 + "]" * 300)}
LEFT_TO_THE_SDK = {
    "unknown method": [line("resources/list", 10)],
    "bad params": [line("tools/call", 10, name=5, arguments={})],
    "a cursor": [line("tools/list", 10, cursor="abc")],
    "a lone surrogate": [b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":'
                         b'{"name":"memory_search","arguments":{"query":"\\ud800"}}}\n'],
    "deep nesting": [line("tools/call", 10, name="memory_search", arguments=DEEP)],
    "invalid JSON": [b'{"jsonrpc":"2.0","id":10,"method":\n'],
    "invalid UTF-8": [b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":'
                      b'{"name":"memory_search","arguments":{"query":"\xff"}}}\n'],
    "a batch": [b"[" + line("ping", 10).strip() + b"]\n"],
    "a duplicate key": [b'{"jsonrpc":"2.0","id":10,"id":11,"method":"ping"}\n'],
    "a huge id": [b'{"jsonrpc":"2.0","id":100000000000000000000,"method":"ping"}\n'],
}
LEGACY_BAD = {
    **{name: (LEGACY_OPENING + lines + [AFTER], 3) for name, lines in LEFT_TO_THE_SDK.items()},
    "another version": ([line("initialize", 1, protocolVersion="2025-06-18", capabilities={},
                              clientInfo={"name": "probe", "version": "1.0"}),
                         line("notifications/initialized"), line("tools/list", 2), AFTER], 3),
    "a list before the handshake": ([line("tools/list", 2)] + LEGACY_OPENING + [AFTER], 3),
    "an envelope after the handshake": (LEGACY_OPENING + [modern("tools/list", 2), AFTER], 3),
    "a reserved _meta key": (LEGACY_OPENING + [line(
        "tools/call", 2, **SEARCH, _meta={"io.modelcontextprotocol/protocolVersion": 5}),
        AFTER], 3),
}
MODERN_BAD = {
    "unknown method": ([modern("tools/list", 1), modern("resources/list", 2), MODERN_AFTER], 3),
    "ping": ([modern("server/discover", 1), modern("ping", 2), MODERN_AFTER], 3),
    "another version": ([line("tools/list", 1, _meta={**MODERN_META, "io.modelcontextprotocol/"
                                                      "protocolVersion": "2099-01-01"}),
                         MODERN_AFTER], 2),
    "initialize after the envelope": ([modern("server/discover", 1)] + LEGACY_OPENING
                                      + [MODERN_AFTER], 3),
    "icons in the client info": ([line("tools/list", 1, _meta={
        **MODERN_META, "io.modelcontextprotocol/clientInfo": {
            "name": "probe", "version": "1", "icons": [{"src": "https://x.test/i.png"}]}}),
        MODERN_AFTER], 2),
    "a null progress token": ([modern("tools/list", 1), line(
        "tools/call", 2, **SEARCH, _meta={**MODERN_META, "progressToken": None}),
        MODERN_AFTER], 3),
    "a half envelope": ([line("tools/list", 1, _meta={"io.modelcontextprotocol/protocolVersion":
                                                      "2026-07-28"}), MODERN_AFTER], 2),
}
# One answer each on the wire, in order, except where no line can be matched (a null id).


def converse(served: Served, lines: list[bytes], answers: int, *flags: str,
             env: dict[str, str] | None = None) -> list[Any]:
    """Send ``lines`` to a fresh server, read ``answers`` answers, hang up, and read whatever
    else it says until it exits."""
    server = subprocess.Popen([sys.executable, "-m", "claimgraph.mcp", *flags],
                              cwd=served.project, env={**served.env, **(env or {})},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    got: list[Any] = []

    def read() -> None:
        for _ in range(answers):
            answer = server.stdout.readline()
            if not answer:
                return
            got.append(json.loads(answer))
    reader = threading.Thread(target=read)
    reader.start()
    for each in lines:
        server.stdin.write(each)
        server.stdin.flush()
    reader.join(timeout=120)
    server.stdin.close()
    got.extend(json.loads(rest) for rest in server.stdout.read().splitlines())
    server.wait(timeout=60)
    server.stdout.close()
    return sorted(got, key=lambda a: json.dumps(a, sort_keys=True))


#: What a tool answers that moves with the clock: confidence decays (docs/conflicts.md, "Decay
#: and dormancy") and a search's score is its relevance times that confidence. The front's run
#: and the SDK's run answer seconds apart, minutes on a loaded machine, so a value printed to 6
#: places (3 for a confidence) may round the other way: each may move by what such a gap can
#: move it (and a confidence by one last place); everything else must be identical.
DECAYING = {"retrieval_score": {"rel": 1e-3}, "effective_confidence": {"abs": 1.1e-3}}


def split_decaying(value: Any, moved: list[tuple[str, float]]) -> Any:
    """``value`` with each decaying number replaced by a marker, the numbers appended to
    ``moved`` in order; a tool result's text is JSON and is read as such."""
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if key in DECAYING and isinstance(item, (int, float)):
                moved.append((key, item))
                kept[key] = "<decays>"
            else:
                kept[key] = split_decaying(item, moved)
        return kept
    if isinstance(value, (list, tuple)):
        return [split_decaying(item, moved) for item in value]
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return {"<json>": split_decaying(json.loads(value), moved)}
        except ValueError:
            return value
    return value


def assert_same(front: Any, sdk: Any) -> None:
    """The front and the SDK answered alike: exactly, but for what decayed in between."""
    front_moved: list[tuple[str, float]] = []
    sdk_moved: list[tuple[str, float]] = []
    assert split_decaying(front, front_moved) == split_decaying(sdk, sdk_moved)
    assert [key for key, _ in front_moved] == [key for key, _ in sdk_moved]
    for (key, a), (_, b) in zip(front_moved, sdk_moved):
        assert a == pytest.approx(b, **DECAYING[key]), key


def test_answers_differing_only_by_decay_are_the_same_and_others_are_not():
    """The comparison above is not blind: a score off by more than decay, another fact or
    another confidence still differ."""
    def answer(score: float, confidence: float, obj: str = "stripe") -> list[Any]:
        fact = {"object": obj, "effective_confidence": confidence, "retrieval_score": score}
        text = json.dumps({"facts": [fact]})
        return [{"id": 3, "result": {"content": [{"type": "text", "text": text}]}}]
    assert_same(answer(0.032197, 0.8), answer(0.032196, 0.799))
    for other in (answer(0.0323, 0.8), answer(0.032197, 0.798), answer(0.032197, 0.8, "kuzu")):
        with pytest.raises(AssertionError):
            assert_same(answer(0.032197, 0.8), other)


def both(served: Served, lines: list[bytes], answers: int,
         env: dict[str, str] | None = None) -> tuple[list[Any], list[Any]]:
    return (converse(served, lines, answers, env=env),
            converse(served, lines, answers, "--sdk-only", env=env))


def took_over(served: Served) -> list[str]:
    return [e["reason"] for e in served.log_events() if e["event"] == "mcp.sdk-takes-over"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_hot_path_is_answered_as_the_sdk_answers_it_without_the_sdk(served: Served, era):
    lines, answers = LEGACY_HOT if era == "legacy" else MODERN_HOT
    front, sdk = both(served, lines, answers)
    assert len(sdk) == answers
    assert_same(front, sdk)
    assert took_over(served) == []
    errors = [a["error"]["code"] for a in front if "error" in a]
    assert errors == [-32602]  # the unknown tool; the NUL is a tool error, not a protocol one
    tool_errors = [a["result"]["isError"] for a in front if "content" in a.get("result", {})]
    assert tool_errors.count(True) == 1 and tool_errors.count(False) >= 1


@pytest.mark.parametrize("case", ["claude code", "legacy progress token"])
def test_claude_codes_envelope_and_call_meta_stay_on_the_front(served: Served, case):
    lines, answers = CLAUDE_HOT if case == "claude code" else LEGACY_PROGRESS
    front, sdk = both(served, lines, answers)
    assert len(sdk) == answers
    assert_same(front, sdk)
    assert took_over(served) == []


@pytest.mark.parametrize("case", sorted(LEGACY_BAD))
def test_what_the_front_does_not_know_the_sdk_answers_in_the_handshake_era(served: Served, case):
    lines, answers = LEGACY_BAD[case]
    front, sdk = both(served, lines, answers)
    assert len(sdk) == answers
    assert_same(front, sdk)
    assert len(took_over(served)) == 1, case
    assert any(a.get("id") == 99 and "result" in a for a in front)


@pytest.mark.parametrize("case", sorted(MODERN_BAD))
def test_what_the_front_does_not_know_the_sdk_answers_in_the_envelope_era(served: Served, case):
    lines, answers = MODERN_BAD[case]
    front, sdk = both(served, lines, answers)
    assert len(sdk) == answers
    assert_same(front, sdk)
    assert len(took_over(served)) == 1, case


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_gets_the_same_answers_from_the_front_and_the_sdk(served: Served, mode):
    from .test_stdio_server import GOOD_CALLS

    reads = {name: args for name, args in GOOD_CALLS.items()
             if name not in ("memory_assert", "memory_forget")}
    reads["memory_facts"] = {**reads["memory_facts"], "as_of": "2030-01-01"}  # not "now"

    async def conversation(*flags: str):
        params = served.params()
        params.args = [*params.args, *flags]
        from mcp import Client

        async with Client(params, mode=mode) as client:
            listed = (await client.list_tools()).model_dump()
            answers = {name: await call(client, name, args) for name, args in reads.items()}
            return client.server_info.model_dump(), listed, answers
    front = talk(conversation)
    sdk = talk(lambda: conversation("--sdk-only"))
    assert_same(front, sdk)
    assert took_over(served) == []


CANCEL_UNKNOWN = {
    "legacy": (LEGACY_OPENING + [line("notifications/cancelled", requestId=42, reason="gone"),
                                 AFTER], 2),
    "modern": ([modern("tools/list", 1), line("notifications/cancelled", requestId="42"),
                MODERN_AFTER], 2),
}
ASSERT = {"name": "memory_assert",
          "arguments": {"subject": "billing", "predicate": "prefers", "object": "gRPC"}}


@pytest.mark.parametrize("era", sorted(CANCEL_UNKNOWN))
def test_a_cancel_for_no_call_in_flight_changes_nothing(served: Served, era):
    lines, answers = CANCEL_UNKNOWN[era]
    front, sdk = both(served, lines, answers)
    assert_same(front, sdk)
    assert len(front) == answers
    assert took_over(served) == []


def test_a_call_cancelled_while_it_waits_for_the_lease_is_never_answered(served: Served):
    """The write waits for a lease this test holds; the client cancels it (by the id as text,
    which the SDK correlates with the number) and searches meanwhile: neither server answers
    the cancelled call, even after the wait ends."""
    lines = LEGACY_OPENING + [line("tools/call", 2, **ASSERT),
                              line("notifications/cancelled", requestId="2"), AFTER]
    held = leases.write_lease(served.db, "claimgraph-curator", 0)
    try:
        front, sdk = both(served, lines, 2, env={"CLAIMGRAPH_LEASE_WAIT_MS": "1500"})
    finally:
        held.release()
    assert_same(front, sdk)
    assert sorted(a["id"] for a in front) == [1, 99]
    assert took_over(served) == []


def loaded_by(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules under ``prefixes`` a fresh interpreter has loaded after ``code``."""
    report = (f"{code}; import sys; print(sorted(m for m in sys.modules "
              f"if m.startswith({prefixes!r})))")
    out = subprocess.run([sys.executable, "-c", report], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return json.loads(out.replace("'", '"'))


def test_the_front_imports_nothing_of_the_sdk():
    sdk = ("mcp.", "mcp_types", "pydantic", "anyio", "httpx", "starlette")
    assert loaded_by("import claimgraph.mcp.front, claimgraph.mcp.main", sdk) == []
    assert loaded_by("import mcp", ("mcp.", "pydantic")) != []  # the probe sees an import


def test_the_handshake_and_tools_list_load_no_store_module():
    """What answers before the first call: the table, not the store's code (the read thread
    loads that once the first answer is out)."""
    code = ("import claimgraph.mcp.front, claimgraph.mcp.main; "
            "from claimgraph.mcp.calls import tool_listing; tool_listing()")
    assert loaded_by(code, ("claimgraph.store", "claimgraph.core", "claimgraph.opening",
                            "dataclasses", "structlog", "logging", "concurrent")) == []


def test_a_worker_outlives_a_callback_that_fails():
    """The SDK's event loop may end before a call it was waiting for: handing the result back
    fails, and the worker must still run what is queued behind (the shell's close)."""
    from claimgraph.mcp.calls import Worker

    worker = Worker("test")
    try:
        def fail(_job):
            raise RuntimeError("Event loop is closed")
        worker.submit(lambda: 1).add_done_callback(fail)
        assert worker.submit(lambda: 2).result() == 2
    finally:
        worker.stop()


def test_the_logs_timer_leaves_a_call_in_flight_to_write_it(monkeypatch):
    """The timer after the first answer writes the log only when no call is in flight: the
    log's imports would hold up that call's answer, which writes the log once it is out."""
    from claimgraph.mcp import front

    flushed: list[int] = []
    monkeypatch.setattr(front.log, "flush", lambda: flushed.append(1))
    session = front.Front(None, None, None)  # type: ignore[arg-type]
    in_flight = threading.Event()
    session.pending.add(in_flight)
    session.flush_when_idle()
    assert flushed == []
    session.pending.discard(in_flight)
    session.flush_when_idle()
    assert flushed == [1]


def test_a_session_that_calls_nothing_still_logs_its_start_soon_after(served: Served):
    """The log waits for the first answer, not for a tool call: half a second after it, the
    start is on disk while the server still runs (an agent may kill an idle server)."""
    import time

    server = subprocess.Popen([sys.executable, "-m", "claimgraph.mcp"], cwd=served.project,
                              env=served.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        server.stdin.write(modern("server/discover", 1))
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        deadline = time.monotonic() + 60
        while not (served.log.exists() and served.log_events()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [e["event"] for e in served.log_events()] == ["mcp.started"]
    finally:
        server.stdin.close()
        server.wait(timeout=60)
        server.stdout.close()
    assert [e["event"] for e in served.log_events()] == ["mcp.started", "mcp.stopped"]
