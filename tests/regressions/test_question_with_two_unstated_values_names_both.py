"""Regression (issue 29, review of evolution's ``unnamed_value``): a failed task whose question
leaves two values unstated gave its one leftover phrase to both: "How many martians are there?"
with ``alignment = 'Bad' AND skin = 'Green'`` proposed "martians" as a name of 'Bad' and of 'Green'.
Which of the two values the phrase names is a guess, so such a question names neither (as the
builder's miner already did for ``build --verified``); nor does a passed verified task like it
support a phrase.
"""

from __future__ import annotations

from test_evolution_value_names import BAD, _synonyms, _task, heroes  # noqa: F401  (fixture)

TWO = "SELECT COUNT(*) FROM hero WHERE alignment = 'Bad' AND skin = 'Green'"


def test_question_with_two_unstated_values_names_both(heroes):  # noqa: F811
    onto, prober = heroes
    sigs, cands, _ctx = _synonyms(onto, prober, [_task("t1", "How many martians are there?", TWO)])
    assert sorted(s.key for s in sigs) == ["hero.alignment = Bad", "hero.skin = Green"]
    assert cands == []


def test_a_passed_task_with_two_unstated_values_supports_no_phrase(heroes):  # noqa: F811
    onto, prober = heroes
    trajs = [_task("t1", "How many villains does the multiverse hold?", BAD),
             _task("t2", "List the villains.", TWO, passed=True)]
    _sigs, cands, _ctx = _synonyms(onto, prober, trajs)
    assert cands == []  # t1 alone leaves two phrases; t2 cannot tell which value "villains" names


def test_one_unstated_value_is_still_named(heroes):  # noqa: F811
    onto, prober = heroes
    _sigs, cands, _ctx = _synonyms(onto, prober, [_task("t1", "How many villains are there?", BAD)])
    assert [c.edits[0].label for c in cands] == ["villains"]
