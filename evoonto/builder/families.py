"""Table families: many tables of one shape become one Term (issue 19).

Warehouses keep one table per year, month, region or shard (``GHCN_D_GHCND_1763`` …
``GHCN_D_GHCND_2024``: hundreds of tables with the same columns). A Term per member table and per
member column gives hundreds of near-identical Terms that crowd browse and say nothing the first
member does not. A **family** is a set of at least :data:`MIN_MEMBERS` base tables with the same
columns (names and declared types, in order) whose names differ only in one run of digits
(``GHCN_D_GHCND_{n}``); the varying parts are the family's **keys** (``1763`` … ``2024``).

:func:`fold_families` changes a :class:`~evoonto.builder.propose.Proposal` before verification:

- one Entity Term per family (slug ``<pattern with N>-<first key>-<last key>-family``), mapped to
  its first member table (the representative whose columns keep their Terms); its labels name the pattern
  (``GHCN_D_GHCND_{n}``), its hidden labels list every member table (so ``1990`` finds the
  family through ``GHCN_D_GHCND_1990``), and its definition states the pattern, the number of
  members and their keys (the member list);
- the table and column Terms of the other members are dropped, unless a workload value or a
  constraint candidate points at that member (those stay, with their Terms).

Example::

    families = find_families(["sales_2021", "sales_2022", "sales_2023", "customer"], columns_of)
    # [TableFamily(pattern='sales_{n}', members=('sales_2021', 'sales_2022', 'sales_2023'), ...)]
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from evoonto.builder.propose import Proposal

__all__ = ["TableFamily", "find_families", "fold_families", "MIN_MEMBERS"]

#: Fewest tables of one shape that make a family.
MIN_MEMBERS = 3
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class TableFamily:
    """Tables of one shape whose names differ in one run of digits.

    Attributes:
        pattern: the member name with the varying digits replaced by ``{n}`` (``sales_{n}``).
        members: the member table names, ordered by key (numerically).
        keys: the varying digit runs, in the same order (``("2021", "2022", …)``).
    """

    pattern: str
    members: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def representative(self) -> str:
        """The member whose columns keep their Terms (the first by key)."""
        return self.members[0]

    def describe(self, max_keys: int = 400) -> str:
        """One sentence naming the pattern, the member count, the key range and the keys."""
        keys = ", ".join(self.keys[:max_keys]) + (", …" if len(self.keys) > max_keys else "")
        return (f"A family of {len(self.members)} tables of one shape, {self.members[0]} … {self.members[-1]} "
                f"(table name pattern {self.pattern}, one table per value of {{n}}); the columns are those "
                f"of {self.representative}. Members by {{n}}: {keys}.")


def find_families(tables: Iterable[str], shape_of: Callable[[str], Any], *,
                  min_members: int = MIN_MEMBERS) -> list[TableFamily]:
    """The families among ``tables``.

    Args:
        tables: table names (views excluded by the caller).
        shape_of: table name -> a hashable shape (e.g. the tuple of ``(column name, declared type)``).
        min_members: fewest members of a family.
    Returns:
        Families ordered by pattern; a table belongs to at most one (the largest candidate family,
        trying each run of digits of its name).
    """
    groups: dict[tuple[str, Any], list[tuple[str, str]]] = defaultdict(list)
    names = list(dict.fromkeys(tables))
    for name in names:
        shape = shape_of(name)
        for match in _DIGITS.finditer(name):
            pattern = name[:match.start()] + "{n}" + name[match.end():]
            groups[(pattern, shape)].append((match.group(), name))
    taken: set[str] = set()
    found = []
    for (pattern, _shape), members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][0])):
        members = [(key, name) for key, name in members if name not in taken]
        if len(members) < min_members:
            continue
        members.sort(key=lambda kn: (int(kn[0]), kn[0], kn[1]))
        taken.update(name for _key, name in members)
        found.append(TableFamily(pattern, tuple(n for _k, n in members), tuple(k for k, _n in members)))
    return sorted(found, key=lambda f: f.pattern)


def fold_families(proposal: Proposal, schema: Any, *, min_members: int = MIN_MEMBERS) -> list[TableFamily]:
    """Replace the Terms of family members by one family Term (module docstring), in place.

    Args:
        proposal: a :class:`~evoonto.builder.propose.Proposal` (its ``terms`` list is edited).
        schema: the source's catalog view (``tables`` with ``name``, ``columns``, ``is_view``).
        min_members: fewest members of a family.
    Returns:
        The families found.
    """
    from evoonto.builder.labels import LabelSet, humanize
    from evoonto.builder.propose import TermCandidate, term_slug

    tables = {t.name: t for t in schema.tables if not t.is_view}
    families = find_families(
        tables, lambda name: tuple((c.name, c.declared_type) for c in tables[name].columns), min_members=min_members)
    if not families:
        return []
    pinned = {v.table for v in proposal.values} | {c.table for c in proposal.constraints}
    dropped: set[str] = set()
    for family in families:
        dropped.update(m for m in family.members[1:] if m not in pinned)
    kept = [t for t in proposal.terms if t.table not in dropped]
    slugs = {t.slug for t in kept}
    for family in families:
        # two shapes may share a pattern (a column added in 2020): the key range tells them apart
        first, last = family.keys[0], family.keys[-1]
        slug = term_slug(f"{family.pattern.replace('{n}', 'N')}-{first}-{last}-family")
        if slug in slugs:
            continue
        base = family.pattern.replace("{n}", " ").replace("_", " ")
        pref = f"{humanize(base).strip() or family.pattern} (table family {first}–{last})"
        labels = LabelSet.make(pref, alt=[family.pattern], hidden=family.members)
        kept.append(TermCandidate(slug, "Entity", family.representative, None, labels, family.describe()))
    proposal.terms[:] = kept
    return families
