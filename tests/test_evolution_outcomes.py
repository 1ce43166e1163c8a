"""Outcomes of served tasks (verified queries, feedback), V held back from verified queries, the
Bayesian gate rule, manual approval and the MCP task/feedback plumbing (issue 14 items 1-3)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest
import rdflib

from evoonto.errors import ConfigurationError, WorkloadError, WorkspaceError
from evoonto.evaluation.sessions import verified_benchmark, verified_outcomes
from evoonto.evolution import approval
from evoonto.evolution.gate import GateConfig, bayes_decision, compare, posterior_improves, sign_test
from evoonto.evolution.outcomes import (
    TaskOutcome, final_sql, holdout, load_verified, merge_outcomes, normalize_question, read_feedback,
    record_feedback,
)
from evoonto.evolution.trajectories import TaskTrajectory, json_objects
from evoonto.patch import Patch
from evoonto.tools.trajectory import ToolEvent, TrajectoryLog, read_events
from evoonto.workspace import Workspace

EX = rdflib.Namespace("https://example.org/evolve-test/")


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# --- verified queries --------------------------------------------------------------------------

def test_normalize_question_ignores_case_space_and_punctuation():
    assert normalize_question("How many  Tracks?") == normalize_question("how many tracks") == "how many tracks"
    assert normalize_question("Ｃafé  prices!") == "café prices"
    assert normalize_question("tracks sold") != normalize_question("tracks bought")


def test_load_verified_reads_fields_and_mints_stable_ids(tmp_path):
    path = _write(tmp_path / "v.jsonl", [
        {"question": "How many tracks?", "sql": "SELECT COUNT(*) FROM t", "verified_by": "ana",
         "verified_at": "2026-01-02"},
        "",
        {"id": 7, "question": " Top album ", "sql": "SELECT 1", "db_id": "music"},
    ])
    first, second = load_verified(path)
    assert first.id == load_verified(path)[0].id and len(first.id) == 12  # the builder's id: the same records
    assert (first.verified_by, first.verified_at, first.db_id) == ("ana", "2026-01-02", None)
    assert (second.id, second.question, second.db_id) == ("7", "Top album", "music")
    assert "SELECT" not in repr(first)  # the SQL scores V: keep it out of logs
    assert load_verified(tmp_path) == []  # a workspace folder without verified.jsonl has none


@pytest.mark.parametrize("rows, message", [
    (["not json"], "v.jsonl:1: a verified query must be a JSON object"),
    ([["a list"]], "v.jsonl:1: malformed verified query: expected a JSON object"),
    ([{"sql": "SELECT 1"}], "v.jsonl:1: malformed verified query: missing or empty 'question'"),
    ([{"question": "q", "sql": "  "}], "v.jsonl:1: malformed verified query: missing or empty 'sql'"),
    ([{"id": "a", "question": "q", "sql": "SELECT 1"}, {"id": "a", "question": "r", "sql": "SELECT 2"}],
     "v.jsonl:2: duplicate verified query id 'a' (first at "),
])
def test_load_verified_names_the_bad_line(tmp_path, rows, message):
    with pytest.raises(WorkloadError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_verified(_write(tmp_path / "v.jsonl", rows))
    with pytest.raises(WorkloadError, match="not found"):
        load_verified(tmp_path / "missing.jsonl")


def test_holdout_is_stored_reused_and_stable_when_queries_are_added(tmp_path):
    rows = [{"id": f"q{i}", "question": f"question {i}", "sql": "SELECT 1"} for i in range(60)]
    verified = load_verified(_write(tmp_path / "v.jsonl", rows))
    ws = tmp_path / "ws"
    ws.mkdir()
    held = holdout(verified, ws, share=0.3, seed=3)
    assert 8 <= len(held) <= 30 and held == holdout(verified, ws, share=0.3, seed=3)
    more = load_verified(_write(tmp_path / "v2.jsonl", rows + [{"id": "new", "question": "n", "sql": "SELECT 1"}]))
    again = holdout(more, ws, share=0.3, seed=3)
    assert [i for i in again if i != "new"] == held  # old queries never move between V and construction
    other = tmp_path / "other"
    other.mkdir()
    assert holdout(verified, other, share=0.3, seed=4) != held  # the seed decides the draw
    with pytest.raises(WorkloadError, match=r"\(0, 1\)"):
        holdout(verified, other, share=1.0)
    (ws / "verified_holdout.json").write_text("{broken")
    with pytest.raises(WorkloadError, match="delete it to redraw V"):
        holdout(verified, ws)


# --- task outcomes -----------------------------------------------------------------------------

def _event(tool, error=None, **arguments):
    return ToolEvent(tool=tool, arguments=arguments, error=error)


def test_final_sql_is_the_final_answer_else_the_last_successful_run_sql():
    events = [_event("browse", q="x"), _event("run_sql", sql="SELECT 1"), _event("run_sql", sql="SELECT 2"),
              _event("run_sql", error="no such column", sql="SELECT bad")]
    assert final_sql(events) == "SELECT 2"
    assert final_sql(events + [_event("final_answer", sql="SELECT 3")]) == "SELECT 3"
    assert final_sql([_event("browse", q="x")]) is None


def test_feedback_is_appended_latest_wins_and_bad_lines_are_skipped(tmp_path):
    record_feedback(tmp_path, "t1", False, note="wrong column")
    record_feedback(tmp_path, "t1", True)
    record_feedback(tmp_path, "t2", False, source="report_outcome")
    with (tmp_path / "feedback.jsonl").open("a") as handle:
        handle.write('{"task": "t3", "pass')  # a torn last line
    got = read_feedback(tmp_path)
    assert set(got) == {"t1", "t2"} and got["t1"].passed and got["t1"].source == "feedback"
    assert got["t2"].source == "report_outcome" and not got["t2"].passed and got["t2"].at.endswith("Z")
    for bad in ("", "x" * 201, "a\nb"):
        with pytest.raises(WorkloadError, match="task id"):
            record_feedback(tmp_path, bad, True)
    with pytest.raises(WorkloadError, match="unknown feedback source"):
        record_feedback(tmp_path, "t9", True, source="judge")


def test_merge_outcomes_keeps_the_most_trusted_source():
    verified = {"a": TaskOutcome("a", True, "verified")}
    feedback = {"a": TaskOutcome("a", False, "feedback"), "b": TaskOutcome("b", False, "feedback")}
    merged = merge_outcomes(verified, feedback)
    assert merged["a"].source == "verified" and merged["a"].passed and merged["b"].source == "feedback"


def test_verified_outcomes_compare_results_by_ex(tmp_path):
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE orders (id INTEGER, amount REAL, status TEXT)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(1, 10.0, "paid"), (2, 5.0, "open"), (3, 7.5, "paid")])
    con.commit()
    con.close()
    verified = load_verified(_write(tmp_path / "v.jsonl", [
        {"id": "paid", "question": "What is the paid amount?",
         "sql": "SELECT SUM(amount) FROM orders WHERE status = 'paid'"},
        {"id": "broken", "question": "Broken one?", "sql": "SELECT nope FROM orders"},
    ]))

    def task(task_id, question, *events):
        return TaskTrajectory(task_id, question, events=list(events))

    tasks = [
        task("right", "what is the PAID amount",
             _event("run_sql", sql="SELECT SUM(amount) FROM orders WHERE status='paid'")),
        task("wrong", "What is the paid amount?", _event("run_sql", sql="SELECT SUM(amount) FROM orders")),
        task("silent", "What is the paid amount?", _event("browse", q="paid amount")),
        task("other", "Something else?", _event("run_sql", sql="SELECT 1")),
        task("undecidable", "Broken one?", _event("run_sql", sql="SELECT 1")),
    ]
    got = verified_outcomes(tasks, verified, {"shop": db}, "shop")
    assert set(got) == {"right", "wrong", "silent"}  # no match / a failing verified SQL decide nothing
    assert got["right"].passed and got["right"].source == "verified" and got["right"].reference == "paid"
    assert not got["wrong"].passed and "differs" in got["wrong"].note
    assert not got["silent"].passed and got["silent"].note == "no final SQL"
    bench = verified_benchmark(verified, {"shop": db}, "shop")
    assert [q.id for q in bench.questions] == ["paid", "broken"] and bench.gold["paid"].sql.startswith("SELECT SUM")
    with pytest.raises(WorkloadError, match="names source 'elsewhere'"):
        verified_benchmark(load_verified(_write(tmp_path / "w.jsonl", [
            {"question": "q", "sql": "SELECT 1", "db_id": "elsewhere"}])), {"shop": db}, "shop")


# --- the Bayesian gate -------------------------------------------------------------------------

def test_posterior_matches_the_beta_binomial_identity():
    # Beta(1+w, 1+l) tail = binomial sum; values worked out by hand
    assert posterior_improves(0, 0) == 0.5
    assert posterior_improves(1, 0) == 0.75
    assert posterior_improves(2, 0) == 0.875
    assert posterior_improves(3, 1) == 26 / 32
    assert posterior_improves(0, 1) == 0.25


def test_bayes_gate_accepts_a_clean_small_gain_the_sign_test_rejects():
    parent = {f"q{i}": 0.0 for i in range(20)}
    one_up = dict(parent, q0=1.0)
    assert sign_test(1, 0) == 0.5
    assert compare(parent, one_up, GateConfig(test="sign")).decision == "rejected"
    decision = compare(parent, one_up, GateConfig(test="bayes"))
    assert decision.accepted and decision.p_value == 0.25 and "bayes" in decision.reason


def test_bayes_gate_enforces_the_regression_budget_and_a_positive_gain():
    parent = {f"q{i}": 0.5 for i in range(20)}
    mixed = dict(parent, q0=1.0, q1=1.0, q2=1.0, q3=1.0, q4=1.0, q5=1.0, q6=0.0, q7=0.0, q8=0.0)
    # 3 losses of 20: P(Binomial(20, 0.05) ≥ 3) = 0.075 ≤ α = 0.25, V shows more than 5 per 100
    assert not bayes_decision(6, 3, 20, confidence=0.75, budget=0.05).supported
    rejected = compare(parent, mixed, GateConfig(test="bayes", regression_budget=0.05))
    assert not rejected.accepted and "exceed the budget of 5 per 100" in rejected.reason
    # … but not more than 10 per 100 (P(Binomial(20, 0.1) ≥ 3) = 0.32); the posterior (0.828) then decides
    assert compare(parent, mixed, GateConfig(test="bayes", regression_budget=0.1)).accepted
    assert not compare(parent, dict(parent), GateConfig(test="bayes")).accepted  # nothing changed
    with pytest.raises(ConfigurationError, match="regression budget"):
        GateConfig(test="bayes", regression_budget=1.0)


# --- manual approval ---------------------------------------------------------------------------

def _workspace(path: Path) -> Workspace:
    ws = Workspace.init(path, base_iri="https://example.org/evolve-test/")
    ws.set_setting("approval", "manual")
    return ws


def _propose(ws: Workspace, label: str) -> Patch:
    patch = Patch.from_graphs("content", {"content": [(EX[label], rdflib.RDFS.label, rdflib.Literal(label))]},
                              signature=f"sig {label}", intervention=f"add {label}")
    ws.record_rejected(patch, metadata={"decision": "proposed", "parent_score": 0.5, "candidate_score": 0.6,
                                        "ups": ["q1"], "downs": [], "wins": 1, "losses": 0})
    return patch


def test_proposals_wait_until_approved_or_rejected(tmp_path):
    ws = _workspace(tmp_path / "ws")
    first, second = _propose(ws, "a"), _propose(ws, "b")
    assert ws.version == 0 and [p.id for p in approval.proposals(ws)] == [first.id, second.id]
    assert approval.proposals(ws)[0].ups == ["q1"]
    with pytest.raises(ConfigurationError, match="--why"):
        approval.reject(ws, "2", why=" ")
    approval.reject(ws, "2", why="not ours", by="lee")
    assert [p.id for p in approval.proposals(ws)] == [first.id] and ws.version == 0
    assert ws.log()[-1].metadata["why"] == "not ours" and ws.log()[-1].decision == "rejected"
    assert approval.approve(ws, first.id, by="kim") == 1
    assert approval.proposals(ws) == [] and ws.log()[-1].metadata["approved_by"] == "kim"
    assert (EX["a"], rdflib.RDFS.label, rdflib.Literal("a")) in ws.ontology.graph("content")
    with pytest.raises(WorkspaceError, match="proposal 1 .* was approved already; open proposals: none"):
        approval.approve(Workspace.open(ws.path), "1")
    reopened = Workspace.open(ws.path)  # decisions survive a reload (they are in the patch files)
    assert reopened.version == 1 and approval.proposals(reopened) == []
    with pytest.raises(ConfigurationError, match="choose auto or manual"):
        approval.set_approval(reopened, "agent")


# --- MCP: task ids in _meta, report_outcome only when configured -------------------------------

@pytest.mark.slow
def test_mcp_task_meta_and_report_outcome(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    ws = Workspace.init(tmp_path / "ws", base_iri="https://example.org/evolve-test/")
    log = TrajectoryLog(tmp_path / "log.jsonl", session="s1")
    plain = create_server(ws.path, trajectory=log)
    with_feedback = create_server(ws.path, trajectory=log, accept_feedback=True)

    async def main():
        async with Client(plain) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "report_outcome" not in names and not {"approve", "evolve", "commit"} & names
            assert (await client.call_tool("report_outcome", {"outcome": "pass"})).is_error
            await client.call_tool("browse", {"q": "x"}, meta={"evoonto/task": "T1", "evoonto/question": "Q one?"})
            await client.call_tool("browse", {"q": "y"})
        async with Client(with_feedback) as client:
            assert "report_outcome" in {t.name for t in (await client.list_tools()).tools}
            ok = await client.call_tool("report_outcome", {"outcome": "fail", "note": "wrong"},
                                        meta={"evoonto/task": "T1"})
            assert not ok.is_error and "T1" in ok.content[0].text
            assert (await client.call_tool("report_outcome", {"outcome": "maybe"})).is_error
            assert (await client.call_tool("report_outcome", {"outcome": "pass", "approve": True})).is_error
            await client.call_tool("report_outcome", {"outcome": "pass"})  # no task: the session

    anyio.run(main)
    events = read_events(tmp_path / "log.jsonl")
    browse = [e for e in events if e["tool"] == "browse"]
    assert (browse[0]["task"], browse[0]["question"]) == ("T1", "Q one?")
    assert "task" not in browse[1] and "question" not in browse[1]
    feedback = read_feedback(ws.path)
    assert feedback["T1"].source == "report_outcome" and not feedback["T1"].passed and feedback["T1"].note == "wrong"
    assert feedback["s1"].passed
    with pytest.raises(ConfigurationError, match="needs a workspace"):
        from evoonto.tools.toolkit import OntologyTools

        create_server(OntologyTools(ws.ontology), accept_feedback=True)


def test_for_task_tags_events_without_changing_the_shared_log(tmp_path):
    log = TrajectoryLog(tmp_path / "log.jsonl", session="s")
    log.for_task("A", "Question A?").append(ToolEvent(tool="browse"))
    log.append(ToolEvent(tool="resolve"))
    assert log.for_task(None) is log
    first, second = read_events(tmp_path / "log.jsonl")
    assert (first["task"], first["question"], first["seq"]) == ("A", "Question A?", 0)
    assert "task" not in second and second["seq"] == 1
    assert ToolEvent.from_dict(first).question == "Question A?"


def test_private_workspace_sources_import_replaced_by_public_source_locations():
    """drift and evolve imported the server's private ``_workspace_sources``; the workspace layer
    now owns the one public reader of ``settings["sources"]``."""
    from pathlib import Path
    from types import SimpleNamespace

    import evoonto
    from evoonto.workspace import source_locations

    assert source_locations(SimpleNamespace(settings={"sources": {"db": "/x/db.sqlite"}})) == {"db": "/x/db.sqlite"}
    assert source_locations(SimpleNamespace(settings={"sources": ["/x/shop.sqlite", "duckdb://h/warehouse"]})) == {
        "shop": "/x/shop.sqlite", "warehouse": "duckdb://h/warehouse"}
    assert source_locations(SimpleNamespace(settings={"sources": [{"id": "a", "url": "u"}, {"id": "b"}]})) == {
        "a": "u", "b": None}
    assert source_locations(SimpleNamespace(settings={})) == {}
    assert source_locations(SimpleNamespace(settings={"sources": 3})) == {}  # neither a dict nor a list
    root = Path(evoonto.__file__).parent
    assert not [p for p in root.rglob("*.py") if "_workspace_sources" in p.read_text(encoding="utf-8")]


# --- two verified-query readers (evolution's and the builder's) with two id schemes ----------------

def test_two_verified_query_readers_share_ids_and_errors(tmp_path):
    from evoonto.builder.verified import as_verified
    from evoonto.builder.verified import load_verified as builder_reader

    rows = [{"question": "How many  tracks?", "sql": "SELECT COUNT(*) FROM t"},
            {"id": "named", "question": "Top album", "sql": "SELECT 1"}]
    path = _write(tmp_path / "v.jsonl", rows)
    ours, builder = load_verified(path), builder_reader(path)
    assert [v.id for v in ours] == [v.id for v in builder] == [v.key for v in as_verified(rows)]
    assert ours[1].id == "named" and ours[0].where == f"{path}:1"
    bad = _write(tmp_path / "bad.jsonl", rows + [{"question": "no sql"}])
    for reader in (load_verified, builder_reader):  # one error policy: an error naming file and line
        with pytest.raises(WorkloadError, match=r"bad\.jsonl:3: malformed verified query: missing or empty 'sql'"):
            reader(bad)
    with pytest.raises(WorkloadError, match=r"item 1: malformed verified query"):
        as_verified([{"question": "q"}])


def test_two_verified_query_readers_holdout_file_migrates(tmp_path):
    import hashlib
    import json

    rows = [{"question": f"Question number {i}?", "sql": f"SELECT {i}"} for i in range(40)]
    rows.append({"id": "kept-id", "question": "named one", "sql": "SELECT 99"})
    verified = load_verified(_write(tmp_path / "v.jsonl", rows))
    # a hold-out file the earlier evolution reader wrote: minted ids were "vq-" + sha1(normalized question)
    old_id = {v.question: ("vq-" + hashlib.sha1(normalize_question(v.question).encode()).hexdigest()[:10]
                           if v.id != "kept-id" else "kept-id") for v in verified}
    in_v = {v.question: i % 3 == 0 for i, v in enumerate(verified)}
    ws = tmp_path / "ws"
    ws.mkdir()
    stored = {"seed": 0, "share": 0.3, "assigned": {old_id[q]: in_v[q] for q in old_id}}
    (ws / "verified_holdout.json").write_text(json.dumps(stored))
    held = holdout(verified, ws, share=0.3, seed=0)
    assert held == [v.id for v in verified if in_v[v.question]]  # the same V, under the current ids
    assigned = json.loads((ws / "verified_holdout.json").read_text())["assigned"]
    assert set(assigned) == {v.id for v in verified} and not any(k.startswith("vq-") for k in assigned)
    assert holdout(verified, ws, share=0.3, seed=0) == held  # migrated once, then reused as is


@pytest.mark.parametrize("text", ['["a list"]', '"text"', "3", "null", '{"assigned": ["q0"]}',
                                  '{"assigned": {"q0": "false"}}', '{"seed": 0}'])
def test_holdout_file_not_an_object_is_a_workload_error(tmp_path, text):
    # valid JSON of the wrong shape used to raise a bare TypeError (or read "false" as True)
    verified = load_verified(_write(tmp_path / "v.jsonl", [{"id": "q0", "question": "q", "sql": "SELECT 1"}]))
    (tmp_path / "verified_holdout.json").write_text(text)
    with pytest.raises(WorkloadError, match="unreadable hold-out file"):
        holdout(verified, tmp_path)
    assert (tmp_path / "verified_holdout.json").read_text() == text  # nothing changed


def test_jsonl_line_separator_in_a_string_keeps_the_record(tmp_path):
    # JSON writes U+2028/U+2029/U+0085 raw with ensure_ascii=False; str.splitlines cut such a record in two
    odd = "Total\u2028sales\u2029by\x85region\x0cand\x1cyear?"
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps({"question": odd, "sql": "SELECT 1"}, ensure_ascii=False) + "\r\n"
                    + json.dumps({"question": "second", "sql": "SELECT 2"}) + "\n", encoding="utf-8")
    assert [v.question for v in load_verified(path)] == ["Total sales by region and year?", "second"]
    path.write_text(path.read_text(encoding="utf-8") + "{bad\n", encoding="utf-8")
    with pytest.raises(WorkloadError, match=r"v\.jsonl:3:"):  # the line number an editor shows
        load_verified(path)
    ws = tmp_path / "ws"
    ws.mkdir()
    record_feedback(ws, "task-1", True, note=odd)
    assert read_feedback(ws)["task-1"].note == odd  # the verdict used to be dropped as a malformed line
    log = tmp_path / "t.jsonl"
    log.write_text(json.dumps({"task": "t", "note": odd}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [rec["note"] for _, rec in json_objects(log.read_text(encoding="utf-8"), log, "an event")] == [odd]


def test_verified_file_with_bom_is_read(tmp_path):
    # a UTF-8 file saved with a byte-order mark (Windows editors) was refused at line 1; the workload
    # reader already skips the mark
    path = tmp_path / "v.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"question": "q", "sql": "SELECT 1"}).encode() + b"\n")
    assert [(v.question, v.sql) for v in load_verified(path)] == [("q", "SELECT 1")]
