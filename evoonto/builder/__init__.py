"""Cold-start builder (issue 4; paper §3.1): propose → probe → verify → construct.

Public API::

    from evoonto.builder import build, write_workspace, load_workload, Question

    result = build(["spider/database/concert_singer/concert_singer.sqlite"], "questions.jsonl")
    result.graphs["content"]          # rdflib.Graph of Terms, Mappings, Evidence, Constraints, Relations
    result.counts, result.rejected    # counts by family; candidates that failed verification, with reasons
    write_workspace(result, ".evoonto")   # version 0 of a workspace

Modules: :mod:`~evoonto.builder.workload` (question files), :mod:`~evoonto.builder.labels`
(labels from identifiers), :mod:`evoonto.catalog` (the one catalog reader),
:mod:`~evoonto.builder.probe`, :mod:`~evoonto.builder.propose`, :mod:`~evoonto.builder.verify`,
:mod:`~evoonto.builder.construct`, :mod:`~evoonto.builder.llm` (Claude proposer),
:mod:`~evoonto.builder.pipeline`.
"""

from evoonto.builder.pipeline import BuildResult, build, make_proposer, write_workspace
from evoonto.builder.workload import Question, as_questions, load_workload

__all__ = ["build", "BuildResult", "make_proposer", "write_workspace", "Question", "load_workload", "as_questions"]
