"""The tracker site opened in headless Chromium from file://: the matrix, a chart and a
framework's digest render with the expected cells, the page's own script runs, and no
script from hostile text does (it would set window.pwned). The screenshot is kept under
the test's tmp dir."""

import shutil
import subprocess

import pytest

from tests.tracker_fixtures import build_site

#: Installing chromium with apt-get on a fresh machine takes minutes.
pytestmark = pytest.mark.timeout(900)

#: Appended to a copy of a page: records, after load, whether anything set window.pwned.
PROBE = (
    "<script>window.addEventListener('load', function () { setTimeout(function () {"
    " document.body.setAttribute('data-pwned', typeof window.pwned); }, 0); });</script>"
)


def installed_chromium() -> str:
    """The chromium binary, installed with apt-get where absent (Debian's `chromium`)."""
    found = shutil.which("chromium")
    if found:
        return found
    if not shutil.which("apt-get"):
        pytest.skip("chromium is not installed and there is no apt-get to install it")
    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "chromium"]):
        done = subprocess.run(command, capture_output=True, text=True, env={"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
        if done.returncode != 0:
            pytest.skip(f"chromium could not be installed ({' '.join(command)}: {done.stderr.strip()[-200:]})")
    return shutil.which("chromium") or pytest.skip("apt-get installed chromium but it is not on PATH")


@pytest.fixture(scope="module")
def chromium() -> str:
    return installed_chromium()


@pytest.fixture
def site_dir(tmp_path):
    return build_site(tmp_path)[0]


def browse(chromium: str, *arguments: str) -> str:
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--virtual-time-budget=3000", *arguments],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def rendered_dom(chromium: str, page) -> str:
    """The DOM of `page` after its scripts ran (a probing copy beside it, same links)."""
    probe = page.with_name("probe-" + page.name)
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    return browse(chromium, "--dump-dom", probe.as_uri())


def test_the_site_renders_in_chromium_and_no_hostile_script_runs(chromium, site_dir, tmp_path):
    index = rendered_dom(chromium, site_dir / "index.html")
    assert 'data-pwned="undefined"' in index
    assert "2 of 2 methods" in index  # the matrix's own script ran (filter count)
    assert ">2025-04-10</a>" in index and "algorithm.adv_estimator=dapo" in index
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in index  # the hostile title, as text

    cohorts = rendered_dom(chromium, site_dir / "cohorts.html")
    assert 'data-pwned="undefined"' in cohorts
    assert cohorts.count("<svg") >= 3 and 'class="provisional"' in cohorts

    trl = rendered_dom(chromium, site_dir / "frameworks" / "trl.html")
    assert 'data-pwned="undefined"' in trl
    digest = trl.split('id="digest"')[1].split("</section>")[0]
    assert "FreshPO: nobody proposed it" in digest and "#7 Please add" in digest

    for page in ("papers/2504.00002.html", "reports.html"):
        assert 'data-pwned="undefined"' in rendered_dom(chromium, site_dir / page), page

    screenshot = tmp_path / "tracker-index.png"
    browse(chromium, f"--screenshot={screenshot}", "--window-size=1280,900", (site_dir / "index.html").as_uri())
    assert screenshot.stat().st_size > 5_000
    print(f"screenshot: {screenshot}")
