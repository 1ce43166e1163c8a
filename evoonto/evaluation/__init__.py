"""The evaluation harness (issue 5): how we know the ontology helps.

Modules, one concept each:

* :mod:`~evoonto.evaluation.benchmarks` — Spider/BIRD/plain-workload loaders; questions and gold apart;
* :mod:`~evoonto.evaluation.splits` — seeded reciprocal k-fold splits with a construction pool and a
  gate validation set V per fold, stored as JSON;
* :mod:`~evoonto.evaluation.gold` — sqlglot analysis of gold SQL (tables, columns, joins, values);
* :mod:`~evoonto.evaluation.linking` — the offline schema-linking recall scorer;
* :mod:`~evoonto.evaluation.execution` — execution accuracy (EX) and VES;
* :mod:`~evoonto.evaluation.conditions` — baseline / full-schema / evoonto conditions;
* :mod:`~evoonto.evaluation.agent` — the ReAct data agent on Claude;
* :mod:`~evoonto.evaluation.runner` — the reciprocal protocol end to end (``evoonto eval``);
* :mod:`~evoonto.evaluation.backbones` — the evolution loop's backbones (schema-linking recall, EX
  agent): they score with gold, so they live here; evolution sees only its ``Backbone`` protocol.

Gold isolation: the builder, the evolution loop and agents receive only
:class:`~evoonto.builder.workload.Question` objects; gold lives in a
:class:`~evoonto.evaluation.benchmarks.GoldStore` that only scorers are given.
"""
