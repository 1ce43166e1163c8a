"""Schema-linking recall, conditions, the runner and the ``evoonto eval`` CLI on a tiny database."""

from __future__ import annotations

import json

import pytest
from fixtures.eval_support import make_db

from evoonto.builder.workload import Question
from evoonto.cli import main
from evoonto.evaluation.gold import analyze_sql
from evoonto.evaluation.linking import (
    LinkingPolicy, LinkingResult, Surfaced, compact_json, estimate_tokens, recognise, run_policy, score_linking,
    summarize_linking, surface_prompt_only, value_surfaced,
)

SCHEMA = {"singer": ["Singer_ID", "Name", "Country", "Age"], "concert": ["concert_ID", "concert_Name", "Year"],
          "singer_in_concert": ["concert_ID", "Singer_ID"]}


def test_recognise_mappings_qualified_names_and_catalog_ids():
    payload = [
        {"records": [{"mappings": [{"table": "singer", "column": "Country"}, {"table": "concert"}]}]},
        'join: "singer_in_concert"."Singer_ID" = singer.Singer_ID; see [concert.Year]',
        "source/cs/table/concert/column/concert_Name",
        "unknown.column and nosuch.Name and singer.nope are ignored",
    ]
    tables, columns = recognise(payload, SCHEMA)
    assert columns == {("singer", "country"), ("singer_in_concert", "singer_id"), ("singer", "singer_id"),
                       ("concert", "year"), ("concert", "concert_name")}
    assert tables == {"singer", "concert", "singer_in_concert"}


@pytest.mark.parametrize("value,text,found", [
    ("France", '"sampleValue":["France","Netherlands"]', True),
    ("france", "Rows whose Country is 'France'", True),
    ("F", '["F","M"]', True),
    ("F", "France", False),
    ("dog", "hotdogs", False),
    ("Super bootcamp", "concert 'Super bootcamp' of 2015", True),
])
def test_value_recognition(value, text, found):
    assert value_surfaced(value, text) is found


def test_quoted_table_listings_are_recognised():
    schema = {"frpm": ["School Code", "Free Meal Count (K-12)", "Other"], "singer": ["Name"]}
    tables, columns = recognise(['"frpm"("School Code", "Free Meal Count (K-12)")', "singer(Name)"], schema)
    assert columns == {("frpm", "school code"), ("frpm", "free meal count (k-12)")} and tables == {"frpm"}


def test_score_linking_counts_what_was_surfaced():
    gold = analyze_sql("SELECT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.Singer_ID = T2.Singer_ID "
                       "WHERE T1.Country = 'France' AND T1.Name = 'Joe'", SCHEMA)
    surfaced = Surfaced(text='"France" singer.Name', chars=400, prompt_chars=100,
                        tables=frozenset({"singer"}),
                        columns=frozenset({("singer", "name"), ("singer", "country"), ("singer", "singer_id")}))
    result = score_linking("q", surfaced, gold)
    assert result.table_recall == 0.5 and result.column_recall == 0.75 and result.value_recall == 0.5
    assert not result.strict and result.missing_columns == ("singer_in_concert.singer_id",)
    assert result.missing_values == ("Joe",) and result.tokens == estimate_tokens(400) == 100
    full = score_linking("q", surface_prompt_only("CREATE TABLE ... France Joe", SCHEMA), gold)
    assert full.strict and full.column_recall == 1.0 and full.value_recall == 1.0


def test_summary_averages_value_recall_only_where_gold_has_values():
    results = [LinkingResult("a", 1, 1, None, True, 100, 25), LinkingResult("b", 0.5, 0.5, 0.5, False, 300, 75)]
    s = summarize_linking(results)
    assert (s.questions, s.strict_recall, s.column_recall, s.value_recall, s.value_questions, s.avg_chars) == \
        (2, 0.5, 0.75, 0.5, 1, 200)
    assert summarize_linking([]).questions == 0


class BudgetTools:
    def browse(self, q, kind="term", n=5, format="verbose", budget=None):
        return [{"id": f"t{i}", "kind": "term", "label": f"T{i}", "snippet": "", "score": 1 - i / 10} for i in range(n)]

    def resolve(self, ids, **kw):
        return {"records": [{"id": i, "text": "x" * 100} for i in ids], "errors": [], "truncated": False}


BROWSED = len(compact_json(BudgetTools().browse("q", n=5)))  # the 5-hit browse answer, in characters


def test_policy_drops_lowest_ranked_hits_to_fit_the_budget():
    policy = LinkingPolicy(n=5, budget_chars=BROWSED + 300, resolve="batch", format="verbose")
    hits, resolved, events = run_policy(BudgetTools(), "q", policy)
    assert [r["id"] for r in resolved["records"]] == ["t0", "t1"]
    # the over-budget answers were not shown, so only the call whose answer was read is in the trajectory
    assert [e["tool"] for e in events] == ["browse", "resolve"]
    assert events[0]["arguments"] == {"q": "q", "kind": "term", "format": "verbose", "n": 5}
    assert events[1]["arguments"]["ids"] == ["t0", "t1"]


def test_per_hit_policy_keeps_records_within_the_budget():
    policy = LinkingPolicy(n=5, budget_chars=BROWSED + 300, format="verbose")
    hits, resolved, events = run_policy(BudgetTools(), "q", policy)
    assert [r["id"] for r in resolved["records"]] == ["t0", "t1"]  # each record is 122 characters
    assert [e["arguments"].get("ids") for e in events[1:]] == [["t0"], ["t1"]]  # t2 did not fit
    with pytest.raises(ValueError):
        LinkingPolicy(resolve="some")


def test_the_browse_answer_counts_against_the_budget_and_is_cut_to_fit():
    # the same 300 characters left for resolve answers, but the browse answer must fit too
    hits, resolved, events = run_policy(BudgetTools(), "q", LinkingPolicy(n=5, budget_chars=300, format="verbose"))
    assert len(compact_json(hits)) <= 300 and 1 <= len(hits) < 5
    assert [h["id"] for h in hits] == [f"t{i}" for i in range(len(hits))]  # a rank-order prefix
    assert events[0]["result"] == hits  # the trajectory records what was read, not what was returned
    assert [r["id"] for r in resolved["records"]] == ["t0"]  # the first record is always kept
    # a budget smaller than one hit still reads the top hit
    hits, _, _ = run_policy(BudgetTools(), "q", LinkingPolicy(n=5, budget_chars=10, format="verbose"))
    assert [h["id"] for h in hits] == ["t0"]


def test_policy_without_n_uses_the_browse_tools_default():
    hits, _, events = run_policy(BudgetTools(), "q", LinkingPolicy(budget_chars=10_000, format="verbose"))
    assert "n" not in events[0]["arguments"] and len(hits) == 5  # BudgetTools' own default
    assert LinkingPolicy().to_json()["n"] == "tool default"


def test_compact_policy_asks_one_budgeted_compact_browse_and_no_resolve():
    calls = []

    class Compact(BudgetTools):
        def browse(self, q, kind="term", n=None, format="verbose", budget=None):
            calls.append((format, budget))
            return [{"id": f"t{i}", "kind": "term", "label": f'"t"."c{i}" TEXT'} for i in range(200)]

    hits, resolved, events = run_policy(Compact(), "q", LinkingPolicy(budget_chars=1000))
    assert calls == [("compact", 1000)] and resolved == {} and [e["tool"] for e in events] == ["browse"]
    assert len(compact_json(hits)) <= 1000 and hits[0]["id"] == "t0"  # what was read fits the budget
    with pytest.raises(ValueError):
        LinkingPolicy(format="short")


# --- conditions and the runner on a real (tiny) database --------------------------------------------

QUESTIONS = [
    ("How many singers are there?", "SELECT count(*) FROM singer"),
    ("Names of singers from France", "SELECT Name FROM singer WHERE Country = 'France'"),
    ("What is the average age of singers?", "SELECT avg(Age) FROM singer"),
    ("Which concerts took place in 2014?", "SELECT concert_Name FROM concert WHERE Year = '2014'"),
    ("List singer names in concert Auditions", "SELECT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 "
     "ON T1.Singer_ID = T2.Singer_ID JOIN concert AS T3 ON T2.concert_ID = T3.concert_ID "
     "WHERE T3.concert_Name = 'Auditions'"),
    ("How old is the oldest singer?", "SELECT max(Age) FROM singer"),
    ("Countries of singers", "SELECT DISTINCT Country FROM singer"),
    ("Number of concerts per year", "SELECT Year, count(*) FROM concert GROUP BY Year"),
]


@pytest.fixture()
def spider_folder(tmp_path):
    make_db(tmp_path / "spider" / "database" / "cs" / "cs.sqlite")
    rows = [{"db_id": "cs", "question": q, "query": sql} for q, sql in QUESTIONS]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(rows))
    return tmp_path / "spider"


def test_conditions_on_a_real_database(spider_folder):
    from evoonto.evaluation.conditions import Conditions

    db = spider_folder / "database" / "cs" / "cs.sqlite"
    workload = [Question(id=f"cs/{i}", text=q, db_id="cs") for i, (q, _) in enumerate(QUESTIONS[:4])]
    conditions = Conditions()
    base = conditions.prepare("baseline", "cs", db, workload)
    hits = base.tools.browse("Country", n=3, format="verbose")
    assert hits and hits[0]["label"] == "Country"
    record = base.tools.resolve([hits[0]["id"]])["records"][0]
    assert not record.get("altLabel") and not record.get("evidence") and not record.get("relations")
    assert record["mappings"][0]["table"] == "singer"
    evo = conditions.prepare("evoonto", "cs", db, workload)
    assert evo.tools is not None and "browse" in evo.prompt and evo.sizes["manifest"] == len(evo.prompt)
    full = conditions.prepare("full", "cs", db, workload)
    assert full.tools is None and full.schema_in_prompt and "CREATE TABLE singer" in full.prompt
    assert "France" in full.prompt  # the whole layer, values included
    assert full.sizes["ddl"] < len(full.prompt)
    with pytest.raises(Exception, match="unknown condition"):
        conditions.prepare("oracle", "cs", db, workload)
    from evoonto.evaluation.benchmarks import load_spider
    from evoonto.evaluation.runner import evaluate_linking

    bench = load_spider(spider_folder)
    held_out = list(bench.questions[4:])
    full_results = evaluate_linking(full, held_out, bench)
    assert [r.question_id for r in full_results] == [q.id for q in held_out]
    assert all(r.strict for r in full_results)
    evo_results = evaluate_linking(evo, held_out, bench)
    assert all(0 <= r.column_recall <= 1 and r.chars > len(evo.prompt) for r in evo_results)


@pytest.mark.slow
def test_runner_writes_results_and_never_gives_gold_to_the_builder(spider_folder, tmp_path, monkeypatch):
    import evoonto.builder.pipeline as pipeline
    from evoonto.evaluation.runner import EvalConfig, format_summary
    from evoonto.experiment import run_evaluation

    seen = []
    real_build = pipeline.build

    def spy(sources, workload=None, **kw):
        seen.append(list(workload))
        return real_build(sources, workload, **kw)

    monkeypatch.setattr(pipeline, "build", spy)
    config = EvalConfig(benchmark="spider", data=spider_folder, out=tmp_path / "runs",
                        splits_path=tmp_path / "ws" / "splits.json")
    result = run_evaluation(config, progress=False)
    lines = (result.folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(QUESTIONS) * 3
    row = json.loads(lines[0])
    assert {"round", "condition", "question_id", "strict", "column_recall", "value_recall", "chars"} <= set(row)
    # builder inputs: Questions only, the construction pool of the other fold, no gold text anywhere
    assert len(seen) == 2
    for workload in seen:
        assert all(type(q) is Question for q in workload)
        assert not any("SELECT" in repr(q) for q in workload)
    rounds = {r["round"]: set() for r in result.rows}
    for r in result.rows:
        rounds[r["round"]].add(r["question_id"])
    assert not rounds[0] & rounds[1] and len(rounds[0] | rounds[1]) == len(QUESTIONS)
    assert result.summary["full"]["all"]["strict_recall"] == 1.0
    assert "evoonto" in format_summary(result, "linking")
    splits = json.loads((tmp_path / "ws" / "splits.json").read_text())
    again = run_evaluation(config, progress=False, conditions=None)  # reuses the stored splits
    assert json.loads((tmp_path / "ws" / "splits.json").read_text()) == splits
    assert [r["question_id"] for r in again.rows] == [r["question_id"] for r in result.rows]
    assert again.folder != result.folder


def test_runner_with_the_agent_and_ex(spider_folder, tmp_path):
    from evoonto.evaluation.agent import AgentConfig
    from evoonto.evaluation.runner import EvalConfig, format_summary
    from evoonto.experiment import run_evaluation
    from test_eval_agent import RESPONSES, Replay, client_for

    config = EvalConfig(benchmark="spider", data=spider_folder, out=tmp_path / "runs", scorer="ex",
                        conditions=("baseline",), agent=AgentConfig(max_turns=2), max_questions=1,
                        ex_mode="spider", ves_iterations=2)
    result = run_evaluation(config, client=client_for(Replay(RESPONSES["text_answer"])), progress=False)
    assert len(result.rows) == 2
    for row in result.rows:  # the replayed answer is right for question 0 only
        assert row["final_sql"] == "SELECT count(*) FROM singer" and row["finish"] == "text"
        assert row["ex"] == int(row["question_id"] == "cs/0000")
    assert (result.folder / "trajectories" / "baseline.jsonl").exists()
    assert "EX" in format_summary(result, "ex")


@pytest.mark.slow
def test_cli_eval_linking_and_errors(spider_folder, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("EVOONTO_WORKSPACE", raising=False)
    rows = json.loads((spider_folder / "dev.json").read_text())
    missing_db = {"db_id": "gone", "question": "?", "query": "SELECT 1"}
    (spider_folder / "dev.json").write_text(json.dumps(rows + [missing_db]))
    code = main(["eval", "--data", str(spider_folder), "--condition", "baseline", "--condition", "evoonto",
                 "--runs", str(tmp_path / "runs"), "--no-progress", "-n", "5", "--budget", "3000",
                 "--resolve", "batch"])
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0 and "baseline" in out and "evoonto" in out and "strict" in out
    assert "evoonto: warning: database 'gone' not found" in captured.err and "Warning" not in captured.err
    assert len(list((tmp_path / "runs").glob("*/results.jsonl"))) == 1
    assert main(["eval", "--data", str(spider_folder), "--scorer", "ex"]) == 2
    assert "needs --agent" in capsys.readouterr().err
    assert main(["eval", "--data", str(spider_folder), "--scorer", "ex", "--agent", "anthropic:claude-sonnet-5-5"]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and len(err.strip().splitlines()) == 1
    assert main(["eval", "--data", str(tmp_path / "nowhere")]) == 2
    assert main(["eval", "--data", str(spider_folder), "--folds", "1"]) == 2
    assert main(["eval", "--data", str(spider_folder), "--ves-iterations", "0", "--no-progress"]) == 2


@pytest.mark.slow
def test_linking_benchmark_script_runs_on_a_small_folder(spider_folder, tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "linking_bench.py"
    spec = importlib.util.spec_from_file_location("linking_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--data", str(spider_folder), "--runs", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "strict" in out and "evoonto" in out and "vs full" in out and "schema DDL alone" in out


def test_tool_errors_are_recorded_not_raised():
    from evoonto.errors import ToolArgumentError

    class Broken(BudgetTools):
        def browse(self, q, kind="term", n=5, **kw):
            raise ToolArgumentError("browse: empty query")

    for policy in (LinkingPolicy(), LinkingPolicy(format="verbose")):
        hits, resolved, events = run_policy(Broken(), "", policy)
        assert hits == [] and resolved == {} and events[0]["error"] == "browse: empty query"


def test_database_subsets_share_the_benchmark_splits(spider_folder, tmp_path):
    from evoonto.errors import WorkloadError
    from evoonto.evaluation.runner import EvalConfig
    from evoonto.experiment import run_evaluation

    make_db(spider_folder / "database" / "cs2" / "cs2.sqlite")
    rows = json.loads((spider_folder / "dev.json").read_text())
    rows += [{"db_id": "cs2", "question": q, "query": sql} for q, sql in QUESTIONS[:4]]
    (spider_folder / "dev.json").write_text(json.dumps(rows))
    splits = tmp_path / "splits.json"
    config = EvalConfig(benchmark="spider", data=spider_folder, out=tmp_path / "runs", splits_path=splits,
                        conditions=("baseline",), databases=["cs2"])
    first = run_evaluation(config, progress=False)
    assert {r["db_id"] for r in first.rows} == {"cs2"} and len(first.rows) == 4
    stored = splits.read_text()
    config.databases = None
    assert len(run_evaluation(config, progress=False).rows) == len(QUESTIONS) + 4
    assert splits.read_text() == stored
    config.databases = ["nope"]
    with pytest.raises(WorkloadError, match="nope"):
        run_evaluation(config, progress=False)


def test_bm25_baseline_and_browse_share_one_ranker():
    """Issue 19: the BM25 ``table.column`` baseline ranks with browse's own BM25 code
    (SearchIndex.scores over bm25s postings), with the scores bm25s itself gives."""
    import bm25s
    import numpy as np

    from evoonto.evaluation.conditions import BM25ColumnList
    from evoonto.text import tokenize
    from evoonto.tools.index import SearchIndex

    schema = {"singer": ["Singer_ID", "Name", "Country", "Age"], "concert": ["concert_ID", "Theme", "Year"],
              "singer_in_concert": ["concert_ID", "Singer_ID"]}
    listing = BM25ColumnList(schema)
    assert isinstance(listing.index, SearchIndex)
    query = "names of singers from France who sang in a concert in 2014"
    corpus = [tokenize(f"{t} {c}") for t, cols in schema.items() for c in cols]
    reference = bm25s.BM25()
    reference.index(corpus, show_progress=False)
    ids = [reference.vocab_dict[t] for t in dict.fromkeys(tokenize(query)) if t in reference.vocab_dict]
    assert np.allclose(listing.index.scores(tokenize(query), {"column": 1.0}), reference.get_scores(ids))
    names = listing(query, 80)
    assert names[0] == '"singer"."Name"' and len(", ".join(names)) <= 80
