"""The gold sets' transcripts, kept out of the repository and restored by content.

The transcripts the gold sets label are other people's sessions, fetched from public
repositories: the repository keeps our labels (``*.gold.json``), each set's ``SOURCES.md`` and
``LICENSES.md``, and this manifest, never the transcripts themselves (git ignores every
``bench/memory/*/sessions/``). ``sessions.json`` names each transcript by the file it must
become, the repository it came from, its git blob id, size and sha256, so a copy can be
restored from any snapshot of that repository that holds the blob (a bare git directory, e.g.
the one a ``git clone --mirror`` or a fetch tool leaves), and checked byte for byte.

    python bench/memory/sessions.py manifest            # write sessions.json from the files here
    python bench/memory/sessions.py check               # which files are missing or differ
    python bench/memory/sessions.py restore GITDIR...   # copy each missing blob out of the
                                                        # bare git directories given (or found
                                                        # under them), then check it
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "sessions.json"


def blob_id(data: bytes) -> str:
    """git's object id of a blob with these bytes (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def repository(path: Path) -> str:
    """``owner/name`` from a transcript's file name (``owner__name__rest``)."""
    parts = path.name.split("__")
    return f"{parts[0]}/{parts[1]}" if len(parts) >= 3 else ""


def transcripts() -> list[Path]:
    return sorted(p for p in HERE.glob("*/sessions/**/*") if p.is_file())


def entry(path: Path) -> dict:
    data = path.read_bytes()
    return {"file": path.relative_to(HERE).as_posix(), "repository": repository(path),
            "blob": blob_id(data), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}


def write_manifest() -> int:
    """Add the transcripts on disk to the manifest (entries for files not on disk are kept:
    the manifest outlives a checkout that lacks some of them)."""
    known = {e["file"]: e for e in load()} if MANIFEST.exists() else {}
    for path in transcripts():
        known[path.relative_to(HERE).as_posix()] = entry(path)
    MANIFEST.write_text(json.dumps(sorted(known.values(), key=lambda e: e["file"]), indent=1)
                        + "\n", encoding="utf-8")
    print(f"{len(known)} transcripts in {MANIFEST.name}")
    return 0


def load() -> list[dict]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def status(e: dict) -> str:
    path = HERE / e["file"]
    if not path.is_file():
        return "missing"
    return "ok" if hashlib.sha256(path.read_bytes()).hexdigest() == e["sha256"] else "differs"


def check() -> int:
    bad = [(e["file"], s) for e in load() if (s := status(e)) != "ok"]
    for file, s in bad:
        print(f"{s}: {file}")
    print(f"{len(load()) - len(bad)} of {len(load())} transcripts present and intact")
    return 1 if bad else 0


def git_dirs(roots: list[Path]) -> list[Path]:
    """The bare git directories given, or found one or two levels under them."""
    found = []
    for root in roots:
        candidates = [root, *root.glob("*"), *root.glob("*/*")]
        found += [c for c in candidates if (c / "objects").is_dir() and (c / "HEAD").is_file()]
    return found


def read_blob(gitdir: Path, blob: str) -> bytes | None:
    done = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "blob", blob],
                          capture_output=True)
    return done.stdout if done.returncode == 0 else None


def restore(roots: list[Path]) -> int:
    """Copy every missing transcript's blob out of the first git directory that holds it,
    preferring the directories whose path names the transcript's repository."""
    dirs = git_dirs(roots)
    restored = 0
    for e in load():
        if status(e) == "ok":
            continue
        owner, _, name = e["repository"].partition("/")
        ranked = sorted(dirs, key=lambda d: not (owner in str(d) and name in str(d)))
        for gitdir in ranked:
            data = read_blob(gitdir, e["blob"])
            if data is not None and hashlib.sha256(data).hexdigest() == e["sha256"]:
                target = HERE / e["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                restored += 1
                break
    print(f"restored {restored}")
    return check()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("manifest")
    sub.add_parser("check")
    rest = sub.add_parser("restore")
    rest.add_argument("gitdirs", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command == "manifest":
        return write_manifest()
    if args.command == "check":
        return check()
    return restore(args.gitdirs)


if __name__ == "__main__":
    sys.exit(main())
