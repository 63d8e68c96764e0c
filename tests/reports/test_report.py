"""`superpacket report`: report.md, PNG and SVG figures and a self-contained report.html
for a run, a sweep and a reproduce folder; the HTML checked in headless Chromium (every
image decodes, no console message)."""

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image as mpimg
import polars as pl
import pytest
import superpacket
from superpacket.experiments.common import mean_ci95
from superpacket.reports import ci_text, num

EXE = str(Path(sys.executable).parent / "superpacket")


def sp(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, check=False)


def figures_ok(d: Path, names: list[str]) -> None:
    for n in names:
        img = mpimg.imread(d / "figures" / f"{n}.png")
        assert img.shape[0] > 100 and img.shape[1] > 100, n
        assert img[..., :3].std() > 0.05, f"{n}.png is blank"
        root = ET.parse(d / "figures" / f"{n}.svg").getroot()
        assert root.tag.endswith("svg"), n


def html_is_self_contained(html: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "external URL"
    assert "<link" not in html and "@import" not in html


@pytest.fixture(scope="module")
def reproduce_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("reproduce")
    r = sp("reproduce", "incast", "--seeds", "3", "--out", str(d))
    assert r.returncode == 0, r.stderr
    r = sp("report", str(d))
    assert r.returncode == 0, r.stderr
    return d


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory, root) -> Path:
    d = tmp_path_factory.mktemp("sweep") / "s"
    superpacket.sweep(root / "examples" / "incast.toml",
                      params={"topology.receiver_link.queue.limit": [20, 35, 50], "traffic[0].start_jitter": ["50us"]},
                      seeds=range(1, 4), out=d, workers=0)
    r = sp("report", str(d))
    assert r.returncode == 0, r.stderr
    return d


@pytest.fixture(scope="module")
def root() -> Path:
    return Path(__file__).resolve().parents[2]


def test_reproduce_report_numbers_and_figures(reproduce_dir):
    d = reproduce_dir
    s = json.loads((d / "summary.json").read_text())
    md = (d / "report.md").read_text()
    for v, ms in s["variants"].items():
        m, lo, hi = mean_ci95(ms["mean_fct_s_per_seed"], "mean_fct_s")  # recomputed from the per-seed values
        paper = s["paper"].get(v, {}).get("mean_fct_s")
        row = f"| {v} | mean_fct_s | {ci_text(m, lo, hi, 3)} | {num(paper) if paper is not None else ''} |"
        assert row in md, row
    for c in s["claims"]:
        assert c["claim"] in md
    for name, b in s["regimes"].items():  # the other regime (datacenter), recomputed from its seeds
        for v, ms in b["variants"].items():
            m, lo, hi = mean_ci95(ms["mean_fct_s_per_seed"], "mean_fct_s")
            assert lo >= 0.0  # an FCT: its interval is clipped at 0 (superpacket's t interval reaches below)
            assert f"| {name} | {v} | mean_fct_s | {ci_text(m, lo, hi, 3)} |" in md
        assert b["explanation"] in md
    assert s["explanation"] in md
    # verdict first: the scale, then the claims, before the first figure and the first table
    # of results; 3 seeds of incast's default 10 is a reduced scale: every verdict indicative
    assert md.index("Scale: reduced scale (verdicts indicative): 3 seed(s) of the default 10") < md.index("## Claims")
    assert md.index("## Claims") < md.index("![") < md.index("| variant | metric |")
    assert s["scale"]["seeds"] == 3 and s["scale"]["default_seeds"] == 10 and s["scale"]["indicative"] is True
    assert s["scale"]["wall_s"] > 0
    page = (d / "report.html").read_text()
    for c in s["claims"]:
        row = next(ln for ln in md.splitlines() if ln.startswith(f"| {c['claim']} |"))
        word = "holds" if c["holds"] else "fails"
        assert f"| {word} (indicative) |" in row, row
        assert f'<td class="{word}">{word} (indicative)</td>' in page
    figures_ok(d, ["metric_mean_fct_s", "metric_flows_with_timeout", "per_flow_fct", "per_flow_fct_datacenter"])
    per_flow = pl.read_parquet(d / "per_flow.parquet")
    assert per_flow.height == 3 * 3 * 10  # variants x seeds x flows
    per_seed = pl.read_parquet(d / "per_seed.parquet")
    assert set(per_seed["variant"]) == set(s["variants"])
    html_is_self_contained((d / "report.html").read_text())


def test_run_report(tmp_path, root):
    d = tmp_path / "run"
    r = sp("run", str(root / "examples" / "dumbbell.toml"), "--out", str(d))
    assert r.returncode == 0, r.stderr
    r = sp("report", str(d))
    assert r.returncode == 0, r.stderr
    md = (d / "report.md").read_text()
    assert "one run" in md.lower() and "R1->R2" in md
    # long-lived flows never complete: their goodput is shown instead of an FCT
    figures_ok(d, ["flows_goodput_bps", "queue_series"])
    assert (d / "scenario.toml").read_text().strip().splitlines()[0] in md


def test_sweep_report(sweep_dir):
    d = sweep_dir
    md = (d / "report.md").read_text()
    data = superpacket.load_sweep(d)
    g = data.summary.filter(pl.col("topology.receiver_link.queue.limit") == 35)
    m, lo, hi = mean_ci95(g["mean_fct_s"].to_list())
    assert f"| 35 | 50us | 3 | {ci_text(m, lo, hi, 3)} |" in md
    figures_ok(d, ["sweep_mean_fct_s"])
    html_is_self_contained((d / "report.html").read_text())


def test_report_of_a_folder_that_is_none_exit_2(tmp_path):
    r = sp("report", str(tmp_path))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1


# ---- headless Chromium ------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")


def chromium(page: Path, tmp: Path, *extra: str) -> tuple[str, str]:
    assert CHROMIUM, "chromium not found: `make install` installs Debian's package"
    r = subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
                        f"--user-data-dir={tmp / 'profile'}", "--virtual-time-budget=10000", *extra,
                        page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout, r.stderr


def page_check(page: Path, tmp: Path) -> tuple[int, int, list[str]]:
    """(images, images decoded, console lines) of a page loaded in headless Chromium."""
    dom, log = chromium(page, tmp, "--dump-dom")
    body = re.search(r"<body[^>]*>", dom)
    assert body, dom[:500]
    n = re.search(r'data-images="(\d+)"', body.group(0))
    ok = re.search(r'data-images-ok="(\d+)"', body.group(0))
    assert n and ok, f"the page's check script did not run: {body.group(0)}"
    console = [ln for ln in log.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    return int(n.group(1)), int(ok.group(1)), console


# Measures the page once it has loaded (long tables unfolded first): the elements whose right
# edge lies past the viewport and that are not inside a box of their own that scrolls and
# itself fits, and whether the claims table comes before the first figure.
LAYOUT_CHECK = """<script>
window.addEventListener("load", function () {
  var ds = document.querySelectorAll("details");
  for (var i = 0; i < ds.length; i++) ds[i].open = true;
  var vw = document.documentElement.clientWidth, bad = [];
  var all = document.body.getElementsByTagName("*");
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.getBoundingClientRect().right <= vw + 0.5) continue;
    var boxed = false;
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if ((o === "auto" || o === "scroll") && p.getBoundingClientRect().right <= vw + 0.5) { boxed = true; break; }
    }
    if (!boxed) bad.push(el.tagName);
  }
  document.body.setAttribute("data-too-wide", bad.join(" "));
  document.body.setAttribute("data-scroll-width", String(document.documentElement.scrollWidth));
  document.body.setAttribute("data-viewport", String(vw));
  var claims = document.getElementById("claims"), fig = document.querySelector("figure");
  document.body.setAttribute("data-claims-first", String(!!claims && !!fig &&
    !!(claims.compareDocumentPosition(fig) & Node.DOCUMENT_POSITION_FOLLOWING)));
});
</script>"""


def layout_check(page: Path, tmp: Path, width: int) -> dict[str, str]:
    """LAYOUT_CHECK's findings for a copy of `page` at a window `width` px wide."""
    probe = page.with_name(f".probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", LAYOUT_CHECK + "</body>"))
    try:
        dom, _ = chromium(probe, tmp, "--dump-dom", f"--window-size={width},900")
    finally:
        probe.unlink()
    body = re.search(r"<body[^>]*>", dom)
    assert body and "data-too-wide" in body.group(0), dom[:500]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(0)))


def test_layout_check_catches_a_page_too_wide(tmp_path):
    """The check itself: a wide table outside a scroll box is found; the same table in the
    report's own box is not; no claims table: not "claims first"."""
    page = tmp_path / "wide.html"
    row = "<tr>" + "".join(f"<td>column_{i}_with_a_long_name</td>" for i in range(30)) + "</tr>"
    page.write_text(f"<!DOCTYPE html><html><body><table>{row}</table><figure></figure></body></html>")
    found = layout_check(page, tmp_path, 800)
    assert "TABLE" in found["too-wide"].split() and int(found["scroll-width"]) > 800
    assert found["claims-first"] == "false"
    from superpacket.reports import Doc

    doc = Doc("wide", tmp_path)
    doc.table([f"c{i}" for i in range(30)], [[f"column_{i}_with_a_long_name" for i in range(30)]] * 40, id="claims")
    (tmp_path / "doc.html").write_text(doc.html())
    found = layout_check(tmp_path / "doc.html", tmp_path, 800)
    assert found["too-wide"] == "" and int(found["scroll-width"]) <= int(found["viewport"])
    assert "<details><summary>Table (40 rows)</summary>" in doc.html()  # over FOLD_ROWS rows: folded
    doc = Doc("claims", tmp_path)
    doc.table(["claim"], [["c"]] * 40, title="Claims", fold=False)  # the verdict is never folded
    assert "<details>" not in doc.html() and "<details>" not in doc.markdown()


def test_chromium_check_catches_a_broken_page(tmp_path):
    """The check itself, on a page with a broken image and a script error."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><img src="data:image/png;base64,AAAA"><img src="missing.png">'
                    "<script>undefinedFunction();</script><script>window.addEventListener('load', function () {"
                    "var im = document.images, ok = 0; for (var i = 0; i < im.length; i++)"
                    " if (im[i].complete && im[i].naturalWidth > 0) ok++;"
                    "document.body.setAttribute('data-images', im.length);"
                    "document.body.setAttribute('data-images-ok', ok); });</script></body></html>")
    n, ok, console = page_check(page, tmp_path)
    assert (n, ok) == (2, 0)
    assert any("Uncaught" in ln for ln in console)


@pytest.mark.parametrize("which", ["reproduce_dir", "sweep_dir"])
def test_report_html_in_headless_chromium(request, which, tmp_path):
    d = request.getfixturevalue(which)
    page = d / "report.html"
    n, ok, console = page_check(page, tmp_path)
    assert n == page.read_text().count("<img ") and n >= 1
    assert ok == n, f"{n - ok} image(s) did not decode"
    assert console == [], console
    shot = tmp_path / "shot.png"
    chromium(page, tmp_path, "--hide-scrollbars", "--window-size=1200,1600", f"--screenshot={shot}")
    img = mpimg.imread(shot)
    assert img.shape[:2] == (1600, 1200)
    assert img[..., :3].std() > 0.05  # not a blank page
    for width in (1200, 700):  # a laptop and half a screen: nothing runs off the page
        found = layout_check(page, tmp_path, width)
        assert found["too-wide"] == "", (width, found)
        assert int(found["scroll-width"]) <= int(found["viewport"]), (width, found)
        # the verdict before the figures (a sweep has no claims)
        assert found["claims-first"] == ("true" if which == "reproduce_dir" else "false")


def test_run_report_of_many_flows_draws_their_distribution(tmp_path, root):
    # examples/workload.toml opens about 1,000 flows: a bar each would make an image
    # thousands of pixels wide; the report draws the FCT distribution instead, bounded in
    # size, and a table by size bucket whose counts add up to the completed flows
    d = tmp_path / "many"
    r = sp("run", str(root / "examples" / "workload.toml"), "--out", str(d))
    assert r.returncode == 0, r.stderr
    r = sp("report", str(d))
    assert r.returncode == 0, r.stderr
    figures_ok(d, ["flows_fct_s_cdf"])
    assert not (d / "figures" / "flows_fct_s.png").exists()
    width = mpimg.imread(d / "figures" / "flows_fct_s_cdf.png").shape[1]
    assert width < 2000, width
    flows = pl.read_parquet(d / "flows.parquet")
    done = flows.filter(pl.col("completed"))
    md = (d / "report.md").read_text()
    counts = [int(m) for m in re.findall(r"\| fct_s \| [0-9A-Za-z>-]+ \| (\d+) \|", md)]
    assert len(counts) == 4 and sum(counts) == done.height, (counts, done.height)
    # the buckets by hand from the flows table
    small = done.filter(pl.col("size_bytes") < 100_000).height
    assert counts[0] == small
