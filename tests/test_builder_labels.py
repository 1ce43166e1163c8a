"""Labels from identifiers (evoonto.builder.labels)."""

from __future__ import annotations

import pytest

from evoonto.builder.labels import (
    LabelSet, column_labels, expand_tokens, humanize, pluralize, singularize, split_identifier, table_labels,
)


@pytest.mark.parametrize("name, words", [
    ("Song_release_year", ["Song", "release", "year"]),
    ("customerID", ["customer", "ID"]),
    ("GNPOld", ["GNP", "Old"]),
    ("addr_line2", ["addr", "line", "2"]),
    ("Free Meal Count (K-12)", ["Free", "Meal", "Count", "K", "12"]),
    ("HTTPServerError", ["HTTP", "Server", "Error"]),
    ("Straße_Nr", ["Straße", "Nr"]),
])
def test_split_identifier(name, words):
    assert split_identifier(name) == words


def test_abbreviations_and_humanize():
    assert expand_tokens(["amt", "Paid"]) == ["amount", "paid"]
    expected = ["quantity", "date", "number", "description", "address"]
    assert expand_tokens(["qty", "dt", "num", "desc", "addr"]) == expected
    assert humanize("Song_release_year") == "Song release year"
    assert humanize("GNPOld") == "GNP old"
    assert (pluralize("country"), pluralize("class"), singularize("countries"), singularize("singers")) == \
        ("countries", "classes", "country", "singer")


def test_column_labels_pref_alt_hidden():
    labels = column_labels("singer", "Age")
    assert labels.pref == "Singer age"
    assert "age" in labels.alt and "how old" in labels.alt
    assert labels.hidden == ("Age", "singer.Age")
    # the table prefix is not repeated when the column already starts with it
    assert column_labels("concert", "concert_Name").pref == "Concert name"
    # abbreviations expanded as alternative labels
    assert "order amount" in column_labels("orders", "order_amt").alt


def test_table_labels_and_labelset_dedup():
    labels = table_labels("singer_in_concert")
    assert labels.pref == "Singer in concert" and labels.hidden == ("singer_in_concert",)
    assert "singers" in table_labels("singer").alt
    merged = LabelSet.make("Age", ["age", "AGE ", "how old"]).merged(["how  old", "years"])
    assert merged.alt == ("how old", "years")
