"""Defect (issue 33 item 2): the bridge table on the join path between two tables a question names
(``enrollment`` between ``student`` and ``course``) matched no query word, so it and its keys ranked
past the budget behind every weak match, and the agent could not write the join. Bridges between
the best tables now come with their keys at :data:`evoonto.tools.browse.TABLE_PRIOR` × the lower
table score."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import MAX_BRIDGES, TABLE_PRIOR, bridge_tables, browse
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc


def test_bridge_tables_join_two_ranked_tables_that_do_not_join_directly():
    joins = {"student": {"enrollment"}, "course": {"enrollment", "teacher"}, "enrollment": {"student", "course"},
             "teacher": {"course"}}
    assert bridge_tables({"student": 0.9, "course": 0.6}, joins) == {"enrollment": TABLE_PRIOR * 0.6}
    assert bridge_tables({"student": 0.9, "enrollment": 0.5}, joins) == {}  # they join directly
    hub = {"a": {f"h{k}" for k in range(MAX_BRIDGES + 1)}, "b": {f"h{k}" for k in range(MAX_BRIDGES + 1)}}
    assert bridge_tables({"a": 1.0, "b": 1.0}, hub) == {}  # a hub pair names no bridge


def test_the_bridge_and_its_keys_are_in_a_small_compact_answer():
    docs = [column_doc("student", "student_id", "student id", 0, key=True),
            column_doc("student", "name", "student name", 1),
            column_doc("course", "course_id", "course id", 0, key=True),
            column_doc("course", "title", "course title", 1),
            column_doc("enrollment", "student_ref", "enrolled pupil", 0, key=True),
            column_doc("enrollment", "course_ref", "enrolled class", 1, key=True),
            column_doc("enrollment", "grade", "grade", 2)]
    # many weak matches elsewhere that would otherwise fill the budget
    docs += [column_doc(f"archive_{k}", "title_text", f"archived title {k}", 0) for k in range(60)]
    docs += [column_doc(f"roster_{k}", "name_text", f"roster name {k}", 0) for k in range(60)]
    docs.sort(key=lambda d: d.iri)
    index = SearchIndex(docs)
    joins = {"student": {"enrollment"}, "course": {"enrollment"}, "enrollment": {"student", "course"}}
    schema = {"student": ["student_id", "name"], "course": ["course_id", "title"],
              "enrollment": ["student_ref", "course_ref", "grade"]}
    question = "names of students and the titles of their courses"
    without = browse(index, BrowseSettings(), question, format="compact", budget=700)
    with_joins = browse(index, BrowseSettings(), question, format="compact", budget=700, joins=joins)
    assert not {("enrollment", "student_ref"), ("enrollment", "course_ref")} <= recognise(without, schema)[1]
    assert {("enrollment", "student_ref"), ("enrollment", "course_ref"), ("student", "name"),
            ("course", "title")} <= recognise(with_joins, schema)[1]
