"""Regression (issue 19, wide-schema build): ``group_statistics`` sorted every fetched value of a column
(up to 5,001 per column, 7,450 columns) only to read the first and the last. It now takes the smallest
and the largest in one pass each, with the same tie rule as the stable sort (the first of the equal
smallest, the last of the equal largest in group order), so the recorded minimum and maximum are unchanged.
"""

from __future__ import annotations

import random

from evoonto.sources.profiling import _sort_key, _text, group_statistics


def test_group_statistics_sorts_for_min_max_same_extremes():
    rng = random.Random(7)
    pool = ["1", "01", "1.0", 1, 2.0, "a", "A", "b", None, "10", "9", 3, "x ", " 9", 1e3, "-2", -2]
    for _ in range(3000):
        values = [rng.choice(pool) for _ in range(rng.randint(0, 9))]
        stats = group_statistics(["v", "n"], [(v, 1 + i) for i, v in enumerate(values)])
        ordered = sorted((v for v in values if v is not None), key=_sort_key)
        expected = (_text(ordered[0]), _text(ordered[-1])) if ordered else (None, None)
        assert (stats.low, stats.high) == expected, values
    # numbers stored as text compare as numbers; ties keep the sort's first/last
    stats = group_statistics(["v", "n"], [("9", 1), ("10", 2), ("01", 1), ("1", 1)])
    assert (stats.low, stats.high) == ("01", "10")
