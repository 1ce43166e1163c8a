"""Defect 7a (issue 13): resolve fetched every value of an Evidence.

An answer shows at most ``EVIDENCE_VALUES`` (10) sample values of an Evidence, yet resolve pulled all
of them from the store (4,001 rows for one world_1 node) and de-duplicated them with a list scan.
The limit now runs in SPARQL: resolving a record whose Evidence holds 4,000 sample values costs a
few dozen rows, and the answer is the same (the first 10 values in string order).
"""

from __future__ import annotations

from pathlib import Path

from rdflib import Literal, URIRef

from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.resolve import EVIDENCE_VALUES, IdCodec, Resolver
from evoonto.tools.settings import ResolveSettings

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"
EVIDENCE = URIRef(BASE + "evidence/country1")
VALUES = 4000


class CountingOntology:
    """An ontology double that answers ``query`` through a real Ontology and counts the rows."""

    def __init__(self, inner: Ontology):
        self.inner = inner
        self.rows = 0

    def query(self, sparql: str):
        rows = self.inner.query(sparql)
        self.rows += len(rows)
        return rows


def _ontology() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    store.add([(EVIDENCE, EVO.sampleValue, Literal(f"city {i:05d}")) for i in range(VALUES)], "content")
    return Ontology(store, version=1, base_iri=BASE)


def _resolve(ident: str):
    onto = CountingOntology(_ontology())
    answer = Resolver(onto, ResolveSettings(response_budget=100_000), IdCodec(BASE)).resolve([ident])
    return answer, onto.rows


def test_high_cardinality_evidence_is_fetched_with_its_limit():
    answer, rows = _resolve("evidence/country1")
    (record,) = answer["records"]
    expected = sorted(["France", "Netherlands", "United States"] + [f"city {i:05d}" for i in range(VALUES)])
    assert record["sampleValue"] == expected[:EVIDENCE_VALUES]
    assert rows < 100, f"{rows} rows fetched for one Evidence record"


def test_term_whose_mapping_has_the_evidence_stays_cheap():
    answer, rows = _resolve("term/cs/country")
    (record,) = answer["records"]
    shown = [e for m in record.get("mappings", ()) for e in m.get("evidence", ())] + record.get("evidence", [])
    assert any(e.get("sampleValue") for e in shown), "the Evidence with its values is part of the answer"
    assert all(len(e.get("sampleValue", ())) <= EVIDENCE_VALUES for e in shown)
    assert rows < 200, f"{rows} rows fetched for one Term"
