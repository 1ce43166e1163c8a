"""Tool-layer settings read from the ``tools`` graph (paper §3, Tool layer R).

The settings are RDF so a Tool-level patch can change them (architecture.md §3, Tools)::

    <B tools/browse> a evo:BrowseSettings ;
        evo:searchField "prefLabel", "altLabel", "value" ;          # literal or IRI (local name used)
        evo:fieldWeight <B tools/browse/weight/prefLabel> ;
        evo:defaultResults 8 ; evo:maxResults 50 ;
        evo:fuzzyWeight 0.3 ;                                              # a number in [0, 1]
        evo:hitsPerColumn 1 ;                                              # 0 / absent: no collapsing
        evo:answerFormat "compact" ; evo:answerBudget 6000 ;               # DEFAULT_ANSWER_POLICY; characters
        evo:fullLinesMatchedOnly false .                                   # compact: full lines while all fits
    <B tools/browse/weight/prefLabel> evo:field "prefLabel" ; evo:weight 3.0 .
    <B tools/resolve> a evo:ResolveSettings ; evo:responseBudget 6000 ; evo:evidenceBudget 3 .

The answer an agent gets when it asks for nothing else is :data:`DEFAULT_ANSWER_POLICY`, defined
here once: the builder writes it into the tools graph (``evo:answerFormat``, ``evo:answerBudget``),
:class:`BrowseSettings` falls back to it, the MCP server and the manifest describe it, and
``evoonto eval`` / ``benchmarks/linking_bench.py`` score it (``evoonto.evaluation.linking.DEFAULT_POLICY``).

Anything absent falls back to :data:`DEFAULT_WEIGHTS` and the dataclass defaults; malformed values
(negative weights, unknown fields, non-numbers) are ignored field by field so a bad patch cannot take
the tools down.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evoonto.records import boolean_text
from evoonto.tools.sparql import local_name, select

#: Searchable document fields and their default BM25 weights. ``value`` holds Evidence values
#: (``evo:sampleValue`` and the keys of ``evo:valueDistribution``); ``column`` the table and column
#: names of Mappings; ``keyword`` Constraint trigger keywords; ``expression`` filters, conditions,
#: join paths and formulas.
DEFAULT_WEIGHTS: dict[str, float] = {
    "prefLabel": 3.0,
    "altLabel": 2.0,
    "hiddenLabel": 2.0,
    "keyword": 2.0,
    "column": 1.5,
    "definition": 1.0,
    "value": 1.0,
    "expression": 0.5,
}

FIELD_ALIASES = {"label": "prefLabel", "synonym": "altLabel", "columnName": "column", "values": "value",
                 "sampleValue": "value", "triggerKeyword": "keyword", "comment": "definition"}

HARD_MAX_RESULTS = 100

#: Browse answer formats (see :mod:`evoonto.tools.browse`): ``verbose`` hits with label, snippet and
#: score; ``compact`` one pasteable line per candidate, as many as the character budget holds.
ANSWER_FORMATS = ("verbose", "compact")


@dataclass(frozen=True)
class AnswerPolicy:
    """What ``browse(q)`` answers when the caller names no format, budget or kind: THE default answer.

    Attributes:
        format: one of :data:`ANSWER_FORMATS`.
        budget: characters of the answer as compact JSON (``ensure_ascii=False``), 200..200,000;
            about ``budget / 4`` tokens.
        kind: the record kind browsed (``term``: Terms with their table and column).
    """

    format: str = "compact"
    budget: int = 6000
    kind: str = "term"

    def browse_arguments(self) -> dict[str, Any]:
        """The browse keywords that ask for exactly this answer: ``{kind, format, budget}``."""
        return {"kind": self.kind, "format": self.format, "budget": self.budget}

    def describe(self) -> str:
        """One line naming the policy and its budget, e.g. ``compact, 6,000 characters``."""
        return f"{self.format}, {self.budget:,} characters"


#: THE default answer (issue 33): one compact answer (one pasteable ``"table"."column"`` line per
#: candidate, tables that match first, then their keys and columns) within 6,000 characters (~1,500
#: tokens). Chosen on the linking benchmarks (README, "Measured"): at equal characters it surfaces
#: more gold columns than the verbose hits + resolve and than a BM25-ranked column list.
DEFAULT_ANSWER_POLICY = AnswerPolicy()


@dataclass(frozen=True)
class BrowseSettings:
    """How browse ranks: ``weights`` (field -> weight > 0, only searched fields), result counts, and
    the share of the score given to fuzzy label similarity (``fuzzy_weight`` in [0, 1],
    ``evo:fuzzyWeight``). ``default_results`` (``evo:defaultResults``) is the number of hits when the
    caller gives no ``n``: 8 unless the tools graph says otherwise (a Tool-level patch may change it).
    ``hits_per_column`` (``evo:hitsPerColumn``) collapses results: at most that many hits mapping the
    same table column (0 = no limit, the default), like field collapsing in search engines.
    ``answer_format`` (``evo:answerFormat``, one of :data:`ANSWER_FORMATS`) is the format when the
    caller names none; ``answer_budget`` (``evo:answerBudget``, characters of compact JSON, ≥ 200)
    bounds a compact answer when the caller gives no budget; both default to
    :data:`DEFAULT_ANSWER_POLICY` (see :meth:`answer_policy`). ``full_lines_matched_only``
    (``evo:fullLinesMatchedOnly``, default False) gives a compact answer's full lines only to the
    candidates a query word or value matched; the keys and columns their tables brought in are
    named in their table's line (a smaller answer on a schema that fits the budget; a saving the
    evolution loop may propose, :mod:`evoonto.evolution.candidates`)."""

    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    default_results: int = 8
    max_results: int = 50
    fuzzy_weight: float = 0.3
    hits_per_column: int = 0
    answer_format: str = DEFAULT_ANSWER_POLICY.format
    answer_budget: int = DEFAULT_ANSWER_POLICY.budget
    full_lines_matched_only: bool = False

    def answer_policy(self) -> AnswerPolicy:
        """The answer this version serves when the caller names no format or budget."""
        return AnswerPolicy(format=self.answer_format, budget=self.answer_budget, kind=DEFAULT_ANSWER_POLICY.kind)


@dataclass(frozen=True)
class ResolveSettings:
    """Sizes of resolve answers: ``response_budget`` in characters of compact JSON (≥ 500),
    ``evidence_budget`` = Evidence records attached per resolved record or Mapping."""

    response_budget: int = 6000
    evidence_budget: int = 3


@dataclass(frozen=True)
class ToolSettings:
    """Browse and resolve settings of one ontology version."""

    browse: BrowseSettings = field(default_factory=BrowseSettings)
    resolve: ResolveSettings = field(default_factory=ResolveSettings)


def _field_name(value: str) -> str | None:
    name = local_name(value) if ("#" in value or "/" in value) else value
    name = FIELD_ALIASES.get(name, name)
    return name if name in DEFAULT_WEIGHTS else None


def _number(value: Any, kind=float) -> Any:
    try:
        number = kind(float(value)) if kind is int else kind(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


def _fraction(value: Any, default: float) -> float:
    number = _number(value)
    return number if number is not None and number <= 1 else default


def browse_counts(scalars: dict[str, Any]) -> tuple[int, int]:
    """(default results, maximum results) from raw ``defaultResults``/``maxResults`` values (RDF
    literals or numbers; absent, malformed or negative values fall back to the defaults). The maximum
    is capped at :data:`HARD_MAX_RESULTS` and the default at the maximum; both are at least 1."""
    default = BrowseSettings()
    max_results = min(_number(scalars.get("maxResults"), int) or default.max_results, HARD_MAX_RESULTS)
    default_results = min(_number(scalars.get("defaultResults"), int) or default.default_results, max_results)
    return max(default_results, 1), max(max_results, 1)


def load_settings(ontology: Any) -> ToolSettings:
    """Read browse and resolve settings from the ontology (defaults for anything absent).

    Args:
        ontology: an Ontology whose ``query()`` sees the ``tools`` graph.
    Returns:
        A :class:`ToolSettings`.
    """
    rows = select(ontology, """
        SELECT ?s ?p ?o ?f ?w WHERE {
          { ?s a evo:BrowseSettings } UNION { ?s a evo:ResolveSettings }
          ?s ?p ?o .
          OPTIONAL { FILTER(?p = evo:fieldWeight) ?o evo:field ?f ; evo:weight ?w }
        }""")
    fields: set[str] = set()
    weights: dict[str, float] = {}
    scalars: dict[str, str] = {}
    for row in rows:
        pred = local_name(row["p"])
        if pred == "searchField":
            name = _field_name(row["o"])
            if name:
                fields.add(name)
        elif pred == "fieldWeight" and "f" in row:
            name, weight = _field_name(row["f"]), _number(row.get("w"))
            if name and weight is not None:
                weights[name] = weight
        else:
            scalars[pred] = row["o"]
    merged = {**DEFAULT_WEIGHTS, **weights}
    searched = fields or set(DEFAULT_WEIGHTS)
    browse_weights = {f: w for f, w in merged.items() if f in searched and w > 0}
    default = BrowseSettings()
    default_results, max_results = browse_counts(scalars)
    browse = BrowseSettings(
        weights=browse_weights or dict(DEFAULT_WEIGHTS),
        default_results=default_results,
        max_results=max_results,
        fuzzy_weight=_fraction(scalars.get("fuzzyWeight"), default.fuzzy_weight),
        hits_per_column=_number(scalars.get("hitsPerColumn"), int) or default.hits_per_column,
        answer_format=(str(scalars["answerFormat"]) if str(scalars.get("answerFormat")) in ANSWER_FORMATS
                       else default.answer_format),
        answer_budget=min(max(_number(scalars.get("answerBudget"), int) or default.answer_budget, 200), 200_000),
        full_lines_matched_only=boolean_text(str(scalars.get("fullLinesMatchedOnly", ""))),
    )
    rdefault = ResolveSettings()
    evidence = _number(scalars.get("evidenceBudget"), int)
    resolve = ResolveSettings(
        response_budget=max(_number(scalars.get("responseBudget"), int) or rdefault.response_budget, 500),
        evidence_budget=rdefault.evidence_budget if evidence is None else min(evidence, 20),
    )
    return ToolSettings(browse=browse, resolve=resolve)


def answer_settings_triples(node: Any, policy: AnswerPolicy = DEFAULT_ANSWER_POLICY) -> list[tuple[Any, Any, Any]]:
    """The tools-graph triples that state ``policy`` as a version's browse default: ``node`` (the
    browse settings IRI, ``IriFactory.tools("browse")``) ``a evo:BrowseSettings ; evo:answerFormat
    "compact" ; evo:answerBudget 6000`` (the builder writes them, so the served default is explicit in
    the workspace and a Tool-level patch can change it).

    Returns:
        three rdflib triples.
    """
    from rdflib import RDF, Literal

    from evoonto.namespaces import EVO

    return [(node, RDF.type, EVO.BrowseSettings), (node, EVO.answerFormat, Literal(policy.format)),
            (node, EVO.answerBudget, Literal(policy.budget))]
