"""Regression (issue 14.5): VES did not follow BIRD's formula or scale, and there was no R-VES.

evoonto reported ``sqrt(mean t_gold / mean t_pred)`` in [0, ~1]. BIRD's ``evaluation_ves.py`` averages
the per-run ratios ``t_gold / t_pred`` after dropping those outside mean ± 3 std, and reports
``sqrt(ratio) * 100``; the mini-dev R-VES maps the ratio to a reward (1.25, 1, 0.75, 0.5, 0.25) and
reports ``sqrt(reward) * 100``. Expected values below are computed by hand from those definitions.
"""

from __future__ import annotations

import pytest

from evoonto.evaluation.execution import reward_of, time_ratio, ves_of


def test_time_ratio_averages_per_run_ratios_and_drops_outliers():
    # per-run ratios 2, 2, ..., 2 (19 runs) and one outlier 100: mean 6.9, std ~21.36 → 100 is
    # outside mean + 3 std (~71) and is dropped; the mean of ratios (not of times) is 2
    pairs = [(2.0, 1.0)] * 19 + [(100.0, 1.0)]
    assert time_ratio(pairs) == pytest.approx(2.0)
    # mean of ratios, not ratio of means: (4/1 + 1/4) / 2 = 2.125, whereas (4+1)/(1+4) = 1
    assert time_ratio([(4.0, 1.0), (1.0, 4.0)]) == pytest.approx(2.125)


def test_ves_and_r_ves_on_birds_scale():
    assert ves_of(4.0) == pytest.approx(200.0) and ves_of(1.0) == pytest.approx(100.0) and ves_of(0.0) == 0.0
    assert [reward_of(r) for r in (0.0, 0.1, 0.25, 0.5, 0.99, 1.0, 1.99, 2.0, 7.0)] == \
        [0.0, 0.25, 0.5, 0.75, 0.75, 1.0, 1.0, 1.25, 1.25]
