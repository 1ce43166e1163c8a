"""Regression: readers and writers of line-based records split with ``str.splitlines``, which also
splits at U+2028, U+2029, U+0085, form feed and other characters that JSON (``ensure_ascii=False``) and
rdflib's N-Triples writer leave raw inside strings. A workload question, a gold query and a predicted
SQL holding such a character were cut in two (refused, or shifted by a line), and the sorted N-Triples
of a build scattered the pieces of one triple across the output."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone

from rdflib import Graph, Literal, URIRef

from evoonto.builder.pipeline import BuildResult
from evoonto.builder.workload import load_workload
from evoonto.evaluation.benchmarks import load_jsonl
from evoonto.evaluation.execution import read_predictions
from evoonto.fileio import record_lines

ODD = "a\u2028b\u2029c\x85d\x0ce\x1cf"


def test_record_lines_splits_at_newline_only():
    assert record_lines(f"x{ODD}\r\ny\n") == [f"x{ODD}", "y", ""]


def test_workload_question_with_line_separator_is_one_question(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": f"Total {ODD} sales?", "db_id": "db"},
                               ensure_ascii=False) + "\n"
                    + json.dumps({"id": "q2", "question": "second", "db_id": "db"}) + "\n", encoding="utf-8")
    assert [q.id for q in load_workload(path)] == ["q1", "q2"]
    plain = tmp_path / "questions.txt"
    plain.write_text("How many\u2028singers are there?\nsecond\n", encoding="utf-8")
    assert [q.id for q in load_workload(plain)] == ["line-1", "line-2"]


def test_jsonl_gold_with_line_separator_in_sql_is_read(tmp_path):
    with sqlite3.connect(tmp_path / "db.sqlite") as con:
        con.execute("CREATE TABLE t (name TEXT, note TEXT)")
    (tmp_path / "questions.jsonl").write_text(
        json.dumps({"id": "q1", "question": "Which?", "db_id": "db"}) + "\n", encoding="utf-8")
    gold_sql = f"SELECT name FROM t WHERE note = '{ODD}'"
    (tmp_path / "gold.jsonl").write_text(
        json.dumps({"id": "q1", "db_id": "db", "query": gold_sql}, ensure_ascii=False) + "\n", encoding="utf-8")
    bench = load_jsonl(tmp_path / "questions.jsonl", gold_file=tmp_path / "gold.jsonl")
    assert bench.gold["q1"].sql == gold_sql


def test_prediction_with_line_separator_in_a_literal_is_one_prediction(tmp_path):
    path = tmp_path / "pred.sql"
    path.write_text(f"SELECT 1 WHERE 'x' = '{ODD}'\nSELECT 2\n", encoding="utf-8")
    predictions = read_predictions(path)
    assert [(p.sql, p.line) for p in predictions] == [(f"SELECT 1 WHERE 'x' = '{ODD}'", 1), ("SELECT 2", 2)]


def test_sorted_ntriples_keep_a_literal_with_line_separator_whole():
    graph = Graph()
    graph.add((URIRef("urn:ex:s"), URIRef("urn:ex:p"), Literal(ODD)))
    graph.add((URIRef("urn:ex:a"), URIRef("urn:ex:p"), Literal("plain")))
    result = BuildResult(graphs={"content": graph}, counts={}, rejected=[], sources=[], proposer="test",
                         base_iri="urn:ex:", at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    text = result.serialize("content")
    assert text.count("\n") == 2
    assert set(Graph().parse(data=text, format="nt")) == set(graph)
