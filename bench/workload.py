"""A synthetic but shaped-like-real workload: many subjects, a few predicates, mixed objects.

Deterministic (seeded) so runs compare. Subjects are module-like names; objects are a mix of
entities (libraries, tools) and literals (versions, lessons), as capture produces them.
"""

from __future__ import annotations

import random

LIBS = ["postgres", "redis", "kafka", "numpy", "pandas", "flask", "django", "fastapi",
        "pytest", "ruff", "mypy", "uv", "poetry", "docker", "nginx", "celery", "sqlalchemy",
        "pydantic", "httpx", "structlog"]
WORDS = ["retry", "timeout", "migration", "cache", "schema", "index", "lock", "queue",
         "token", "batch", "stream", "parser", "config", "deploy", "router", "session"]


def make_items(n: int, seed: int = 7, subjects: int | None = None) -> list[dict]:
    """n fact candidates over about n/10 subjects."""
    rng = random.Random(seed)
    subjects = subjects or max(10, n // 10)
    items = []
    for i in range(n):
        k = rng.randrange(subjects)
        subject = f"module_{k}.{WORDS[k % len(WORDS)]}"
        kind = rng.random()
        if kind < 0.5:
            items.append({"subject": subject, "predicate": "depends-on", "object": rng.choice(LIBS) + f"-{i % 97}"})
        elif kind < 0.7:
            items.append({"subject": subject, "predicate": "tested-by", "object": f"tests/test_{rng.choice(WORDS)}_{i % 113}.py"})
        elif kind < 0.85:
            items.append({"subject": subject, "predicate": "failure-mode",
                          "object": f"{rng.choice(WORDS)} {rng.choice(WORDS)} fails when {rng.choice(LIBS)} {i}"})
        else:
            items.append({"subject": subject, "predicate": "written-in", "object": f"lang-{i}"})
    return items
