"""The bundled demo data: present, attributed, questions and gold kept apart, faithful to Spider."""

from __future__ import annotations

import json
import sqlite3

import pytest

from evoonto.demo import bundled_data, load_demo_benchmark


def _jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bundled_files_exist_and_are_attributed():
    data = bundled_data()
    for path in (data.database, data.questions, data.gold, data.attribution):
        assert path.is_file(), path
    note = data.attribution.read_text(encoding="utf-8")
    for fact in ("Spider", "Yu", "2018", "CC BY-SA 4.0", "concert_singer.sqlite", "questions.jsonl", "gold.jsonl"):
        assert fact in note
    assert (data.attribution.parent / "LICENSE-CC-BY-SA-4.0.md").is_file()


def test_bundled_database_opens_read_only():
    con = sqlite3.connect(f"{bundled_data().database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()
    assert tables == {"stadium", "singer", "concert", "singer_in_concert"}


def test_questions_file_holds_no_gold_and_gold_file_no_questions():
    data = bundled_data()
    questions, gold = _jsonl(data.questions), _jsonl(data.gold)
    assert len(questions) == len(gold) == 45
    assert all(set(q) == {"id", "db_id", "question"} for q in questions)
    assert all(set(g) == {"id", "db_id", "query"} for g in gold)
    assert [q["id"] for q in questions] == [g["id"] for g in gold]
    assert len({q["id"] for q in questions}) == 45


def test_demo_benchmark_keeps_gold_in_the_gold_store_only():
    bench = load_demo_benchmark()
    assert bench.db_ids() == ["concert_singer"] and len(bench.questions) == 45
    assert len(bench.gold) == 45
    question = bench.questions[0]
    assert not any(hasattr(question, name) for name in ("query", "sql", "gold"))
    assert bench.gold[question.id].sql.upper().startswith("SELECT")
    assert "SELECT" not in repr(bench.gold)  # the store never prints gold SQL


def test_bundled_questions_are_spiders_with_the_same_ids(spider_dir):
    """Ids, question texts and gold SQL equal what evaluation.benchmarks.load_spider reads from Spider."""
    from evoonto.evaluation.benchmarks import load_spider

    spider = load_spider(spider_dir)
    ours = load_demo_benchmark()
    theirs = {q.id: q for q in spider.questions if q.db_id == "concert_singer"}
    assert [q.id for q in ours.questions] == list(theirs)
    raw = {row["id"]: row["question"] for row in _jsonl(bundled_data().questions)}
    for q in ours.questions:
        assert raw[q.id].strip() == theirs[q.id].text  # verbatim in the file
        assert q.text == " ".join(theirs[q.id].text.split())  # the builder's reader folds whitespace
        assert ours.gold[q.id].sql == spider.gold[q.id].sql
    shipped = bundled_data().database.read_bytes()
    assert shipped == (spider_dir / "database" / "concert_singer" / "concert_singer.sqlite").read_bytes()


def test_a_malformed_gold_line_is_a_one_line_workload_error(tmp_path):
    from evoonto.demo import DemoData
    from evoonto.errors import WorkloadError

    data = bundled_data()
    bad = tmp_path / "gold.jsonl"
    bad.write_text('{"id": "concert_singer/0000", "db_id": "concert_singer"}\n', encoding="utf-8")
    broken = DemoData(data.db_id, data.database, data.questions, bad, data.attribution)
    with pytest.raises(WorkloadError, match=r"gold.jsonl:1: expected"):
        load_demo_benchmark(broken)
    bad.write_text('{"id": "nope", "db_id": "concert_singer", "query": "SELECT 1"}\n', encoding="utf-8")
    with pytest.raises(WorkloadError, match="unknown question id 'nope'"):
        load_demo_benchmark(broken)
