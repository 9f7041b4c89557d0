"""``corroborate.lowered``: a long text lowered a block of lines at a time is the same string
as the text lowered whole (a final sigma's context ends at a line break)."""

from __future__ import annotations

import random

from claimgraph.capture.extract.corroborate import lowered


def test_long_non_ascii_text_lowers_as_a_whole() -> None:
    pieces = ["Σ", "ΑΣ", "σ", "\n", "a", "İ", "ß", "ǅ", "\u0345", "\u00ad", "'", " ", "É",
              "x" * 100, "\n\n", "ΟΔΟΣ\n", "Σ\nΣ", "\u2028", "\r"]
    rng = random.Random(29)
    for _ in range(8):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(60_000, 90_000)))
        assert lowered(text) == text.lower()


def test_cuts_next_to_a_final_sigma_and_short_or_ascii_text() -> None:
    for text in ("é" * 70_000 + "ΑΣ\nΣα" + "b" * 5, "é" * 65_535 + "Σ\n" + "Σ" * 3,
                 "Short ΣΑΣ", "PLAIN ASCII " * 10_000, ""):
        assert lowered(text) == text.lower()
