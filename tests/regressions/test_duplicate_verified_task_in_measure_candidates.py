"""Defect: two failed tasks with the same question and verified SQL (BIRD's financial/137 and
financial/137_2) made the missing_measure candidate writer hand the miner one verified query twice,
and ``as_verified`` refused the duplicate id with a WorkloadError that stopped the whole run."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.edits import EditContext
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.ontology import Ontology
from evoonto.resources import vocab_graph
from evoonto.sources import open_source

SQL = "SELECT customer, SUM(price * quantity) FROM lines GROUP BY customer"


def test_the_same_verified_question_in_two_failed_tasks_gives_one_candidate(tmp_path):
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE lines (line_id INTEGER PRIMARY KEY, customer TEXT, price REAL, quantity INTEGER);"
                      "INSERT INTO lines VALUES (1, 'Ann', 2.5, 2), (2, 'Bob', 1.0, 5);")
    con.commit()
    con.close()
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    source = open_source(str(db))
    try:
        view = OntologyView(onto)
        ctx = EditContext(view, onto.iris)
        prober = ValueProber({"shop": source})
        question = "What is the revenue of each customer?"
        trajs = [TaskTrajectory(t, question, "shop", [], passed=False, reference_sql=SQL) for t in ("a", "a_2")]
        (sig,) = diagnose(trajs, view, prober=prober, kinds=("missing_measure",))
        assert sig.tasks == ("a", "a_2")
        cands = propose(attribute(sig, view), view, prober=prober, iris=ctx.iris, now=ctx.now)
    finally:
        source.close()
    assert len(cands) == 1 and "revenue" in cands[0].intervention.lower()
