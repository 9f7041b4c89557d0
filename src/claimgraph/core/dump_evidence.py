"""The evidence tier in a dump: the cleaned transcript segments episodes point at.

Without them a restored store answers every ``provenance`` with "transcript unavailable", so
a backup is not whole. A dump carries each segment an episode references, either inline (one
``evidence`` record holding the text: one file to keep) or as a bundle directory beside the
dump (``--evidence DIR``: the records name the files, the text stays out of the JSON lines).
Segments are content-addressed, so a load checks every text against its name before it writes
anything: a damaged or edited segment is refused, never restored under a name it does not have.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any, Iterable, Iterator

from claimgraph.errors import ClaimgraphError
from claimgraph.sidecar import Sidecars

KIND = "evidence"


def referenced(episodes: Iterable[dict[str, Any]]) -> list[str]:
    """Evidence names the episodes cite, each once, sorted (dumps are byte-stable)."""
    return sorted({e["evidence"] for e in episodes if e.get("evidence")})


def evidence_records(names: Iterable[str], sidecars: Sidecars, bundle: Path | None,
                     missing: list[str]) -> Iterator[dict[str, Any]]:
    """One record per segment; a segment absent from the tier is noted in ``missing``."""
    if bundle is not None:
        bundle.mkdir(parents=True, exist_ok=True)
    for name in names:
        try:
            text = sidecars.get_evidence(name)
        except ClaimgraphError:
            missing.append(name)
            continue
        if bundle is None:
            yield {"record": KIND, "name": name, "text": text}
        else:
            _copy_into(sidecars.evidence_dir / name, bundle / name)
            yield {"record": KIND, "name": name, "file": name}


def _copy_into(source: Path, target: Path) -> None:
    if target.exists():
        return
    try:
        shutil.copyfile(source, target)
    except OSError as error:
        raise ClaimgraphError("cannot-write", f"cannot write {target}: {error.strerror or error}",
                              hint="check the --evidence directory is writable",
                              path=str(target)) from None


def resolve_texts(records: list[dict[str, Any]], bundle: Path | None) -> dict[str, str]:
    """name -> text for every evidence record, each checked against its hash name."""
    texts = {}
    for record in records:
        name = record.get("name")
        text = record.get("text")
        if text is None:
            text = _read_bundled(record, bundle)
        if not isinstance(name, str) or not isinstance(text, str) or \
                name != "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest():
            raise ClaimgraphError(
                "invalid-dump", f"evidence {name!r} does not match its content",
                hint="the dump or its evidence bundle was damaged or edited; dump again",
                name=str(name))
        texts[name] = text
    return texts


def _read_bundled(record: dict[str, Any], bundle: Path | None) -> str | None:
    name = record.get("file")
    if bundle is None:
        raise ClaimgraphError(
            "evidence-bundle-needed", "the dump keeps its evidence in a separate directory",
            hint="pass --evidence DIR (the directory given to `claimgraph dump --evidence`)")
    if not isinstance(name, str) or os.path.basename(name) != name:
        return None
    try:
        return (bundle / name).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ClaimgraphError(
            "evidence-missing", f"cannot read {bundle / name}: {error}",
            hint="pass the --evidence directory the dump was written with",
            path=str(bundle / name)) from None


def restore(texts: dict[str, str], sidecars: Sidecars) -> None:
    """Write each segment into the tier (write-once: a present copy is kept as it is)."""
    for text in texts.values():
        sidecars.put_evidence(text)
