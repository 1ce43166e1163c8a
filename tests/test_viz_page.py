"""The self-contained explorer page (evoonto.viz.page): escaping, CSP, offline, atomic writes."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from importlib import resources

import pytest
from fixtures.viz_support import small_model

from evoonto.viz.page import VizOutputError, embed_json, render_page, write_page

XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def model():
    return small_model()


@pytest.fixture(scope="module")
def page(model):
    return render_page(model)


def static(name: str) -> str:
    return (resources.files("evoonto.viz") / "static" / name).read_text(encoding="utf-8")


def data_block(page: str) -> str:
    match = re.search(r'<script type="application/json" id="evoonto-data">(.*?)</script>', page, re.S)
    assert match, "data block missing"
    return match.group(1)


def test_embed_json_escapes_everything_that_could_end_a_script():
    value = {"label": XSS, "x": "</SCRIPT ><!-- & \u2028\u2029 é"}
    text = embed_json(value)
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in text
    assert "é" in text                           # other characters stay readable UTF-8
    assert json.loads(text) == value


def test_data_round_trips_and_no_label_appears_as_markup(page, model):
    block = data_block(page)
    assert json.loads(block) == json.loads(json.dumps(model))
    assert XSS not in page
    markup = page.replace(block, "")
    assert "__xss" not in markup and "alert(1)" not in markup   # the payloads exist only as JSON data
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in block
    assert page.count("<script") == 2 and page.count("</script>") == 2


def test_page_is_offline_and_locked_down_by_csp(page):
    markup = page.replace(data_block(page), "")
    assert not re.search(r"\s(src|href)\s*=", markup, re.I), "the page must not load any resource"
    assert not re.search(r"url\((?!#)", static("explorer.css")), "no external CSS resources"
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp
    script = re.search(r"<script>(.*)</script>", page, re.S).group(1)
    style = re.search(r"<style>(.*)</style>", page, re.S).group(1)
    digest = lambda text: base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()  # noqa: E731
    assert f"script-src 'sha256-{digest(script)}'" in csp
    assert f"style-src 'sha256-{digest(style)}'" in csp
    assert script == static("explorer.js") and style == static("explorer.css")


def test_explorer_js_never_parses_data_as_html():
    js = static("explorer.js")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, sink


def test_title_is_escaped_and_placeholders_are_not_re_expanded(model):
    hostile = dict(model, meta=dict(model["meta"], title="</title><script>x()</script>{{SCRIPT}}"))
    page = render_page(hostile)
    assert "<title>&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;{{SCRIPT}} · evoonto explorer</title>" in page
    assert page.count("<script") == 2


def test_render_rejects_something_that_is_not_a_model():
    with pytest.raises(ValueError, match="missing"):
        render_page({"nodes": []})


def test_write_page_is_atomic_and_reports_bad_paths(tmp_path, model):
    out = tmp_path / "explorer.html"
    out.write_text("old", encoding="utf-8")
    assert write_page(model, out) == out.resolve()
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["explorer.html"]      # no temp file left
    with pytest.raises(VizOutputError, match="not a directory"):
        write_page(model, tmp_path)
    with pytest.raises(VizOutputError, match="does not exist"):
        write_page(model, tmp_path / "missing" / "x.html")
