"""A decided version the session's later work replaced is not stored (reconcile, s21): the
last mention of the same image, package or action in what the session ran or wrote is the
version it ended on."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.reconcile import Later, digest, reconcile
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.superseded import references, superseded

from .extract_helpers import Session

IMAGE = "reg.example.org/team/widget"


def _decided(obj: str, line: int = 5) -> dict:
    return {"subject": "shop", "predicate": "x/decided", "object": obj, "scope": "project",
            "source_type": "user-assertion", "rule": "answers",
            "evidence": [f"transcript#L{line}: picked"], "epistemic": "commitment",
            "confidence": 0.8}


@pytest.mark.parametrize("text, expected", [
    (f"Publish as {IMAGE}:2.0.0 for the lab", {IMAGE: {"2.0.0"}}),
    ("pin cache to redis:7.2", {"redis": {"7.2"}}),
    ("pip install parsel==1.9.1", {"parsel": {"1.9.1"}}),
    ("use actions/setup-go@v5 in CI", {"actions/setup-go": {"v5"}}),
    ("npm i @scope/kit@3.1.0", {"@scope/kit": {"3.1.0"}}),
])
def test_versioned_references_are_read(text, expected):
    assert references(text) == expected


@pytest.mark.parametrize("text", [
    "serve on localhost:8080",  # a port, not a tag
    "see note:todo",
    "mail ops@example.org",
    "at 10:30 the job runs",
    "https://reg.example.org/team/widget",  # no tag at all
])
def test_words_that_only_look_versioned_are_not(text):
    assert references(text) == {}


def test_a_tag_the_later_work_replaced_is_superseded():
    work = [(7, f"docker build -t {IMAGE}:2.0.0 ."), (9, f"docker push {IMAGE}:2.0.1")]
    assert superseded(f"Push to {IMAGE}:2.0.0", 5, work)


def test_the_decided_tag_used_last_stands():
    work = [(7, f"docker push {IMAGE}:2.0.1"), (9, f"docker push {IMAGE}:2.0.0")]
    assert not superseded(f"Push to {IMAGE}:2.0.0", 5, work)


def test_a_floating_tag_beside_or_after_it_replaces_nothing():
    work = [(7, f"docker tag {IMAGE}:2.0.0 {IMAGE}:latest"), (9, f"docker push {IMAGE}:latest")]
    assert not superseded(f"Push to {IMAGE}:2.0.0", 5, work)


def test_work_before_the_decision_says_nothing_of_it():
    assert not superseded(f"Push to {IMAGE}:2.0.0", 5, [(3, f"docker push {IMAGE}:1.9.0")])


def test_another_image_of_the_same_registry_is_another_name():
    work = [(9, "docker push reg.example.org/team/gadget:3.0.0")]
    assert not superseded(f"Push to {IMAGE}:2.0.0", 5, work)


def test_a_package_pinned_then_bumped_is_superseded():
    work = [(12, "parsel==1.9.2\nlxml==5.2.0\n")]
    assert superseded("Pin parsel==1.9.1 in requirements.txt", 5, work)


def test_reconcile_drops_a_superseded_decision_and_keeps_a_standing_one():
    stale, kept = _decided(f"Registry target: {IMAGE}:2.0.0"), _decided("Three tabs, inline")
    later = Later(done=[(8, f"docker push {IMAGE}:2.0.0"), (20, f"docker push {IMAGE}:2.1.0")])
    assert reconcile([stale, kept], later) == [kept]


def test_reconcile_leaves_a_convention_naming_a_version_alone():
    rule = {**_decided(f"Images go to {IMAGE}:2.0.0"), "predicate": "x/convention"}
    later = Later(done=[(20, f"docker push {IMAGE}:2.1.0")])
    assert reconcile([rule], later) == [rule]


def test_a_command_whose_outcome_never_showed_still_moved_the_work_on():
    stale = _decided(f"Registry target: {IMAGE}:2.0.0")
    later = Later(done=[(8, f"docker push {IMAGE}:2.0.0")],
                  ran=[(20, f"buildctl build --output name={IMAGE}:2.1.0,push=true")])
    assert reconcile([stale], later) == []


def test_digest_keeps_the_commands_sent_to_the_background_not_those_turned_down():
    session = Session()
    session.tool("Bash", {"command": f"docker push {IMAGE}:2.1.0", "run_in_background": True},
                 output="Command running in background with ID: k1.")
    session.tool("Bash", {"command": f"docker push {IMAGE}:2.2.0"}, error=True,
                 output="The user doesn't want to proceed with this tool use. The tool use "
                        "was rejected.")
    session.bash("ls", output="a")
    ran = digest(SessionView.of(session.transcript(), None)).ran
    assert [command for _, command in ran] == [f"docker push {IMAGE}:2.1.0"]
