"""A dependency the session removed again (pure logic)."""

from __future__ import annotations

from claimgraph.capture.extract.removed_packages import (
    PackageChange, package_changes, packages_removed, removed_later)


def test_the_names_a_remove_command_takes_out():
    assert packages_removed(("npm", "uninstall", "-D", "@types/node@20", "left-pad")) == [
        "@types/node", "left-pad"]
    assert packages_removed(("uv", "pip", "uninstall", "requests==2.1")) == ["requests"]
    assert packages_removed(("npm", "install", "x")) == []


def test_the_last_change_after_the_fact_decides():
    changes = package_changes([(3, "npm i lodash"), (8, "npm rm lodash")])
    fact = {"predicate": "core/depends-on", "object": "lodash"}
    assert removed_later(fact, 3, changes)
    assert not removed_later(fact, 9, changes)
    assert not removed_later(fact, 3, changes + [PackageChange(12, "lodash", True)])
    assert not removed_later({**fact, "predicate": "x/convention"}, 3, changes)


def test_a_removal_from_another_place_says_nothing():
    fact = {"predicate": "core/depends-on", "object": "lodash"}
    assert packages_removed(("npm", "uninstall", "-g", "lodash")) == []
    assert packages_removed(("npm", "rm", "--workspace=legacy", "lodash")) == []
    assert not removed_later(fact, 3, package_changes([(3, "npm i lodash"),
                                                       (8, "cd old && npm rm lodash")]))
    assert removed_later(fact, 3, package_changes([(3, "cd web && npm i lodash"),
                                                   (8, "cd web && npm rm lodash")]))
    requests = {"predicate": "core/depends-on", "object": "requests"}
    assert not removed_later(requests, 3, package_changes([(3, "uv add requests"),
                                                           (8, "pip uninstall -y requests")]))
    assert removed_later(requests, 3, package_changes([(3, "pip install requests"),
                                                       (8, "pip uninstall -y requests")]))
