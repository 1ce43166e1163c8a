"""check_sql (issue 15, item 2): findings, the tool, run_sql's check option, the trajectory, the CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evoonto.errors import ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.findings import has_violation
from evoonto.tools.sqlcheck import check_sql, finding_counts
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import TrajectoryLog, ToolEvent, read_events

FIXTURE = Path(__file__).parent / "fixtures" / "sqlcheck_cards.trig"
BASE = "https://example.org/evoonto/sqlcheck-test/"
REPO = Path(__file__).resolve().parents[1]


def load() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=1, base_iri=BASE)


@pytest.fixture(scope="module")
def onto() -> Ontology:
    return load()


#: check_sql's opt-in question rules (question_mismatch, count_skips_nulls)
QR = {"question_rules": True}


def kinds(findings) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in findings]


def test_consistent_sql_has_no_finding(onto):
    sql = ("SELECT c.name FROM cards AS c JOIN legalities AS l ON c.uuid = l.uuid "
           "WHERE l.status = 'Banned' AND l.format = 'commander'")
    assert check_sql(onto, sql) == []


def test_unknown_column_names_the_nearest_with_its_offsets(onto):
    sql = "SELECT c.nme FROM cards AS c"
    [finding] = check_sql(onto, sql)
    assert (finding.kind, finding.severity, finding.subject) == ("unknown_column", "Violation", "cards.nme")
    assert finding.suggestion.split(", ")[0] == "cards.name"
    assert sql[finding.start:finding.end] == "nme"


def test_unknown_unqualified_column_and_unknown_table(onto):
    [col] = check_sql(onto, "SELECT artst FROM cards")
    assert col.kind == "unknown_column" and col.suggestion.startswith("cards.artist")
    [table] = check_sql(onto, "SELECT * FROM legality")
    assert (table.kind, table.suggestion.split(", ")[0]) == ("unknown_table", "legalities")
    assert "legality" == "SELECT * FROM legality"[table.start:table.end]


def test_unseen_value_offline_is_a_warning_that_says_what_was_seen(onto):
    """Without a reachable source nothing is confirmed against the data: a Warning, worded by how
    the Evidence saw the values (here its probe read all 8 rows)."""
    sql = "SELECT uuid FROM legalities WHERE status = 'banned' AND format IN ('Vintage', 'legacy')"
    found = check_sql(onto, sql)
    assert kinds(found) == [("value_case", "Warning"), ("value_case", "Warning")]
    assert [f.suggestion for f in found] == ["'Banned'", "'vintage'"]
    assert [sql[f.start:f.end] for f in found] == ["'banned'", "'Vintage'"]
    [unseen] = check_sql(onto, "SELECT uuid FROM legalities WHERE status = 'Suspended'")
    assert (unseen.kind, unseen.severity) == ("unseen_value", "Warning")
    assert "not among the 3 values seen reading the whole table (8 rows)" in unseen.message
    assert "not checked against the data" in unseen.message


def test_unseen_value_confirmed_by_a_point_probe_is_a_violation(onto, tmp_path):
    from evoonto.sources import open_source

    with open_source(_cards_db(tmp_path / "cards.sqlite"), source_id="cards") as src:
        found = check_sql(onto, "SELECT uuid FROM legalities WHERE status = 'restricted'", sources={"cards": src})
        assert kinds(found) == [("unseen_value", "Violation")]
        assert found[0].suggestion.split(", ")[0] == "'Restricted'" and "point probe" in found[0].message
        # one alternative of several that the data lacks: a Warning (the others may match)
        found = check_sql(onto, "SELECT uuid FROM legalities WHERE format IN ('Vintage', 'vintage')",
                          sources={"cards": src})
        assert kinds(found) == [("unseen_value", "Warning")]
        # a value the Evidence never saw but the data holds: no finding (artist is high-cardinality)
        assert check_sql(onto, "SELECT name FROM cards WHERE artist = 'Rebecca Guay'", sources={"cards": src}) == []
        [slip] = check_sql(onto, "SELECT name FROM cards WHERE artist = 'rebecca guay'", sources={"cards": src})
        assert (slip.kind, slip.severity, slip.suggestion) == ("unseen_value", "Violation", "'Rebecca Guay'")
        # a spelling the data does not hold in a high-cardinality column: checked the same way
        [typo] = check_sql(onto, "SELECT name FROM cards WHERE artist = 'Rebeca Guay'", sources={"cards": src})
        assert (typo.kind, typo.severity) == ("unseen_value", "Violation")


def test_negated_comparison_with_an_unseen_value_is_only_a_warning(onto, tmp_path):
    from evoonto.sources import open_source

    with open_source(_cards_db(tmp_path / "cards.sqlite"), source_id="cards") as src:
        assert kinds(check_sql(onto, "SELECT uuid FROM legalities WHERE status <> 'banned'",
                               sources={"cards": src})) == [("unseen_value", "Warning")]


def test_partial_vocabulary_never_gives_a_violation_offline(onto):
    # artist's Evidence shows 2 of 40 values: an unseen artist is not an error, a case slip is a warning
    assert check_sql(onto, "SELECT name FROM cards WHERE artist = 'Someone Else'") == []
    found = check_sql(onto, "SELECT name FROM cards WHERE artist = 'john avon'")
    assert kinds(found) == [("value_case", "Warning")] and found[0].suggestion == "'John Avon'"


def test_sqlite_double_quoted_string_is_checked_as_a_value(onto):
    found = check_sql(onto, 'SELECT uuid FROM legalities WHERE status = "restricted"')
    assert kinds(found) == [("value_case", "Warning")] and found[0].suggestion.startswith("'Restricted'")
    assert check_sql(onto, 'SELECT uuid FROM legalities WHERE status = "Restricted"') == []


def test_missing_violation_constraint(onto):
    found = check_sql(onto, "SELECT uuid FROM legalities WHERE status = 'Banned'")
    assert kinds(found) == [("missing_constraint", "Violation")]
    assert found[0].suggestion == "add AND format = 'commander'"
    assert found[0].subject == BASE + "constraint/banned-needs-format"
    # the trigger keyword is not used: the constraint does not apply
    assert check_sql(onto, "SELECT uuid FROM legalities WHERE status = 'Legal'") == []
    # a join on the column is not a filter on it
    sql = ("SELECT l.uuid FROM legalities AS l JOIN legalities AS m ON l.format = m.format "
           "WHERE l.status = 'Banned'")
    assert [f.kind for f in check_sql(onto, sql)] == ["missing_constraint"]


def test_view_read_only_through_pass_through_columns(onto):
    found = check_sql(onto, "SELECT v.name FROM banned_cards AS v")
    assert kinds(found) == [("view_for_base", "Warning")] and found[0].suggestion == "cards.name"
    assert "SELECT v.name FROM banned_cards AS v"[found[0].start:found[0].end] == "banned_cards"
    # a computed view column is what the view is for: no finding
    assert check_sql(onto, "SELECT name, fmt FROM banned_cards") == []


def test_aliases_ctes_and_subqueries_are_resolved(onto):
    ok = [
        "SELECT COUNT(*) AS n FROM cards GROUP BY artist ORDER BY n DESC",
        "WITH b AS (SELECT uuid FROM legalities WHERE status = 'Legal') SELECT c.name FROM cards AS c "
        "JOIN b ON c.uuid = b.uuid",
        "SELECT name FROM cards WHERE uuid IN (SELECT uuid FROM legalities WHERE format = 'legacy')",
        "SELECT x.name FROM (SELECT name FROM cards) AS x",
        "SELECT name FROM cards AS c WHERE EXISTS (SELECT 1 FROM legalities AS l WHERE l.uuid = c.uuid)",
    ]
    for sql in ok:
        assert check_sql(onto, sql) == [], sql
    found = check_sql(onto, "SELECT z.name FROM cards AS c")
    assert kinds(found) == [("unknown_table", "Violation")]


def test_parse_errors_and_bad_arguments(onto):
    assert kinds(check_sql(onto, "SELEC name FROM cards")) == [("parse_error", "Violation")]
    assert kinds(check_sql(onto, "SELECT 1; SELECT 2")) == [("parse_error", "Violation")]
    with pytest.raises(ToolArgumentError, match="non-empty"):
        check_sql(onto, "  ")
    with pytest.raises(ToolArgumentError, match="unknown source"):
        check_sql(onto, "SELECT 1", source="nope")


def test_finding_counts():
    counts = finding_counts([{"kind": "unseen_value", "severity": "Violation"},
                             {"kind": "value_case", "severity": "Warning"}])
    assert counts == {"Violation": 1, "Warning": 1, "Info": 0, "unseen_value": 1, "value_case": 1}


def _cards_db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE cards (uuid TEXT PRIMARY KEY, name TEXT, artist TEXT);
        CREATE TABLE legalities (uuid TEXT REFERENCES cards(uuid), format TEXT, status TEXT);
        INSERT INTO cards VALUES ('a', 'Ancestral Recall', 'John Avon'), ('b', 'Black Lotus', 'Rebecca Guay');
        INSERT INTO legalities VALUES ('a', 'vintage', 'Restricted'), ('b', 'commander', 'Banned');
    """)
    con.commit()
    con.close()
    return path


def test_tool_run_sql_check_and_trajectory_counts(tmp_path):
    log = TrajectoryLog(tmp_path / "log.jsonl", session="s1")
    tools = OntologyTools(load(), sources={"cards": _cards_db(tmp_path / "cards.sqlite")}, data_tools=True,
                          trajectory=log)
    assert "check_sql" in tools.registry() and tools.registry()["check_sql"].listed
    answer = tools.call("check_sql", {"sql": "SELECT uuid FROM legalities WHERE format = 'Vintage'"})
    assert answer["ok"] is False and answer["findings"][0]["kind"] == "unseen_value"
    rows = tools.call("run_sql", {"sql": "SELECT uuid FROM legalities WHERE status = 'Banned'", "check": True})
    assert rows["rows"] == [["b"]] and [f["kind"] for f in rows["findings"]] == ["missing_constraint"]
    plain = tools.call("run_sql", {"sql": "SELECT uuid FROM legalities"})
    assert "findings" not in plain
    events = read_events(tmp_path / "log.jsonl")
    assert [e.get("findings") for e in events] == [
        {"Violation": 1, "Warning": 0, "Info": 0, "unseen_value": 1},
        {"Violation": 1, "Warning": 0, "Info": 0, "missing_constraint": 1}, None]
    assert ToolEvent.from_dict(events[0]).findings == events[0]["findings"]
    tools.close()


def test_cli_check_sql_exit_codes(tmp_path, capsys):
    from evoonto.cli import main
    from evoonto.workspace import Workspace

    ws = Workspace.init(tmp_path / "ws", base_iri=BASE)
    onto = load()
    ws.replace_base({name: onto.graph(name) for name in ("catalog", "content")})
    wsarg = ["--workspace", str(tmp_path / "ws")]
    assert main(["check-sql", *wsarg, "SELECT name FROM cards"]) == 0
    assert "ok: no finding" in capsys.readouterr().out
    assert main(["check-sql", *wsarg, "--json", "SELECT nme FROM cards"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["findings"][0]["suggestion"].startswith("cards.name")
    assert main(["check-sql", *wsarg, "SELECT uuid FROM legalities WHERE status = 'Banned'"]) == 1
    assert "suggestion: add AND format = 'commander'" in capsys.readouterr().out
    assert main(["check-sql", *wsarg, "--source", "nope", "SELECT 1"]) == 2
    with pytest.raises(SystemExit) as usage:
        main(["check-sql", *wsarg])
    assert usage.value.code == 2


@pytest.mark.slow
def test_bundled_demo_gold_passes_an_ontology_built_from_its_questions(tmp_path):
    """Precision on the bundled database: no gold query of the demo gets a Violation (the builder
    sees the questions only)."""
    from evoonto.builder.pipeline import build

    data = REPO / "evoonto" / "data" / "concert_singer"
    questions = [json.loads(line)["question"] for line in (data / "questions.jsonl").read_text().splitlines() if line]
    gold = [json.loads(line) for line in (data / "gold.jsonl").read_text().splitlines() if line]
    onto = OntologyTools(Ontology.from_graphs(build([data / "concert_singer.sqlite"], questions).graphs),
                         sources={"concert_singer": data / "concert_singer.sqlite"})
    sqls = [g.get("sql") or g.get("query") for g in gold]
    assert sqls and all(sqls)
    flagged = [(sql, check_sql(onto, sql)) for sql in sqls if has_violation(check_sql(onto, sql))]
    assert flagged == []
    # and a case slip in one of them is caught (confirmed by a probe of the database)
    assert has_violation(check_sql(onto, "SELECT Name FROM singer WHERE Country = 'france'"))
    onto.close()


def test_question_mismatch_names_the_column_the_question_asks_for(onto):
    """The right table, the wrong column: ``artist`` is asked for, ``name`` is selected."""
    question = "Which artist drew the cards?"
    found = check_sql(onto, "SELECT name FROM cards", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")]
    assert found[0].subject == "cards.name" and found[0].suggestion == "cards.artist"
    assert "SELECT name FROM cards"[found[0].start:found[0].end] == "name"
    # the column the question names: nothing to say; without a question the check does not run
    assert check_sql(onto, "SELECT artist FROM cards", **QR, question=question) == []
    assert check_sql(onto, "SELECT name FROM cards") == []


def test_question_mismatch_spares_join_keys_counts_and_literal_columns(onto):
    question = "How many cards by John Avon are banned?"
    sql = ("SELECT count(c.uuid) FROM cards AS c JOIN legalities AS l ON c.uuid = l.uuid "
           "WHERE c.artist = 'John Avon' AND l.status = 'Banned' AND l.format = 'commander'")
    assert [f for f in check_sql(onto, sql, **QR, question=question) if f.kind == "question_mismatch"] == []


def test_question_argument_is_checked(onto):
    with pytest.raises(ToolArgumentError, match="question"):
        check_sql(onto, "SELECT name FROM cards", **QR, question="x" * 20_001)


def test_tool_and_cli_take_the_question(tmp_path, capsys):
    from evoonto.cli import main
    from evoonto.workspace import Workspace

    tools = OntologyTools(load())
    answer = tools.call("check_sql", {"sql": "SELECT name FROM cards", "question": "Which artist drew the cards?",
                                      "question_rules": True})
    assert answer["ok"] is True and [f["kind"] for f in answer["findings"]] == ["question_mismatch"]
    ws = Workspace.init(tmp_path / "ws", base_iri=BASE)
    onto = load()
    ws.replace_base({name: onto.graph(name) for name in ("catalog", "content")})
    assert main(["check-sql", "--workspace", str(tmp_path / "ws"), "--question", "Which artist drew the cards?",
                 "--question-rules",
                 "SELECT name FROM cards"]) == 0  # a Warning: exit 0
    assert "question_mismatch" in capsys.readouterr().out


def test_type_mismatch_warns_on_text_aggregates_and_numeric_comparisons(onto):
    found = check_sql(onto, "SELECT avg(artist) FROM cards")
    assert kinds(found) == [("type_mismatch", "Warning")] and found[0].subject == "cards.artist"
    found = check_sql(onto, "SELECT name FROM cards WHERE artist > 3")
    assert kinds(found) == [("type_mismatch", "Warning")]
    assert check_sql(onto, "SELECT count(artist) FROM cards WHERE artist > 'M'") == []


def test_natural_join_flagged_unknown_join_by_check_sql(onto):
    """check_sql reads NATURAL JOIN / USING as equalities on the shared columns (here the declared
    key ``uuid``): no ``unknown_join``, no ``ambiguous_column``."""
    for sql in ("SELECT name, uuid FROM cards NATURAL JOIN legalities WHERE status = 'Legal'",
                "SELECT name FROM cards JOIN legalities USING (uuid) WHERE status = 'Legal'"):
        assert check_sql(onto, sql) == [], sql
    # without the shared column the tables are a Cartesian product
    assert kinds(check_sql(onto, "SELECT fmt FROM banned_cards NATURAL JOIN legalities")) == [
        ("unknown_join", "Warning")]


# -- "wrong column of the same table" (issue 15: same_table_column recall) ------------------------


@pytest.fixture(scope="module")
def singers(tmp_path_factory) -> Ontology:
    """An ontology the builder makes of a small one-table database (no question, no gold)."""
    from evoonto.builder.pipeline import build

    path = tmp_path_factory.mktemp("singers") / "singers.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, city TEXT, "
                "age INTEGER, net_worth REAL, song_name TEXT, code TEXT)")
    places = [("France", "Paris"), ("France", "Lyon"), ("Netherlands", "Utrecht"), ("United States", "Boston")]
    con.executemany("INSERT INTO singer VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(i, f"singer {i}", places[i % 4][0], places[i % 4][1], 20 + 3 * i, 1.5 * i,
                      f"song {i}" if i % 3 else None, str(100 + i)) for i in range(1, 13)])
    con.commit()
    con.close()
    # the database backs check_sql's point probes (the toolkit's sources)
    return OntologyTools(Ontology.from_graphs(build([path], None, validate=False).graphs), sources={"singers": path})


def test_same_table_column_text_literal_on_numeric_column(singers):
    """A text literal compared with a numeric column never matches: the column is the wrong one."""
    found = check_sql(singers, "SELECT name FROM singer WHERE age = 'France'")
    assert kinds(found) == [("type_mismatch", "Violation")] and found[0].subject == "singer.age"
    assert "singer.country" in found[0].suggestion  # the column whose values hold it
    assert kinds(check_sql(singers, "SELECT name FROM singer WHERE age <> 'France'")) == [("type_mismatch", "Warning")]
    assert kinds(check_sql(singers, "SELECT name FROM singer WHERE singer_id LIKE '%Pa%'")) == [
        ("type_mismatch", "Violation")]
    assert check_sql(singers, "SELECT name FROM singer WHERE age = '29' OR singer_id LIKE '1%'") == []


def test_same_table_column_value_of_another_column(singers):
    [found] = check_sql(singers, "SELECT name FROM singer WHERE city = 'France'")
    assert (found.kind, found.severity) == ("unseen_value", "Violation")
    assert "'France' is a value of singer.country" in found.message


def test_same_table_column_out_of_range(singers):
    """Numbers outside the observed range: the condition holds for no row, or for every row."""
    [never] = check_sql(singers, "SELECT name FROM singer WHERE age = 1980")
    assert (never.kind, never.severity, never.subject) == ("out_of_range", "Warning", "singer.age")
    assert "no row" in never.message
    [always] = check_sql(singers, "SELECT name FROM singer WHERE net_worth < 2008")
    assert "every row" in always.message
    assert check_sql(singers, "SELECT name FROM singer WHERE age BETWEEN 30 AND 40 AND net_worth > 3") == []


def test_same_table_column_grouping_and_select_list(singers):
    found = check_sql(singers, "SELECT age, COUNT(*) FROM singer GROUP BY country")
    assert kinds(found) == [("ungrouped_column", "Warning")] and found[0].subject == "singer.age"
    found = check_sql(singers, "SELECT country, COUNT(*) FROM singer GROUP BY singer_id")
    assert kinds(found) == [("group_by_unique", "Warning")]
    found = check_sql(singers, "SELECT name, name FROM singer")
    assert kinds(found) == [("repeated_column", "Warning")]
    # what a grouping determines is not reported: the grouped column, aggregates, a key's columns
    assert check_sql(singers, "SELECT country, COUNT(*), MAX(age) FROM singer GROUP BY country") == []
    assert check_sql(singers, "SELECT singer_id, name FROM singer GROUP BY singer_id") == []


def test_same_table_column_question_mismatch(singers):
    """With the question: a column no word of it names, while it names another column of the table."""
    question = "How many different countries do the singers come from?"
    found = check_sql(singers, "SELECT COUNT(DISTINCT city) FROM singer", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.country"
    assert check_sql(singers, "SELECT COUNT(DISTINCT country) FROM singer", **QR, question=question) == []
    # a selected column against a column the SQL only sorts by
    question = "List the countries of the singers in alphabetical order."
    found = check_sql(singers, "SELECT city FROM singer ORDER BY country", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.country"
    assert check_sql(singers, "SELECT country FROM singer ORDER BY country", **QR, question=question) == []
    # a column returned and sorted by, while the question says its word once and names another
    question = "List the name of the singers in ascending order of net worth."
    found = check_sql(singers, "SELECT name FROM singer ORDER BY name", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.net_worth"
    assert check_sql(singers, "SELECT name FROM singer ORDER BY net_worth", **QR, question=question) == []
    # a literal of the question explains its column only when the column can hold it
    question = "Which singers come from France?"
    found = check_sql(singers, "SELECT name FROM singer WHERE city = 'France'", **QR, question=question)
    assert {f.kind for f in found} == {"unseen_value", "question_mismatch"}
    assert check_sql(singers, "SELECT name FROM singer WHERE country = 'France'", **QR, question=question) == []


def test_same_table_column_aggregates_and_numbers(singers):
    # MIN/MAX/AVG of the grouped column is the group's own value
    found = check_sql(singers, "SELECT country, MAX(country) FROM singer GROUP BY country")
    assert kinds(found) == [("grouped_aggregate", "Warning")]
    # a number compared with a text column whose whole vocabulary lacks it
    [found] = check_sql(singers, "SELECT name FROM singer WHERE country = 2014")
    assert (found.kind, found.severity) == ("unseen_value", "Violation")
    # one column under several aggregates: the odd one out is the suspect
    question = "What are the minimum and maximum ages of the singers?"
    found = check_sql(singers, "SELECT MIN(net_worth), MAX(age) FROM singer", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.age"
    assert check_sql(singers, "SELECT MIN(age), MAX(age) FROM singer", **QR, question=question) == []
    # a word the question says twice explains two columns, not one
    question = "What is the name of the singer whose song has 'song 4' as its name?"
    found = check_sql(singers, "SELECT singer_id FROM singer WHERE song_name = 'song 4'", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.name"
    # a number of the question does not explain the column compared with it
    question = "How many singers are 29 years old?"
    found = check_sql(singers, "SELECT COUNT(*) FROM singer WHERE net_worth = 29", **QR, question=question)
    assert [(f.kind, f.suggestion) for f in found if f.kind == "question_mismatch"] == [
        ("question_mismatch", "singer.age")]
    assert [f.kind for f in check_sql(singers, "SELECT COUNT(*) FROM singer WHERE age = 29", **QR,
                                      question=question)] == []


def test_same_table_column_selects_filter_value(singers):
    found = check_sql(singers, "SELECT country FROM singer WHERE country = 'France' OR country = 'Netherlands'")
    assert kinds(found) == [("selects_filter_value", "Warning")] and found[0].subject == "singer.country"
    # not fixed: alternated with a condition on another column, or not an equality
    assert check_sql(singers, "SELECT country FROM singer WHERE country = 'France' OR age > 30") == []
    assert check_sql(singers, "SELECT country FROM singer WHERE country <> 'France'") == []
    assert check_sql(singers, "SELECT name FROM singer WHERE country = 'France'") == []


def test_same_table_column_numbers_stored_as_text_and_value_words(singers):
    # a TEXT column whose Evidence shows only numerals is compared with text like any text column:
    # 'France' is a value it does not hold (a probe confirms it), not a type error
    found = check_sql(singers, "SELECT name FROM singer WHERE code = 'France'")
    assert kinds(found) == [("unseen_value", "Violation")] and found[0].subject == "singer.code"
    assert "holds numbers" not in found[0].message
    assert check_sql(singers, "SELECT name FROM singer WHERE code = '105'") == []
    # a value the question says names its column where it is compared, not where it is sorted by
    question = "List the names of the singers from France by age."
    found = check_sql(singers, "SELECT name FROM singer ORDER BY country", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion == "singer.age"
    assert check_sql(singers, "SELECT name FROM singer WHERE country = 'France' ORDER BY age",
                     **QR, question=question) == []


def test_same_table_column_count_skips_nulls(singers):
    """COUNT(col) of a column with NULLs (a third of song_name) drops rows the question asks for."""
    question = "How many singers are from France?"
    found = check_sql(singers, "SELECT COUNT(song_name) FROM singer WHERE country = 'France'", **QR, question=question)
    assert kinds(found) == [("count_skips_nulls", "Warning")] and found[0].subject == "singer.song_name"
    for sql in ("SELECT COUNT(singer_id) FROM singer WHERE country = 'France'",  # no NULL
                "SELECT COUNT(*) FROM singer WHERE country = 'France'"):
        assert check_sql(singers, sql, **QR, question=question) == []
    # the question names the column: counting its values is what it asks for
    assert check_sql(singers, "SELECT COUNT(song_name) FROM singer", **QR,
                     question="How many song names are known?") == []


def test_same_table_column_question_literal_explains_only_the_condition(singers):
    """A literal of the question explains the column compared with it in the WHERE clause, not the
    same column where the SELECT returns it (the question asked for the names)."""
    question = "Show the names of the singers whose country is not 'France'."
    found = check_sql(singers, "SELECT country FROM singer WHERE country <> 'France'", **QR, question=question)
    assert [(f.kind, f.suggestion.split(", ")[0]) for f in found if f.kind == "question_mismatch"] == [
        ("question_mismatch", "singer.name")]
    assert check_sql(singers, "SELECT name FROM singer WHERE country <> 'France'", **QR, question=question) == []


def test_same_table_column_quoted_number_explains_no_column(singers):
    """A number of the question explains no column even when the SQL quotes it ('29')."""
    question = "What are the names of the singers who are 9 years of age?"  # 9 is a net_worth value
    found = check_sql(singers, "SELECT name FROM singer WHERE net_worth = '9'", **QR, question=question)
    assert [(f.subject, f.suggestion.split(", ")[0]) for f in found if f.kind == "question_mismatch"] == [
        ("singer.net_worth", "singer.age")]
    assert [f for f in check_sql(singers, "SELECT name FROM singer WHERE age = '9'", **QR, question=question)
            if f.kind == "question_mismatch"] == []


def test_same_table_column_order_by_column_the_ordering_phrase_names(singers):
    """ORDER BY a column the question names elsewhere, while its ordering phrase names another."""
    question = "List the names and ages of the singers in descending order of age."
    for sql in ("SELECT name, age FROM singer ORDER BY name DESC",
                "SELECT name, age FROM singer ORDER BY net_worth DESC"):
        found = check_sql(singers, sql, **QR, question=question)
        assert kinds(found) == [("question_mismatch", "Warning")], sql
        assert found[0].suggestion.split(", ")[0] == "singer.age" and "ordering phrase" in found[0].message
    assert check_sql(singers, "SELECT name, age FROM singer ORDER BY age DESC", **QR, question=question) == []
    question = "List the names and ages of the singers, sorted by their names."
    assert kinds(check_sql(singers, "SELECT name, age FROM singer ORDER BY age", **QR, question=question)) == [
        ("question_mismatch", "Warning")]
    assert check_sql(singers, "SELECT name, age FROM singer ORDER BY name", **QR, question=question) == []


def test_same_table_column_superlative_names_the_sort_column(singers):
    """A superlative points at its column through the packaged cue words (youngest -> age) or names
    it (the largest net worth); ORDER BY or MAX/MIN of another column is flagged."""
    question = "What is the name of the youngest singer?"
    found = check_sql(singers, "SELECT name FROM singer ORDER BY net_worth LIMIT 1", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].suggestion.startswith("singer.age")
    assert check_sql(singers, "SELECT name FROM singer ORDER BY age LIMIT 1", **QR, question=question) == []
    question = "What is the largest net worth of a singer from France?"
    found = check_sql(singers, "SELECT MAX(age) FROM singer WHERE country = 'France'", **QR, question=question)
    assert [f.suggestion for f in found if f.kind == "question_mismatch"] == ["singer.net_worth"]
    assert check_sql(singers, "SELECT MAX(net_worth) FROM singer WHERE country = 'France'",
                     **QR, question=question) == []


def test_same_table_column_unnamed_sort_column_with_bare_ordering_phrase(singers):
    """"In alphabetical order" names no column: the sort column should be one the question names."""
    question = "List the names of the singers in alphabetical order."
    found = check_sql(singers, "SELECT name FROM singer ORDER BY code", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")] and found[0].subject == "singer.code"
    assert check_sql(singers, "SELECT name FROM singer ORDER BY name", **QR, question=question) == []
    # COUNT(col) in a sort counts rows: not flagged
    assert check_sql(singers, "SELECT country FROM singer GROUP BY country ORDER BY COUNT(singer_id)",
                     **QR, question="List the countries in descending order.") == []


def test_same_table_column_overused_word_names_the_best_covered_column(singers):
    """'name' said once names the column it covers wholly (name), not song_name too."""
    question = "What are the names and ages of the singers?"
    found = check_sql(singers, "SELECT name, song_name FROM singer", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")]
    assert (found[0].subject, found[0].suggestion) == ("singer.song_name", "singer.age")
    assert check_sql(singers, "SELECT name, age FROM singer", **QR, question=question) == []


def test_question_mismatch_operation_words_propose_no_column(tmp_path):
    """"the number of owners" asks for a count: 'number' does not propose a column cell_number."""
    from evoonto.builder.pipeline import build

    path = tmp_path / "owners.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, last_name TEXT, cell_number TEXT)")
    con.execute("CREATE TABLE dog (dog_id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owner(owner_id))")
    con.executemany("INSERT INTO owner VALUES (?, ?, ?)", [(i, f"n{i}", f"555-{i:04d}") for i in range(1, 9)])
    con.executemany("INSERT INTO dog VALUES (?, ?)", [(i, 1 + i % 4) for i in range(1, 9)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    sql = "SELECT count(*) FROM owner WHERE owner_id NOT IN (SELECT owner_id FROM dog)"
    found = check_sql(onto, sql, **QR, question="Find the number of owners who do not own any dogs.")
    assert [f for f in found if f.kind == "question_mismatch"] == []
    # the word still names its column when the question asks for it
    found = check_sql(onto, "SELECT last_name FROM owner", **QR, question="What are the cell numbers of the owners?")
    assert [f.suggestion for f in found if f.kind == "question_mismatch"] == ["owner.cell_number"]


def test_same_table_column_other_column_covers_the_question_better(singers):
    """A column the question names wholly and with more words than the one used ("song name" ->
    song_name rather than name), while the SQL does not use it."""
    question = "List the song name and country of each singer."
    found = check_sql(singers, "SELECT name, country FROM singer", **QR, question=question)
    assert kinds(found) == [("question_mismatch", "Warning")]
    assert (found[0].subject, found[0].suggestion) == ("singer.name", "singer.song_name")
    assert check_sql(singers, "SELECT song_name, country FROM singer", **QR, question=question) == []


def test_same_table_column_named_only_by_a_cue_word(singers):
    """A returned column only a cue word names ("live" -> city), while the question names another
    column of the table outright."""
    question = "Which singers live in France? Show their names and net worth."
    found = check_sql(singers, "SELECT city, net_worth FROM singer WHERE country = 'France'", **QR, question=question)
    assert [(f.kind, f.subject, f.suggestion.split(", ")[0]) for f in found] == [
        ("question_mismatch", "singer.city", "singer.name")]
    assert "cue word" in found[0].message
    assert check_sql(singers, "SELECT name, net_worth FROM singer WHERE country = 'France'",
                     **QR, question=question) == []


def test_same_table_column_self_comparison(singers):
    """A column compared with itself holds for every row or none: one side meant another column."""
    found = check_sql(singers, "SELECT name FROM singer WHERE city <> city")
    assert kinds(found) == [("self_comparison", "Warning")] and found[0].subject == "singer.city"
    assert check_sql(singers, "SELECT name FROM singer WHERE city <> country") == []
    # a self-join compares two rows, not a column with itself
    assert [f for f in check_sql(singers, "SELECT a.name FROM singer AS a JOIN singer AS b ON a.city = b.city")
            if f.kind == "self_comparison"] == []


def test_question_mismatch_sort_phrase_explains_the_sort_column(singers):
    """'ordered by their age' names the column the SQL sorts by: it proposes no other use of age
    (the returned column is named by no word, but age is where the question puts it)."""
    question = "Show what each singer sings, ordered by their age."
    assert check_sql(singers, "SELECT song_name FROM singer ORDER BY age", **QR, question=question) == []


def test_question_mismatch_spares_semi_join_keys(singers):
    """``x NOT IN (SELECT x …)`` links two row sets like a join key: the outer key is not reported."""
    question = "Give the names of the singers who are not the oldest of their country."
    sql = "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer ORDER BY age DESC LIMIT 1)"
    outer = sql.index("singer_id")
    assert [f for f in check_sql(singers, sql, **QR, question=question) if f.start == outer] == []


def test_question_mismatch_literal_frees_the_filter_columns_words(singers):
    """A column used only where it is compared with a literal of the question needs no word of its
    own: 'cities', said far from the literal, names what the SQL should return; said next to the
    literal ("the city 'Paris'"), it names the filter."""
    question = "What are the cities of the singers which have the substring 'Par'?"
    found = check_sql(singers, "SELECT code FROM singer WHERE city LIKE '%Par%'", **QR, question=question)
    assert [(f.kind, f.subject, f.suggestion) for f in found] == [("question_mismatch", "singer.code", "singer.city")]
    assert check_sql(singers, "SELECT city FROM singer WHERE city LIKE '%Par%'", **QR, question=question) == []
    question = "What are the codes of the singers from the city 'Paris'?"
    assert check_sql(singers, "SELECT code FROM singer WHERE city = 'Paris'", **QR, question=question) == []


def test_question_mismatch_other_tables_name_proposes_no_column(tmp_path):
    """'schools' names the table school the SQL joins, not the column school_name of score."""
    from evoonto.builder.pipeline import build

    path = tmp_path / "scores.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE school (cds INTEGER PRIMARY KEY, city TEXT)")
    con.execute("CREATE TABLE score (cds INTEGER PRIMARY KEY REFERENCES school(cds), school_name TEXT, "
                "num_tst_takr INTEGER)")
    con.executemany("INSERT INTO school VALUES (?, ?)", [(i, ["Boston", "Lyon"][i % 2]) for i in range(1, 9)])
    con.executemany("INSERT INTO score VALUES (?, ?, ?)", [(i, f"s{i}", 10 * i) for i in range(1, 9)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    sql = "SELECT T2.num_tst_takr FROM school AS T1 JOIN score AS T2 ON T1.cds = T2.cds WHERE T1.city = 'Boston'"
    found = check_sql(onto, sql, **QR, question="Which schools in Boston have the most test takers?")
    assert [f for f in found if f.kind == "question_mismatch"] == []
    # in a one-table query the word still names the column
    found = check_sql(onto, "SELECT num_tst_takr FROM score", **QR, question="List the school names of the scores.")
    assert [f.suggestion for f in found if f.kind == "question_mismatch"] == ["score.school_name"]


def test_question_names_the_other_role_of_a_key(tmp_path):
    """Two columns of one table reference the same key (two roles); the opt-in question rules warn
    when the question names the role the join does not use. Offline and without the rules: nothing
    (a second-role join is correct SQL)."""
    from evoonto.builder.pipeline import build

    db = tmp_path / "heroes.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE colour (id INTEGER PRIMARY KEY, colour TEXT);
        CREATE TABLE superhero (id INTEGER PRIMARY KEY, name TEXT,
                                eye_colour_id INTEGER REFERENCES colour(id),
                                hair_colour_id INTEGER REFERENCES colour(id));
        INSERT INTO colour VALUES (1, 'Blue'), (2, 'Brown'), (3, 'Black');
        INSERT INTO superhero VALUES (1, 'a', 1, 2), (2, 'b', 2, 3), (3, 'c', 3, 1), (4, 'd', 1, 1);
    """)
    con.commit()
    con.close()
    heroes = Ontology.from_graphs(build([db], None, validate=False).graphs)
    sql = ("SELECT T1.name FROM superhero AS T1 JOIN colour AS T2 ON T1.hair_colour_id = T2.id "
           "WHERE T2.colour = 'Blue'")
    question = "Which superheroes have blue eyes?"
    assert check_sql(heroes, sql, question=question) == []
    found = [(f.subject, f.suggestion) for f in check_sql(heroes, sql, question=question, **QR)
             if f.kind == "question_mismatch" and "colour_id" in (f.subject or "")]
    assert found == [("superhero.hair_colour_id", "superhero.eye_colour_id")]
    right = sql.replace("hair_colour_id", "eye_colour_id")
    assert [f for f in check_sql(heroes, right, question=question, **QR)
            if f.kind == "question_mismatch" and "colour_id" in (f.subject or "")] == []
