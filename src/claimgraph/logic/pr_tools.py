"""What the GitHub MCP server's pull-request tools did, read as git_state reads gh (issue 22).

An agent may open, merge or close a pull request through the GitHub MCP server instead of
``gh``: ``create_pull_request``, ``merge_pull_request``, ``update_pull_request`` (its
``state`` set to closed, or a new title), ``pull_request_read`` / ``get_pull_request``
(what it is now). Unread, such a session leaves its git state stale: "1 commit on branch
`fix/x`, pushed" told as waiting for a pull request the same session merged a few lines
later. Each call becomes the ``Observation`` the matching ``gh`` command would have made,
from the tool's own input and its result, never the agent's prose:

- opened: the result names the pull request's URL in the repository the input named;
- merged: the result says ``"merged": true`` (its ``sha`` is the merge commit), as the bare
  object or as the text of its one content block;
- closed or retitled: the input set it and the call worked;
- read: the result is the pull request named by the input, with its state.

Pure: the tool's name, input and result text in, an observation out. Which repository of
the session the pull request belongs to is for the caller to decide (``repository``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from claimgraph.logic import git_state as gs

#: ``mcp__<server>__<tool>`` (Claude Code) or ``<server>.<tool>``, the server's name
#: holding "github"
_TOOL = re.compile(r"^(?:mcp__)?(?P<server>[\w-]*github[\w-]*)(?:__|\.)(?P<tool>\w+)$", re.I)
_PR_URL = re.compile(r"https://[^\s\"'<>]+?/(?P<repo>[^/\s\"'<>]+/[^/\s\"'<>]+)/pull/"
                     r"(?P<number>\d+)(?![\d/])")
_MERGED = re.compile(r'"merged"\s*:\s*true\b')
_METHODS = frozenset({"squash", "rebase", "merge"})


def tool_of(tool_name: str | None) -> str | None:
    """The GitHub MCP server's tool a call ran ("create_pull_request"), else None."""
    found = _TOOL.match(tool_name or "")
    return found["tool"].lower() if found else None


def repository(tool_input: Mapping[str, Any]) -> str | None:
    """``owner/name`` (lower case) of the repository the call named."""
    owner, name = tool_input.get("owner"), tool_input.get("repo")
    if isinstance(owner, str) and isinstance(name, str) and owner and name:
        return f"{owner}/{name}".lower()
    return None


def repository_of_url(url: str) -> str | None:
    """``owner/name`` (lower case) of a remote or pull request URL on a host (a local
    folder names none)."""
    parts = gs.remote_name(url).split("/")
    if len(parts) < 3 or "." not in parts[0] or not parts[1] or not parts[2]:
        return None
    return f"{parts[1]}/{parts[2]}".lower()


def observed(tool: str, tool_input: Mapping[str, Any], result: str, line: int,
             at: int | None) -> gs.Observation | None:
    """The observation the call makes, or None when it shows nothing about a pull request
    (another tool, a result that does not bear the input out)."""
    repo = repository(tool_input)
    if repo is None:
        return None
    if tool == "create_pull_request":
        return _opened(tool_input, repo, result, line, at)
    number = _number(tool_input)
    if number is None:
        return None
    if tool == "merge_pull_request":
        data = _object(result)
        if not (data.get("merged") is True if data is not None else _MERGED.search(result)):
            return None
        method = tool_input.get("merge_method")
        sha = _field(data, "sha")
        return gs.Observation(line, at, pr_merged=((number, method if method in _METHODS
                                                     else None),),
                              pr_states=((number, "MERGED", None, sha, None),))
    if tool == "update_pull_request":
        state = tool_input.get("state")
        title = tool_input.get("title")
        closed = "CLOSED" if state == "closed" else ""
        title = title if isinstance(title, str) and title.strip() else None
        if not closed and title is None:
            return None
        return gs.Observation(line, at, pr_states=((number, closed, title, None, None),))
    if tool in ("pull_request_read", "get_pull_request"):
        if tool_input.get("method", "get") != "get":
            return None
        return _read(number, repo, result, line, at)
    return None


def _opened(tool_input: Mapping[str, Any], repo: str, result: str, line: int,
            at: int | None) -> gs.Observation | None:
    # the whole pull request's object names its page more than once (``html_url``, its
    # links): one pull request, however often; a result naming several is not read
    urls = {int(m["number"]): m for m in _PR_URL.finditer(result) if m["repo"].lower() == repo}
    if len(urls) != 1:
        return None
    found = next(iter(urls.values()))
    title = tool_input.get("title")
    head = tool_input.get("head")
    head = head.split(":", 1)[-1] if isinstance(head, str) and head else None
    return gs.Observation(line, at, pr_opened=((int(found["number"]), found.group(0),
                                                title if isinstance(title, str) else None,
                                                head),))


def _read(number: int, repo: str, result: str, line: int,
          at: int | None) -> gs.Observation | None:
    """A pull request's JSON as GitHub's API gives it: its number, state and merged flag."""
    data = _object(result)
    if data is None or data.get("number") != number:
        return None
    url = data.get("html_url") or data.get("url")
    if isinstance(url, str) and (m := _PR_URL.search(url)) and m["repo"].lower() != repo:
        return None
    state = data.get("state")
    if data.get("merged") is True or data.get("merged_at"):
        shown = "MERGED"
    elif state in ("open", "closed"):
        shown = state.upper()
    else:
        return None
    head = data.get("head")
    ref = head.get("ref") if isinstance(head, dict) else None
    title = data.get("title")
    return gs.Observation(line, at, pr_states=((
        number, shown, title if isinstance(title, str) else None,
        _field(data, "merge_commit_sha") if shown == "MERGED" else None,
        ref if isinstance(ref, str) else None),))


def _number(tool_input: Mapping[str, Any]) -> int | None:
    for key in ("pullNumber", "pull_number", "number"):
        value = tool_input.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
    return None


def _object(result: str) -> dict[str, Any] | None:
    """The JSON object the result holds (whole, or as the text of a content block)."""
    text = result.strip()
    for candidate in (text, _inner_text(text)):
        if not candidate:
            continue
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _inner_text(text: str) -> str | None:
    """The text of a result shaped ``[{"type": "text", "text": "…"}]``."""
    try:
        blocks = json.loads(text)
    except ValueError:
        return None
    if isinstance(blocks, list) and len(blocks) == 1 and isinstance(blocks[0], dict):
        inner = blocks[0].get("text")
        return inner if isinstance(inner, str) else None
    return None


def _field(data: dict[str, Any] | None, key: str) -> str | None:
    value = data.get(key) if data else None
    return value if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{7,40}", value) else None
