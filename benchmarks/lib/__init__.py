"""What the benchmark scripts share.

- env: where things are (ROOT, data, priors, outputs, result pages), the machine
- cli: the options the scripts share (--quick, --out, --md, --report-only, --repeat)
- timing: clocks, medians, CPU time of child processes
- runs: running slpy and `slpy run`, reading run directories back
- data: data sets the benchmarks write or make (CSV files, hidden XOR)
- pages: report prose from templates/, pages with hand-written parts, figures
"""
