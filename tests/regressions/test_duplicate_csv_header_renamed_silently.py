"""Regression: a CSV header naming a column twice was read with a renamed column, silently.

CSV review: ``id,name,name,amount`` was read as columns id, name, name_1, amount with no word, so
``name = 'ALICE'`` (a value of the second column) got a case-spelling suggestion on the first. The
read now warns which column was renamed to what.
"""

from __future__ import annotations

import warnings

from evoonto.sources import open_source
from evoonto.sources.base import SourceWarning


def test_duplicate_csv_header_renamed_silently(tmp_path):
    data = tmp_path / "dup"
    data.mkdir()
    (data / "t.csv").write_text("id,name,name,amount\n1,alice,ALICE,3\n2,bob,BOB,4\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with open_source(str(data)) as source:
            assert [c.name for c in source.tables()[0].columns] == ["id", "name", "name_1", "amount"]
    said = [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]
    assert any("names a column twice in its header; read as 'name_1' (column 3, headed 'name')" in s
               for s in said), said
