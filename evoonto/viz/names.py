"""Readable text for the explorer: IRIs as prefixed names or catalog names, literals, field names.

Everything here returns plain ``str`` for display; escaping for HTML happens only in the page
(data strings are inserted as text, never as markup).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from rdflib import Graph, Literal

from evoonto.catalog import read_catalog
from evoonto.namespaces import PREFIXES

#: Longest literal shown in a record or diff (characters); longer ones are cut with an ellipsis.
MAX_LITERAL_CHARS = 2000


def local_name(iri: str) -> str:
    """The last ``/`` or ``#`` segment of ``iri`` (the whole IRI if there is none)."""
    return re.split(r"[#/]", iri.rstrip("/#"))[-1] or iri


def humanize(name: str) -> str:
    """``rowsObserved`` -> ``rows observed``; ``join_path`` -> ``join path``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()


def cut(text: str, limit: int = MAX_LITERAL_CHARS) -> str:
    """``text`` shortened to at most ``limit`` characters, ending with ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pick_literal(values: Iterable) -> str | None:
    """The English (or untagged) literal among ``values``, else the first literal; None if none."""
    best = None
    for value in values:
        if not isinstance(value, Literal):
            continue
        if value.language in (None, "en") or (value.language or "").startswith("en-"):
            return str(value)
        best = best if best is not None else str(value)
    return best


def literal_text(value: Literal) -> str:
    """A literal's display text: floating-point numbers with up to 6 significant digits, others as written."""
    if value.datatype is not None and str(value.datatype).endswith(("#double", "#float", "#decimal")):
        try:
            return f"{float(value):.6g}"
        except ValueError:
            pass
    return cut(str(value))


def distribution_text(text: str) -> str:
    """``{"France": 4, "Spain": 1}`` -> ``France: 4, Spain: 1`` (the text itself if it is not a JSON object)."""
    try:
        data = json.loads(text)
    except ValueError:
        return cut(text)
    if not isinstance(data, dict):
        return cut(text)
    return cut(", ".join(f"{k}: {v}" for k, v in data.items()))


class IriNamer:
    """Short names of IRIs: catalog names (``singer.Age``), prefixed names (``skos:altLabel``), or
    the path under the workspace base (``term/concert_singer/age``).

    Args:
        base: the workspace base IRI, or None.
        catalog: the ``catalog`` graph, or None; names come from
            :meth:`evoonto.catalog.Catalog.names` (source id, table, ``table.column``, document
            title, passage heading).
    """

    def __init__(self, base: str | None, catalog: Graph | None = None):
        self.prefixes = sorted(((ns, p) for p, ns in PREFIXES.items()), key=lambda x: -len(x[0]))
        self.base = base
        self.catalog_names: dict[str, str] = {}
        if catalog is not None:
            self._read_catalog(catalog)

    def _read_catalog(self, catalog: Graph) -> None:
        self.catalog_names = {str(iri): name for iri, name in read_catalog(catalog).names().items()}

    def __call__(self, iri: str) -> str:
        """The short name of ``iri`` (``str``)."""
        if iri in self.catalog_names:
            return self.catalog_names[iri]
        for ns, prefix in self.prefixes:
            if iri.startswith(ns) and len(iri) > len(ns):
                return f"{prefix}:{iri[len(ns):]}"
        if self.base and iri.startswith(self.base) and len(iri) > len(self.base):
            return iri[len(self.base):]
        return iri
