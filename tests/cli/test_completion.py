"""Shell completion is generated from the parser: every command and flag completes."""

from __future__ import annotations

import shutil
import subprocess
import sys


CLAIMGRAPH = [sys.executable, "-m", "claimgraph"]


def script(shell: str) -> str:
    done = subprocess.run([*CLAIMGRAPH, "completion", shell], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def complete_in_bash(line: str) -> list[str]:
    """What bash offers for the last word of ``line``, through the generated function."""
    words = line.split(" ")
    program = (script("bash") + f"\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
               f"COMP_CWORD={len(words) - 1}\n_claimgraph\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_their_subcommands_and_their_flags():
    assert {"facts", "search", "conflicts", "completion"} <= set(complete_in_bash("claimgraph "))
    assert complete_in_bash("claimgraph sea") == ["search"]
    assert "--all-projects" in complete_in_bash("claimgraph conflicts --")
    assert complete_in_bash("claimgraph entity me") == ["merge"]
    assert "--limit" in complete_in_bash("claimgraph --db x.db facts api --l")


def test_zsh_and_fish_scripts_name_every_command():
    zsh, fish = script("zsh"), script("fish")
    assert "bashcompinit" in zsh and "complete -o default -F _claimgraph claimgraph" in zsh
    assert "-n __fish_use_subcommand -a conflicts" in fish
    for shell, text in (("zsh", zsh), ("fish", fish)):
        if shutil.which(shell):
            done = subprocess.run([shell, "-n"], input=text, capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 0, done.stderr


def test_claimgraph_alone_shows_what_it_can_do_and_succeeds():
    done = subprocess.run(CLAIMGRAPH, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "New here? Run `claimgraph demo`" in done.stdout
