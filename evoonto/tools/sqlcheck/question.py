"""The question rules of ``check_sql`` (opt-in: ``check_sql(..., question=..., question_rules=True)``).

``question_mismatch`` (Warning) compares the columns a statement uses with the words of the
question it answers; ``count_skips_nulls`` (Warning) flags ``COUNT(col)`` of a column with NULLs
that no word of the question names. These are heuristics of English wording: on correct BIRD gold
queries they fire often (see the README), so they run only when asked for. Their words live in
the packaged lexicon file ``evoonto/data/lexicon/question_phrases.tsv`` (and the ``query`` class
of ``stopwords.tsv``, cue words and synonyms of :class:`~evoonto.lexicon.Lexicon`), not in code.

A column counts as named by the question when a stemmed question word (or a data word a cue word
or synonym points at) is one of its words (name, Term labels), or one of its string literals in the
statement occurs in the question and its values do not contradict it. A word the question says
``k`` times explains at most ``k`` used columns. The column a statement sorts by (or takes the
MIN/MAX of) must be one the question's ordering phrases name (:func:`ordering_phrases`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from importlib import resources
from typing import Iterator

from sqlglot import exp

from evoonto.errors import ConfigurationError
from evoonto.lexicon import Lexicon
from evoonto.sources.profiling import share_text
from evoonto.text import QUERY_WORDS, STOP_WORDS, adjective_bases, normalize, tokenize
from evoonto.text import words as question_words
from evoonto.tools.findings import Finding
from evoonto.tools.sqlcheck.context import (_CONDITION_PARENTS, SUGGESTIONS, CheckContext, _is_number,
                                            _is_semi_join_key, _selected)

__all__ = ["check_question", "ordering_phrases", "WORDS_FILE"]


@functools.lru_cache(maxsize=8192)
def _related_stems(word: str) -> frozenset[str]:
    """:meth:`Lexicon.related_stems` of the packaged lexicon (immutable), cached per word."""
    return frozenset(Lexicon.packaged().related_stems(word))


def _read_classes() -> dict[str, frozenset[str]]:
    """``{class: words}`` of the packaged ``question_phrases.tsv`` (``word<TAB>class`` lines)."""
    text = resources.files("evoonto").joinpath("data", "lexicon", WORDS_FILE).read_text(encoding="utf-8")
    classes: dict[str, set[str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 2 or not cells[0] or not cells[1]:
            raise ConfigurationError(f"{WORDS_FILE}:{lineno}: expected 'word<TAB>class'")
        classes.setdefault(cells[1], set()).add(cells[0].casefold())
    return {name: frozenset(ws) for name, ws in classes.items()}


#: The packaged file the question rules read their words from (evoonto/data/lexicon/).
WORDS_FILE = "question_phrases.tsv"
_WORDS = _read_classes()
#: Question words that name a query operation (aggregation, ordering, counting: the packaged
#: ``query`` stop words), not a column; those of class ``names_column`` name columns as often.
_OPERATION_WORDS = frozenset(w for w in QUERY_WORDS if w not in _WORDS.get("names_column", frozenset()))
#: Words after which a question says what it sorts by ("ordered by age", "in order of their names").
_SORT_VERBS = _WORDS.get("sort", frozenset())
_SORT_LINKS = _WORDS.get("sort_link", frozenset())
#: Words that start a superlative ("the most recent", "the top 3 largest") or a comparative.
_EXTREMES = _WORDS.get("extreme", frozenset())
#: Where an ordering phrase's noun phrase ends (a new clause or condition starts).
_PHRASE_ENDS = _WORDS.get("phrase_end", frozenset())


@functools.lru_cache(maxsize=1)
def _operation_stems() -> frozenset[str]:
    """The stems of :data:`_OPERATION_WORDS`."""
    return frozenset(t for w in _OPERATION_WORDS for t in tokenize(w))


def _is_extreme(word: str) -> bool:
    """True for a superlative or comparative (``youngest``, ``older``, ``most``, ``highest``): a word
    with an ``-est``/``-er`` ending whose positive form the packaged lexicon has a cue for, or one of
    :data:`_EXTREMES`."""
    low = word.casefold()
    if low in _EXTREMES:
        return True
    if not low.endswith(("est", "er")):
        return False
    return any(Lexicon.packaged().cue_targets(base) for base in adjective_bases(low)[1:])


@functools.lru_cache(maxsize=1024)
def ordering_phrases(question: str) -> tuple[tuple[frozenset[str], frozenset[str], bool], ...]:
    """The phrases of ``question`` that say how its answer is ordered or which extreme it picks, each
    as ``(stems the phrase says, stems of the data words its cue words point at, sorts)``; ``sorts``
    is True for a sort verb's phrase ("ordered by X": X is what the answer is sorted by), False for
    a superlative's ("the earliest date": the extreme may be what the answer returns).

    Read with general English only: a sort verb followed by ``by``/``of``/``for`` and a noun phrase
    ("ordered by their names", "in descending order of age", "sorted by the level from high to
    low"), and a superlative or comparative with the noun phrase it qualifies ("the youngest
    singer", "the highest enrolment", "the most recent treatment", "the top 3 largest population").
    A noun phrase ends at punctuation, at a word that starts a clause (in, from, with, which, ...)
    or after four content words; operation words (order, highest, number, ...) and function words
    are left out of the stems. A sort phrase without its own noun ("in alphabetical order") gives
    ``(frozenset(), frozenset(), True)``.
    """
    tokens = re.findall(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?|[,.;:?!()]", question)
    lowered = [t.casefold() for t in tokens]
    out: list[tuple[frozenset[str], frozenset[str], bool]] = []

    def phrase(start: int) -> tuple[set[str], set[str]]:
        said: set[str] = set()
        related: set[str] = set()
        content = 0
        for k in range(start, len(tokens)):
            low = lowered[k]
            if not low[0].isalnum() or low in _PHRASE_ENDS or content >= 4:
                break
            if low in STOP_WORDS or low.isdigit():
                continue
            if _is_extreme(low):
                related |= _related_stems(low)
                continue
            said.update(tokenize(low))
            related |= _related_stems(low)
            content += 1
        return said, related

    for i, low in enumerate(lowered):
        if low in _SORT_VERBS:
            link = next((j for j in range(i + 1, min(i + 5, len(lowered))) if lowered[j] in _SORT_LINKS), None)
            said, related = phrase(link + 1) if link is not None else (set(), set())
            out.append((frozenset(said), frozenset(related), True))
        elif _is_extreme(low) and (i == 0 or not _is_extreme(lowered[i - 1])):
            said, related = phrase(i + 1)
            related |= _related_stems(low)
            out.append((frozenset(said), frozenset(related), False))
    return tuple(out)



def check_question(ctx: CheckContext, question: str) -> list[Finding]:
    """``question_mismatch`` findings: see the module docstring. A column counts as named by the
    question when a stemmed question word (or a data word a cue word or synonym of the packaged
    :class:`~evoonto.lexicon.Lexicon` points at) is one of its words (name, Term labels), or one of
    its string literals in the statement occurs in the question and its values do not contradict it.
    A word the question says ``k`` times explains at most ``k`` used columns."""
    times = Counter(tokenize(question))  # how often the question says each (stemmed) word
    said = set(times)
    if not said:
        return []
    text = normalize(question)
    surface: dict[str, str] = {}  # stemmed token -> the question's word, for the message
    related: set[str] = set()
    for word in question_words(question):
        for token in tokenize(word):
            surface.setdefault(token, word)
        if tokenize(word):  # cue words and synonyms name data words ("youngest" -> age, birth)
            related |= _related_stems(word.casefold())
    # the words that may propose another column: said by the question, and not numbers (a number
    # of the question fits many columns: "1" in "grades 1 through 12" names no AdmEmail1) nor
    # words of a query operation ("number" in "the number of owners" names no cell_number)
    operations = _operation_stems()
    proposing = {w for w in said if not w.isdigit() and w not in operations}
    # a word of the name of another table the statement reads names that table ("schools" names
    # the table schools, not the column sname "school name" of satscores)
    table_names = {t.casefold(): set(tokenize(t)) for t in {t for t, _c in ctx.used}}
    words, values = ctx.facts.column_words, ctx.facts.value_words
    sid = ctx.schema.id

    def named(table: str, column: str, asked: set[str] = said | related) -> set[str]:
        """The question's words (or the data words its cue words and synonyms point at) that name
        the column; with ``asked=said``, only the words the question itself says."""
        return set(words.get((sid, table.casefold(), column.casefold()), ())) & asked

    def named_there(table: str, column: str, node: exp.Column) -> set[str]:
        """The words that name the column where ``node`` uses it: words of its values only in a
        condition (a value the question says is compared there, not returned or sorted by)."""
        found = named(table, column)
        if node.find_ancestor(*_CONDITION_PARENTS) is None:
            found -= values.get((sid, table.casefold(), column.casefold()), frozenset())
        return found

    # a word the question says k times, naming more than k used columns, names the k whose words
    # the question covers best ("name" said once names Name, not Song_Name)
    lost = _overused_words(ctx, times)
    used_cols = {(t.casefold(), c.casefold()) for t, c in ctx.used}
    # a literal of the question explains the column compared with it, unless its values or type
    # contradict the literal (then the column is the suspect)
    compared = [(place, value) for place, value in
                ((ctx._resolve(col), v) for col, v in _compared_literals(ctx, text))
                if place is not None and place not in ctx.contradicted]
    literal_columns = {place for place, _v in compared}
    # a column used only where it is compared with a literal of the question needs no word of its
    # own ("the notes of the events with the substring 'East'": 'notes' is left to name what the
    # SQL returns), unless the question says its words next to the literal ("directed by 'Ben Jones'")
    near = _words_near(question, [v for _p, v in compared])
    by_literal_only = {(t.casefold(), c.casefold()) for t, c in literal_columns
                       if not named(t, c, said) & near.get(next(v for p, v in compared if p == (t, c)), set())} - {
        (t.casefold(), c.casefold()) for t, c, n in ctx.places if n.find_ancestor(*_CONDITION_PARENTS) is None}
    naming_count: Counter[str] = Counter()  # word -> how many used columns it names
    for t, c in ctx.used:
        if (t.casefold(), c.casefold()) not in by_literal_only:
            naming_count.update(named(t, c))
    # a word is explained once as many used columns as the question says it name it
    explained = {w for w, n in naming_count.items() if n >= times.get(w, 1)}
    # columns used only to sort: a selected column may be the one the question asks for instead
    sorting = {(t.casefold(), c.casefold()) for t, c, n in ctx.places if n.find_ancestor(exp.Order) is not None}
    elsewhere = {(t.casefold(), c.casefold()) for t, c, n in ctx.places if n.find_ancestor(exp.Order) is None}
    only_sorting = sorting - elsewhere
    outside_sort: Counter[str] = Counter()
    # the words of the question's sort phrases ("ordered by air date") name what it sorts by
    phrase_words = frozenset().union(*(p[0] for p in ordering_phrases(question) if p[2]))
    for t, c in ctx.used:
        if (t.casefold(), c.casefold()) in by_literal_only:
            continue
        if (t.casefold(), c.casefold()) not in only_sorting:
            outside_sort.update(named(t, c))
        else:
            outside_sort.update(named(t, c) & phrase_words)
    explained_outside_sort = {w for w, n in outside_sort.items() if n >= times.get(w, 1)}
    # columns a select list only aggregates: MIN(a), MAX(b) may mean MIN(b), MAX(b)
    aggregated = {(t.casefold(), c.casefold()) for t, c, n in ctx.places
                  if _selected(n) and n.find_ancestor(exp.AggFunc) is not None}
    plain = {(t.casefold(), c.casefold()) for t, c, n in ctx.places
             if not (_selected(n) and n.find_ancestor(exp.AggFunc) is not None)}
    only_aggregated = aggregated - plain
    # a column a SELECT both returns and sorts by, while the question says its words once, is
    # named for one of the two: the sort counts as unnamed ("name" said once, Name selected and
    # sorted by, while "net worth" names a column the SQL does not use)
    returned = {(id(n.find_ancestor(exp.Select)), t.casefold(), c.casefold()) for t, c, n in ctx.places
                if _selected(n)}
    # likewise a column a SELECT both returns and filters on: the return counts as unnamed
    filtered = {(id(n.find_ancestor(exp.Select)), t.casefold(), c.casefold()) for t, c, n in ctx.places
                if n.find_ancestor(exp.Where) is not None}
    found: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    for table, column, node in ctx.places:
        key = (table.casefold(), column.casefold())
        naming = named_there(table, column, node) - lost.get(key, set())
        scope_key = (id(node.find_ancestor(exp.Select)), *key)
        once = max((times.get(w, 1) for w in naming), default=0) <= 1
        resorted = once and (node.find_ancestor(exp.Order) is not None and scope_key in returned
                             or _selected(node) and node.find_ancestor(exp.AggFunc) is None
                             and scope_key in filtered)
        # the literal explains the column where it is compared, not where a SELECT returns it
        by_literal = (table, column) in literal_columns and node.find_ancestor(*_CONDITION_PARENTS) is not None
        if key in reported or by_literal or _is_semi_join_key(node):
            continue
        # named only through cue words or synonyms ("live" -> address): a column of the table the
        # question names outright may be the one meant
        weak = bool(naming) and not naming & said and _selected(node) and node.find_ancestor(exp.AggFunc) is None
        if naming and not resorted and not weak:
            fits = _better_covered(ctx, table, column, said, explained | operations, used_cols)
            if fits is not None and node.find_ancestor(exp.AggFunc) is None:
                where = f"{table}.{column}"
                ctx.add("question_mismatch", "Warning",
                         f"the question's {', '.join(repr(surface.get(w, w)) for w in fits[1])} names "
                         f"{table}.{fits[0]} wholly, and {where} only in part; the SQL does not use "
                         f"{table}.{fits[0]}", f"{table}.{fits[0]}", node.this, where)
                reported.add(key)
                found.append(ctx.findings.pop())
            continue
        count = node.find_ancestor(exp.Count)
        if count is not None and not isinstance(count.this, exp.Distinct):
            # COUNT(col) counts rows, and its column is rarely named; but it skips the rows where the
            # column is NULL, which the question does not ask for when it names no such column
            col_facts = ctx.facts.columns.get((sid, table.casefold(), column.casefold()))
            if count.this is node and not naming and col_facts is not None and (col_facts.nulls or 0) > 0:
                where = f"{table}.{column}"
                ctx.add("count_skips_nulls", "Warning",
                         f"COUNT({where}) skips the {share_text(col_facts.nulls or 0.0)} of rows where it is NULL, "
                         "and no word of the question names it", "COUNT(*), or COUNT of a key column", node.this,
                         where)
                found.append(ctx.findings.pop())
                reported.add(key)
            continue
        info = ctx.table(table)
        if info is None:
            continue
        selected = _selected(node)
        taken, known = (used_cols - only_sorting - by_literal_only, explained_outside_sort) if selected \
            else (used_cols, explained)
        siblings: set[tuple[str, str]] = set()
        if selected and node.find_ancestor(exp.AggFunc) is not None:
            # another aggregate's column the question names ("minimum and maximum age": MIN(x), MAX(age))
            siblings = only_aggregated - {key}
            taken = taken - only_aggregated
        if weak:
            taken, siblings = used_cols, set()
        in_condition = node.find_ancestor(*_CONDITION_PARENTS) is not None
        better = []
        for other in info.columns:
            other_key = (table.casefold(), other.name.casefold())
            if other_key in taken | {key}:
                continue
            unexplained = named(table, other.name, proposing) - (set() if other_key in siblings else known)
            if not in_condition:  # a value the question says names the column it is compared with
                unexplained -= values.get((sid, *other_key), frozenset())
            unexplained -= {w for t, ws in table_names.items() if t != table.casefold() for w in ws}
            if unexplained:
                better.append((len(unexplained), other.name, sorted(unexplained)))
        if not better:
            continue
        better.sort(key=lambda b: (-b[0], b[1]))
        reported.add(key)
        where = f"{table}.{column}"
        quoted = ", ".join(repr(w) for w in dict.fromkeys(surface.get(w, w) for w in better[0][2]))
        unnamed = (f"only a cue word or synonym of the question names {where}" if weak
                   else f"the question names {where} once, and the SQL both returns and "
                   f"{'sorts by' if node.find_ancestor(exp.Order) is not None else 'filters on'} it" if naming
                   else f"no word of the question names {where}")
        how = "use" if (table.casefold(), better[0][1].casefold()) not in used_cols else "use there"
        ctx.add("question_mismatch", "Warning",
                 f"{unnamed}; the question's {quoted} names {table}.{better[0][1]}, which the SQL does not {how}",
                 ", ".join(f"{table}.{b[1]}" for b in better[:SUGGESTIONS]), node.this, where)
        found.append(ctx.findings.pop())
    found += _check_ordering(ctx, question, reported, said | related)
    found += _check_join_roles(ctx, said)
    return found


def _better_covered(ctx: CheckContext, table: str, column: str, said: set[str], explained: set[str],
                    used: set[tuple[str, str]]) -> tuple[str, list[str]] | None:
    """``(column name, the question words naming it)`` of a column of ``table`` the statement does
    not use and whose words the question says every one of, sharing a said word with ``column``,
    when it fits the question better than ``column``: ``column`` has a word the question does
    not say (line_3 for "line 1 and line 2", LocalName for "names"), or the other column's said
    words include all of ``column``'s and more (Manager_name for "manager name"). Its words
    beyond ``column``'s must not name another column the statement uses (``explained``)."""
    sid, words, values = ctx.schema.id, ctx.facts.column_words, ctx.facts.value_words
    info = ctx.table(table)
    if info is None:
        return None
    own_key = (sid, table.casefold(), column.casefold())
    own = words.get(own_key, frozenset()) - values.get(own_key, frozenset())
    if not own:
        return None
    partial = not own <= said  # this column has a word the question does not say
    tables = {w for t, _c in ctx.used for w in tokenize(t)}
    for other in info.columns:
        other_key = (table.casefold(), other.name.casefold())
        if other_key in used:
            continue
        theirs = words.get((sid, *other_key), frozenset()) - values.get((sid, *other_key), frozenset())
        if not theirs or not theirs <= said or not theirs & own:
            continue
        extra = theirs - own - tables  # a word naming a table of the statement names that table
        if not extra or not extra - explained or (not partial and not theirs > own):
            continue
        return other.name, sorted(theirs)
    return None


def _overused_words(ctx: CheckContext, times: Counter[str]) -> dict[tuple[str, str], set[str]]:
    """``(table, column)`` (casefold) -> the question words it loses: a word said ``k`` times that
    names more than ``k`` columns the statement uses (join keys aside) names the ``k`` whose words
    the question covers best; when those are covered wholly (every word of theirs is said), a
    column covered only in part loses it."""
    sid, words = ctx.schema.id, ctx.facts.column_words
    holders: dict[str, list[tuple[float, tuple[str, str]]]] = {}
    for key in {(t.casefold(), c.casefold()) for t, c, _n in ctx.places}:
        own = words.get((sid, *key), frozenset())
        if not own:
            continue
        cover = len(own & times.keys()) / len(own)
        for w in own & times.keys():
            holders.setdefault(w, []).append((cover, key))
    lost: dict[tuple[str, str], set[str]] = {}
    for w, held in holders.items():
        k = times[w]
        if len(held) <= k:
            continue
        held.sort(key=lambda h: -h[0])
        for cover, key in held[k:]:
            if cover < held[k - 1][0] == 1.0:
                lost.setdefault(key, set()).add(w)
    return lost


def _check_ordering(ctx: CheckContext, question: str, reported: set[tuple[str, str]], asked: set[str]) -> list[Finding]:
    """``question_mismatch`` for the column a statement sorts by (ORDER BY, a window's ORDER BY) or
    picks an extreme of (MIN/MAX in a select list), when the question's ordering phrases
    (:func:`ordering_phrases`: "ordered by X", "the youngest …", "the highest X") name another
    column of that table and not this one; and, when the question asks for an order without
    naming a column ("in alphabetical order"), for a sort column no word of the question names."""
    phrases = ordering_phrases(question)
    if not phrases:
        return []
    said = frozenset().union(*(p[0] for p in phrases))
    related = frozenset().union(*(p[1] for p in phrases))
    bare = any(not p[0] and not p[1] for p in phrases)
    # what the question names outright: its words, less those of a query operation ("average")
    outright = set(tokenize(question)) - _operation_stems()
    sid, words = ctx.schema.id, ctx.facts.column_words
    found: list[Finding] = []
    for table, column, node in ctx.places:
        key = (table.casefold(), column.casefold())
        extreme = node.find_ancestor(exp.Max, exp.Min)
        if key in reported or node.find_ancestor(exp.Count) is not None or not (
                node.find_ancestor(exp.Order) is not None or extreme is not None and _selected(node)):
            continue  # COUNT(col) counts rows: its column is not what the order is about
        values = ctx.facts.value_words.get((sid, *key), frozenset())  # a value names where compared
        own = words.get((sid, *key), frozenset()) - values
        if own & (said | related) or extreme is not None and own & outright:
            continue  # MIN/MAX of a column the question names outright: its words may sit elsewhere
        info = ctx.table(table)
        if info is None:
            continue
        better = []
        for other in info.columns:
            other_key = (sid, table.casefold(), other.name.casefold())
            other_words = words.get(other_key, frozenset()) - ctx.facts.value_words.get(other_key, frozenset())
            if other.name.casefold() == key[1]:
                continue
            hits = other_words & said or other_words & related
            if hits:
                better.append((not other_words & said, -len(hits), other.name))
        where = f"{table}.{column}"
        doing = "sorts by" if node.find_ancestor(exp.Order) is not None else \
            f"takes the {type(extreme).__name__.upper()} of"
        if better:
            better.sort()
            ctx.add("question_mismatch", "Warning",
                     f"the SQL {doing} {where}, but the question's ordering phrase names "
                     f"{table}.{better[0][2]}", ", ".join(f"{table}.{b[2]}" for b in better[:SUGGESTIONS]),
                     node.this, where)
        elif bare and node.find_ancestor(exp.AggFunc) is None and not own & asked:
            ctx.add("question_mismatch", "Warning",
                     f"the SQL sorts by {where}, which no word of the question names, while the question "
                     "asks for an order without naming its column", "sort by a column the question names",
                     node.this, where)
        else:
            continue
        reported.add(key)
        found.append(ctx.findings.pop())
    return found


def _words_near(question: str, literals: list[str], reach: int = 5) -> dict[str, set[str]]:
    """literal -> the stemmed words of ``question`` where it says the literal and at most ``reach``
    words before or after."""
    said = [normalize(w) for w in question_words(question)]
    out: dict[str, set[str]] = {}
    for literal in literals:
        needle = [normalize(w) for w in question_words(literal.strip("%"))]
        if not needle:
            continue
        for i in range(len(said) - len(needle) + 1):
            if said[i:i + len(needle)] == needle:
                window = said[max(0, i - reach):i + len(needle) + reach]
                out.setdefault(literal, set()).update(t for w in window for t in tokenize(w))
    return out


def _compared_literals(ctx: CheckContext, question_text: str) -> Iterator[tuple[exp.Expression, str]]:
    """(column node, literal) of every comparison with a text literal that the question says: as
    whole words, or (three characters or more) as the start of a word ('CZE' in "Czech"); the
    literal 'B' is not in "black"."""
    for cmp in ctx.statement.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
        if isinstance(cmp, exp.In):
            pairs = [(cmp.this, v) for v in cmp.expressions]
        else:
            pairs = [(cmp.this, cmp.expression), (cmp.expression, cmp.this)]
        for column, value_node in pairs:
            value = ctx._string(value_node)
            needle = normalize(value).strip("%") if isinstance(value, str) else ""
            # a number of the question fits many numeric columns, quoted ('80000') or not
            if needle and not _is_number(needle) and re.search(
                    r"(?<!\w)" + re.escape(needle) + ("" if len(needle) >= 3 else r"(?!\w)"), question_text):
                yield column, str(value)



def _check_join_roles(ctx: CheckContext, said: set[str]) -> list[Finding]:
    """``question_mismatch`` for a join on one role of a key when the question names another: a
    column ``a.x`` joined to ``b.k`` while another column ``a.y`` of the same table also references
    ``b.k`` (a second role: ``eye_colour_id`` and ``hair_colour_id`` both reference ``colour.id``),
    and the question says a word of ``y``'s name that ``x``'s name lacks, and none of ``x``'s own."""
    sid, words = ctx.schema.id, ctx.facts.column_words
    found: list[Finding] = []
    for eq in ctx.statement.find_all(exp.EQ):
        if not (isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column)):
            continue
        for fk_node, key_node in ((eq.this, eq.expression), (eq.expression, eq.this)):
            fk, key = ctx._resolve_any(fk_node), ctx._resolve_any(key_node)
            info = ctx.table(fk[0]) if fk is not None and key is not None else None
            if info is None or fk is None or key is None:
                continue
            target = (key[0].casefold(), key[1].casefold())
            roles = [c.name for c in info.columns
                     if any((t.casefold(), k.casefold()) == target for t, k in c.references)]
            if fk[1] not in roles or len(roles) < 2:
                continue
            table = info.name.casefold()

            def own(column: str, table: str = table) -> frozenset[str]:
                return words.get((sid, table, column.casefold()), frozenset())

            mine = own(fk[1])
            named = [(r, sorted((own(r) - mine) & said)) for r in roles if r != fk[1]]
            named = [(r, w) for r, w in named if w]
            if len(named) != 1 or (mine - frozenset().union(*(own(r) for r in roles if r != fk[1]))) & said:
                continue
            other, hits = named[0]
            where = f"{info.name}.{fk[1]}"
            ctx.add("question_mismatch", "Warning",
                    f"the join uses {where}, one of {len(roles)} roles referencing {key[0]}.{key[1]}; the question "
                    f"says {', '.join(repr(w) for w in hits)}, which names {info.name}.{other}: joining it instead "
                    "joins other rows", f"{info.name}.{other}", fk_node.this, where)
            found.append(ctx.findings.pop())
    return found
