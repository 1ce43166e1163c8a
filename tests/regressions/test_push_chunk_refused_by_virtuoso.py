"""Defect: ``RemoteSparqlStore.add`` sent 5,000 triples per ``INSERT DATA``; Virtuoso refuses a
request of about 1,400 triples and more (SP031 "generated SQL text has exceeded 10000 lines"), so
pushing a real workspace failed half-way. Requests are now at most 1,000 triples and halved when
refused."""

from __future__ import annotations

import pytest
from rdflib import Literal, URIRef

from evoonto.remote import RemoteSparqlStore

pytestmark = pytest.mark.slow


@pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning", "ignore:unknown query type:RuntimeWarning")
def test_large_insert_is_chunked_until_virtuoso_takes_it(virtuoso):
    rows = [(URIRef(f"urn:s{i}"), URIRef("urn:p"), Literal(f"value {i}")) for i in range(3000)]
    remote = RemoteSparqlStore(virtuoso, virtuoso)
    remote.add(rows, "content")  # the default request size is one Virtuoso takes
    assert remote.count("content") == 3000
    remote.remove(rows, "content")
    assert remote.count("content") == 0
    adaptive = RemoteSparqlStore(virtuoso, virtuoso, max_triples=3000)  # too large: halved until accepted
    adaptive.add(rows, "content")
    assert adaptive.count("content") == 3000
    assert adaptive.max_triples < 3000
