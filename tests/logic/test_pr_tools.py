"""The GitHub MCP server's pull-request tools read as the gh commands they stand for
(logic/pr_tools.py): only what the tool's input and its result bear out."""

from __future__ import annotations

import json

import pytest

from claimgraph.logic import pr_tools

REPO = {"owner": "Me", "repo": "Shop"}


@pytest.mark.parametrize("name, tool", [
    ("mcp__github__create_pull_request", "create_pull_request"),
    ("mcp__plugin_github_github__merge_pull_request", "merge_pull_request"),
    ("github.update_pull_request", "update_pull_request"),
    ("mcp__gitlab__create_merge_request", None),
    ("Bash", None),
    (None, None),
])
def test_a_tool_is_the_github_servers_by_its_servers_name(name, tool):
    assert pr_tools.tool_of(name) == tool


def test_a_pull_request_opened_is_the_one_the_result_links_in_the_named_repository():
    seen = pr_tools.observed(
        "create_pull_request", {**REPO, "title": "fix: c", "head": "me:fix/c", "base": "main"},
        '{"id":"33","url":"https://github.com/me/shop/pull/30"}', 12, None)
    assert seen is not None and seen.line == 12
    assert seen.pr_opened == ((30, "https://github.com/me/shop/pull/30", "fix: c", "fix/c"),)


def test_a_pull_request_object_naming_its_own_page_twice_is_one_pull_request():
    whole = json.dumps({"number": 30, "url": "https://api.github.com/repos/me/shop/pulls/30",
                        "html_url": "https://github.com/me/shop/pull/30",
                        "_links": {"html": {"href": "https://github.com/me/shop/pull/30"}}})
    seen = pr_tools.observed("create_pull_request", {**REPO, "title": "t", "head": "x"},
                             whole, 3, None)
    assert seen is not None and [opened[0] for opened in seen.pr_opened] == [30]


@pytest.mark.parametrize("result", [
    '{"url":"https://github.com/other/shop/pull/30"}',  # another repository's
    "Error: Validation Failed: a pull request already exists",
    '{"url":"https://github.com/me/shop/pull/30"} https://github.com/me/shop/pull/31',
])
def test_a_pull_request_opened_elsewhere_or_not_at_all_is_not_read(result):
    assert pr_tools.observed("create_pull_request", {**REPO, "title": "t", "head": "x"},
                             result, 3, None) is None


def test_a_merge_counts_only_when_the_result_says_merged():
    merged = pr_tools.observed(
        "merge_pull_request", {**REPO, "pullNumber": 30, "merge_method": "squash"},
        '{"sha":"b4bc4e631c612192d7f67655d75ef726e0273b0e","merged":true,"message":"ok"}',
        9, None)
    assert merged is not None
    assert merged.pr_merged == ((30, "squash"),)
    assert merged.pr_states == ((30, "MERGED", None,
                                 "b4bc4e631c612192d7f67655d75ef726e0273b0e", None),)
    refused = pr_tools.observed("merge_pull_request", {**REPO, "pullNumber": 30},
                                '{"merged":false,"message":"Pull Request is not mergeable"}',
                                9, None)
    assert refused is None


def test_a_pull_request_closed_or_retitled_through_the_tool():
    closed = pr_tools.observed("update_pull_request", {**REPO, "pullNumber": "7",
                                                       "state": "closed"}, "{}", 4, None)
    assert closed is not None and closed.pr_states == ((7, "CLOSED", None, None, None),)
    renamed = pr_tools.observed("update_pull_request", {**REPO, "pullNumber": 7,
                                                        "title": "feat: d"}, "{}", 4, None)
    assert renamed is not None and renamed.pr_states == ((7, "", "feat: d", None, None),)
    assert pr_tools.observed("update_pull_request", {**REPO, "pullNumber": 7,
                                                     "body": "more"}, "{}", 4, None) is None


def test_a_pull_request_read_tells_its_state_when_it_is_the_one_asked_about():
    shown = {"number": 7, "state": "closed", "merged": True, "title": "feat: d",
             "html_url": "https://github.com/me/shop/pull/7", "head": {"ref": "feat/d"},
             "merge_commit_sha": "abcdef1234567"}
    block = json.dumps([{"type": "text", "text": json.dumps(shown)}])
    seen = pr_tools.observed("pull_request_read", {**REPO, "pullNumber": 7, "method": "get"},
                             block, 5, None)
    assert seen is not None
    assert seen.pr_states == ((7, "MERGED", "feat: d", "abcdef1234567", "feat/d"),)
    still_open = dict(shown, merged=False, state="open")
    seen = pr_tools.observed("get_pull_request", {**REPO, "pullNumber": 7},
                             json.dumps(still_open), 5, None)
    assert seen is not None and seen.pr_states[0][1] == "OPEN"
    assert pr_tools.observed("pull_request_read", {**REPO, "pullNumber": 8, "method": "get"},
                             block, 5, None) is None  # another PR's
    assert pr_tools.observed("pull_request_read", {**REPO, "pullNumber": 7,
                                                   "method": "get_reviews"},
                             block, 5, None) is None


def test_a_call_naming_no_repository_shows_nothing():
    assert pr_tools.observed("merge_pull_request", {"pullNumber": 30},
                             '{"merged":true}', 9, None) is None


@pytest.mark.parametrize("url, named", [
    ("github.com:Me/Shop.git", "me/shop"),
    ("https://github.com/me/shop.git", "me/shop"),
    ("https://github.com/me/shop/pull/30", "me/shop"),
    ("/srv/git/shop", None),
])
def test_the_repository_a_remote_names(url, named):
    assert pr_tools.repository_of_url(url) == named


def test_a_merge_shown_as_a_text_block_counts_as_the_bare_object_does():
    """A result kept as its content blocks (``[{"type": "text", "text": "{…}"}]``) escapes
    the object's quotes: the merge is read from the object, as a read's is."""
    said = {"sha": "b4bc4e631c612192d7f67655d75ef726e0273b0e", "merged": True, "message": "ok"}
    block = json.dumps([{"type": "text", "text": json.dumps(said)}])
    merged = pr_tools.observed("merge_pull_request", {**REPO, "pullNumber": 30}, block, 9, None)
    assert merged is not None
    assert merged.pr_states == ((30, "MERGED", None, said["sha"], None),)
    refused = json.dumps([{"type": "text", "text": json.dumps(dict(said, merged=False))}])
    assert pr_tools.observed("merge_pull_request", {**REPO, "pullNumber": 30}, refused,
                             9, None) is None
