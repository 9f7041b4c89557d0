"""Who wrote a line: each writer's Ed25519 key pair, signatures, and the trust list
(docs/sync.md, "Trust").

A store signs every line it publishes with its own key (``<db>.oplog/signing.key``, made
once, 0600); a line from the shared directory is taken only when its file is its writer's,
that writer is on this store's trust list (``<db>.oplog/trusted.json``, like SSH's allowed
signers: writer, public key, a person's name) and its signature verifies. So nobody who can
merely write to the shared directory can speak as a teammate, or as you.

The writer's key is written ``WRITER:ed25519:BASE64`` (what ``claimgraph sync status``
prints and ``claimgraph sync trust`` takes). ``cryptography`` is loaded here only, by sync:
never on the hook's path; it comes with the ``sync`` extra.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any, Mapping

from claimgraph.errors import ClaimgraphError
from claimgraph.logic import oplog as L
from claimgraph.private import FILE_MODE, NOFOLLOW, private_dir, read_nofollow
from claimgraph.sidecar import atomic_write_text

KEY_FILE = "signing.key"
TRUST_FILE = "trusted.json"
SIG = "sig"
SCHEME = "ed25519"


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise ClaimgraphError(
            "sync-needs-cryptography", "signing sync logs needs the `cryptography` package",
            hint="pip install 'claimgraph[sync]' (or pip install cryptography)") from None
    return ed25519


def _private_key(directory: Path) -> Any:
    """This store's signing key, made on first use (O_EXCL: never overwritten, never a link)."""
    ed25519 = _crypto()
    path = directory / KEY_FILE
    try:
        raw = bytes.fromhex(read_nofollow(path).decode("ascii").strip())
    except FileNotFoundError:
        private_dir(directory)
        key = ed25519.Ed25519PrivateKey.generate()
        from cryptography.hazmat.primitives import serialization as S
        raw = key.private_bytes(S.Encoding.Raw, S.PrivateFormat.Raw, S.NoEncryption())
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, FILE_MODE)
        except FileExistsError:
            return _private_key(directory)  # another process made it first
        with os.fdopen(fd, "w") as out:
            out.write(raw.hex() + "\n")
    except (OSError, ValueError) as error:
        raise ClaimgraphError("bad-signing-key", f"cannot read {path}: {error}",
                              hint="restore it from a backup; a new key means every teammate "
                                   "must trust this writer again", path=str(path)) from None
    return ed25519.Ed25519PrivateKey.from_private_bytes(raw)


def public_key(directory: Path, writer: str) -> str:
    """``WRITER:ed25519:BASE64`` for this store."""
    from cryptography.hazmat.primitives import serialization as S
    key = _private_key(directory).public_key()
    raw = key.public_bytes(S.Encoding.Raw, S.PublicFormat.Raw)
    return f"{writer}:{SCHEME}:{base64.b64encode(raw).decode()}"


def parse_writer_key(text: str) -> tuple[str, str]:
    """(writer, ``ed25519:BASE64``) from ``WRITER:ed25519:BASE64``, or a clear refusal."""
    writer, sep, b64 = str(text).strip().partition(f":{SCHEME}:")
    try:
        raw = base64.b64decode(b64, validate=True) if sep else b""
    except ValueError:
        raw = b""
    if not writer or len(raw) != 32 or not F_ID(writer):
        raise ClaimgraphError("bad-writer-key", f"{text!r} is not a writer key",
                              hint="copy it from `claimgraph sync status` on the teammate's "
                                   "machine: WRITER:ed25519:BASE64")
    return writer, f"{SCHEME}:{b64}"


def F_ID(writer: str) -> bool:
    from claimgraph.oplog.files import _WRITER_ID
    return bool(_WRITER_ID.match(writer))


def signer(directory: Path) -> Any:
    """A function that signs a line (a dict without ``sig``) and returns it with one."""
    key = _private_key(directory)

    def sign(line: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in line.items() if k != SIG}
        signature = key.sign(L.canonical_text(body).encode("utf-8"))
        return {**body, SIG: base64.b64encode(signature).decode()}
    return sign


def verifier(trusted: Mapping[str, Mapping[str, str]]) -> Any:
    """A function ``(line) -> None | why-not`` for lines from the shared directory."""
    ed25519 = _crypto()
    keys: dict[str, Any] = {}
    for writer, entry in trusted.items():
        try:
            raw = base64.b64decode(entry["key"].split(":", 1)[1], validate=True)
            keys[writer] = ed25519.Ed25519PublicKey.from_public_bytes(raw)
        except (KeyError, IndexError, ValueError):
            continue

    def check(line: Mapping[str, Any]) -> str | None:
        writer = line.get("writer")
        key = keys.get(writer) if isinstance(writer, str) else None
        if key is None:
            return "untrusted-writer"
        sig = line.get(SIG)
        if not isinstance(sig, str):
            return "unsigned"
        body = {k: v for k, v in line.items() if k != SIG}
        try:
            key.verify(base64.b64decode(sig, validate=True),
                       L.canonical_text(body).encode("utf-8"))
        except Exception:  # InvalidSignature, or a signature that is not base64
            return "bad-signature"
        return None
    return check


# --- the trust list ----------------------------------------------------------------------------
def read_trusted(directory: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(read_nofollow(directory / TRUST_FILE).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise ClaimgraphError("bad-trust-list", f"cannot read {directory / TRUST_FILE}: {error}",
                              hint="fix or remove it, then trust your teammates again") from None
    return {w: e for w, e in data.items() if isinstance(e, dict)} if isinstance(data, dict) else {}


def trust(directory: Path, own_writer: str, writer_key: str, name: str | None) -> dict[str, str]:
    writer, key = parse_writer_key(writer_key)
    if writer == own_writer:
        raise ClaimgraphError("trust-self", "that is this store's own key",
                              hint="trust your teammates' keys; your own lines are always yours")
    trusted = read_trusted(directory)
    trusted[writer] = {"key": key, **({"name": name} if name else {})}
    _write_trusted(directory, trusted)
    return {"writer": writer, "key": key, **({"name": name} if name else {})}


def untrust(directory: Path, writer_or_key: str) -> bool:
    writer = str(writer_or_key).strip().partition(f":{SCHEME}:")[0]
    trusted = read_trusted(directory)
    if trusted.pop(writer, None) is None:
        return False
    _write_trusted(directory, trusted)
    return True


def _write_trusted(directory: Path, trusted: Mapping[str, Any]) -> None:
    private_dir(directory)
    path = directory / TRUST_FILE
    atomic_write_text(path, json.dumps(trusted, sort_keys=True, indent=1) + "\n")
    os.chmod(path, FILE_MODE)
