"""Defect: over Virtuoso, ``RemoteSparqlStore.query("ASK …")`` returned a list of rows
(``[{"__ASK_RETVAL": 1}]`` when true, ``[]`` when false) instead of a bool, because Virtuoso answers
ASK with a bindings table rather than the ``boolean`` member; ``query(ASK) is True`` was never true,
so push could not see what the endpoint already held."""

from __future__ import annotations

import pytest
from rdflib import URIRef

from evoonto.remote import RemoteSparqlStore
from fixtures.remote_support import post_update

pytestmark = pytest.mark.slow


@pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning", "ignore:unknown query type:RuntimeWarning")
def test_ask_over_virtuoso_is_a_bool(virtuoso):
    post_update(virtuoso, "INSERT DATA { GRAPH <urn:evoonto:test> { <urn:a> <urn:p> <urn:b> } }")
    remote = RemoteSparqlStore(virtuoso, virtuoso)
    assert remote.query("ASK { GRAPH <urn:evoonto:test> { <urn:a> ?p ?o } }", default_union=False) is True
    assert remote.query("ASK { GRAPH <urn:evoonto:test> { <urn:b> ?p ?o } }", default_union=False) is False
    assert remote.contains((URIRef("urn:a"), URIRef("urn:p"), URIRef("urn:b")), "urn:evoonto:test") is True
