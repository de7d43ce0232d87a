# The reader's site in a real browser: an audit of a few fast claims (two findings that break a result, several
# verified claims) is written by the CLI, then headless Chromium opens it from the file system and a reader's path
# through it is replayed: no console message, the findings ranked (one entry per cause) with a result-breaking one
# first, a finding's page and back, every finding's figure loaded, the status filter and the search (kept in the
# address and restored from it), the glossary and the badges' tooltips, every page without a raw repr and without
# a value cut with no way to the whole, every local link and image, the blueprint's labels, the index at 600 px
# without horizontal overflow, screenshots.
# Skipped, with the reason, where selenium or Chromium and chromedriver are absent (.ci/run installs them).
import functools
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

from rgr_verify.audit.site import finding_causes  # noqa: E402
from rgr_verify.audit.site.screenshots import find_browser, headless_driver, take_screenshots  # noqa: E402

if find_browser() is None:
    pytest.skip("no headless browser: install the Debian packages chromium and chromium-driver",
                allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# Fast symbolic claims (about 6 s in all with --jobs 1): thmb5-sym-bernoulli-noise-mean and
# corb7-sym-block-conditions are refuted and break a result, two more of Corollary B.7 are imprecisions, and
# Sec. 3, Theorem B.5 and Corollary B.7 have verified claims.
ONLY = "thmb5-sym-*,corb7-sym-*,sec3-sym-*"
AUDIT_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "report"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    # `python -m rgr_verify` is the `rgr-verify` console script (both call rgr_verify.cli:main) of this interpreter.
    cmd = [sys.executable, "-m", "rgr_verify", "audit", "--tier", "quick", "--only", ONLY, "--jobs", "1",
           "--quiet", "--out", str(out)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=AUDIT_TIMEOUT_S, env=env)
    took = time.monotonic() - start
    # 0: every claim matches the ledger; 1: one differs. Either way the site is what is tested here.
    assert proc.returncode in (0, 1), f"audit exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    assert took < 60, f"the audit of {ONLY!r} took {took:.0f} s; choose faster claims"
    assert (out / "report.json").is_file(), proc.stderr[-2000:]
    assert (out / "index.html").is_file()
    return out.resolve()  # links are resolved against real paths


def _severe(driver) -> list:
    """Every console message of the page (an error, a warning or a log line alike): a clean site prints none."""
    return list(driver.get_log("browser"))


REPR = re.compile(r"\{'[^']+': |\[\d+\.\d{6,}")
CUT = re.compile(r"\(\d+ (?:more|entries)\)|\[\d+ items\]")


def _texts(driver) -> tuple[str, str]:
    """The page's text, and its text outside <details> (where a cut value would have no way to the whole)."""
    return tuple(driver.execute_script(
        "var all = document.body.textContent; var c = document.body.cloneNode(true);"
        "c.querySelectorAll('details, script, style').forEach(function (d) { d.remove(); });"
        "return [all, c.textContent];"))


class _Page(HTMLParser):
    """A page read without a browser: its text (and the part outside <details>), badges, local links."""

    def __init__(self):
        super().__init__()
        self.text, self.outside, self.badges, self.refs, self.depth, self.skip = [], [], [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.depth += tag == "details"
        self.skip += tag in ("script", "style")
        if "badge" in (a.get("class") or "").split():
            self.badges.append(a.get("title"))
        ref = a.get("src") if tag == "img" else a.get("href") if tag == "a" else None
        if ref:
            self.refs.append(ref)

    def handle_endtag(self, tag):
        self.depth -= tag == "details"
        self.skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)
            if not self.depth:
                self.outside.append(data)


def _check_static(page: Path, root: Path) -> None:
    """What the browser walk checks, for a page without scripts: words, tooltips, local links."""
    p = _Page()
    p.feed(page.read_text(encoding="utf-8"))
    name = page.relative_to(root).as_posix()
    assert not REPR.search("".join(p.text)) and not CUT.search("".join(p.outside)), name
    assert all(p.badges), f"{name}: a badge without a tooltip"
    assert any(r.endswith("index.html#glossary") for r in p.refs), f"{name} does not link the glossary"
    for value in p.refs:
        parts = urlsplit(value)
        if parts.scheme or value.startswith("#"):
            continue
        target = (page.parent / unquote(parts.path)).resolve()
        assert target.is_file() and target.is_relative_to(root), f"{name}: {value!r} names a missing file"
        if parts.fragment and target.suffix == ".html" and not parts.fragment.startswith("filter:"):
            assert parts.fragment in _ids(target), f"{name}: {value!r}: no element with that id"


def _check_words(driver, name: str) -> None:
    text, outside = _texts(driver)
    assert not REPR.search(text), f"{name}: a raw repr {REPR.search(text).group(0)!r}"
    assert not CUT.search(outside), f"{name}: {CUT.search(outside).group(0)!r} with no way to the whole value"
    untitled = driver.execute_script(
        "return Array.from(document.querySelectorAll('.badge')).filter(function (b) {"
        " return !b.getAttribute('title'); }).map(function (b) { return b.textContent; });")
    assert untitled == [], f"{name}: badges without a tooltip: {untitled[:5]}"


def _filterables(driver) -> list[dict]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.filterable')).map(function (el) { return {"
        "claim: el.getAttribute('data-claim'), status: el.getAttribute('data-status'),"
        "text: el.getAttribute('data-text') || '', finding: el.classList.contains('finding'), hidden: el.hidden"
        " || window.getComputedStyle(el).display === 'none'}; });")


def _count_line(rows: list[dict]) -> str:
    """What span#shown says for ``rows``: findings and claims counted apart."""
    f = [r for r in rows if r["finding"]]
    c = [r for r in rows if not r["finding"]]
    return (f"findings: {sum(not r['hidden'] for r in f)} of {len(f)} shown; "
            f"claims: {sum(not r['hidden'] for r in c)} of {len(c)} shown")


def _choose(driver, select_id: str, value: str) -> None:
    """Pick the option of select#select_id whose value (the DOM property: an option without a value attribute
    has its text as value) is ``value``, as a reader would."""
    select = Select(driver.find_element(By.ID, select_id))
    options = [o for o in select.options if o.get_property("value") == value]
    assert options, f"#{select_id} has no option {value!r}"
    select.select_by_index(int(options[0].get_property("index")))


def _shown(driver) -> str:
    return driver.find_element(By.ID, "shown").text


def _local_refs(driver, page: Path) -> list[tuple[str, Path, str]]:
    """(attribute as written, file it names, fragment) for each local a[href] and img[src] of the open page."""
    raw = driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href], img[src]')).map(function (el) {"
        " return el.getAttribute(el.tagName.toLowerCase() === 'img' ? 'src' : 'href'); });")
    refs = []
    for value in raw:
        parts = urlsplit(value)
        if parts.scheme in ("http", "https", "mailto", "javascript", "data") or value.startswith("#"):
            continue
        assert not parts.scheme or parts.scheme == "file", f"{page.name}: unexpected link {value!r}"
        assert parts.path, f"{page.name}: empty link {value!r}"
        refs.append((value, (page.parent / unquote(parts.path)).resolve(), parts.fragment))
    return refs


@functools.lru_cache(maxsize=None)
def _ids(target: Path) -> frozenset:
    return frozenset(re.findall(r'\bid="([^"]+)"', target.read_text()))


def _check_links(driver, page: Path, root: Path) -> None:
    for value, target, fragment in _local_refs(driver, page):
        assert target.is_file(), f"{page.relative_to(root)}: {value!r} names a missing file"
        assert target.is_relative_to(root), f"{page.relative_to(root)}: {value!r} leaves the site"
        if fragment and target.suffix == ".html" and not fragment.startswith("filter:"):
            assert fragment in _ids(target), \
                f"{page.relative_to(root)}: {value!r}: no element with id {fragment!r} in {target.name}"


def test_site_in_headless_chromium(site, tmp_path):
    start = time.monotonic()
    doc = json.loads((site / "report.json").read_text())
    index = site / "index.html"
    with headless_driver(width=1400, height=2000, console_log=True) as driver:
        wait = WebDriverWait(driver, 10)
        driver.get(index.as_uri())
        assert _severe(driver) == [], "console messages on index.html"
        assert driver.find_elements(By.ID, "glossary"), "index.html has no #glossary"
        assert driver.find_element(By.CSS_SELECTOR, "a.skip").get_attribute("href").endswith("#main")
        hrefs = {a.get_attribute("href").rsplit("/", 1)[-1] for a in driver.find_elements(By.CSS_SELECTOR, "a[href]")}
        assert {"report.json", "report.md"} <= hrefs, "index.html links neither report.json nor report.md"

        # The findings, ranked: the worst severity first; its page and back.
        findings = driver.find_elements(By.CSS_SELECTOR, "li.finding")
        assert findings, "index.html lists no finding"
        # one entry per cause (findings recording one slip merged), ranked by its most serious member
        causes = finding_causes(doc["claims"], doc["findings"])
        assert [f.get_attribute("data-claim") for f in findings] == [g[0] for g in causes]
        assert [(f.get_attribute("data-members") or f.get_attribute("data-claim")).split() for f in findings] \
            == causes
        first = findings[0].get_attribute("data-claim")
        ranks = ("breaks-result", "proof-gap", "imprecision")  # ranked worst first
        assert findings[0].get_attribute("data-severity") == min(
            (f.get_attribute("data-severity") for f in findings), key=ranks.index)
        findings[0].find_element(By.CSS_SELECTOR, f'a[href="claims/{first}.html"]').click()
        wait.until(lambda d: urlsplit(d.current_url).path.endswith(f"/claims/{first}.html"))
        assert driver.find_element(By.ID, "claim-id").text == first
        assert re.match(r".+ \(l\. \d+\): \S", driver.find_element(By.TAG_NAME, "h1").text)
        assert _severe(driver) == [], f"console errors on claims/{first}.html"
        driver.find_element(By.ID, "back").click()
        wait.until(lambda d: urlsplit(d.current_url).path.endswith("/index.html"))
        assert urlsplit(driver.current_url).path == urlsplit(index.as_uri()).path

        # The status filter hides every element that is not refuted, and the count follows.
        rows = _filterables(driver)
        assert rows and not any(r["hidden"] for r in rows)
        before = _shown(driver)
        assert before == _count_line(rows) and f"claims: {len(doc['claims'])} of {len(doc['claims'])}" in before
        _choose(driver, "filter-status", "refuted")
        rows = _filterables(driver)
        visible = [r for r in rows if not r["hidden"]]
        assert visible and len(visible) < len(rows)
        assert {r["status"] for r in visible} == {"refuted"}
        assert all(r["hidden"] for r in rows if r["status"] != "refuted")
        assert _shown(driver) != before and _shown(driver) == _count_line(rows)
        # the address keeps the filter, and a page opened at that address shows it again
        assert "filter:status=refuted" in urlsplit(driver.current_url).fragment
        driver.get(driver.current_url)
        driver.refresh()
        assert Select(driver.find_element(By.ID, "filter-status")).first_selected_option.get_property("value") \
            == "refuted"
        assert _shown(driver) == _count_line(rows)
        _choose(driver, "filter-status", "")
        assert _shown(driver) == before
        assert "filter:" not in urlsplit(driver.current_url).fragment

        # The search keeps exactly the elements whose text holds the query: here one verified claim's id.
        query = next(r["id"] for r in doc["claims"] if r["status"] == "verified")
        driver.find_element(By.ID, "search").send_keys(query)
        rows = _filterables(driver)
        visible = [r for r in rows if not r["hidden"]]
        assert query in {r["claim"] for r in visible}
        assert all(query in r["text"] for r in visible)
        assert all(r["hidden"] for r in rows if query not in r["text"])
        assert len(visible) < len(rows)
        driver.find_element(By.ID, "search").clear()

        # Every page: its local links and images resolve, no console message, no repr, no cut without the whole.
        _check_links(driver, index, site)
        _check_words(driver, "index.html")
        pages = sorted(site.glob("*.html")) + sorted((site / "claims").glob("*.html")) + \
            sorted((site / "labels").glob("*.html"))
        # the label pages no claim of this audit checks share one template: one in the browser, the rest read here
        bare = [p for p in pages if p.parent.name == "labels" and "no claim of this audit checks" in p.read_text()]
        for page in bare[1:]:
            _check_static(page, site)
        for page in [p for p in pages if p not in bare[1:]]:
            name = page.relative_to(site).as_posix()
            driver.get(page.as_uri())
            assert _severe(driver) == [], f"console messages on {name}"
            _check_words(driver, name)
            _check_links(driver, page, site)
            if name != "paper.html":  # the annotated paper has its own header (rgr_verify.audit.papertext)
                assert driver.find_elements(By.CSS_SELECTOR, 'header a[href$="index.html#glossary"]'), \
                    f"{name} does not link the glossary from its header"
        for cid in doc["findings"]:
            driver.get((site / "claims" / f"{cid}.html").as_uri())
            assert driver.find_element(By.ID, "claim-id").text == cid
            assert driver.find_elements(By.CSS_SELECTOR, "a#back"), f"claims/{cid}.html has no a#back"
            # every finding's page has its figure (the paper's value and ours), and the image loads
            widths = driver.execute_script(
                "return Array.from(document.querySelectorAll('figure.finding-figure img')).map(function (i) {"
                " return i.complete ? i.naturalWidth : 0; });")
            assert widths and all(w > 0 for w in widths), f"claims/{cid}.html: no finding figure that loads"

        # The blueprint: a node for every rolled-up label.
        driver.get(index.as_uri())
        drawn = set(driver.execute_script(
            "return Array.from(document.querySelectorAll('g.node[data-label]'))"
            ".map(function (g) { return g.getAttribute('data-label'); });"))
        assert set(doc["rollup"]["labels"]) <= drawn, f"labels missing from the blueprint: " \
            f"{sorted(set(doc['rollup']['labels']) - drawn)}"
        assert _severe(driver) == []

        # The index at 600 px: nothing wider than the window, and the filters still at hand.
        driver.set_window_size(600, 1000)
        driver.get(index.as_uri())
        widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth];")
        assert widths[0] <= widths[1], f"index.html at 600 px overflows: {widths[0]} px wide in {widths[1]}"
        _choose(driver, "filter-status", "refuted")
        assert _shown(driver) == _count_line(_filterables(driver))

    shots = take_screenshots(site, tmp_path)
    assert [p.name for p in shots] == ["screenshot-index.png", "screenshot-claim.png"]
    for shot in shots:
        assert shot.is_file() and shot.stat().st_size > 10_000, f"{shot.name}: {shot.stat().st_size} bytes"
    assert time.monotonic() - start < 60


def test_annotated_paper_renders_its_formulas_offline(tmp_path):
    # The annotated paper with the bundled KaTeX (no network): each $...$ and $$...$$ of the text becomes a
    # rendered formula, none fails to parse, a formula KaTeX cannot parse is left as text without a console
    # message, and the line anchors stay. The text is ours (a paraphrase in the paper's notation).
    import shutil

    from rgr_verify.audit.papertext import annotate

    text = ("Theorem 8.1 (ours, paraphrased). With $h = m / d_{\\text{model}}$ heads and $d_k \\geq C (\\log m)^2$,\n"
            "$$D_K = h d_k = \\Theta\\left(\\frac{m}{d_{\\text{model}}} (\\log m)^2\\right).$$\n"
            "A broken formula stays text: $\\frac{1}{$ and prices like 5 dollars are not math.\n")
    (tmp_path / "paper.html").write_text(annotate(text, {"Theorem 8.1": {"status": "refuted"}}, math="katex/"))
    shutil.copytree(Path(__file__).resolve().parents[1] / "rgr_verify" / "audit" / "site" / "static" / "katex",
                    tmp_path / "katex")
    with headless_driver(width=1000, height=800, console_log=True) as driver:
        driver.get((tmp_path / "paper.html").as_uri())
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return document.querySelectorAll('.katex').length >= 3"))
        counts = driver.execute_script(
            "return [document.querySelectorAll('.katex').length, document.querySelectorAll('.katex-display').length,"
            " document.querySelectorAll('.katex-error').length, !!document.getElementById('L2'),"
            " document.getElementById('L3').textContent];")
        assert counts[:4] == [3, 1, 0, True], counts  # 3 formulas, one displayed; the broken one is left as text
        assert "$\\frac{1}{$" in counts[4], counts[4]
        assert _severe(driver) == []
    # Planted alternative: without the bundle the same page renders nothing.
    shutil.rmtree(tmp_path / "katex")
    with headless_driver(width=1000, height=800, console_log=True) as driver:
        driver.get((tmp_path / "paper.html").as_uri())
        time.sleep(0.5)
        assert driver.execute_script("return document.querySelectorAll('.katex').length") == 0
