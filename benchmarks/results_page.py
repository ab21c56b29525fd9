"""Assemble docs/results.md from the experiment pages in docs/results/.

Each experiment script writes its own page (docs/results/<name>.md, figures in
docs/results/figures/); this joins them, in the papers' order, into the one page users
read, with figure links made relative to docs/. Its head is templates/results_page.md.

    python benchmarks/results_page.py           # write docs/results.md
    python benchmarks/results_page.py --check   # exit 1 when docs/results.md is stale
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/results_page.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import RESULTS, ROOT  # noqa: E402
from benchmarks.lib.pages import Prose  # noqa: E402

PARTS = ["paper000", "paper002", "paper004", "exact_vs_mcmc"]
ANCHORS = {"paper000": "Paper 000", "paper002": "Paper 002", "paper004": "Paper 004",
           "exact_vs_mcmc": "MCMC against the exact posterior"}


def page() -> str:
    out = [Prose("results_page")("head") + "\n\n"]
    for name in PARTS:
        f = RESULTS / f"{name}.md"
        if not f.exists():
            continue
        text = f.read_text()
        # each page's title becomes a section (##), its headings move with it
        top = min((len(m) for m in re.findall(r"^(#+) ", text, flags=re.M)), default=2)
        text = re.sub(r"^(#+) ", lambda m: "#" * (len(m.group(1)) + 2 - top) + " ", text,
                      flags=re.M)
        text = re.sub(r"\]\(figures/", "](results/figures/", text)
        out.append(f'<a id="{ANCHORS[name].lower().replace(" ", "-")}"></a>\n\n'
                   + text.strip() + "\n\n")
    return "".join(out).rstrip() + "\n"


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    target = ROOT / "docs" / "results.md"
    text = page()
    if a.check:
        if not target.exists() or target.read_text() != text:
            print("docs/results.md is stale: run python benchmarks/results_page.py")
            return 1
        return 0
    target.write_text(text)
    print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
