"""The build pipeline on a small fixture database (evoonto.builder): records, evidence, SHACL,
determinism, and that gold fields never influence the ontology."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.builder_support import make_cards_db
from fixtures.sources_support import sqlite_db
from rdflib import Literal
from rdflib.namespace import OWL, PROV, RDF, SKOS

from evoonto.builder import Question, build, write_workspace
from evoonto.builder.pipeline import workspace_base_iri
from evoonto.builder.propose import question_phrases
from evoonto.namespaces import CSVW, EVO

QUESTIONS = [
    Question("q1", "Which cards are banned in Standard?"),
    Question("q2", "What is the average profit of legal cards?"),
    Question("q3", "List the cards of the Alpha set."),
]


@pytest.fixture(scope="module")
def cards_db(tmp_path_factory) -> Path:
    return make_cards_db(tmp_path_factory.mktemp("cards"))


@pytest.fixture(scope="module")
def built(cards_db):
    return build([cards_db], QUESTIONS)


def _terms_with_label(graph, label):
    return {s for s in graph.subjects(SKOS.prefLabel, Literal(label, lang="en"))}


def test_build_validates_and_counts(built):
    assert built.validation is not None and built.validation.conforms
    c = built.counts
    assert c["terms"] >= 15 and c["mappings"] == c["terms"]
    assert c["constraints"] >= 3 and c["relations"] >= 10 and c["evidence"] >= c["terms"] // 2
    assert built.sources[0].source == "cards" and built.sources[0].questions == 3


def test_every_mapping_column_exists_and_every_entry_has_evidence(built):
    content, catalog = built.graphs["content"], built.graphs["catalog"]
    columns = set(catalog.subjects(RDF.type, CSVW.Column))
    for mapping in content.subjects(RDF.type, EVO.Mapping):
        col = content.value(mapping, EVO.column)
        assert col is None or col in columns
        assert content.value(mapping, PROV.wasDerivedFrom) is not None
    for family in (EVO.Term, EVO.Constraint, EVO.Relation):
        for node in content.subjects(RDF.type, family):
            evidence = content.value(node, PROV.wasDerivedFrom)
            assert evidence is not None and (evidence, RDF.type, EVO.Evidence) in content, node
    for evidence in content.subjects(RDF.type, EVO.Evidence):
        probe = content.value(evidence, PROV.wasGeneratedBy)
        assert (probe, RDF.type, EVO.Probe) in content and content.value(probe, EVO.query)


def test_value_vocabulary_lets_banned_find_the_status_column(built):
    content = built.graphs["content"]
    (status,) = _terms_with_label(content, "Card status")
    mapping = content.value(status, EVO.hasMapping)
    evidence = content.value(mapping, PROV.wasDerivedFrom)
    assert Literal("Banned") in set(content.objects(evidence, EVO.sampleValue))
    (banned,) = _terms_with_label(content, "Banned")
    assert (banned, RDF.type, EVO.Category) in content
    banned_mapping = content.value(banned, EVO.hasMapping)
    assert str(content.value(banned_mapping, EVO.filter)) == "\"status\" = 'Banned'"
    assert (banned, SKOS.broader, status) in content


def test_kinds_constraints_relations(built):
    content = built.graphs["content"]
    kind = {str(content.value(t, SKOS.prefLabel)): {o for o in content.objects(t, RDF.type)} for t in
            content.subjects(RDF.type, EVO.Term)}
    assert EVO.Entity in kind["Cards"] and EVO.Identifier in kind["Card id"]
    assert EVO.Metric in kind["Card revenue"] and EVO.TimeDimension in kind["Card release dt"]
    assert EVO.Category in kind["Card status"] and EVO.Dimension in kind["Card name"]
    conditions = {str(o) for o in content.objects(None, EVO.condition)}
    assert "\"status\" IN ('Legal', 'Banned', 'Restricted')" in conditions
    assert any("CAST(\"price_txt\"" in c for c in conditions)
    assert "card_sets.set_code = sets.code" in conditions  # code column decoded by a lookup table
    formulas = {str(o) for o in content.objects(None, EVO.formula)}
    assert formulas == {"profit = revenue - cost"}
    joins = {str(o) for o in content.objects(None, EVO.joinCondition)}
    assert {'"card_sets"."card_id" = "cards"."card_id"', '"card_sets"."set_code" = "sets"."code"'} <= joins
    # qualified relation agrees with its direct triple
    for rel in content.subjects(RDF.type, EVO.Relation):
        s, p, o = (content.value(rel, x) for x in (OWL.annotatedSource, OWL.annotatedProperty, OWL.annotatedTarget))
        assert (s, p, o) in content


def test_workload_phrases_become_value_terms_and_are_logged_by_question(cards_db):
    phrases = question_phrases("Which cards are banned in Standard?")
    assert "banned" in phrases and "Standard" in phrases
    result = build([cards_db], [Question("x", "Show cards in the Modern format")])
    labels = {str(o) for o in result.graphs["content"].objects(None, SKOS.prefLabel)}
    assert "Modern" in labels


def test_deterministic_and_gold_is_never_read(cards_db, tmp_path):
    def spider_file(name, gold):
        path = tmp_path / name
        path.write_text(json.dumps([{"db_id": "cards", "question": q.text, "query": gold, "sql": {"x": gold},
                                     "SQL": gold, "evidence": gold, "answer": gold} for q in QUESTIONS]))
        return path

    first = build([cards_db], spider_file("a.json", "SELECT card_name FROM cards WHERE status = 'Banned'"))
    poisoned = build([cards_db], spider_file("b.json", "DROP TABLE cards; -- garbage ' \" \x00"))
    again = build([cards_db], spider_file("a2.json", "SELECT card_name FROM cards WHERE status = 'Banned'"))
    for name in ("catalog", "content"):
        assert first.serialize(name) == poisoned.serialize(name) == again.serialize(name)


def test_write_workspace_as_version_zero(built, cards_db, tmp_path):
    path = tmp_path / "ws"
    result = build([cards_db], QUESTIONS, base_iri=workspace_base_iri(path))
    ws = write_workspace(result, path)
    assert ws.version == 0
    assert ws.config["settings"]["sources"] == {"cards": str(cards_db)}
    terms = ws.ontology.query("SELECT (COUNT(?t) AS ?n) WHERE { GRAPH ?g { ?t a <%s> } }" % EVO.Term)
    assert int(terms[0]["n"].toPython()) == result.counts["terms"]
    # a build with another base IRI is refused and leaves the workspace unchanged
    from evoonto.errors import WorkspaceError

    before = (path / "base.trig").read_bytes()
    with pytest.raises(WorkspaceError, match="base IRI"):
        write_workspace(built, path)
    assert (path / "base.trig").read_bytes() == before


def test_bad_inputs_give_clear_errors(cards_db, tmp_path):
    from evoonto.errors import ConfigurationError, SourceError, WorkloadError

    with pytest.raises(SourceError):
        build([tmp_path / "missing.sqlite"])
    with pytest.raises(WorkloadError):
        build([cards_db], tmp_path / "missing.jsonl")
    with pytest.raises(ConfigurationError):
        build([cards_db], proposer="magic")
    with pytest.raises(ConfigurationError):
        build([cards_db], base_iri="not an iri")
    with pytest.raises(SourceError, match="distinct"):
        build([cards_db, cards_db])


def test_awkward_names_spaces_quotes_reserved_words_unicode(tmp_path):
    path = sqlite_db(tmp_path / "odd.sqlite", """
        CREATE TABLE "order" ("group" TEXT, "Free Meal Count (K-12)" INTEGER, "Straße" TEXT, "it's" TEXT);
        INSERT INTO "order" VALUES ('A', 10, 'Hauptstraße', 'O''Brien'), ('A', 12, 'Hauptstraße', 'O''Brien'),
                                   ('B', 7, 'Ringstraße', 'x'), ('B', 3, 'Ringstraße', 'x');
    """)
    result = build([path], ["Which orders belong to O'Brien in group A?"])
    assert result.validation.conforms
    content = result.graphs["content"]
    filters = {str(o) for o in content.objects(None, EVO.filter)}
    assert "\"it's\" = 'O''Brien'" in filters and "\"group\" = 'A'" in filters
    labels = {str(o) for o in content.objects(None, SKOS.prefLabel)}
    assert "Order free meal count k 12" in labels and "Order straße" in labels


def test_terms_are_grounded_in_document_passages(cards_db, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "glossary.md").write_text("# Glossary\n\n## Legality\nA card is Banned when no deck may play it.\n",
                                      encoding="utf-8")
    result = build([docs, cards_db], QUESTIONS)
    assert result.validation.conforms and result.counts["document_links"] >= 1
    content = result.graphs["content"]
    (banned,) = _terms_with_label(content, "Banned")
    notes = [str(n) for n in content.objects(banned, SKOS.scopeNote)]
    assert notes == ["A card is Banned when no deck may play it."]
    passage = next(p for p in content.objects(banned, PROV.wasDerivedFrom) if "/passage/" in str(p))
    assert (passage, RDF.type, EVO.Passage) in result.graphs["catalog"]


def test_open_source_objects_progress_and_reproducible_clock(cards_db, monkeypatch):
    from datetime import datetime, timezone

    from evoonto.builder.pipeline import STEPS, build_clock
    from evoonto.errors import ConfigurationError
    from evoonto.sources import open_source

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert build_clock([cards_db]) == datetime.fromtimestamp(1700000000, tz=timezone.utc)
    steps = []
    with open_source(str(cards_db)) as src:
        result = build([src], validate=False, progress=lambda source, step: steps.append((source, step)))
        assert src.run("SELECT COUNT(*) FROM cards").scalar() == 8  # the caller's source stays open
    assert steps == [("cards", s) for s in STEPS]
    assert '"2023-11-14T22:13:20+00:00"' in result.serialize()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(ConfigurationError, match="SOURCE_DATE_EPOCH"):
        build_clock([cards_db])


def test_adjectives_in_questions_link_to_place_values(tmp_path):
    from evoonto.builder.propose import adjective_bases

    assert "europe" in adjective_bases("european") and "asia" in adjective_bases("asian")
    assert adjective_bases("french") == [] and adjective_bases("two words") == []
    path = sqlite_db(tmp_path / "makers.sqlite",
                     "CREATE TABLE makers (id INTEGER PRIMARY KEY, name TEXT, continent TEXT);"
                     + "".join(f"INSERT INTO makers VALUES ({i}, 'm{i}', '{c}');"
                               for i, c in enumerate(["europe", "asia", "america"] * 15)))
    result = build([path], ["How many European makers are there?"])
    content = result.graphs["content"]
    (europe,) = _terms_with_label(content, "europe")
    assert Literal("European", lang="en") in set(content.objects(europe, SKOS.altLabel))
