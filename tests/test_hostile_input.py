"""Hostile and oversized input (issue 30): every entry point bounded, every failure one line, no
outbound request. One test per kind of input; each checks the answer (one line / a refusal), the time
it took where the issue saw a hang, and that nothing was written."""

from __future__ import annotations

import errno
import io
import json
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import rdflib

from evoonto.cli import main
from evoonto.errors import ReadOnlyViolation, ShapeViolationError, WorkloadError
from evoonto.workspace import Workspace
from fixtures.disk_faults import unwritable
from fixtures.mcp_support import concert_workspace

EVO = rdflib.Namespace("https://w3id.org/evoonto/ns#")


@pytest.fixture
def ws(tmp_path) -> Path:
    path = concert_workspace(tmp_path / "ws")
    db = (tmp_path / "ws-concert_singer.sqlite").rename(tmp_path / "concert_singer.sqlite")  # id = file stem
    Workspace.open(path).set_setting("sources", {"concert_singer": str(db)})
    return path


@pytest.fixture
def built(tmp_path) -> Path:
    """A workspace built by ``evoonto build`` from a small SQLite database (catalog IRIs as the builder mints them)."""
    db = tmp_path / "singers.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE singer (Singer_ID INTEGER PRIMARY KEY, Name TEXT, Age INTEGER);"
                          "INSERT INTO singer VALUES (1, 'Joe Sharp', 52), (2, 'Timbaland', 32);")
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "built"), "--no-progress"]) == 0
    return tmp_path / "built"


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evoonto: error: "), err
    return err[0]


class _Listener:
    """A TCP listener on 127.0.0.1 counting the connections made to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


# --- import skos -----------------------------------------------------------------------------------


def test_import_skos_remote_jsonld_context_makes_no_request(ws, tmp_path, capsys):
    listener = _Listener()
    try:
        url = f"http://127.0.0.1:{listener.port}/context.jsonld"
        top = tmp_path / "top.jsonld"
        top.write_text(json.dumps({"@context": url, "@id": "http://ex.org/c1", "@type": "skos:Concept",
                                   "prefLabel": "Age"}))
        scoped = tmp_path / "scoped.jsonld"
        scoped.write_text(json.dumps({"@context": {"skos": "http://www.w3.org/2004/02/skos/core#",
                                                   "label": {"@id": "skos:prefLabel", "@context": url}},
                                      "@id": "http://ex.org/c1", "label": "Age"}))
        imported = tmp_path / "import.jsonld"
        imported.write_text(json.dumps({"@context": {"@import": url}, "@id": "http://ex.org/c1"}))
        for path in (top, scoped, imported):
            assert main(["import", "skos", str(path), "-w", str(ws)]) == 2
            assert "no outbound request" in _one_error_line(capsys) or "@import" in capsys.readouterr().err
        assert listener.connections == 0
    finally:
        listener.close()
    assert Workspace.open(ws).version == 0


def test_import_skos_xml_entity_bomb_is_refused_at_once(ws, tmp_path, capsys):
    levels = ['<!ENTITY a "' + "a" * 100 + '">'] + [
        f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 20 + '">' for i in range(5)]
    bomb = tmp_path / "bomb.rdf"
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n' + "\n".join(levels) + "\n]>\n"
                    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                    'xmlns:skos="http://www.w3.org/2004/02/skos/core#">'
                    '<skos:Concept rdf:about="http://ex.org/c1"><skos:prefLabel>&f;</skos:prefLabel></skos:Concept>'
                    "</rdf:RDF>\n")
    started = time.monotonic()
    assert main(["import", "skos", str(bomb), "-w", str(ws)]) == 2
    assert time.monotonic() - started < 10
    assert "nested XML entity" in _one_error_line(capsys)
    external = tmp_path / "external.rdf"
    external.write_text('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "http://127.0.0.1:9/x">]>\n'
                        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">&x;</rdf:RDF>\n')
    assert main(["import", "skos", str(external), "-w", str(ws)]) == 2
    assert "external XML entity" in _one_error_line(capsys)
    assert Workspace.open(ws).version == 0
    # plain entity declarations (an IRI abbreviation, as ontology editors write them) still import
    plain = tmp_path / "plain.rdf"
    plain.write_text('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY skos "http://www.w3.org/2004/02/skos/core#">]>\n'
                     '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:skos="&skos;">'
                     '<rdf:Description rdf:about="http://ex.org/fans"><rdf:type rdf:resource="&skos;Concept"/>'
                     "<skos:prefLabel>Fan club</skos:prefLabel></rdf:Description></rdf:RDF>\n")
    assert main(["import", "skos", str(plain), "-w", str(ws)]) == 0
    assert Workspace.open(ws).version == 1


def test_import_skos_stops_at_its_triple_limit(tmp_path):
    from evoonto.imports.skos import GlossaryImportError, read_glossary

    big = tmp_path / "big.nt"
    big.write_text("".join(f'<http://ex.org/c{i}> <http://www.w3.org/2004/02/skos/core#prefLabel> "c{i}" .\n'
                           f'<http://ex.org/c{i}> <http://ex.org/other> "x" .\n' for i in range(300)))
    assert len(read_glossary(big)) == 300  # other predicates are streamed past, not kept
    with pytest.raises(GlossaryImportError, match="the limit of a glossary import is 100"):
        read_glossary(big, max_triples=100)
    inline = tmp_path / "inline.jsonld"  # a local context is read as before
    inline.write_text(json.dumps({"@context": {"skos": "http://www.w3.org/2004/02/skos/core#",
                                               "label": {"@id": "skos:prefLabel", "@language": "en"}},
                                  "@id": "http://ex.org/fans", "@type": "skos:Concept", "label": "Fan club"}))
    assert (rdflib.URIRef("http://ex.org/fans"), rdflib.URIRef("http://www.w3.org/2004/02/skos/core#prefLabel"),
            rdflib.Literal("Fan club", lang="en")) in read_glossary(inline)
    deep = tmp_path / "deep.jsonld"
    deep.write_text('{"@graph":' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(GlossaryImportError, match="deep.jsonld"):
        read_glossary(deep)


# --- the stdio loop of evoonto serve ---------------------------------------------------------------


def test_stdio_answers_deeply_nested_lines_odd_ids_and_oversized_lines():
    from evoonto.server import _line_answer, _stdio_lines, stdio_rejection

    for line in (b"[" * 100_000 + b"\n", b'{"a":' * 100_000 + b"\n", b"\xff\xfe\x00garbage\n"):
        answer = json.loads(stdio_rejection(line))
        assert answer["id"] is None and answer["error"]["code"] == -32700
    for ident in ('{"a": 1}', "[1]", "1.5", "true", "null"):
        line = f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/list"}}\n'.encode()
        answer = json.loads(stdio_rejection(line))
        assert answer["error"]["code"] == -32600 and "id must be a string or an integer" in answer["error"]["message"]
    assert stdio_rejection(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}\n') is None
    assert stdio_rejection(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n') is None
    lines = list(_stdio_lines(io.BytesIO(b"x" * 50 + b"\n" + b"ok\n" + b"y" * 30), limit=10))
    assert lines == [None, b"ok\n", None]
    assert json.loads(_line_answer(None))["error"]["code"] == -32600


@pytest.mark.slow
def test_serve_stdio_survives_malformed_lines_and_calls(ws):
    """The stdio process answers every malformed line and every request with an id, and lives on."""
    import random
    import subprocess
    import sys

    rng = random.Random(30)
    lines = [b"[" * 100_000, b'{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', b"\x00\xff" * 50]
    alphabet = b'{}[]":,0123456789abcdefjsonrpcidmethod \\\x00\xff'
    lines += [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 200))) for _ in range(200)]
    lines = [line.replace(b"\n", b" ") for line in lines if line.strip()]
    calls = [{"name": "browse", "arguments": {"q": 5}}, {"name": "nope", "arguments": {}},
             {"name": "check_sql", "arguments": {"sql": "SELECT " + "(" * 5000 + "1" + ")" * 5000}},
             {"name": "resolve", "arguments": {"ids": [{"deep": [[[[]]]]}]}}, {"name": "browse", "arguments": []}]
    proc = subprocess.Popen([str(Path(sys.executable).parent / "evoonto"), "serve", "--workspace", str(ws)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "hostile", "version": "0"}}}
        requests = [json.dumps(init).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
        requests += lines
        requests += [json.dumps({"jsonrpc": "2.0", "id": f"call-{n}", "method": "tools/call",
                                 "params": call}).encode() for n, call in enumerate(calls * 10)]
        requests.append(b'{"jsonrpc":"2.0","id":"last","method":"ping"}')
        writer = threading.Thread(target=lambda: (proc.stdin.write(b"\n".join(requests) + b"\n"),
                                                  proc.stdin.flush()), daemon=True)
        writer.start()
        answers = []
        expected = {f"call-{n}" for n in range(len(calls) * 10)} | {"init", "last"}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not expected <= {a.get("id") for a in answers}:
            line = proc.stdout.readline()  # calls run in worker threads: answers come in any order
            assert line, proc.stderr.read().decode()[-2000:]
            answers.append(json.loads(line))
        assert proc.poll() is None  # still serving
        ids = [a.get("id") for a in answers]
        assert {f"call-{n}" for n in range(len(calls) * 10)} <= set(ids) and "init" in ids
        assert ids.count(None) == len(lines)  # one error answer per malformed line
        for answer in answers:
            if str(answer.get("id", "")).startswith("call-"):
                result = answer.get("result") or {}
                refused = [f["kind"] for f in (result.get("structuredContent") or {}).get("findings", [])]
                assert answer.get("error") or result.get("isError") or refused == ["refused"], answer
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=30)
        stderr = proc.stderr.read().decode()
        proc.stdout.close()
        proc.stderr.close()
    assert "Traceback" not in stderr


def test_serve_runs_without_the_value_index_on_a_full_disk(ws, monkeypatch):
    import warnings

    import evoonto.tools.values as values
    from evoonto.server import create_server

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(values, "build_value_index", full)  # SQLite writes below Python's file calls
    unwritable(monkeypatch, ws, errno.ENOSPC)  # every other write under the workspace fails too
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server = create_server(ws)
        tools = server.evoonto_provider.tools
    assert tools.value_index is None
    notes = [str(w.message) for w in caught if "value index" in str(w.message)]
    assert len(notes) == 1 and "database or disk is full" in notes[0]
    assert tools.call("browse", {"q": "age"})  # serves without it


# --- one SQL guard for check_sql, run_sql, verified queries, templates, dbt ------------------------


def test_check_sql_judges_the_same_sql_as_run_sql(ws, capsys):
    from evoonto.tools.toolkit import OntologyTools

    w = Workspace.open(ws)
    tools = OntologyTools(w.ontology, sources=w.settings["sources"], data_tools=True)
    try:
        for sql in ("SELECT load_extension('x') FROM singer", "SELECT writefile('/tmp/x', Name) FROM singer",
                    "SELECT edit(Name) FROM singer", "SELECT 1; DELETE FROM singer",
                    "SELECT " + "(" * 5000 + "1" + ")" * 5000 + " FROM singer"):
            with pytest.raises(ReadOnlyViolation):
                tools.call("run_sql", {"sql": sql})
            answer = tools.call("check_sql", {"sql": sql})
            assert answer["ok"] is False and [f["kind"] for f in answer["findings"]] == ["refused"]
        kinds = [f["kind"] for f in tools.call("check_sql", {"sql": "SELECT Age FROM singer"})["findings"]]
        assert kinds == []
    finally:
        tools.close()
    started = time.monotonic()
    assert main(["check-sql", "-w", str(ws), "SELECT " + "(" * 5000 + "1" + ")" * 5000]) == 1
    assert time.monotonic() - started < 10
    out = capsys.readouterr()
    assert "nests parentheses 5000 deep" in out.out and not out.err and len(out.out.splitlines()) <= 3


def test_check_sql_and_coverage_answers_have_a_budget(ws):
    from evoonto.tools.toolkit import ANSWER_CAP_CHARS, OntologyTools

    tools = OntologyTools(Workspace.open(ws).ontology)
    sql = ("SELECT " + ", ".join(f"nme{i}" for i in range(3000)) + " FROM singer")[:19_990]
    answer = tools.call("check_sql", {"sql": sql})
    assert len(json.dumps(answer, separators=(",", ":"))) < ANSWER_CAP_CHARS + 1000
    last = answer["findings"][-1]
    assert last["kind"] == "findings_truncated" and last["severity"] == "Violation" and answer["ok"] is False
    question = " and ".join(f"word{i} age" for i in range(2000))[:19_990]
    covered = tools.call("coverage", {"q": question})
    assert covered["truncated"] > 0
    assert len(json.dumps(covered, separators=(",", ":"))) <= ANSWER_CAP_CHARS


def test_verified_add_leaves_hostile_lines_out(built, tmp_path, capsys):
    ws = built
    capsys.readouterr()
    lines = [
        json.dumps({"question": "How old is every singer?", "sql": "SELECT Name, Age FROM singer"}),
        "{not json",
        "[" * 100_000,
        json.dumps({"question": "huge", "sql": "SELECT 1 FROM singer WHERE " + " OR ".join(["Age = 1"] * 150_000)}),
        json.dumps({"question": "q" * 30_000, "sql": "SELECT Name FROM singer"}),
        json.dumps({"question": "write a file", "sql": "SELECT writefile('/tmp/evil', Name) FROM singer"}),
        json.dumps({"question": "deep", "sql": "SELECT " + "(" * 3000 + "1" + ")" * 3000 + " FROM singer"}),
    ]
    path = tmp_path / "verified.jsonl"
    path.write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    assert main(["verified", "add", str(path), "-w", str(ws)]) == 0
    assert time.monotonic() - started < 30
    out = capsys.readouterr()
    assert "added 1 verified query" in out.out
    warnings = out.err.strip().splitlines()
    assert len(warnings) == 6 and all(w.startswith("evoonto: warning: ") for w in warnings)
    for where, why in ((2, "JSON object"), (3, "nested too deeply"), (4, "the SQL is"),
                       (5, "the question is 30,000"), (6, "writefile"), (7, "nests parentheses")):
        assert any(f"verified.jsonl:{where}" in w and why in w for w in warnings), (where, why)
    content = Workspace.open(ws).ontology.graph("content")
    assert len(list(content.subjects(rdflib.RDF.type, EVO.VerifiedQuery))) == 1
    assert max(len(str(o)) for o in content.objects(None, EVO.question)) < 100


def test_workload_and_build_files_nested_too_deeply_are_one_line(tmp_path):
    from evoonto.builder.verified import load_verified
    from evoonto.builder.workload import load_workload

    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n")
    with pytest.raises(WorkloadError, match="nested too deeply"):
        load_workload(deep)
    with pytest.raises(WorkloadError, match="deep.jsonl:1: JSON nested too deeply"):
        load_verified(deep)
    array = tmp_path / "deep.json"
    array.write_text("[" * 100_000)
    with pytest.raises(WorkloadError, match="nested too deeply"):
        load_workload(array)
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"question": "x" * 30_000}) + "\n")
    with pytest.raises(WorkloadError, match="the limit is 20,000"):
        load_workload(big)


def test_tool_patch_with_a_write_template_is_refused_at_commit(ws):
    from evoonto.patch import Patch

    w = Workspace.open(ws)
    for n, template in enumerate(("DELETE FROM singer", "SELECT 1; DROP TABLE singer",
                                  "SELECT writefile('/tmp/x', Name) FROM singer")):
        tool = rdflib.URIRef(f"{w.base_iri}tools/evil{n}")
        graph = rdflib.Graph()
        graph += [(tool, rdflib.RDF.type, EVO.DeclaredTool), (tool, EVO.toolName, rdflib.Literal(f"evil{n}")),
                  (tool, rdflib.RDFS.comment, rdflib.Literal("x")), (tool, EVO.sqlTemplate, rdflib.Literal(template))]
        patch = Patch.from_graphs("tool", additions={"tools": graph}, signature="t", intervention="evil")
        with pytest.raises(ShapeViolationError, match="declared tool template refused"):
            w.commit(patch, metadata={"decision": "accepted"})
    assert Workspace.open(ws).version == 0


def _dbt_project(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "models.yml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


def test_dbt_malformed_yaml_shapes_are_one_line(ws, tmp_path, capsys):
    shapes = {
        "list_for_mapping": "semantic_models:\n  - [1, 2]\n",
        "integer": "semantic_models: 5\n",
        "entities_integer": "semantic_models:\n  - name: s\n    model: ref('singer')\n    entities: 7\n",
        "deep": "semantic_models: " + "[" * 50_000 + "]" * 50_000 + "\n",
        "binary": b"\xff\xfe\x00\x81" * 1000,
    }
    for name, text in shapes.items():
        started = time.monotonic()
        assert main(["import", "dbt", str(_dbt_project(tmp_path / name, text)), "-w", str(ws)]) == 2, name
        assert time.monotonic() - started < 10
        assert "models.yml" in _one_error_line(capsys), name
    assert Workspace.open(ws).version == 0


def test_dbt_expressions_are_judged_by_the_sql_guard(ws, tmp_path):
    from evoonto.imports.dbt import dbt_patch

    project = _dbt_project(tmp_path / "p", """
semantic_models:
  - name: singers
    model: ref('singer')
    measures:
      - {name: total_age, agg: sum, expr: "Age; DROP TABLE singer"}
      - {name: ages, agg: explode, expr: Age}
      - {name: loaded, agg: sum, expr: "load_extension('x')"}
      - {name: age_sum, agg: sum, expr: Age}
metrics:
  - name: banned_age
    type: simple
    type_params: {measure: age_sum}
    filter: "Status = 'Banned'; DELETE FROM singer"
""")
    patch, summary = dbt_patch(Workspace.open(ws).ontology, project)
    skipped = "\n".join(summary.skipped)
    assert "total_age: expr refused (exactly one statement" in skipped
    assert "ages: agg 'explode' is not a dbt aggregation" in skipped
    assert "loaded: expr refused (function load_extension()" in skipped
    assert "metric banned_age: filter refused" in skipped
    text = " ".join(str(o) for triples in patch.additions.values() for _s, _p, o in triples)
    assert "DROP" not in text and "DELETE" not in text and "load_extension" not in text
    assert summary.mappings >= 1  # the plain measure is kept


# --- push, feedback, secrets, the CLI's last resort -----------------------------------------------


def test_push_refuses_a_non_url_and_a_file_url(ws, capsys):
    for target in ("not a url", "file:///etc/passwd", "ftp://127.0.0.1/x", "http://"):
        assert main(["push", target, "-w", str(ws)]) == 2
        assert "not an http(s) SPARQL endpoint URL" in _one_error_line(capsys)


def test_feedback_on_a_full_disk_leaves_no_zero_byte_file(ws, monkeypatch, capsys):
    unwritable(monkeypatch, ws, errno.ENOSPC)
    assert main(["feedback", "task-1", "pass", "-w", str(ws)]) == 2
    assert "No space left on device" in _one_error_line(capsys)
    assert not (ws / "feedback.jsonl").exists()
    assert not [p for p in ws.iterdir() if p.name.startswith(".feedback")]


def test_feedback_append_is_cut_back_when_the_write_fails(tmp_path, monkeypatch):
    import os

    from evoonto.errors import WorkspaceError
    from evoonto.fileio import append_record

    path = tmp_path / "feedback.jsonl"
    append_record(path, b'{"a": 1}\n')
    append_record(path, b'{"a": 2}\n')
    real_write = os.write

    def half(fd, data):
        real_write(fd, bytes(data[:3]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(WorkspaceError, match="No space left"):
        append_record(path, b'{"a": 3}\n')
    assert path.read_bytes() == b'{"a": 1}\n{"a": 2}\n'


def test_source_password_is_not_stored(monkeypatch):
    import warnings

    from evoonto.builder.pipeline import stored_location, warn_if_superuser
    from evoonto.sources.registry import without_password

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stored = stored_location("postgresql+psycopg://ann:s3cr@t@db.example:5432/shop?sslmode=require")
    assert stored == "postgresql+psycopg://ann@db.example:5432/shop?sslmode=require"
    assert len(caught) == 1 and "s3cr" not in str(caught[0].message) and "PGPASSWORD" in str(caught[0].message)
    assert without_password("postgresql://ann@h/db") == "postgresql://ann@h/db"
    assert without_password("/data/x.sqlite") == "/data/x.sqlite"

    from evoonto.sources.base import BaseSource, ColumnInfo, TableInfo

    class Plain(BaseSource):  # a source without a login (a file): BaseSource.is_superuser says None
        kind = "plain"

        def _load_tables(self):
            return [TableInfo("t", (ColumnInfo("a"),), row_count=0)]

        def _execute(self, sql, limit, timeout_ms):
            return ["a"], [], False

        def _close(self):
            pass

    class Login(Plain):
        def __init__(self, superuser):
            super().__init__("shop", "postgresql://shop@h/db")
            self.superuser = superuser

        def is_superuser(self):
            return self.superuser

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert warn_if_superuser(Login(True)) is True
        assert warn_if_superuser(Login(False)) is False
        assert warn_if_superuser(Plain("file", "/data/x.csv")) is False
    assert len(caught) == 1 and "superuser" in str(caught[0].message)


def test_unexpected_exceptions_and_sqlglot_logs_are_one_prefixed_line(ws, monkeypatch, capsys):
    import logging

    import evoonto.cli.browse as browse_cli

    def boom(args):
        raise RuntimeError("something\nwent wrong")

    def deep(args):
        raise RecursionError("maximum recursion depth exceeded")

    for func, expected in ((boom, "unexpected RuntimeError: something"), (deep, "nested too deeply")):
        monkeypatch.setattr(browse_cli, "run", func)
        parser_main = main(["browse", "age", "-w", str(ws)])
        assert parser_main == 2
        assert expected in _one_error_line(capsys)
    logging.getLogger("sqlglot").warning("contains unsupported syntax")
    logging.getLogger("sqlglot").error("an error")
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["evoonto: warning: sqlglot: an error"]


def test_documentation_files_nested_too_deeply_are_skipped_with_a_warning(tmp_path):
    from evoonto.catalog import TableInfo
    from evoonto.sources.dictionaries import read_dbt, read_tables_json

    table = TableInfo("singer", rdflib.URIRef("https://example.org/t/singer"), 3)
    schema = tmp_path / "schema.yml"
    schema.write_text("models: " + "[" * 5_000 + "]" * 5_000 + "\n")
    tables_json = tmp_path / "tables.json"
    tables_json.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(UserWarning, match="nested too deeply"):
        assert read_dbt(schema, [table]) == []
    with pytest.warns(UserWarning, match="nested too deeply"):
        assert read_tables_json(tables_json, [table], "concert") == []


def test_dbt_import_stops_at_its_time_budget(ws, tmp_path):
    from evoonto.imports.dbt import DbtImportError, dbt_patch

    models = "".join(f"  - {{name: m{n}, model: \"ref('singer')\"}}\n" for n in range(50))
    project = _dbt_project(tmp_path / "many", "semantic_models:\n" + models)
    with pytest.raises(DbtImportError, match=r"import stopped after 0 s \(0 of 50"):
        dbt_patch(Workspace.open(ws).ontology, project, max_seconds=0)
    patch, summary = dbt_patch(Workspace.open(ws).ontology, project)
    assert summary.enriched + summary.terms >= 1 and len(patch.additions) == 1


@pytest.mark.slow
def test_postgres_superuser_warned_and_password_not_stored(tmp_path, capsys):
    """A real PostgreSQL server: a build as the superuser warns; a read-only role's password given in
    the URL is used for the build but not written to config.json, and serve's tools reopen the
    stored URL (the server trusts local logins here, as ~/.pgpass or $PGPASSWORD would supply it)."""
    from fixtures.postgres_support import postgres_binaries, start_postgres

    bindir, reason = postgres_binaries()
    if bindir is None:
        pytest.skip(reason)
    psycopg = pytest.importorskip("psycopg", reason="the postgres driver: pip install 'evoonto[postgres]'")
    server = start_postgres()
    try:
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{server.port}/postgres", autocommit=True) as con:
            con.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
            con.execute("INSERT INTO singer VALUES (1, 'Joe Sharp', 52), (2, 'Timbaland', 32)")
            con.execute("CREATE ROLE reader LOGIN PASSWORD 's3cret-pw'")
            con.execute("GRANT SELECT ON singer TO reader")
        superuser = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"
        assert main(["build", "--source", superuser, "-w", str(tmp_path / "su"), "--no-progress"]) == 0
        assert "logs in as a database superuser" in capsys.readouterr().err
        reader = f"postgresql://reader:s3cret-pw@127.0.0.1:{server.port}/postgres"
        assert main(["build", "--source", reader, "-w", str(tmp_path / "ro"), "--no-progress"]) == 0
        err = capsys.readouterr().err
        assert "superuser" not in err and "s3cret-pw" not in err and "PGPASSWORD" in err
        config = (tmp_path / "ro" / "config.json").read_text()
        assert "s3cret-pw" not in config and f"reader@127.0.0.1:{server.port}" in config
        from evoonto.tools.toolkit import OntologyTools

        ws = Workspace.open(tmp_path / "ro")
        tools = OntologyTools(ws.ontology, sources=ws.settings["sources"], data_tools=True)
        try:
            rows = tools.call("run_sql", {"sql": "SELECT name FROM singer ORDER BY singer_id"})["rows"]
            assert rows[0] == ["Joe Sharp"]
        finally:
            tools.close()
    finally:
        server.stop()
