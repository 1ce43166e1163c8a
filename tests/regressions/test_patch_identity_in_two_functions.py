"""Issue 34 item 4: a candidate's identity over its compiled triples was computed by two functions
(``Candidate.fingerprint(ctx)`` and ``loop.stable_fingerprint``) that disagreed (one counted time
stamps, the other did not), so which one a caller used decided whether a re-proposed rejected
candidate was recognised. There is one now, :meth:`Candidate.fingerprint`; ``stable_fingerprint``
is that, and its values (recorded in workspaces' gate metadata) are unchanged."""

from __future__ import annotations

import hashlib

from fixtures.evolution_toy import IRIS, toy_ontology

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym, EditContext
from evoonto.evolution.loop import stable_fingerprint
from evoonto.evolution.view import OntologyView


def test_one_identity_over_the_compiled_triples():
    from rdflib.namespace import PROV

    ctx = EditContext(OntologyView(toy_ontology()), IRIS)
    candidate = Candidate("sig", "why", "content", (AddSynonym(str(IRIS.term("toy", "singer-age")), "old"),))
    assert candidate.fingerprint(ctx) == stable_fingerprint(candidate, ctx)
    # the recorded form: SHA-256 of the level and the sorted N-Triples lines, time stamps left out
    adds, rems = candidate.graphs(ctx)
    h = hashlib.sha256(b"content")
    for sign, graphs in (("+", adds), ("-", rems)):
        for target in sorted(graphs):
            for line in sorted(" ".join(t.n3() for t in tr) for tr in graphs[target]
                               if tr[1] not in {PROV.generatedAtTime, PROV.startedAtTime, PROV.endedAtTime}):
                h.update(f"{sign}{target} {line}\n".encode())
    assert candidate.fingerprint(ctx) == h.hexdigest()[:16]
    assert candidate.fingerprint() != candidate.fingerprint(ctx)  # without a parent: the edit descriptions
