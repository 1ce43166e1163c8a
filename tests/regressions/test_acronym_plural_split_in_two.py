"""Regression (issue 29): the identifier splitter cut an acronym's plural at its last capital
("SMEs" -> "SM" + "Es", "IDs" -> "I" + "Ds", "KPIs" -> "KP" + "Is"), so "more SMEs pay in euros"
never matched the stored value 'SME' and "customer IDs" never matched an ``id`` column. The SME
value reached the answer only when a full line of its column happened to list it, and the
evolution loop's full-lines saving then lost it on one seen question of debit_card_specializing.

An upper-case acronym followed by a lower-case ``s`` ending the word stays whole, and tokens read
it as the acronym (:func:`evoonto.text.acronym_singular`).
"""

from __future__ import annotations

import sqlite3

from evoonto.text import acronym_singular, split_identifier, tokenize


def test_acronym_plural_split_in_two():
    assert split_identifier("SMEs") == ["SMEs"]
    assert split_identifier("customerIDs") == ["customer", "IDs"]
    assert tokenize("How many more SMEs pay in euros?") == tokenize("How many more SME pay in euros?")
    assert tokenize("customer IDs") == tokenize("customer ID") == ["custom", "id"]
    assert tokenize("KPIs URLs CPUs") == ["kpi", "url", "cpu"]
    # camel case keeps splitting where it did
    assert split_identifier("HTTPServer") == ["HTTP", "Server"]
    assert split_identifier("parseHTTPResponse") == ["parse", "HTTP", "Response"]
    assert split_identifier("GNPOld") == ["GNP", "Old"]
    # only an acronym's plural: words, a lone capital and mixed case are unchanged
    assert [acronym_singular(w) for w in ("SMEs", "IDs", "Is", "Bus", "species", "NaNs", "SME")] == [
        "SME", "ID", "Is", "Bus", "species", "NaNs", "SME"]


def test_a_plural_acronym_finds_the_stored_value(tmp_path):
    from evoonto import create_workspace
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace

    db = tmp_path / "cards.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customers (CustomerID INTEGER PRIMARY KEY, Segment TEXT, Currency TEXT)")
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                    [(i, ("SME", "LAM", "KAM")[i % 3], ("EUR", "CZK")[i % 2]) for i in range(60)])
    con.commit()
    con.close()
    create_workspace(tmp_path / "ws", [str(db)])
    answer = OntologyTools(Workspace.open(tmp_path / "ws").ontology).browse("How many SMEs pay in euros?")
    segment = [e["label"] for e in answer if e["label"].startswith('"customers"."Segment"')]
    assert segment and "= 'SME'" in segment[0], answer
