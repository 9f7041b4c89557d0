#!/usr/bin/env python3
"""A stand-in for ``claude -p``: a real executable whose behaviour the test picks by env var.

FAKE_MODEL_MODE:
  print   (default) read the prompt, print the file FAKE_MODEL_OUTPUT (if it exists), exit 0
  fail    read the prompt, write FAKE_MODEL_STDERR lines to stderr, exit 3
  flood   read the prompt, print FAKE_MODEL_MIB mebibytes of "x" lines, exit 0
  hang    start a grandchild that sleeps, then sleep forever
  orphan  start a grandchild that sleeps (holding stdout), print the output, exit 0
  deaf    never read stdin; print the output and exit 0
  binary  read the prompt, print bytes that are not UTF-8, exit 0
Options: FAKE_MODEL_ESCAPE=1 puts the grandchild in its own session (out of our group);
FAKE_MODEL_STUBBORN=1 makes child and grandchild ignore SIGTERM.
FAKE_MODEL_REPORT: append one JSON line per run (cwd, env flags, argv, prompt length, prompt).
FAKE_MODEL_PIDS: write {"child": pid, "grandchild": pid} once the grandchild runs.
Only the standard library: it runs under whatever python3 is on PATH.
"""

import json
import os
import signal
import subprocess
import sys
import time


def main():
    mode = os.environ.get("FAKE_MODEL_MODE", "print")
    if os.environ.get("FAKE_MODEL_STUBBORN") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    prompt = "" if mode == "deaf" else sys.stdin.buffer.read().decode("utf-8")
    report(prompt)
    if mode in ("hang", "orphan"):
        start_grandchild()
    if mode == "hang":
        while True:
            time.sleep(1)
    if mode == "fail":
        sys.stderr.write(os.environ.get("FAKE_MODEL_STDERR", "boom"))
        return 3
    if mode == "flood":
        line = b"x" * 1023 + b"\n"
        for _ in range(int(os.environ.get("FAKE_MODEL_MIB", "10")) * 1024):
            sys.stdout.buffer.write(line)
        return 0
    if mode == "binary":
        sys.stdout.buffer.write(b'{"subject": "caf\xe9"}\n\xff\xfe\n')
        return 0
    print_output()
    return 0


def report(prompt):
    path = os.environ.get("FAKE_MODEL_REPORT")
    if path:
        entry = {"cwd": os.getcwd(), "internal": os.environ.get("CLAIMGRAPH_INTERNAL"),
                 "claudecode": os.environ.get("CLAUDECODE"), "argv": sys.argv[1:],
                 "prompt_chars": len(prompt), "prompt": prompt}
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def print_output():
    path = os.environ.get("FAKE_MODEL_OUTPUT")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
    sys.stdout.flush()


def start_grandchild():
    escape = os.environ.get("FAKE_MODEL_ESCAPE") == "1"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                             start_new_session=escape)
    path = os.environ.get("FAKE_MODEL_PIDS")
    if path:
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump({"child": os.getpid(), "grandchild": child.pid}, handle)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
