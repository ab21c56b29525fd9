"""docs/results.md is the experiment pages of docs/results/ joined: it must not drift."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_results_page_is_up_to_date():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "results_page.py"),
                        "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_figure_it_shows_exists():
    import re
    text = (ROOT / "docs" / "results.md").read_text()
    figures = re.findall(r"\]\((results/figures/[^)]+)\)", text)
    assert figures
    for f in figures:
        assert (ROOT / "docs" / f).is_file(), f
