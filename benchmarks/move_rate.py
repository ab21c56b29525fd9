"""Iterations per CPU-second of one untempered chain of a move (or mixture) on BCW
under GROWTREE, timed in the process after 300 iterations that fill the caches; the
slpy of REPO is the one timed, so that two commits can be paired:

    farm-bench -n 9 --vs "sh -c 'exec python benchmarks/move_rate.py OLD uc >>old.txt'" \\
        -- sh -c 'exec python benchmarks/move_rate.py . uc >>new.txt'

    python benchmarks/move_rate.py REPO MOVE [ITERATIONS]
"""
import sys
import time
from pathlib import Path


def main():
    repo = str(Path(sys.argv[1]).resolve())
    move = sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    sys.path.insert(0, repo)
    from slpy.mcmc.config import RunConfig, family_of
    from slpy.mcmc.model import build_model
    from slpy.mcmc.sampler import run_chain
    cfg = RunConfig(prior=f"{repo}/priors/growtree.slp", data=f"{repo}/examples/data/bcw.csv",
                    proposal=move, temper=1, iterations=n, seed=1, family="tree",
                    path="engine").resolved()
    fam = family_of(cfg)
    train, _ = fam.load_data(cfg)
    model = build_model(cfg, train)
    run_chain(model, cfg.replace(iterations=300), 0)
    t = time.process_time()
    run_chain(model, cfg, 0)
    print(round(n / (time.process_time() - t), 1))


if __name__ == "__main__":
    main()
