"""Issue 17 item 6: labels of a CSV folder were built from file names ("Flag 14 assigned to").

A table named after its file keeps a readable label (the humanised stem), but its column Terms are
no longer prefixed with the file name; the qualified ``file.column`` stays a hidden label. Tables
of databases keep their table-qualified labels.
"""

from __future__ import annotations

from pathlib import Path

from rdflib.namespace import SKOS

from evoonto.builder import build


def _labels(graph) -> set[str]:
    return {str(o) for o in graph.objects(None, SKOS.prefLabel)}


def test_csv_column_labels_do_not_repeat_the_file_name(tmp_path: Path):
    data = tmp_path / "csvs"
    data.mkdir()
    (data / "flag-14.csv").write_text(
        "assigned_to,priority,hours\n" + "".join(f"Ann Lee,{'high' if i % 2 else 'low'},{i}\n" for i in range(12)),
        encoding="utf-8")
    result = build([data])
    labels = _labels(result.graphs["content"])
    assert "Flag 14" in labels  # the table: its humanised file stem
    assert "Assigned to" in labels
    assert not [label for label in labels if label.lower().startswith("flag 14 ")], sorted(labels)
    hidden = {str(o) for o in result.graphs["content"].objects(None, SKOS.hiddenLabel)}
    assert "flag-14.assigned_to" in hidden


def test_database_column_labels_stay_qualified(tmp_path: Path):
    import sqlite3

    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, city TEXT)")
    con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, f"c{i % 3}") for i in range(10)])
    con.commit()
    con.close()
    labels = _labels(build([db]).graphs["content"])
    assert "Customer city" in labels
