"""slpy's benchmarks and paper reproductions.

Each script runs from the repository root as `python benchmarks/NAME.py [options]`: it
puts the checkout on sys.path itself, so `benchmarks` and `slpy` import from it.
docs/benchmarks.md gives each figure with the command that printed it; the paper
scripts write the pages of docs/results/ (joined into docs/results.md).

Speed, printed: nrev, vanroy (Prolog, against SWI-Prolog in the same run),
prior_samples, kernels, mcmc_speed, bn_speed, first_iteration, pcfg_scaling.
Agreement and quality: mixing, bn_asia (with _pgmpy_ref, pgmpy's hill climbing).
Papers, each writing a page of docs/results/:

- paper000.py (the command) with paper000_runs (settings, the runs, resuming),
  paper000_data (derived data, tree helpers), paper000_analysis, paper000_figures,
  paper000_report;
- paper002.py (the grid) with paper002_data (settings, splits), paper002_runs (runs
  read back), paper002_report, paper002_figures;
- paper004.py; exact_vs_mcmc.py with exact_vs_mcmc_report;
- results_page.py joins the pages into docs/results.md.

lib/ is what they share (see lib/__init__.py); templates/NAME.md is the prose of each
page, rendered by lib/pages.py.
"""
