"""Trusting our Codex hooks the way Codex's own ``/hooks`` does, through ``codex app-server``.

Codex runs a hook from ``hooks.json`` only once that exact definition is trusted, and skips
an untrusted one WITHOUT A WORD (measured with 0.171.0: ``codex exec`` just does not run it).
Trust lives in Codex's ``config.toml`` as ``[hooks.state."<file>:<event>:<group>:<handler>"]
trusted_hash = "sha256:…"``: keyed by POSITION, hashed over the definition, so editing a hook
makes it "modified" and moving it makes it a new, untrusted key. The hash is Codex's to
compute, so we ask Codex: its app-server (JSON-RPC over stdio) lists every hook with its
key, current hash and trust status (``hooks/list``), and writes its own config
(``config/batchWrite``) -- what the TUI's ``/hooks`` panel does when a person trusts a hook.

Only OUR hooks (the marker in their command) are ever trusted on our say-so. Foreign hooks
keep the trust their user gave them: when our edit of ``hooks.json`` moves one (removing our
group shifts the ones after it), the same definition, trusted before under its old key, is
trusted again under its new one, and the old key is dropped. Nothing else in config.toml is
touched. Everything is bounded (``TIMEOUT_S``); Codex being absent or failing is reported,
never raised: the hooks file is still written and the report says what the user must do.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping
from typing import Any

from claimgraph.hooks.agents import MARKER

TIMEOUT_S = 20.0
CLIENT = {"name": "claimgraph", "version": "1"}
NEEDS_TRUST = ("untrusted", "modified")
_NOT_YET = object()


class CodexUnavailable(Exception):
    """Codex could not be asked (not installed, failed, too slow); the message says why."""


def find_codex(environ: Mapping[str, str], explicit: str | None = None) -> str | None:
    """``explicit``, else ``codex`` on the environment's PATH."""
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("codex", path=environ.get("PATH", os.defpath))


class AppServer:
    """A ``codex app-server`` child for a few calls; a reader thread keeps every wait bounded."""

    def __init__(self, codex: str, environ: Mapping[str, str], timeout: float = TIMEOUT_S):
        self.codex, self.environ, self.timeout = codex, dict(environ), timeout
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.child: subprocess.Popen[str] | None = None
        self.next_id = 0

    def __enter__(self) -> "AppServer":
        try:
            self.child = subprocess.Popen(
                [self.codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, env=self.environ, cwd="/",
                start_new_session=True)
        except OSError as error:
            raise CodexUnavailable(f"cannot run {self.codex}: {error.strerror or error}") from None
        threading.Thread(target=self._read, daemon=True).start()
        self.call("initialize", {"clientInfo": CLIENT})
        self._send({"method": "initialized"})
        return self

    def __exit__(self, *exc: object) -> None:
        child = self.child
        if child is None:
            return
        try:
            child.stdin.close()  # type: ignore[union-attr]
            child.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()
            child.wait()

    def _read(self) -> None:
        for line in self.child.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.child.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
            self.child.stdin.flush()  # type: ignore[union-attr]
        except OSError as error:
            raise CodexUnavailable(f"codex app-server stopped: {error}") from None

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """The result of one request; notifications and server requests are skipped."""
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=self.timeout)
            except queue.Empty:
                raise CodexUnavailable(f"codex app-server did not answer {method} within "
                                       f"{self.timeout:.0f} s") from None
            if line is None:
                raise CodexUnavailable(f"codex app-server exited during {method}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    raise CodexUnavailable(f"codex app-server refused {method}: "
                                           f"{message['error']}")
                return message.get("result")

    def hooks(self) -> list[dict[str, Any]]:
        """Every hook Codex sees for the user (and, harmlessly, for ``/``'s project)."""
        result = self.call("hooks/list", {"cwds": ["/"]}) or {}
        return [hook for entry in result.get("data") or [] for hook in entry.get("hooks") or []
                if isinstance(hook, dict)]

    def write_trust(self, trust: Mapping[str, str], untrust: list[str]) -> None:
        edits: list[dict[str, Any]] = [
            {"keyPath": "hooks.state." + json.dumps(key), "mergeStrategy": "replace",
             "value": None} for key in untrust]
        if trust:
            edits.append({"keyPath": "hooks.state", "mergeStrategy": "upsert",
                          "value": {key: {"trusted_hash": h} for key, h in trust.items()}})
        if edits:
            self.call("config/batchWrite", {"edits": edits})


def is_ours(hook: Mapping[str, Any]) -> bool:
    return MARKER in str(hook.get("command") or "")


def in_file(hooks: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    real = os.path.realpath(path)
    return [h for h in hooks if os.path.realpath(str(h.get("sourcePath") or "")) == real]


def plan(before: list[dict[str, Any]], after: list[dict[str, Any]]
         ) -> tuple[dict[str, str], list[str]]:
    """(keys to trust, with their hash; keys to forget) after one edit of a hooks file, from
    Codex's listings before and after it: ours are trusted; a foreign hook whose very
    definition was trusted before is trusted again where it now is; keys that held ours, or
    a foreign hook that moved, are forgotten unless something trusted is there now."""
    trusted_before = {(h.get("command"), h.get("currentHash")): h["key"] for h in before
                      if not is_ours(h) and h.get("trustStatus") == "trusted"}
    trust: dict[str, str] = {}
    moved_from: set[str] = set()
    for hook in after:
        old_key = trusted_before.get((hook.get("command"), hook.get("currentHash")))
        if hook.get("trustStatus") not in NEEDS_TRUST or not (is_ours(hook) or old_key):
            continue
        trust[hook["key"]] = hook["currentHash"]
        if not is_ours(hook):
            moved_from.add(old_key)  # type: ignore[arg-type]
    ours_now = {h["key"] for h in after if is_ours(h)}
    forget = {h["key"] for h in before if is_ours(h)} - ours_now | moved_from
    forget -= trust.keys() | {h["key"] for h in after if h.get("trustStatus") == "trusted"}
    return trust, sorted(forget)


def summary(hooks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our hooks as a report lists them."""
    return [{"event": h.get("eventName"), "key": h.get("key"), "trust": h.get("trustStatus")}
            for h in hooks if is_ours(h)]


def sync(path: str, environ: Mapping[str, str], write: Callable[[], Any],
         codex: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Run ``write`` (the hooks file's edit) between two listings and fix the trust it
    changed; (what ``write`` returned, the trust report). Codex unavailable: ``write`` still
    runs, and the report's ``status`` is "unknown" with the ``reason``."""
    binary = find_codex(environ, codex)
    if binary is None:
        return write(), {"status": "unknown", "reason": _missing(codex), "hooks": []}
    written: Any = _NOT_YET
    try:
        with AppServer(binary, environ) as server:
            before = in_file(server.hooks(), path)
            written = write()
            trust, forget = plan(before, in_file(server.hooks(), path))
            server.write_trust(trust, forget)
            now = summary(in_file(server.hooks(), path))
    except CodexUnavailable as error:
        written = write() if written is _NOT_YET else written
        return written, {"status": "unknown", "reason": str(error), "hooks": []}
    return written, {"status": overall(now), "reason": None, "hooks": now,
                     "trusted": sorted(trust), "forgotten": forget}


def check(path: str, environ: Mapping[str, str], codex: str | None = None) -> dict[str, Any]:
    """The trust of our hooks in ``path`` as Codex sees it (changing nothing)."""
    binary = find_codex(environ, codex)
    if binary is None:
        return {"status": "unknown", "reason": _missing(codex), "hooks": []}
    try:
        with AppServer(binary, environ) as server:
            now = summary(in_file(server.hooks(), path))
    except CodexUnavailable as error:
        return {"status": "unknown", "reason": str(error), "hooks": []}
    return {"status": overall(now), "reason": None, "hooks": now}


def _missing(codex: str | None) -> str:
    return f"cannot ask Codex ({codex} is not an executable)" if codex else \
        "cannot ask Codex (codex is not on PATH)"


def overall(ours: list[dict[str, Any]]) -> str:
    """trusted (every one of ours), none (no hook of ours), or the first other status."""
    statuses = [h["trust"] for h in ours]
    if not statuses:
        return "none"
    return next((s for s in statuses if s not in ("trusted", "managed")), "trusted")
