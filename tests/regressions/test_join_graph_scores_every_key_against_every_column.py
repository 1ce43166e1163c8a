"""Regression: the first resolve of several ids builds the join graph, and its name edges scored every
single-column key against every column of the schema with ``name_score``: on a generated 70,000-column
schema that first call took 577 s. Name edges need a score of exactly 1.0, which holds for a small set of
normalized names per key (``exact_reference_names``), so candidates are now looked up by name."""

from __future__ import annotations

import itertools

from evoonto.sources.joins import exact_reference_names, name_score, normalized_name

TABLES = ["singer", "Singers", "TV_Channel", "battle", "cities", "boxes", "x", "order_items", "ID", ""]
COLUMNS = ["id", "ID", "Singer_ID", "singer_id", "singerid", "singersid", "code", "battle_id", "battleid",
           "lost_in_battle", "Channel", "tvchannelid", "city_id", "cityid", "box_id", "boxesid", "name",
           "singer_name", "order_item_id", "orderitemsid", "xid", "x_code", "IDid", "Singer", "", "__",
           "current_address_id", "address_id", "addressid", "Year", "year"]


def test_exact_reference_names_match_name_score_exactly():
    checked = 0
    for table, right_column, left_column, is_key in itertools.product(TABLES, COLUMNS, COLUMNS, (True, False)):
        expected = name_score(left_column, table, right_column, right_is_key=is_key) == 1.0
        got = normalized_name(left_column) in exact_reference_names(table, right_column, right_is_key=is_key)
        assert got == expected, (left_column, table, right_column, is_key)
        checked += 1
    assert checked == len(TABLES) * len(COLUMNS) ** 2 * 2


def _pairwise_name_edges(graph) -> set[tuple[str, str, str, str]]:
    """The name edges the previous implementation found, scoring every key against every column."""
    from evoonto.tools.joinpaths import _ID_LIKE

    found, linked = set(), set()
    for right, keys in sorted(graph.unique.items()):
        for key in sorted(k for k in keys if len(k) == 1):
            (key_column,) = key
            right_column = next(c for c in graph.columns[right] if c.casefold() == key_column)
            is_pk = key in graph.primary_keys.get(right, ())
            if right in graph.views or (not is_pk and (right in graph.primary_keys or not _ID_LIKE.search(
                    normalized_name(key_column)))):
                continue
            for left in sorted(graph.columns):
                pair = frozenset({left.name.casefold(), right.name.casefold()})
                if left == right or pair in linked or left in graph.views:
                    continue
                for column in graph.columns[left]:
                    if name_score(column, right.name, right_column, right_is_key=is_pk) < 1.0:
                        continue
                    if graph.is_unique(left, (column,)) and right_column.casefold() != column.casefold():
                        continue
                    found.add((left.name, column, right.name, right_column))
                    linked.add(pair)
                    break
    return found


def test_join_graph_name_edges_equal_pairwise_scoring():
    """On a schema with declared keys, id-like unique columns, views, generic names and plural table
    names, the looked-up name edges are exactly those pairwise scoring finds."""
    from evoonto.tools.joinpaths import JoinGraph, TableRef

    def schema() -> JoinGraph:
        graph = JoinGraph()
        tables = {
            "singer": ["Singer_ID", "Name", "Country"], "concert": ["concert_ID", "Singer_ID", "Name", "year"],
            "battle": ["id", "name"], "ship": ["id", "lost_in_battle", "battle_id", "name"],
            "cities": ["city_id", "name"], "people": ["person_id", "city_id", "CityId", "name"],
            "singer_view": ["Singer_ID", "Name"], "notes": ["note_code", "singer_id", "text"],
        }
        for name, columns in tables.items():
            graph.columns[TableRef("s", name)] = columns
        for name, key in [("singer", "Singer_ID"), ("concert", "concert_ID"), ("battle", "id"), ("ship", "id"),
                          ("people", "person_id")]:
            graph.mark_unique(TableRef("s", name), (key,))
            graph.primary_keys.setdefault(TableRef("s", name), set()).add(frozenset({key.casefold()}))
        graph.mark_unique(TableRef("s", "cities"), ("city_id",))  # id-like unique column, no declared key
        graph.views.add(TableRef("s", "singer_view"))
        return graph

    expected = _pairwise_name_edges(schema())
    graph = schema()
    graph.add_name_edges()
    got = {(e.left, e.left_columns[0], e.right, e.right_columns[0]) for e in graph.edges if e.origin == "name"}
    assert got == expected
    assert ("concert", "Singer_ID", "singer", "Singer_ID") in got and ("ship", "battle_id", "battle", "id") in got
