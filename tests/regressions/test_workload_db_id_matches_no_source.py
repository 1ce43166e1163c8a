"""Issue 17: a workload whose ``db_id`` matched no source was silently ignored ("0 questions")."""

from __future__ import annotations

import pytest
from fixtures.builder_support import make_cards_db

from evoonto.builder import build
from evoonto.builder.workload import Question
from evoonto.sources.base import SourceWarning


def test_unmatched_db_id_warns_naming_it_and_the_sources(tmp_path):
    db = make_cards_db(tmp_path)
    questions = [Question("1", "Which cards are banned?", db_id="magic"),
                 Question("2", "How many sets?", db_id="magic")]
    with pytest.warns(SourceWarning, match=r"2 workload question\(s\) with db_id 'magic' match no source.*'cards'"):
        result = build([str(db)], questions)
    assert result.sources[0].questions == 0


def test_matched_db_id_does_not_warn(tmp_path, recwarn):
    db = make_cards_db(tmp_path)
    build([str(db)], [Question("1", "Which cards are banned?", db_id="cards")])
    assert not [w for w in recwarn if "match no source" in str(w.message)]
