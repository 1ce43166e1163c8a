"""Regression: one row with a field too many (or too few) made a whole CSV file disappear.

CSV review: an incidents.csv of 500 rows with two ragged rows (lines 401 and 451) was "skipped" with
DuckDB's first error line ("Error when sniffing file"), and ``build`` stopped with "no Terms built".
Worse, a read falling back to DuckDB's dialect sniffer could take the file as one column holding
whole lines, or as the shape of its last line. The file is now read by its header, leaving out the
rows that do not fit it, each reported by line; a sniffed read whose columns are not the header's is
refused, and such a file is reported unreadable rather than read as another table.
"""

from __future__ import annotations

import warnings

from evoonto.sources import open_source
from evoonto.sources.base import SourceWarning


def _csv(path, rows):
    path.write_text("id,caller,state\n" + "".join(rows), encoding="utf-8")
    return path


def test_one_ragged_row_loses_the_whole_csv(tmp_path):
    rows = [f"{i},user {i % 4},{('New', 'Closed')[i % 2]}\n" for i in range(500)]
    rows[399] = "399,user 3,New,EXTRA\n"  # line 401 of the file
    rows[449] = "449,user 1\n"            # line 451
    data = tmp_path / "desk"
    data.mkdir()
    _csv(data / "incidents.csv", rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with open_source(str(data)) as source:
            [table] = source.tables()
            assert [c.name for c in table.columns] == ["id", "caller", "state"]
            assert table.row_count == 498
    said = [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]
    assert any("2 row(s) that do not fit its header left out (line 401: too many columns; line 451: missing "
               "columns)" in s for s in said), said


def test_a_file_the_sniffer_reads_as_another_table_is_unreadable(tmp_path):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "users.csv").write_text('name,department\nuser 0,IT\nuser 1,HR\n"unterminated,1,2\n', encoding="utf-8")
    (data / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with open_source(str(data)) as source:
            assert [t.name for t in source.tables()] == ["other"]
            assert "users" in source.unreadable
    assert any("cannot read users.csv" in str(w.message) for w in caught), [str(w.message) for w in caught]
