"""Benchmark loaders, gold isolation, splits and gold SQL analysis (evoonto.evaluation)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fixtures.eval_support import make_db

from evoonto.builder.workload import Question, as_questions
from evoonto.errors import GoldAccessError, WorkloadError
from evoonto.evaluation.benchmarks import (
    Gold, GoldStore, MissingDatabaseWarning, load_benchmark, load_bird, load_spider, load_workload,
)
from evoonto.evaluation.gold import analyze_sql, has_order_by
from evoonto.evaluation.splits import load_or_create_splits, make_splits

pytestmark = pytest.mark.filterwarnings("ignore::evoonto.evaluation.benchmarks.MissingDatabaseWarning")


@pytest.fixture()
def spider_like(tmp_path):
    make_db(tmp_path / "database" / "cs" / "cs.sqlite")
    rows = [
        {"db_id": "cs", "question": "How many singers are there?", "query": "SELECT count(*) FROM singer"},
        {"db_id": "cs", "question": "Names of singers from France",
         "query": "SELECT Name FROM singer WHERE Country = 'France'"},
        {"db_id": "gone", "question": "Lost question", "query": "SELECT 1"},
    ]
    (tmp_path / "dev.json").write_text(json.dumps(rows))
    return tmp_path


def test_spider_loader_splits_questions_from_gold(spider_like):
    with pytest.warns(MissingDatabaseWarning, match="gone"):
        bench = load_spider(spider_like)
    assert [q.id for q in bench.questions] == ["cs/0000", "cs/0001"]
    assert bench.skipped == ("gone/0002",)
    assert all(isinstance(q, Question) for q in bench.questions)
    assert bench.gold["cs/0001"].sql == "SELECT Name FROM singer WHERE Country = 'France'"
    assert bench.schema("cs")["singer"] == ["Singer_ID", "Name", "Country", "Age"]
    assert load_benchmark("spider", spider_like / "dev.json").gold.ids() == ["cs/0000", "cs/0001"]


def test_questions_carry_no_gold(spider_like):
    bench = load_spider(spider_like)
    fields = {f.name for f in dataclasses.fields(Question)}
    assert fields == {"id", "text", "db_id"}
    for q in bench.questions:
        assert not any(hasattr(q, a) for a in ("sql", "query", "gold", "evidence", "answer"))
        assert "SELECT" not in repr(q)
    assert "SELECT" not in repr(bench) and "SELECT" not in repr(bench.gold)


def test_builder_entry_refuses_gold_records(spider_like):
    bench = load_spider(spider_like)
    gold = bench.gold["cs/0000"]
    with pytest.raises(WorkloadError):
        as_questions([gold])  # the builder's workload normaliser refuses anything carrying gold
    assert as_questions(bench.questions) == list(bench.questions)


def test_gold_store_errors(spider_like):
    store = GoldStore({"a": Gold("a", "cs", "SELECT 1")})
    assert "a" in store and len(store) == 1
    with pytest.raises(GoldAccessError, match="no gold answer"):
        store["b"]


def test_bird_loader_keeps_evidence_as_hint(tmp_path):
    make_db(tmp_path / "dev_databases" / "cs" / "cs.sqlite")
    rows = [{"question_id": 7, "db_id": "cs", "question": "Oldest singer?", "evidence": "oldest = MAX(Age)",
             "SQL": "SELECT Name FROM singer ORDER BY Age DESC LIMIT 1", "difficulty": "simple"}]
    (tmp_path / "dev.json").write_text(json.dumps(rows))
    bench = load_bird(tmp_path)
    assert bench.questions[0] == Question(id="cs/7", text="Oldest singer?", db_id="cs")
    assert bench.hints == {"cs/7": "oldest = MAX(Age)"}
    assert bench.gold["cs/7"].difficulty == "simple"


def test_plain_workload_has_no_gold(tmp_path):
    db = make_db(tmp_path / "cs.sqlite")
    wl = tmp_path / "q.jsonl"
    wl.write_text('{"id": "x", "question": "How many singers?", "query": "SELECT 1"}\n{"question": "French?"}\n')
    bench = load_workload(wl, database=db)
    assert [(q.id, q.db_id) for q in bench.questions] == [("x", "cs"), ("line-2", "cs")] and len(bench.gold) == 0
    wl.write_text('{"id": "x", "question": "How many?", "db_id": "other"}\n')
    with pytest.raises(WorkloadError, match="other"):
        load_workload(wl, database=db)
    with pytest.raises(WorkloadError, match="database not found"):
        load_workload(wl, database=tmp_path / "none.sqlite")


@pytest.mark.parametrize("content,message", [
    ("not json", "not valid JSON"), ('{"a": 1}', "JSON list"), ('[{"db_id": "cs"}]', "'question'")])
def test_malformed_benchmark_files(tmp_path, content, message):
    (tmp_path / "dev.json").write_text(content)
    with pytest.raises(WorkloadError, match=message):
        load_spider(tmp_path)
    with pytest.raises(WorkloadError, match="unknown benchmark"):
        load_benchmark("wikisql", tmp_path)


# --- splits -------------------------------------------------------------------------------------

def _questions(n_per_db=10, dbs=("a", "b")):
    return [Question(id=f"{d}/{i}", text=f"q{i}", db_id=d) for d in dbs for i in range(n_per_db)]


def test_reciprocal_two_fold_partitions_every_database():
    qs = _questions()
    splits = make_splits(qs, seed=3)
    rounds = splits.rounds()
    assert [r.test_fold for r in rounds] == ["A", "B"]
    for r in rounds:
        train = set(r.construction) | set(r.validation)
        assert not train & set(r.test)
        assert train | set(r.test) == {q.id for q in qs}
        assert len(r.test) == 10 and {i.split("/")[0] for i in r.test} == {"a", "b"}
        assert len(r.validation) == 2 * 1  # floor(5 * 0.3) per database
    assert set(rounds[0].test) == set(rounds[1].construction) | set(rounds[1].validation)
    assert make_splits(qs, seed=3) == splits and make_splits(qs, seed=4) != splits


def test_splits_are_saved_and_reused(tmp_path):
    qs = _questions()
    path = tmp_path / "ws" / "splits.json"
    first = load_or_create_splits(path, qs, seed=1)
    assert json.loads(path.read_text())["seed"] == 1
    assert load_or_create_splits(path, qs, seed=1) == first
    with pytest.raises(WorkloadError, match="seed=1"):
        load_or_create_splits(path, qs, seed=2)
    with pytest.raises(WorkloadError, match="other questions"):
        load_or_create_splits(path, qs[:-1], seed=1)
    path.write_text("{}")
    with pytest.raises(WorkloadError, match="malformed"):
        load_or_create_splits(path, qs, seed=1)


def test_split_parameters_are_checked():
    with pytest.raises(WorkloadError, match="at least 2"):
        make_splits(_questions(), folds=1)
    with pytest.raises(WorkloadError, match="duplicate"):
        make_splits(_questions() * 2)


# --- gold analysis ------------------------------------------------------------------------------

SCHEMA = {"singer": ["Singer_ID", "Name", "Country", "Age"], "concert": ["concert_ID", "concert_Name", "Year"],
          "singer_in_concert": ["concert_ID", "Singer_ID"]}


def test_gold_analysis_resolves_aliases_joins_and_values():
    a = analyze_sql(
        'SELECT T1.Name, count(*) FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.Singer_ID = T2.Singer_ID '
        'JOIN concert AS T3 ON T2.concert_ID = T3.concert_ID WHERE Year = "2014" AND T1.Name LIKE \'%Jo%\' '
        'GROUP BY T1.Name', SCHEMA)
    assert a.tables == {"singer", "concert", "singer_in_concert"}
    assert a.columns == {("singer", "name"), ("singer", "singer_id"), ("singer_in_concert", "singer_id"),
                         ("singer_in_concert", "concert_id"), ("concert", "concert_id"), ("concert", "year")}
    assert a.joins == {(("singer", "singer_id"), ("singer_in_concert", "singer_id")),
                       (("concert", "concert_id"), ("singer_in_concert", "concert_id"))}
    assert a.values == {"2014", "Jo"}


def test_gold_analysis_subqueries_and_errors():
    a = analyze_sql("SELECT Name FROM singer WHERE Age > (SELECT avg(Age) FROM singer) LIMIT 1", SCHEMA)
    assert a.columns == {("singer", "name"), ("singer", "age")} and a.values == frozenset()
    with pytest.raises(WorkloadError, match="cannot analyse"):
        analyze_sql("SELECT nope FROM singer", SCHEMA)
    assert has_order_by("SELECT Name FROM singer ORDER BY Age")
    assert not has_order_by("SELECT Name FROM singer WHERE Age = (SELECT Age FROM singer ORDER BY Age LIMIT 1)")


@pytest.mark.slow
def test_every_spider_gold_query_is_analysed(spider_dir):
    from evoonto.evaluation.benchmarks import analysis_of

    bench = load_spider(spider_dir)
    analyses = [analysis_of(bench.gold[q.id], bench) for q in bench.questions]
    assert len(analyses) == 663
    assert all(a.tables for a in analyses)
    assert sum(bool(a.values) for a in analyses) > 150


# --- JSON Lines layout (questions.jsonl + gold.jsonl + databases) -----------------------------------

def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture(params=["flat", "spider"])
def jsonl_dir(tmp_path, request):
    db = tmp_path / "cs.sqlite" if request.param == "flat" else tmp_path / "database" / "cs" / "cs.sqlite"
    make_db(db)
    _write_jsonl(tmp_path / "questions.jsonl", [
        {"id": "cs/0", "db_id": "cs", "question": "How many singers are there?"},
        {"id": "cs/1", "db_id": "cs", "question": "Names of  singers from France"},
        {"id": "gone/2", "db_id": "gone", "question": "Lost question"},
    ])
    _write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "cs/0", "db_id": "cs", "query": "SELECT count(*) FROM singer"},
        {"id": "cs/1", "db_id": "cs", "query": "SELECT Name FROM singer WHERE Country = 'France'"},
    ])
    return tmp_path


def test_jsonl_layout_is_detected_from_a_folder_or_the_question_file(jsonl_dir):
    from evoonto.evaluation.benchmarks import is_jsonl_layout

    assert is_jsonl_layout(jsonl_dir) and is_jsonl_layout(jsonl_dir / "questions.jsonl")
    for data in (jsonl_dir, jsonl_dir / "questions.jsonl", str(jsonl_dir)):
        for name in (None, "spider"):
            bench = load_benchmark(name, data)
            assert [q.id for q in bench.questions] == ["cs/0", "cs/1"]
            assert bench.skipped == ("gone/2",)
            assert bench.questions[1].text == "Names of singers from France"
            assert bench.gold["cs/1"].sql == "SELECT Name FROM singer WHERE Country = 'France'"
            assert bench.databases["cs"].name == "cs.sqlite"


def test_jsonl_questions_carry_no_gold(jsonl_dir):
    from evoonto.evaluation.benchmarks import load_jsonl

    bench = load_jsonl(jsonl_dir)
    for q in bench.questions:
        assert {f.name for f in dataclasses.fields(q)} == {"id", "text", "db_id"}
        assert "SELECT" not in repr(q)
    assert "SELECT" not in repr(bench)
    assert len(bench.gold) == 2


def test_jsonl_without_gold_file_has_an_empty_store(jsonl_dir):
    from evoonto.evaluation.benchmarks import load_jsonl

    (jsonl_dir / "gold.jsonl").unlink()
    bench = load_jsonl(jsonl_dir)
    assert len(bench.questions) == 2 and len(bench.gold) == 0


@pytest.mark.parametrize("gold_line, message", [
    ('{"id": "cs/0", "db_id": "cs"}', "gold.jsonl:1: expected"),
    ('not json', "gold.jsonl:1: expected"),
    ('{"id": "nope", "db_id": "cs", "query": "SELECT 1"}', "unknown question id 'nope'"),
])
def test_malformed_jsonl_gold_is_a_one_line_error(jsonl_dir, gold_line, message):
    from evoonto.evaluation.benchmarks import load_jsonl

    (jsonl_dir / "gold.jsonl").write_text(gold_line + "\n")
    with pytest.raises(WorkloadError, match=message) as info:
        load_jsonl(jsonl_dir)
    assert "\n" not in str(info.value)


def test_jsonl_question_without_db_id_is_an_error(tmp_path):
    from evoonto.evaluation.benchmarks import load_jsonl

    _write_jsonl(tmp_path / "questions.jsonl", [{"id": "q1", "question": "How many?"}])
    with pytest.raises(WorkloadError, match="'q1' has no 'db_id'"):
        load_jsonl(tmp_path)
    with pytest.raises(WorkloadError, match="benchmark file not found"):
        load_jsonl(tmp_path / "elsewhere")


def test_jsonl_loader_reads_the_bundled_data_as_the_demo_did():
    """Same questions (the builder's reader) and gold (every gold line, by id) as the demo's former
    private reader produced."""
    from evoonto.builder.workload import load_workload as read_questions
    from evoonto.demo import bundled_data, load_demo_benchmark
    from evoonto.evaluation.benchmarks import load_jsonl

    data = bundled_data()
    bench = load_jsonl(data.questions.parent)
    expected = read_questions(data.questions, db_id=data.db_id)
    assert list(bench.questions) == expected
    gold_rows = [json.loads(line) for line in data.gold.read_text().splitlines() if line.strip()]
    assert bench.gold.ids() == [r["id"] for r in gold_rows]
    assert all(bench.gold[r["id"]] == Gold(r["id"], data.db_id, r["query"]) for r in gold_rows)
    assert bench.databases == {data.db_id: data.database}
    demo = load_demo_benchmark(data)
    assert demo.questions == bench.questions and demo.gold.ids() == bench.gold.ids()
