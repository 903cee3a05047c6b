"""``--report-assets DIR`` (issue #36): every command that writes a report page can write plotly's
JavaScript once into DIR and make the page load it by a relative path, a page of a few hundred KB
instead of ~4.7 MB; without it the page stays self-contained. The asset is written atomically and
left as it is when it holds the same bytes; ``mopt report DIR --report-assets A`` draws the page
the command wrote, byte for byte."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from plotly.offline import get_plotlyjs

from mopt.cli import main
from mopt.report.plotly_asset import plotly_file, plotly_src, write_plotly
from tests.cli.test_recorded_outputs import synthetic_swf
from tests.helpers import REFERENCE, assert_one_line_error
from tests.test_report import body, browse, errors, needs_chromium

#: a page that loads plotly from the asset holds the rest only: well under this
SMALL = 500_000


def script_src(page: Path) -> Path:
    """The file the page's plotly ``<script src>`` names, resolved beside the page (and checked
    to be relative: no scheme, no leading slash)."""
    text = page.read_text(encoding="utf-8")
    (src,) = re.findall(r'<script src="([^"]+)"></script>', text)
    assert "://" not in src and not src.startswith("/"), src
    return (page.parent / urllib.parse.unquote(src)).resolve()


def test_write_plotly_writes_the_file_once_and_again_only_when_it_differs(tmp_path):
    first = write_plotly(tmp_path / "a")
    assert first == tmp_path / "a" / plotly_file() and first.name.startswith("plotly-")
    assert first.read_text(encoding="utf-8") == get_plotlyjs()
    stat = first.stat()
    assert write_plotly(tmp_path / "a").stat().st_ino == stat.st_ino  # identical: not written again
    first.write_text("tampered", encoding="utf-8")
    again = write_plotly(tmp_path / "a")
    assert again.read_text(encoding="utf-8") == get_plotlyjs()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [first.name]  # no temporary file left


def test_the_address_is_relative_to_where_the_page_will_be(tmp_path):
    assert plotly_src(None, tmp_path / "r.html") is None  # the page inlines plotly
    assert plotly_src(tmp_path / "assets", tmp_path / "run" / "report.html") == f"../assets/{plotly_file()}"
    assert plotly_src(tmp_path / "my assets", tmp_path / "report.html") == f"my%20assets/{plotly_file()}"


def test_frontier_writes_a_small_page_that_loads_the_shared_asset(tmp_path):
    assets = tmp_path / "assets"
    assert main(["frontier", str(REFERENCE), "--method", "blind_pick", "--budget", "200", "--out",
                 str(tmp_path / "one"), "--report-assets", str(assets), "--quiet"]) == 0
    page = tmp_path / "one" / "report.html"
    assert page.stat().st_size < SMALL, page.stat().st_size
    assert script_src(page) == (assets / plotly_file()).resolve()
    assert get_plotlyjs()[-2000:] not in page.read_text(encoding="utf-8")
    # mopt report DIR --out elsewhere: the same file, by its address from where that page is
    other = tmp_path / "pages" / "one.html"
    assert main(["report", str(tmp_path / "one"), "--out", str(other), "--report-assets", str(assets)]) == 0
    assert other.stat().st_size < SMALL and script_src(other) == (assets / plotly_file()).resolve()
    assert [p.name for p in assets.iterdir()] == [plotly_file()]  # one file for both


def test_the_simulate_page_beside_its_csv_loads_the_asset(tmp_path):
    swf = tmp_path / "w.swf"
    swf.write_text(synthetic_swf(60))
    assets = tmp_path / "shared"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit", "--out",
                 str(tmp_path / "out" / "jobs.csv"), "--report-assets", str(assets), "--quiet"]) == 0
    page = tmp_path / "out" / "jobs.report.html"
    assert page.stat().st_size < SMALL and script_src(page) == (assets / plotly_file()).resolve()


@pytest.mark.parametrize("argv, fragments", [
    (["frontier", str(REFERENCE), "--out", "-"], ("'--report-assets' goes with a report; '--out -' writes none",)),
    (["koala", "--trace", "KTH-SP2"], ("'--report-assets' goes with '--out FILE'",)),
])
def test_report_assets_without_a_report_is_refused_in_one_line(tmp_path, capsys, argv, fragments):
    code = main([*argv, "--report-assets", str(tmp_path / "a")])
    assert_one_line_error(capsys, code, *fragments)
    assert not (tmp_path / "a").exists()


def test_report_assets_naming_a_file_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    code = main(["frontier", str(REFERENCE), "--report-assets", str(tmp_path / "f")])
    assert_one_line_error(capsys, code, "argument --report-assets: must be a directory", "is a file")


@needs_chromium
def test_browser_draws_the_demo_report_from_its_assets(tmp_path, capsys):
    """``mopt demo --report-assets``: report.html under 500 KB, plotly by a relative path that
    exists, and the page opened in Chromium draws its plots (offline)."""
    assert main(["demo", "--out", str(tmp_path / "demo"), "--report-assets", str(tmp_path / "assets"),
                 "--quiet"]) == 0
    page = tmp_path / "demo" / "report.html"
    assert page.stat().st_size < SMALL, page.stat().st_size
    assert script_src(page).is_file() and script_src(page).parent == (tmp_path / "assets").resolve()
    dom = browse(page, tmp_path)
    attrs = body(dom)
    assert errors(dom) == "" and attrs["rendered"] == "yes" and attrs["points"] == "203"  # a marker per class
    assert "frontier:scatter" in attrs["plots"]
    assert "Static strategies" in dom and 'href="front.png"' in dom


@pytest.mark.slow
def test_compare_and_vmc_pages_drawn_again_with_the_same_assets_are_the_same(tmp_path, capsys):
    assets = tmp_path / "assets"
    runs = {"c": ["compare", str(REFERENCE), "--methods", "blind_pick", "--budgets", "10%", "--macroreps", "1",
                  "--truth-reps", "10"],
            "v": ["vmc", "--vms", "8", "--workloads", "LFLD", "--scenarios", "1", "--seeds", "2", "--sample-size",
                  "10", "--methods", "exhaustive,blind_pick"]}
    for name, argv in runs.items():
        out = tmp_path / name
        assert main([*argv, "--out", str(out), "--report-assets", str(assets), "--quiet"]) == 0
        first = (out / "report.html").read_bytes()
        assert len(first) < SMALL and script_src(out / "report.html").is_file()
        assert main(["report", str(out), "--report-assets", str(assets)]) == 0
        assert (out / "report.html").read_bytes() == first, name
