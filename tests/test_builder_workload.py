"""Workload loading (evoonto.builder.workload): formats, ids, errors, and that gold never gets in."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from evoonto.builder.workload import Question, as_questions, load_workload
from evoonto.errors import WorkloadError


def test_json_lines_plain_text_and_spider_formats(tmp_path):
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text('{"id": "a", "question": "How many singers?"}\n\n{"question": "List  stadiums"}\n',
                     encoding="utf-8")
    assert load_workload(jsonl) == [Question("a", "How many singers?"), Question("line-3", "List stadiums")]

    txt = tmp_path / "q.txt"
    txt.write_text("# comment\nHow many dogs?\n\n  Which owner has most dogs? \n", encoding="utf-8")
    assert [(q.id, q.text) for q in load_workload(txt)] == [("line-2", "How many dogs?"),
                                                             ("line-4", "Which owner has most dogs?")]

    spider = tmp_path / "dev.json"
    spider.write_text(json.dumps([
        {"db_id": "pets_1", "question": "How many pets?", "query": "SELECT count(*) FROM pets", "sql": {}},
        {"db_id": "car_1", "question": "How many cars?", "query": "SELECT 1"},
    ]), encoding="utf-8")
    assert load_workload(spider) == [Question("pets_1/0000", "How many pets?", "pets_1"),
                                     Question("car_1/0001", "How many cars?", "car_1")]
    assert load_workload(spider, db_id="car_1") == [Question("car_1/0001", "How many cars?", "car_1")]


def test_bird_ids_and_no_gold_field_on_question(tmp_path):
    bird = tmp_path / "bird.json"
    bird.write_text(json.dumps([{"question_id": 7, "db_id": "x", "question": "Q?", "evidence": "hint",
                                 "SQL": "SELECT 1", "difficulty": "simple"}]), encoding="utf-8")
    (q,) = load_workload(bird)
    assert q == Question("7", "Q?", "x")
    assert {f.name for f in fields(Question)} == {"id", "text", "db_id"}


@pytest.mark.parametrize("content, where", [
    ('{"id": "a", "question": "ok"}\n{"id": "b", "question": \n', ":2:"),
    ('{"id": "a"}\n', ":1:"),
    ('{"id": "a", "question": "x"}\n{"id": "a", "question": "y"}\n', "duplicate"),
    ("[{\"question\": \"x\"}, ", ":1:"),
    ('[{"question": ""}]', "item 0"),
    ("\n\n# only comments\n", "no question"),
])
def test_malformed_workloads_name_file_and_line(tmp_path, content, where):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(WorkloadError) as err:
        load_workload(path)
    assert str(path) in str(err.value) and where in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(WorkloadError, match="not found"):
        load_workload(tmp_path / "nope.jsonl")
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(WorkloadError, match="not UTF-8"):
        load_workload(binary)


def test_as_questions_accepts_strings_and_questions_but_refuses_gold_records():
    from dataclasses import dataclass

    assert as_questions(None) == []
    assert as_questions(["How many?", Question("x", "Why?")]) == [Question("q0", "How many?"), Question("x", "Why?")]

    @dataclass
    class WithGold:
        id: str
        text: str
        sql: str

    with pytest.raises(WorkloadError, match="item 0"):
        as_questions([WithGold("a", "b", "SELECT 1")])
