"""Rules on the literals a statement compares columns with: values, types, ranges.

Each rule is one function over the shared :class:`~evoonto.tools.sqlcheck.context.CheckContext`.
A claim that a comparison holds for no row is a Violation only when a bounded point probe of the
data confirmed it (:class:`~evoonto.tools.sqlcheck.probes.DataProbe`); the Evidence alone (a
sample, or an offline check with no source) gives a Warning that says what was seen.
"""

from __future__ import annotations

import datetime as _dt
import re

from sqlglot import exp

from evoonto.sources.joins import type_family
from evoonto.tools.findings import Severity
from evoonto.tools.sqlcheck.context import (CheckContext, _is_number, _is_numeral, _negated, _plain,
                                            _quote, _range_verdict, nearest_spellings)
from evoonto.tools.sqlcheck.facts import SUGGESTIONS, ColumnFacts
from evoonto.tools.sqlcheck.probes import ALIAS

__all__ = ["check_values", "check_ranges", "check_types"]

#: What a message says of a comparison a point probe confirmed.
CONFIRMED = "a point probe of the data found no such row"
#: The same for a condition that holds for every row: no row it leaves out.
CONFIRMED_EVERY = "a point probe of the data found no row it leaves out"


def _condition(ctx: CheckContext, column: str, op: str, literal: exp.Expression | str) -> str:
    """``"col" <op> <literal>`` in the source's dialect (a text literal quoted; a numeral as written)."""
    assert ctx.probe is not None
    value = ctx.probe.literal(literal) if isinstance(literal, str) else literal.sql(dialect=ctx.dialect)
    return f"{ctx.probe.column(column)} {op} {value}"


def _probe_value(ctx: CheckContext, place: tuple[str, str], op: str, literal: exp.Expression | str) -> bool | None:
    """Whether some row of ``place``'s table has ``column <op> literal``: True, False (confirmed
    absent), None (no source, or the probe failed)."""
    if ctx.probe is None:
        return None
    return ctx.probe.holds(place[0], _condition(ctx, place[1], op, literal))


def _alternative(node: exp.Expression, cmp: exp.Expr) -> bool:
    """True when the literal is one alternative among several (an ``IN`` list of two or more, a
    comparison under ``OR`` in its own SELECT, or the condition of a ``CASE`` branch): a dead
    alternative does not make the query wrong."""
    if isinstance(cmp, exp.In) and len(cmp.expressions) > 1:
        return True
    return _alternative_in_context(cmp)


def _alternative_in_context(cmp: exp.Expr) -> bool:
    """True when the comparison itself is one alternative of a condition: under ``OR`` in its own
    SELECT, or the condition of a ``CASE`` branch."""
    select = cmp.find_ancestor(exp.Select)
    for kind in (exp.Or, exp.If):
        ancestor = cmp.find_ancestor(kind)
        if ancestor is not None and ancestor.find_ancestor(exp.Select) is select:
            return True
    return False


def _matches_none(ctx: CheckContext, place: tuple[str, str], cmp: exp.Expr) -> bool:
    """True when ``cmp`` is an ``IN`` list of literals filtering rows (in a WHERE, HAVING or JOIN
    condition, not itself one alternative under ``OR`` or a ``CASE`` branch, nor a value the SELECT
    list computes) of which a probe finds no value in ``place`` (one probe of the whole list): every
    alternative is absent, so the condition matches no row."""
    if not isinstance(cmp, exp.In) or ctx.probe is None or not cmp.expressions:
        return False
    condition = cmp.find_ancestor(exp.Where, exp.Having, exp.Join)
    if _alternative_in_context(cmp) or condition is None \
            or condition.find_ancestor(exp.Select) is not cmp.find_ancestor(exp.Select):
        return False
    literals = []
    for item in cmp.expressions:
        text = ctx._string(item)
        if text is not None:
            literals.append(ctx.probe.literal(text))
        elif _is_numeral(item):
            literals.append(item.sql(dialect=ctx.dialect))
        else:
            return False
    return ctx.probe.holds(place[0], f"{ctx.probe.column(place[1])} IN ({', '.join(literals)})") is False


def check_values(ctx: CheckContext) -> None:
    """``unseen_value`` / ``value_case`` / ``value_elsewhere`` / ``type_mismatch``: literals compared
    with a column (``=``, ``<>``, ``IN``, ``LIKE``) against what the column can hold: its type
    (:func:`check_literal_type`), then its values (:func:`check_value`). A value the Evidence did not
    see is probed in the data, in any column (a high-cardinality column too). A date no calendar has
    compared with a date column by ``<``, ``>=``, ``BETWEEN`` … is reported as by ``=``."""
    for cmp in ctx.statement.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
        bounds = [cmp.args.get("low"), cmp.args.get("high")] if isinstance(cmp, exp.Between) else [cmp.expression]
        if isinstance(cmp.this, exp.Column) and (place := ctx._resolve(cmp.this)) is not None:
            check_impossible_dates(ctx, place, [b for b in bounds if b is not None])
        elif isinstance(cmp.expression, exp.Column) and not isinstance(cmp, exp.Between) \
                and (place := ctx._resolve(cmp.expression)) is not None:
            check_impossible_dates(ctx, place, [cmp.this])
    for cmp in ctx.statement.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
        negative = _negated(cmp)
        if isinstance(cmp, exp.In):
            column, values = cmp.this, list(cmp.expressions)
        else:
            left, right = cmp.this, cmp.expression
            if ctx._string(right) is not None or _is_numeral(right):
                column, values = left, [right]
            elif ctx._string(left) is not None or _is_numeral(left):
                column, values = right, [left]
            else:
                continue
        place = ctx._resolve(column)
        if place is None:
            continue
        col_facts = ctx.facts.columns.get((ctx.schema.id, place[0].casefold(), place[1].casefold()))
        numerals = [v for v in values if _is_numeral(v)]
        if numerals and ctx._is_text(place) and not isinstance(cmp, exp.Like):
            # a number compared with a text column: the data must hold it as written
            for value_node in numerals:
                number = float(value_node.name)
                if col_facts is not None and any(_is_number(v) and float(v) == number for v in col_facts.values):
                    continue
                if col_facts is not None and (col_facts.complete or ctx.probe is not None):
                    check_value(ctx, place, value_node.name, value_node, col_facts, negative, cmp)
        values = [v for v in values if not _is_numeral(v)]
        if not isinstance(cmp, exp.Like) and check_impossible_dates(ctx, place, values):
            continue
        if check_literal_type(ctx, place, values, negative, like=isinstance(cmp, exp.Like)):
            continue
        if isinstance(cmp, exp.Like):
            continue
        for value_node in values:
            value = ctx._string(value_node)
            if value is None or (col_facts is not None and value in col_facts.values):
                continue
            if col_facts is None and ctx.probe is None:
                continue  # nothing seen, nothing to ask: no claim
            check_value(ctx, place, value, value_node, col_facts, negative, cmp)


_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T].*)?$")


def _impossible_date(text: str) -> bool:
    """Whether ``text`` is written as an ISO date (``YYYY-MM-DD``, a time may follow) that no calendar
    has (``2012-10-32``, ``2023-02-29``)."""
    m = _ISO_DAY.match(text.strip())
    if m is None:
        return False
    try:
        _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return True
    return False


def check_impossible_dates(ctx: CheckContext, place: tuple[str, str], values: list[exp.Expression]) -> bool:
    """``type_mismatch`` (Violation) when a column declared as a date or time type is compared with a
    date no calendar has (``returned_on = '2012-10-32'``): PostgreSQL and DuckDB refuse it before
    reading a row. Not on SQLite, whose dates are text (the value rules report a text no row holds).
    True when one was reported."""
    if ctx.dialect == "sqlite":
        return False
    info = ctx.table(place[0])
    column = info.column(place[1]) if info is not None else None
    if column is None or type_family(column.declared_type) != "time":
        return False
    reported = False
    for node in values:
        text = ctx._string(node)
        if text is not None and _impossible_date(text):
            ctx.contradicted.add(place)
            ctx.add("type_mismatch", "Violation",
                    f"{_quote(text)} is no calendar date, and {place[0]}.{place[1]} holds {column.declared_type} "
                    "values: the database refuses the comparison", None, node, f"{place[0]}.{place[1]}")
            reported = True
    return reported


def check_literal_type(ctx: CheckContext, place: tuple[str, str], values: list[exp.Expression], negated: bool, *,
                       like: bool) -> bool:
    """``type_mismatch`` when a text literal that is no number is compared with a numeric column.

    ``=``/``IN``/``LIKE`` with a declared numeric column is a Violation only when a point probe
    confirms that no row matches (SQLite stores text in numeric columns); ``<>``/``NOT IN``, numbers
    stored as text, an unconfirmed probe or an offline check give a Warning. For ``LIKE`` the
    pattern contradicts when it holds a letter. True when the literal was dealt with here (reported,
    or found in the data)."""
    if not ctx._is_numeric(place):
        return False
    info = ctx.table(place[0])
    column = info.column(place[1]) if info is not None else None
    declared = column is not None and type_family(column.declared_type) == "number"
    if not declared and not like:
        # a text column that holds numerals ('0'/'1' flags): 'Yes' is a text it does not hold, which
        # the value rules report as such (not "holds numbers", which the column's type denies)
        return False
    for value_node in values:
        value = ctx._string(value_node)
        if value is None:
            continue
        wrong = any(ch.isalpha() for ch in value) if like else not _is_number(value.strip())
        if not wrong:
            continue
        found = _probe_value(ctx, place, "LIKE" if like else "=", value)
        if found:
            return True  # the column does hold it (text stored in a numeric column)
        where = f"{place[0]}.{place[1]}"
        ctx.contradicted.add(place)
        others = ctx._holders(place, value)
        how = f" ({CONFIRMED})" if found is False else \
            " (its Evidence shows only numbers; not checked against the data)"
        severity: Severity = "Violation" if declared and not negated and found is False else "Warning"
        ctx.add("type_mismatch", severity,
                f"{where} holds numbers; the text {_quote(value)} {'matches' if like else 'equals'} none of them"
                + how + (f"; {_quote(value)} is a value of {', '.join(others)}" if others else ""),
                ", ".join(others) or "compare a text column, or a number", value_node, where)
        return True
    return False


def check_value(ctx: CheckContext, place: tuple[str, str], value: str, node: exp.Expression,
                col: ColumnFacts | None, negated: bool, cmp: exp.Expr) -> None:
    """One literal ``value`` the column's Evidence did not show: probed in the data when a source
    is reachable. Confirmed absent: ``unseen_value`` (Violation for ``=``/``IN`` unless it is one
    alternative among several, else Warning), suggesting spellings that exist in the data. Not
    confirmed: a Warning only when the Evidence gives a reason (the probe saw every distinct value,
    a value differing in case, another column holding the value)."""
    where = f"{place[0]}.{place[1]}"
    seen = col.values if col is not None else ()
    literal: exp.Expression | str = node if _is_numeral(node) else value
    found = _probe_value(ctx, place, "=", literal)
    if found:
        return
    same_case = [v for v in seen if v.casefold() == value.casefold()]
    others = [] if same_case else ctx._holders(place, value)
    if found is False:
        spellings = [s for s in (ctx.probe.spellings(place[0], place[1], value) or []) if s != value] \
            if ctx.probe is not None and not _is_numeral(node) else []
        # a recorded value is offered only when the data still holds it (the Evidence may be older
        # than the data: 'UK' renamed since the build, with no drift check run)
        recorded = [v for v in nearest_spellings(value, seen) if v not in spellings][:SUGGESTIONS]
        near = list(dict.fromkeys(spellings + [v for v in recorded if _probe_value(ctx, place, "=", v)]))
        near = near[:SUGGESTIONS]
        ctx.contradicted.add(place)
        dead = _alternative(node, cmp)
        none_match = dead and not negated and _matches_none(ctx, place, cmp)
        dead = dead and not none_match
        severity: Severity = "Warning" if negated or dead else "Violation"
        detail = (f"; it holds {_quote(spellings[0])} (comparisons are case-sensitive)" if spellings
                  else f"; {_quote(value)} is a value of {', '.join(others)}" if others else "")
        alternative = " (one alternative of several; the others may match)" if dead and not negated else \
            " (no other value of its IN list is held either: the condition matches no row)" if none_match else ""
        suggestion = ", ".join(_quote(v) for v in near) or ", ".join(others) or None
        if negated:
            # the comparison excludes rows (or only pairs them in an outer join): it excludes none,
            # which may be meant; another value would change the answer, so it is no fix
            alternative = " (it is negated or only pairs rows of an outer join, so it excludes nothing" + \
                (f"; values near it: {suggestion}" if suggestion else "") + \
                "; replacing it would change the answer)"
            suggestion = None
        ctx.add("unseen_value", severity,
                f"{where} holds no row equal to {_quote(value)} ({CONFIRMED}){detail}{alternative}",
                suggestion, node, where)
        return
    if col is None:
        return
    # not checked against the data: say what was seen, never more
    if same_case:
        ctx.add("value_case", "Warning",
                f"{where} holds {_quote(same_case[0])}, not {_quote(value)} (comparisons are case-sensitive; "
                f"not checked against the data)", None if negated else _quote(same_case[0]), node, where)
    elif col.complete:
        ctx.contradicted.add(place)
        near = nearest_spellings(value, seen)
        elsewhere = f"; it is a value of {', '.join(others)}" if others else ""
        ctx.add("unseen_value", "Warning",
                f"{_quote(value)} is not among {col.seen()} of {where} (not checked against the data){elsewhere}",
                None if negated else ", ".join(others) if others and not near
                else ", ".join(_quote(v) for v in near) or None, node, where)
    elif others:
        ctx.contradicted.add(place)
        ctx.add("value_elsewhere", "Warning",
                f"{_quote(value)} is a value of {', '.join(others)}, and not among {col.seen()} of {where}",
                None if negated else ", ".join(others), node, where)


#: Wrappers sqlglot puts around a date column inside a year function (``strftime('%Y', d)`` reads
#: as ``TimeToStr(TsOrDsToTimestamp(d))``; ``YEAR(d)`` as ``Year(TsOrDsToDate(d))``).
_DATE_WRAPPERS = (exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.StrToTime, exp.StrToDate, exp.Cast,
                  exp.TryCast, exp.Date)


def year_of(node: exp.Expression | None) -> exp.Column | None:
    """The column whose year ``node`` takes (``strftime('%Y', d)``, ``YEAR(d)``,
    ``EXTRACT(YEAR FROM d)``, in any dialect sqlglot reads), else None."""
    inner: exp.Expression | None = None
    if isinstance(node, exp.TimeToStr):
        fmt = node.args.get("format")
        if isinstance(fmt, exp.Literal) and fmt.this == "%Y":
            inner = node.this
    elif isinstance(node, exp.Year):
        inner = node.this
    elif isinstance(node, exp.Extract) and isinstance(node.this, (exp.Var, exp.Identifier)) \
            and str(node.this.name).upper() in ("YEAR", "YEARS", "Y", "YYYY"):
        inner = node.expression
    while isinstance(inner, _DATE_WRAPPERS) and not isinstance(inner, exp.Column):
        inner = inner.this
    return inner if isinstance(inner, exp.Column) else None


#: An ISO date or timestamp literal (group 1: its year).
_ISO_DATE = re.compile(r"^(\d{4})-\d{2}-\d{2}(?:[ T][\d:.]*)?$")
#: A LIKE pattern of one year's dates or timestamps: ``'1999%'``, ``'1999-%'``, ``'1999-07%'`` (group 1).
_YEAR_PATTERN = re.compile(r"^(\d{4})(?:%|-[\d-]*%)$")


def _date_year(text: str | None) -> float | None:
    """The year of an ISO date literal (``'1999-07-04'`` -> 1999.0), else None."""
    found = _ISO_DATE.match(text) if text else None  # exact: ' 1999-01-01' sorts before every date
    return float(found.group(1)) if found else None


def _year_prefix(text: str | None) -> float | None:
    """The year a LIKE pattern of one year's dates matches (``'1999%'`` -> 1999.0), else None."""
    found = _YEAR_PATTERN.match(text) if text else None
    return float(found.group(1)) if found else None


def check_ranges(ctx: CheckContext) -> None:
    """``out_of_range`` (Warning): a numeric column compared with numbers outside the range its
    Evidence observed (``evo:minValue``..``evo:maxValue``), so that the condition would hold for no
    row (``= 1980`` where the values run 9..46) or for every row (``< 2008`` where they run 1..20);
    likewise the year of a date column (``strftime('%Y', d) = '2031'``, ``YEAR(d)``, ``EXTRACT(YEAR
    FROM d)``) compared with years outside those of its earliest and latest date, and a date column
    compared with ISO dates (``d BETWEEN '1999-01-01' AND '1999-12-31'``) or matched with one year's
    pattern (``d LIKE '1999%'``) when every year they name lies outside those years.
    With a source, a point probe asks the data first: a row that satisfies the condition (or, for
    "every row", one that does not) drops the finding; a probe that found none says so."""
    flips = {"gt": "lt", "lt": "gt", "gte": "lte", "lte": "gte"}
    for cmp in ctx.statement.find_all(exp.EQ, exp.In, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.Like):
        if _negated(cmp):
            continue
        kind = cmp.key
        if isinstance(cmp, exp.Like):  # d LIKE '1999%': the rows of one year
            operand, literals, kind = cmp.this, [cmp.expression], "eq"
        elif isinstance(cmp, (exp.In, exp.Between)) or isinstance(cmp.this, exp.Column) or year_of(cmp.this):
            operand = cmp.this
            if isinstance(cmp, exp.In):
                literals = list(cmp.expressions)
            elif isinstance(cmp, exp.Between):
                literals = [cmp.args.get("low"), cmp.args.get("high")]
            else:
                literals = [cmp.expression]
        else:
            operand, literals = cmp.expression, [cmp.this]
            kind = flips.get(kind, kind)
        year_column = year_of(operand)
        # a date column compared with dates (d BETWEEN '1999-01-01' AND '1999-12-31') or a year's
        # pattern (d LIKE '1999%'): judged by the years alone, so only a year outside them all counts
        dated = year_column is None and isinstance(operand, exp.Column)
        if isinstance(cmp, exp.Like):
            numbers = [_year_prefix(ctx._string(node)) for node in literals]
        else:
            numbers = [ctx._number(node) for node in literals]
            # equality with a date is unseen_value's (check_values): judged by the values, not the years
            dated = dated and any(n is None for n in numbers) and kind not in ("eq", "in")
            if dated:
                numbers = [_date_year(ctx._string(node)) for node in literals]
        if dated:
            year_column = operand
        bounds = [n for n in numbers if n is not None]
        if isinstance(cmp, exp.Between) and cmp.args.get("symmetric") and len(bounds) == 2:
            numbers = [min(bounds), max(bounds)]  # BETWEEN SYMMETRIC 5 AND 1 is 1..5
        column = year_column if year_column is not None else operand
        if not isinstance(column, exp.Column) or not numbers or any(n is None for n in numbers):
            continue
        place = ctx._resolve(column)
        if place is None or (year_column is None and not ctx._is_numeric(place)):
            continue
        facts = ctx.facts.columns.get((ctx.schema.id, place[0].casefold(), place[1].casefold()))
        if facts is None:
            continue
        what = ""
        if dated and facts.dates is not None and not isinstance(cmp, exp.Like):
            # ISO dates compared as written: ISO text orders as the dates do ('2024-06-01' > '2024-01-31 10:00')
            texts = [str(ctx._string(node)) for node in literals]
            if isinstance(cmp, exp.Between) and cmp.args.get("symmetric"):
                texts = sorted(texts)
            verdict = _range_verdict(kind, texts, *facts.dates)
            what = f"dates from {facts.dates[0]} to {facts.dates[1]}"
            low = high = 0.0  # (the message names the dates)
        else:
            if year_column is not None:
                if facts.years is None:
                    continue
                low, high = float(facts.years[0]), float(facts.years[1])
                if dated and any(low <= n <= high for n in numbers if n is not None):
                    continue  # a date inside the years observed: the years cannot tell
            elif facts.low is None or facts.high is None:
                continue
            else:
                low, high = facts.low, facts.high
            verdict = _range_verdict(kind, [n for n in numbers if n is not None], low, high)
        if verdict is None:
            continue
        confirmed = None
        if ctx.probe is not None:
            test = cmp.copy()
            side = test.this if operand is cmp.this else test.expression
            target = side if dated else year_of(side) if year_column is not None else side
            if target is None:
                continue
            target.replace(exp.column(place[1], table=ALIAS, quoted=True))
            condition = test.sql(dialect=ctx.dialect)
            if verdict == "every":
                condition = f"NOT ({condition}) AND {ctx.probe.column(place[1])} IS NOT NULL"
            held = ctx.probe.holds(place[0], condition)
            if held:
                continue  # the data has such a row: the Evidence's range was a sample's
            confirmed = held is False
        where = f"{place[0]}.{place[1]}"
        ctx.contradicted.add(place)
        how = "the whole table" if facts.whole_table else "the Evidence" if facts.rows_observed is None else \
            f"a sample of {facts.rows_observed:,} rows"
        # "every row": the probe looked for a row the condition excludes, and found none
        checked = (f"; {CONFIRMED_EVERY}" if verdict == "every" else f"; {CONFIRMED}") if confirmed else \
            "; not checked against the data"
        what = what or (f"dates of the years {_plain(low)}..{_plain(high)}" if year_column is not None
                        else f"{_plain(low)}..{_plain(high)}")
        # never more than the observation: a sample's range speaks for the sample (unless the probe
        # asked the whole table), and NULLs are outside every comparison ("every row with a value")
        rows = f"{verdict} row"
        if verdict == "every" and facts.nulls != 0:
            rows += " with a value"
        if not facts.whole_table and not confirmed:
            rows += " of that sample"
        ctx.add("out_of_range", "Warning",
                f"{where} holds {what} in {how}, so "
                f"{cmp.sql(dialect=ctx.dialect)} holds for {rows}{checked}",
                None if year_column is not None else "compare the column whose values this range fits",
                column.parent if isinstance(column.parent, exp.Expression) else column, where)


def check_types(ctx: CheckContext) -> None:
    """``type_mismatch`` warnings: SUM/AVG of a text column, a text column compared with a number
    by ``<``, ``>``, ``<=``, ``>=`` or BETWEEN."""
    for agg in ctx.statement.find_all(exp.Sum, exp.Avg):
        column = agg.this
        place = ctx._resolve(column) if isinstance(column, exp.Column) else None
        if place is not None and ctx._is_text(place):
            name = type(agg).__name__.upper()
            ctx.add("type_mismatch", "Warning", f"{name} of {place[0]}.{place[1]}, a text column",
                    "aggregate a numeric column, or COUNT the rows", column, f"{place[0]}.{place[1]}")
    for cmp in ctx.statement.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
        if isinstance(cmp, exp.Between):
            column, others = cmp.this, [cmp.args.get("low"), cmp.args.get("high")]
        else:
            column, others = (cmp.this, [cmp.expression]) if isinstance(cmp.this, exp.Column) else \
                (cmp.expression, [cmp.this])
        if not isinstance(column, exp.Column) or not others or not all(
                isinstance(o, exp.Literal) and not o.is_string for o in others):
            continue
        place = ctx._resolve(column)
        if place is not None and ctx._is_text(place):
            ctx.add("type_mismatch", "Warning", f"{place[0]}.{place[1]} is a text column compared with a number "
                    "(text sorts after every number)", "compare a numeric column, or CAST it", column,
                    f"{place[0]}.{place[1]}")
