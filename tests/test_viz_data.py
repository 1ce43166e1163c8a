"""Explorer model extraction (evoonto.viz.data), without a browser."""

from __future__ import annotations

import json

import pytest
from fixtures.viz_support import (
    SMALL_NODES,
    SMALL_PATCHES,
    SMALL_TERMS,
    make_workspace,
    small_graphs,
    small_model,
    synthetic_graphs,
)
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from evoonto.errors import RDFParseError, WorkspaceError
from evoonto.namespaces import EVO
from evoonto.viz.data import PatchGraphs, build_model, load_trig, load_workspace_model


@pytest.fixture(scope="module")
def model():
    return small_model()


def node(model, label):
    matches = [i for i, n in enumerate(model["nodes"]) if n["label"] == label]
    assert len(matches) == 1, f"{label!r}: {matches}"
    return matches[0]


def field(model, index, name):
    """The values of field ``name`` in node ``index``'s record, refs replaced by labels."""
    for key, values in model["nodes"][index]["fields"]:
        if key == name:
            return [model["nodes"][v["ref"]]["label"] if isinstance(v, dict) else v for v in values]
    return None


def test_nodes_by_family_and_kind(model):
    nodes = model["nodes"]
    assert len(nodes) == SMALL_NODES
    families = [n["family"] for n in nodes]
    assert families.count("term") == SMALL_TERMS
    assert (families.count("mapping"), families.count("constraint"), families.count("evidence")) == (6, 1, 3)
    assert model["meta"]["counts"] == {"term": 13, "mapping": 6, "constraint": 1, "evidence": 3, "relation": 5,
                                       "triples": 201}
    kinds = {n["label"]: n["kind"] for n in nodes if n["family"] == "term"}
    assert kinds["Country"] == "Category"            # most specific known kind (Category ⊑ Dimension)
    assert kinds["Concert year"] == "TimeDimension"
    assert kinds["Singer ID"] == "Identifier"
    assert kinds["Singer age"] == "Metric"
    assert nodes[node(model, "Old age")]["deprecated"] is True
    assert nodes[node(model, "Singer age")]["deprecated"] is False
    # satellites without labels are named after what they hold
    assert {"singer.Age", "concert.Year", "stadium.Capacity"} <= {n["label"] for n in nodes if n["family"] == "mapping"}
    assert nodes[node(model, "Age IS NOT NULL")]["family"] == "constraint"


def test_five_relation_types_are_distinct_edges(model):
    semantic = {e["type"]: (model["nodes"][e["source"]]["label"], model["nodes"][e["target"]]["label"])
                for e in model["edges"] if e["type"] in {t["key"] for t in model["relationTypes"]}}
    assert semantic == {
        "derivation": ("Average singer age", "Singer age"),
        "association": ("Singer", "Concert"),
        "hierarchy": ("Singer", "Performer"),
        "composition": ("Concert year", "Concert"),
        "equivalence": ("Venue", "Stadium"),
    }
    structural = [e["type"] for e in model["edges"] if e["type"] not in semantic]
    assert (structural.count("mapping"), structural.count("constrains"), structural.count("evidence")) == (6, 1, 7)
    association = next(e for e in model["edges"] if e["type"] == "association")
    assert ["join condition", ["singer.Singer_ID = singer_in_concert.Singer_ID"]] in association["fields"]
    derivation = next(e for e in model["edges"] if e["type"] == "derivation")
    assert ["formula", ["AVG(singer age)"]] in derivation["fields"]


def test_term_record_has_labels_mapping_evidence_constraints(model):
    age = node(model, "Singer age")
    assert field(model, age, "label") == ["Singer age"]
    assert field(model, age, "synonyms") == ["age"]
    assert field(model, age, "hidden labels") == ["Age"]
    assert field(model, age, "definition") == ["Age of the singer in years."]
    sections = [model["nodes"][i] for i in model["nodes"][age]["sections"]]
    assert [s["family"] for s in sections] == ["mapping", "constraint", "evidence"]
    mapping = node(model, "singer.Age")
    assert field(model, mapping, "table") == ["singer"]          # catalog names, not IRIs
    assert field(model, mapping, "column") == ["singer.Age"]
    assert field(model, mapping, "aggregation") == ["AVG"]
    assert field(model, mapping, "confidence") == ["0.9"]
    assert field(model, mapping, "maps term") == ["Singer age"]
    constraint = node(model, "Age IS NOT NULL")
    assert field(model, constraint, "trigger keyword") == ["average", "oldest"]
    assert field(model, constraint, "severity") == ["sh:Warning"]
    evidence = model["nodes"][age]["sections"][-1]
    assert field(model, evidence, "minimum value") == ["25"]
    assert field(model, evidence, "query") == ["SELECT Age FROM singer"]   # folded in from the probe
    assert field(model, evidence, "supports") == ["Singer age", "singer.Age", "Age IS NOT NULL"]
    country_evidence = next(i for i in model["nodes"][node(model, "Country")]["sections"]
                            if model["nodes"][i]["family"] == "evidence")
    assert field(model, country_evidence, "sample value") == ["France", "Netherlands", "United States"]
    assert field(model, country_evidence, "value distribution") == ["France: 4, Netherlands: 1, United States: 1"]
    assert model["nodes"][age]["iri"] == "https://example.org/evoonto/demo/term/concert_singer/singer_age"


def test_search_strings_cover_synonyms_and_hidden_labels(model):
    country = model["nodes"][node(model, "Country")]
    assert set(country["search"]) == {"nation"}    # hidden label "Country" equals the label
    assert "Year" in model["nodes"][node(model, "Concert year")]["search"]


def test_history_rows_in_order_with_scores_and_diffs(model):
    rows = model["history"]
    assert [(r["id"], r["level"], r["decision"], r["round"]) for r in rows] == [
        (pid, level, decision, round_no) for pid, level, decision, round_no, *_ in SMALL_PATCHES]
    assert [(r["parentScore"], r["candidateScore"]) for r in rows] == [(p, c) for *_, p, c in SMALL_PATCHES]
    assert [(r["parentVersion"], r["version"]) for r in rows] == [(0, 1), (1, None), (1, 2), (2, None)]
    assert rows[1]["signature"] == "browse-miss:<b>bold</b>"
    p1, p2, p3, p4 = (r["diff"] for r in rows)
    labels = lambda idx: {model["nodes"][i]["label"] for i in idx}  # noqa: E731
    assert (p1["added"], p1["removed"], p1["byGraph"]) == (14, 0, {"content": [14, 0]})
    assert labels(p1["nodesAdded"]) == {"Concert year", "concert.Year"}
    assert {model["edges"][i]["type"] for i in p1["edgesAdded"]} == {"composition", "mapping"}
    assert labels(p3["nodesAdded"]) == {"Age IS NOT NULL", "Old age"}
    assert labels(p3["nodesRemoved"]) == {"Singer age"}
    assert ["-", "content", "Singer age", "skos:altLabel", '"years"', node(model, "Singer age"), None] in p3["triples"]
    assert (p2["added"], p2["removed"], p2["byGraph"]) == (2, 1, {"tools": [2, 1]})
    assert p2["nodesAdded"] == p2["nodesRemoved"] == p2["edgesAdded"] == []
    assert p4["byGraph"] == {"vocab": [2, 0]}


def test_diff_listing_is_capped_but_counts_are_complete():
    graphs, patches = small_graphs()
    capped = build_model(graphs, patches, max_diff_triples=3)
    p1 = capped["history"][0]["diff"]
    assert len(p1["triples"]) == 3 and p1["added"] == 14
    assert len(p1["nodesAdded"]) == 2


@pytest.mark.slow
def test_workspace_path_matches_the_trig_fixture(tmp_path, model):
    from_ws = load_workspace_model(make_workspace(tmp_path / "ws"))
    assert [n["label"] for n in from_ws["nodes"]] == [n["label"] for n in model["nodes"]]
    assert sorted((e["source"], e["target"], e["type"]) for e in from_ws["edges"]) == \
        sorted((e["source"], e["target"], e["type"]) for e in model["edges"])
    assert from_ws["meta"]["version"] == 2 and from_ws["meta"]["title"] == "demo"
    keys = ("id", "level", "decision", "round", "version", "parentVersion", "parentScore", "candidateScore")
    assert [{k: r[k] for k in keys} for r in from_ws["history"]] == [{k: r[k] for k in keys} for r in model["history"]]
    for ours, theirs in zip(from_ws["history"], model["history"], strict=True):
        for key in ("added", "removed", "byGraph", "nodesAdded", "nodesRemoved"):
            assert ours["diff"][key] == theirs["diff"][key], (ours["id"], key)


def test_relation_type_added_by_a_schema_patch_is_drawn():
    graphs, patches = small_graphs()
    vocab = Graph()
    temporal, precedes = URIRef(str(EVO) + "TemporalDependency"), URIRef(str(EVO) + "precedes")
    vocab.add((temporal, RDF.type, EVO.RelationType))
    vocab.add((temporal, RDFS.label, Literal("temporal dependency", lang="en")))
    vocab.add((temporal, EVO.directProperty, precedes))
    content = Graph()
    for triple in graphs["content"]:
        content.add(triple)
    singer = URIRef("https://example.org/evoonto/demo/term/concert_singer/singer")
    concert = URIRef("https://example.org/evoonto/demo/term/concert_singer/concert")
    content.add((concert, precedes, singer))
    result = build_model({**graphs, "content": content, "vocab": vocab}, patches)
    assert "temporal-dependency" in [t["key"] for t in result["relationTypes"]]
    edge = next(e for e in result["edges"] if e["type"] == "temporal-dependency")
    assert (result["nodes"][edge["source"]]["label"], result["nodes"][edge["target"]]["label"]) == ("Concert", "Singer")


def test_unknown_term_kind_is_kept():
    content = Graph()
    term = URIRef("https://example.org/evoonto/x/term/s/kpi")
    content.add((term, RDF.type, EVO.Term))
    content.add((term, RDF.type, URIRef(str(EVO) + "KeyIndicator")))
    content.add((term, OWL.deprecated, Literal(True)))
    result = build_model({"content": content})
    assert [(n["kind"], n["label"], n["deprecated"]) for n in result["nodes"]] == [("KeyIndicator", "kpi", True)]
    assert result["history"] == [] and result["meta"]["base"] == "https://example.org/evoonto/x/"


def test_empty_input_gives_an_empty_model():
    result = build_model({}, {"x": PatchGraphs("x")})
    assert result["nodes"] == result["edges"] == result["history"] == []
    json.dumps(result)


def test_bad_arguments_and_files(tmp_path):
    graphs, patches = small_graphs()
    with pytest.raises(ValueError, match="max_visible"):
        build_model(graphs, patches, max_visible=3)
    with pytest.raises(ValueError, match="max_diff_triples"):
        build_model(graphs, patches, max_diff_triples=-1)
    with pytest.raises(WorkspaceError, match="no such TriG file"):
        load_trig(tmp_path / "missing.trig")
    bad = tmp_path / "bad.trig"
    bad.write_text("<a> <b> {{ nonsense", encoding="utf-8")
    with pytest.raises(RDFParseError, match="bad.trig"):
        load_trig(bad)
    with pytest.raises(WorkspaceError):
        load_workspace_model(tmp_path / "no-workspace")


@pytest.mark.slow
def test_five_thousand_terms_extract_consistently():
    result = build_model(synthetic_graphs(5000))
    counts = result["meta"]["counts"]
    assert counts["term"] == 5000
    n = len(result["nodes"])
    assert n == counts["term"] + counts["mapping"] + counts["constraint"] + counts["evidence"]
    assert all(0 <= e["source"] < n and 0 <= e["target"] < n for e in result["edges"])
    assert all(0 <= i < n for node_ in result["nodes"] for i in node_["sections"])
    assert len(result["history"]) == 30 and [r["round"] for r in result["history"]] == list(range(1, 31))
    json.dumps(result)


@pytest.mark.slow
def test_rollback_row_shows_the_restored_triples(tmp_path):
    from evoonto.workspace import Workspace

    ws = Workspace.open(make_workspace(tmp_path / "ws"))
    assert ws.rollback(1) == 3
    result = load_workspace_model(tmp_path / "ws")
    row = result["history"][-1]
    assert (row["level"], row["decision"], row["version"], row["parentVersion"]) == ("restore", "accepted", 3, 2)
    labels = lambda idx: {result["nodes"][i]["label"] for i in idx}  # noqa: E731
    assert labels(row["diff"]["nodesAdded"]) == {"Singer age"}          # the synonym "years" is back
    assert labels(row["diff"]["nodesRemoved"]) == {"Old age"}           # its deprecation is undone
    assert "Age IS NOT NULL" not in {n["label"] for n in result["nodes"]}
    assert row["diff"]["removed"] == 8 and row["diff"]["added"] == 1
