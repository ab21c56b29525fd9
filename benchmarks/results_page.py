"""Assemble docs/results.md from the experiment pages in docs/results/.

Each experiment script writes its own page (docs/results/<name>.md, figures in
docs/results/figures/); this joins them, in the papers' order, into the one page users
read, with figure links made relative to docs/.

    python benchmarks/results_page.py           # write docs/results.md
    python benchmarks/results_page.py --check   # exit 1 when docs/results.md is stale
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = ["paper000", "paper002", "paper004", "exact_vs_mcmc"]

HEAD = """# Reproducing the papers

Every experiment of the source papers that our data allows: the paper's numbers, ours,
and the one command that produces ours. Each section below is written by its script
(its own page in `docs/results/`); `python benchmarks/results_page.py` joins them here.

| section | script | quick smoke test (run by the test suite) |
|---|---|---|
| [Paper 000](#paper-000) (IJCAI 2005: informative priors) | `python benchmarks/paper000.py` | `--quick` |
| [Paper 002](#paper-002) (ICML 2005: tempering) | `python benchmarks/paper002.py` | `--quick` |
| [Paper 004](#paper-004) (BCART-PCFG) | `python benchmarks/paper004.py` | `--quick` |
| [MCMC against the exact posterior](#mcmc-against-the-exact-posterior) | `python benchmarks/exact_vs_mcmc.py` | `--quick` |

The papers' sampler is one chain of prune-and-regrow (`--proposal uc`, or the
proposal a page names) without burn-in, or the paper's tempering (`--temper 4
--ladder paper --swap random`); the scripts pin those settings. Since issue 13,
`slpy run`'s own defaults are tempered chains with a mixture of moves and a burn-in
([mcmc.md](mcmc.md)): to repeat one of the `slpy run` commands shown on these pages
by hand, add `--temper 1 --burn-in 0` (and `--proposal uc` where none is shown).

"""

ANCHORS = {"paper000": "Paper 000", "paper002": "Paper 002", "paper004": "Paper 004",
           "exact_vs_mcmc": "MCMC against the exact posterior"}


def page() -> str:
    out = [HEAD]
    for name in PARTS:
        f = ROOT / "docs" / "results" / f"{name}.md"
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
