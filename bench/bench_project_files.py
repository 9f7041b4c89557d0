"""parse_manifest / parse_recipes on ~100 KB inputs of every format, beside a same-run baseline.

Target (issue 8 helper brief): each call on a 100 KB file well under 10 ms. The baseline is
the standard library's own parse of the same text where one exists (``tomllib.loads`` for the
TOML files, ``json.loads`` for package.json, ``ElementTree.fromstring`` for pom.xml), and for
every file ``text.splitlines()``, the cheapest pass over the same lines. Times are CPU time
of this process (``time.process_time``), the median of ``--runs``, so other work on the
shared cores inflates them less than wall time would.

Usage: .venv/bin/python bench/bench_project_files.py [--kb 100] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from typing import Callable

from claimgraph.capture.extract.manifests import parse_manifest
from claimgraph.capture.extract.recipes import parse_recipes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def repeat(head: str, item: Callable[[int], str], tail: str, size: int) -> str:
    parts, length, index = [head], len(head), 0
    while length < size:
        parts.append(item(index))
        length += len(parts[-1])
        index += 1
    return "".join(parts) + tail


def inputs(size: int) -> dict[str, tuple[str, str, Callable[[str], object] | None]]:
    """name -> (path, text, standard-library parse of the same text or None)."""
    toml, js = tomllib.loads, json.loads
    return {
        "pyproject deps": ("pyproject.toml", repeat(
            '[project]\nname = "x"\ndependencies = [\n', lambda i: f'    "pkg-{i}>=1.{i}",\n',
            "]\n", size), toml),
        "requirements": ("requirements.txt", repeat(
            "", lambda i: f"pkg-{i}=={i}.0  # pinned\n", "", size), None),
        "package.json deps": ("package.json", repeat(
            '{\n  "name": "x",\n  "dependencies": {\n', lambda i: f'    "pkg-{i}": "^{i}.0.0",\n',
            '    "last": "1"\n  }\n}\n', size), js),
        "Cargo.toml": ("Cargo.toml", repeat(
            '[package]\nname = "x"\nedition = "2024"\n[dependencies]\n',
            lambda i: f'crate_{i} = {{ version = "1.{i}", features = ["a", "b"] }}\n', "", size),
            toml),
        "go.mod": ("go.mod", repeat("module x\n\ngo 1.22\n\nrequire (\n",
                                    lambda i: f"\tgithub.com/acme/mod{i} v1.{i}.0 // indirect\n",
                                    ")\n", size), None),
        "mix.exs deps": ("mix.exs", repeat(
            "  defp deps do\n    [\n", lambda i: f'      {{:dep_{i}, "~> {i}.0", only: [:dev]}},\n',
            "    ]\n  end\n", size), None),
        "Gemfile": ("Gemfile", repeat('source "https://rubygems.org"\ngroup :test do\n',
                                      lambda i: f'  gem "gem{i}", "~> {i}.0"\n', "end\n", size),
                    None),
        "build.gradle": ("build.gradle", repeat(
            "dependencies {\n", lambda i: f"    implementation 'com.acme:lib{i}:{i}.0'\n", "}\n",
            size), None),
        "pom.xml": ("pom.xml", repeat(
            "<project><artifactId>x</artifactId><dependencies>\n",
            lambda i: f"  <dependency>\n    <groupId>com.acme</groupId>\n    <artifactId>lib{i}"
                      f"</artifactId>\n    <version>{i}.0</version>\n  </dependency>\n",
            "</dependencies></project>\n", size), ET.fromstring),
        "Justfile": ("Justfile", repeat(
            "", lambda i: f"# recipe {i}\nr{i}:\n    cargo test -p c{i}\n\n", "", size), None),
        "Makefile": ("Makefile", repeat("", lambda i: f"t{i}: dep{i}\n\t@pytest -q tests/t{i}\n",
                                        "", size), None),
        "package.json scripts": ("package.json", repeat(
            '{\n  "scripts": {\n', lambda i: f'    "task:{i}": "vitest run src/{i}",\n',
            '    "last": "x"\n  }\n}\n', size), js),
        "mix aliases": ("mix.exs", repeat(
            "  defp aliases do\n    [\n", lambda i: f'      a{i}: ["deps.get", "test {i}"],\n',
            "    ]\n  end\n", size), None),
        "tox.ini": ("tox.ini", repeat("[tox]\n", lambda i: f"[testenv:e{i}]\ncommands =\n    "
                                      f"pytest tests/{i}\n", "", size), None),
        "noxfile.py": ("noxfile.py", repeat("import nox\n", lambda i: f"\n@nox.session\ndef s{i}"
                                            f"(session):\n    session.run(\"pytest\", \"t{i}\")\n",
                                            "", size), None),
        "pre-commit": (".pre-commit-config.yaml", repeat(
            "repos:\n  - repo: local\n    hooks:\n",
            lambda i: f"      - id: hook{i}\n        entry: ruff check src/{i}\n", "", size), None),
        "workflow": (".github/workflows/ci.yml", repeat(
            "jobs:\n  test:\n    steps:\n",
            lambda i: f"      - name: step {i}\n        run: |\n          pytest -q t{i}\n", "",
            size), None),
        "poe tasks": ("pyproject.toml", repeat("[tool.poe.tasks]\n",
                                               lambda i: f't{i} = "pytest tests/{i}"\n', "", size),
                      toml),
        "Taskfile": ("Taskfile.yml", repeat(
            "version: '3'\ntasks:\n", lambda i: f"  t{i}:\n    cmds:\n      - go test ./p{i}\n",
            "", size), None),
        "noise (toml)": ("pyproject.toml", repeat("", lambda i: f'k{i} = [{{"x": ({i}, ]]]\n',
                                                   "", size), None),
        "noise (json)": ("package.json", repeat("", lambda i: f'"k{i}": {{"x": [{i}, ]]]\n', "",
                                                size), None),
    }


def median_ms(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        call()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(f"{'input':22} {'KB':>5} {'items':>6} {'manifest':>8} {'recipes':>8} "
          f"{'splitlines':>10} {'stdlib ms':>9} {'slower/stdlib':>13}")
    for name, (path, text, stdlib) in inputs(args.kb * 1024).items():
        manifest = parse_manifest(path, text)
        items = len(parse_recipes(path, text)) + (len(manifest.dependencies) if manifest else 0)
        of_manifest = median_ms(lambda p=path, t=text: parse_manifest(p, t), args.runs)
        of_recipes = median_ms(lambda p=path, t=text: parse_recipes(p, t), args.runs)
        lines = median_ms(text.splitlines, args.runs)
        base = median_ms(lambda f=stdlib, t=text: f(t), args.runs) if stdlib else None
        slower = max(of_manifest, of_recipes)
        ratio = f"{slower / base:13.2f}" if base else f"{'-':>13}"
        base_text = f"{base:9.2f}" if base else f"{'-':>9}"
        print(f"{name:22} {len(text) // 1024:5} {items:6} {of_manifest:8.2f} {of_recipes:8.2f} "
              f"{lines:10.3f} {base_text} {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
