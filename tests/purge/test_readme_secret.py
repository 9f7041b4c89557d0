"""docs/forget-and-purge.md's "a secret got into memory" runs as printed, and does what it
says (the README sends a reader there)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .conftest import SECRET, holding, process

README = (Path(__file__).resolve().parents[2] / "docs" / "forget-and-purge.md").read_text(
    encoding="utf-8")


def commands() -> list[list[str]]:
    start = README.index("\n## A secret got into memory — what now\n")
    block = re.search(r"```sh\n(.*?)```", README[start:], re.DOTALL).group(1)
    return [shlex.split(line.split("  #")[0]) for line in block.strip().splitlines()]


def test_the_three_commands_take_the_secret_out_of_the_store(seeded, tmp_path):
    steps = commands()
    assert [argv[:2] for argv in steps] == [["claimgraph", "purge"]] * 2 + [["claimgraph", "dump"]]
    assert all(SECRET in argv for argv in steps[:2])
    before = holding(seeded.files())
    dry = process(*steps[0][1:])
    assert dry.returncode == 0 and "2  facts" in dry.stdout and holding(seeded.files()) == before
    done = process(*steps[1][1:], stdin="y\n")
    assert done.returncode == 0, done.stderr
    assert holding(seeded.files()) == []
    dumped = process(*steps[2][1:], "--out", str(tmp_path / "backup.jsonl"))
    assert dumped.returncode == 0 and SECRET not in (tmp_path / "backup.jsonl").read_text()
