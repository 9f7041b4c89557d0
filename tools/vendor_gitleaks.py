"""Regenerate src/claimgraph/logic/redact/data/gitleaks-rules.json from gitleaks' config/gitleaks.toml.

Usage: python tools/vendor_gitleaks.py PATH/TO/gitleaks.toml --version v8.30.0-27-gb58d3f10
       [--commit SHA] [--license PATH/TO/LICENSE]

gitleaks (MIT) keeps the best-maintained public rule set for secrets: one ``[[rules]]`` table
per credential format, with a Go regular expression, lowercase keywords (a rule runs only where
one occurs) and an entropy floor for the captured secret. This script keeps what a text
scanner needs (id, regex, keywords, entropy, secretGroup, allowlists that do not depend on a
file path) and converts the Go syntax that Python's ``re`` reads differently:
- an inline ``(?i)`` that is not at the start (Go scopes it to the rest of its group; Python
  refuses it): it becomes a scoped ``(?i:…)`` up to the end of that group;
- ``\\z`` (end of text) becomes Python's ``\\Z``;
- a literal ``[`` inside a character class is escaped (Python warns of nested sets), and a
  POSIX class (``[[:alnum:]]``) is spelled out.
An allowlist entry that is itself a token of the rule's format (upstream lists a few public
example keys verbatim) is dropped, so no token-shaped literal sits in our repository; those
examples are then redacted like any key. A rule that still does not compile, or that matches
on a file's path only, is listed under
``skipped`` with the reason, so the count is in the data file. See docs/capture.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

OUT = Path(__file__).resolve().parents[1] / "src/claimgraph/logic/redact/data/gitleaks-rules.json"


def _group_end(pattern: str, start: int) -> tuple[int, list[int]]:
    """Index of the ``)`` closing the group that holds ``start`` (len(pattern) at top level),
    and the indexes of the ``|`` that split that group's rest into branches."""
    depth, i, in_class, bars = 0, start, False, []
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                return i, bars
            depth -= 1
        elif ch == "|" and depth == 0:
            bars.append(i)
        i += 1
    return len(pattern), bars


def scope_inline_flags(pattern: str) -> str:
    """``a(?i)b|c`` → ``a(?i:b)|(?i:c)``: Go lets a flag start anywhere and keeps it to the end
    of its group, across ``|``; Python takes flags only at the start or scoped."""
    while True:
        at = pattern.find("(?i)", 1)
        if at < 0:
            return pattern
        end, bars = _group_end(pattern, at + 4)
        cuts = [at + 4, *[bar + 1 for bar in bars]]
        ends = [*bars, end]
        branches = [pattern[a:b].replace("(?i)", "") for a, b in zip(cuts, ends)]
        scoped = "|".join("(?i:" + branch + ")" for branch in branches)
        pattern = pattern[:at] + scoped + pattern[end:]


def escape_nested_brackets(pattern: str) -> str:
    """A ``[`` inside a class is a literal in Go; Python reads ``[[`` as a future nested set."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class and ch == "[" and pattern[i + 1:i + 2] != ":":
            out.append("\\[")
        else:
            if in_class and ch == "]":
                in_class = False
            elif not in_class and ch == "[":
                in_class = True
                out.append(ch)
                i += 1
                if pattern[i:i + 1] == "^":
                    out.append("^")
                    i += 1
                if pattern[i:i + 1] == "]":
                    out.append("\\]")
                    i += 1
                continue
            out.append(ch)
        i += 1
    return "".join(out)


#: Go's POSIX classes, spelled out for Python (which has none).
POSIX_CLASSES = {"[:alnum:]": "a-zA-Z0-9", "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9",
                 "[:lower:]": "a-z", "[:upper:]": "A-Z", "[:xdigit:]": "0-9A-Fa-f",
                 "[:space:]": "\\s", "[:word:]": "\\w", "[:punct:]": "!-/:-@\\[-`{-~"}


def convert(pattern: str) -> str:
    pattern = pattern.replace("\\z", "\\Z")
    for posix, spelled in POSIX_CLASSES.items():
        pattern = pattern.replace(posix, spelled)
    pattern = escape_nested_brackets(pattern)
    if pattern.startswith("(?i)"):
        return "(?i)" + scope_inline_flags(pattern[4:]).replace("(?i:", "(?:")
    return scope_inline_flags(pattern)


def compiles(pattern: str) -> str | None:
    """None when Python compiles it silently, else why not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern)
        except (re.error, FutureWarning, DeprecationWarning) as err:
            return f"{type(err).__name__}: {err}"
    return None


def convert_allowlist(allowlist: dict) -> tuple[dict | None, list[str]]:
    """A path-free allowlist, converted; (None, problems) when it cannot apply to a text."""
    if allowlist.get("paths") or allowlist.get("commits"):
        if allowlist.get("condition", "OR").upper() == "AND" or not (
                allowlist.get("regexes") or allowlist.get("stopwords")):
            return None, []  # only ever true for a file path: never for a transcript
    regexes, problems = [], []
    for regex in allowlist.get("regexes", []):
        converted = convert(regex)
        problem = compiles(converted)
        (problems.append(f"allowlist {regex!r}: {problem}") if problem
         else regexes.append(converted))
    kept = {"target": allowlist.get("regexTarget", "secret"), "regexes": regexes,
            "stopwords": [w.lower() for w in allowlist.get("stopwords", [])]}
    return kept, problems


def convert_rules(config: dict) -> tuple[list[dict], list[dict]]:
    rules, skipped = [], []
    for rule in config.get("rules", []):
        if "regex" not in rule:
            skipped.append({"id": rule["id"], "reason": "matches a file's path only"})
            continue
        converted = convert(rule["regex"])
        problem = compiles(converted)
        if problem:
            skipped.append({"id": rule["id"], "reason": problem})
            continue
        allowlists, problems, dropped = [], [], 0
        for allowlist in rule.get("allowlists", []):
            kept, found = convert_allowlist(allowlist)
            problems += found
            if kept:
                literal = [r for r in kept["regexes"] if re.fullmatch(converted, r)]
                dropped += len(literal)
                kept["regexes"] = [r for r in kept["regexes"] if r not in literal]
            if kept and (kept["regexes"] or kept["stopwords"]):
                allowlists.append(kept)
        entry = {"id": rule["id"], "regex": converted,
                 "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
                 "entropy": rule.get("entropy", 0), "secret_group": rule.get("secretGroup", 0),
                 "allowlists": allowlists, "converted": converted != rule["regex"]}
        if problems:
            entry["allowlist_problems"] = problems
        if dropped:  # upstream's known example keys, spelled out: we redact them instead
            entry["allowlist_literals_dropped"] = dropped
        rules.append(entry)
    return rules, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toml", type=Path)
    parser.add_argument("--version", required=True, help="gitleaks version (git describe)")
    parser.add_argument("--commit", default="")
    parser.add_argument("--license", type=Path, help="gitleaks' LICENSE file")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    config = tomllib.loads(args.toml.read_text(encoding="utf-8"))
    rules, skipped = convert_rules(config)
    glob, _ = convert_allowlist(config.get("allowlist", {}) | {"paths": []})
    licence = args.license.read_text(encoding="utf-8") if args.license else ""
    data = {
        "source": "gitleaks config/gitleaks.toml (https://github.com/gitleaks/gitleaks)",
        "version": args.version, "commit": args.commit, "license": "MIT",
        "license_text": licence,
        "generated_by": "tools/vendor_gitleaks.py",
        "counts": {"upstream": len(config.get("rules", [])), "kept": len(rules),
                   "converted": sum(r["converted"] for r in rules), "skipped": len(skipped)},
        "global_allowlist": glob, "rules": rules, "skipped": skipped,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(data["counts"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
