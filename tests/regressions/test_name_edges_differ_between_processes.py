"""The join graph's name matches changed from one process to the next.

``add_name_edges`` walked a table's single-column unique keys with ``sorted`` over frozensets, which
compare by inclusion, not by content: the walk kept the set's hash order, so when two keys of one
table both matched another table, which one became the join depended on ``PYTHONHASHSEED``. On a
70,000-column workspace two runs of the same code differed in 368 edges. Keys are now walked by
their column names.
"""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = """
from evoonto.tools.joinpaths import JoinGraph, TableRef
g = JoinGraph()
g.columns[TableRef("s", "account")] = ["account_id", "branch_id", "name"]
g.columns[TableRef("s", "holding")] = ["holding_id", "account_id", "branch_id"]
g.mark_unique(TableRef("s", "account"), ["account_id"])
g.mark_unique(TableRef("s", "account"), ["branch_id"])
g.mark_unique(TableRef("s", "holding"), ["holding_id"])
g.add_name_edges()
print(sorted((e.left, e.left_columns, e.right, e.right_columns) for e in g.edges if e.origin == "name"))
"""


def test_name_edges_are_the_same_in_every_process():
    outputs = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        run = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout.strip())
    assert len(outputs) == 1, outputs
    assert "'account_id'" in outputs.pop()  # the key first by name
