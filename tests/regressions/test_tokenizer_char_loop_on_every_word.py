"""Regression: tokenizing the 666,450 texts of a 70,000-column workspace's browse index spent most of
its time in the character loop of ``_segments`` (issue 33 item 3, cold ``serve``), though most runs
are plain words with no boundary. The fast path must split exactly as the loop does."""

from __future__ import annotations

import random

from evoonto.text import _segments, split_identifier, tokenize


def _reference(run: str) -> list[str]:
    """The character loop alone (the rule the fast path must agree with)."""
    out, start = [], 0
    for i in range(1, len(run)):
        prev, ch = run[i - 1], run[i]
        nxt = run[i + 1] if i + 1 < len(run) else ""
        if (prev.isdigit() != ch.isdigit() or (prev.islower() and ch.isupper())
                or (prev.isupper() and ch.isupper() and nxt.islower())):
            out.append(run[start:i])
            start = i
    out.append(run[start:])
    return out


def test_segments_fast_path_splits_as_the_character_loop():
    alphabet = "aAzZbB09ßéÉİıǅ中ー٣"  # ASCII, accented, title-case, uncased and non-ASCII digits
    rng = random.Random(33)
    runs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(50_000)]
    runs += ["customer", "Customer", "customerID", "GNPOld", "A11", "2024", "x", "Ab", "aB", "ǅx", "中文"]
    for run in runs:
        assert _segments(run) == _reference(run), run


def test_words_still_split_at_case_and_digit_boundaries():
    assert split_identifier("customerID GNPOld Song_release_year") == ["customer", "ID", "GNP", "Old", "Song",
                                                                        "release", "year"]
    assert split_identifier("district_A11 H1N1_cases addr_line2") == ["district", "A11", "H1N1", "cases", "addr",
                                                                      "line", "2"]
    assert tokenize("totalRevenue2024") == ["total", "revenu", "2024"]
