"""Regression: ``evoonto evolve`` failed on every workspace built from CSV files.

CSV review: on a workspace built from a folder of CSV files, ``evolve`` stopped with "not a SQLite
database file (it is a folder)": the schema the scorer reads was always opened as a SQLite file.
Anything but a SQLite file (a folder of data files, a CSV or Parquet file, a URL) now goes through
the source layer, as the build did.
"""

from __future__ import annotations

import json

from evoonto.cli import main


def test_evolve_on_a_csv_folder_reads_it_as_sqlite(tmp_path, capsys):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "incidents.csv").write_text(
        "id,caller,category,opened_at\n" + "".join(
            f"{i},caller {i % 7},{('network', 'software', 'hardware')[i % 3]},2023-0{1 + i % 9}-1{i % 10}\n"
            for i in range(60)), encoding="utf-8")
    (data / "users.csv").write_text("name,department\n" + "".join(
        f"caller {i},{('IT', 'HR')[i % 2]}\n" for i in range(7)), encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(data), "--workspace", str(ws), "--no-progress"]) == 0
    pairs = [(f"How many {c} incidents?", f"SELECT COUNT(*) FROM incidents WHERE category = '{c}'")
             for c in ("network", "software", "hardware")]
    pairs += [(f"Incidents of caller {i}", f"SELECT id FROM incidents WHERE caller = 'caller {i}'") for i in range(7)]
    verified = tmp_path / "verified.jsonl"
    verified.write_text("".join(json.dumps({"question": q, "sql": s}) + "\n" for q, s in pairs), encoding="utf-8")
    capsys.readouterr()
    code = main(["evolve", "--workspace", str(ws), "--verified", str(verified), "--no-progress", "--rounds", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "not a SQLite database" not in err and "stopped:" in out, (out, err)
