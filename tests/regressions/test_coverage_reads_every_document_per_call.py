"""Regression: every ``coverage`` call iterated every document of the index twice, to map IRIs to
positions and to list the date columns a month's name may ask for (256,000 documents at 70,000
columns; an index read from the cache decodes them on first access). The position map is now made
once per index (``SearchIndex.position``), and the date columns are looked for only when the
question names a month.
"""

from __future__ import annotations

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


class CountingDocuments(list):
    """The index's documents, counting full passes over them."""

    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


def _tools(tmp_path):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "incidents.csv").write_text("id,category,opened_at\n" + "".join(
        f"{i},{('network', 'software')[i % 2]},2023-0{1 + i % 9}-1{i % 10} 10:00:00\n" for i in range(40)),
        encoding="utf-8")
    result = build([data], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    index = tools.built.index
    index.documents = CountingDocuments(index.documents)
    CountingDocuments.passes = 0
    return tools


def test_coverage_reads_every_document_per_call(tmp_path):
    tools = _tools(tmp_path)
    first = tools.coverage("network incidents")
    passes = CountingDocuments.passes
    assert passes <= 1  # the position map, once
    for _ in range(3):
        assert tools.coverage("software incidents")["status"] == first["status"] == "supported"
    assert CountingDocuments.passes == passes  # no pass per call


def test_a_month_still_finds_its_date_column(tmp_path):
    tools = _tools(tmp_path)
    answer = tools.coverage("incidents opened in March")
    march = next(p for p in answer["phrases"] if p["phrase"].lower() == "march")
    assert march["status"] == "supported" and any("opened_at" in i for i in march["ids"]), answer
