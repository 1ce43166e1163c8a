"""Defect: ``evoonto export --format update`` wrote the whole history as one SPARQL Update request
(1.5 MB for Chinook); Virtuoso compiles a request as one unit and answered HTTP 400 (SP030 memory
exhausted / SQ199 code vector too large), even when the operations were split, so the export could
not be loaded there. Requests now hold at most 1,000 triples and are separated by lines holding only
``;``: each part is a request Virtuoso accepts, and the whole text stays one valid request."""

from __future__ import annotations

import pytest

from evoonto.cli import main
from evoonto.namespaces import GRAPH_NAMES
from evoonto.remote import RemoteSparqlStore
from fixtures.remote_support import post_update

pytestmark = pytest.mark.slow


@pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning", "ignore:unknown query type:RuntimeWarning")
def test_update_export_loads_into_virtuoso_request_by_request(tmp_path, shared_data, virtuoso):
    ws = tmp_path / "ws"
    db = shared_data / "chinook" / "Chinook_Sqlite.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(ws), "--no-progress"]) == 0
    out = tmp_path / "history.rq"
    assert main(["export", "--workspace", str(ws), "--format", "update", "-o", str(out)]) == 0
    requests = out.read_text(encoding="utf-8").split("\n;\n")
    assert len(requests) > 1
    for request in requests:
        post_update(virtuoso, request)  # plain HTTP POST; urllib raises HTTPError on a refusal
    from evoonto.workspace import Workspace

    from evoonto.namespaces import workspace_graph_iri

    opened = Workspace.open(ws)
    local = opened.store
    remote = RemoteSparqlStore(virtuoso, virtuoso)
    for name in GRAPH_NAMES:
        if name != "history":  # the export publishes graphs under the workspace's base IRI
            published = workspace_graph_iri(name, opened.iris.base)
            rows = remote.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{published}> {{ ?s ?p ?o }} }}",
                                default_union=False)
            assert int(rows[0]["n"]) == local.count(name), name
