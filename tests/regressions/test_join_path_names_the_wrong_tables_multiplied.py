"""Regression: ``join_path``'s fan-out warning named only the start table as multiplied.

Customers -> Orders -> Order Details (two 1:N hops): the second warning read "joining Orders to Order
Details is 1:N: each Orders row can appear several times, so SUM/COUNT/AVG over Customers columns
would be multiplied", though it is the Orders columns (and the Customers ones) that the hop repeats.
Each warning now names every table joined before its hop.
"""

from __future__ import annotations

from test_tools_joinpaths import graph, make_shop, shop  # noqa: F401  (the fixtures)


def test_join_path_names_the_wrong_tables_multiplied(graph):  # noqa: F811
    first, second = graph.path("Customers", "Order Details").warnings()
    assert "over Customers columns would be multiplied" in first, first
    assert "over Customers, Orders columns would be multiplied" in second, second
