"""The chain loop and its observers: what is kept, counted, recorded and written, on a
toy kernel (the trace written as the chain goes equals the one written afterwards)."""
import re

import numpy as np
import pytest

from slpy.mcmc.chain import sample_chain
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.observers import SwapCounter, Tally, TraceRecorder, TraceWriter, VisitCounter
from slpy.mcmc.seeds import replica_rngs
from slpy.mcmc.tempered import build_tempered_kernel, local_replicas, tempered_start
from slpy.runs import RunDir, TraceError

from .test_kernel import STATES, independent_move


def toy_kernel():
    return build_kernel(None, [(independent_move(), 1.0)])


def run(n=300, burn=50, thin=3, seed=1, extra=()):
    visits, rec, tally = VisitCounter(lambda term: f"s{term}"), TraceRecorder(("mod3",)), Tally()
    end = sample_chain(np.random.default_rng(seed), toy_kernel(), STATES[0], n, burn_in=burn,
                       thin=thin, observers=[tally, visits, rec, *extra])
    return end, visits, rec, tally


def test_kept_iterations_follow_burn_in_and_thinning():
    end, visits, rec, _ = run()
    t = rec.trace()
    assert end.iterations == 300 and not end.interrupted
    assert t.iter.tolist() == list(range(50, 300, 3)) and len(t) == visits.kept == 84
    assert sum(v.count for v in visits.visits.values()) == 84


def test_visits_are_numbered_by_first_visit_and_the_trace_names_them_by_number():
    _, visits, rec, _ = run()
    t = rec.trace()
    keys = list(visits.visits)
    assert [visits.visits[k].id for k in keys] == list(range(len(keys)))
    first = [int(t.model[np.argmax(t.model == i)]) for i in range(len(keys))]
    assert first == sorted(first)                      # ids appear in order
    for k, v in visits.visits.items():
        assert v.count == int((t.model == v.id).sum()) and k == f"s{v.term}"
        assert t.log_lik[t.model == v.id].tolist() == [v.log_lik] * v.count
    assert t.stats["mod3"].tolist() == [STATES[k].stats[0] for k in
                                        [visits.visits[keys[i]].term for i in t.model]]


def test_the_best_state_counts_burn_in_too():
    _, visits, _, _ = run(n=40, burn=39)
    lik, key, term = visits.best_model()
    assert lik == max(s.log_lik for s in STATES) and key == f"s{term}" == "s1"


def test_tally_counts_every_iteration_of_the_cold_chain():
    end, _, rec, tally = run(burn=0, thin=1)
    assert tally.moves == {"indep": [300, tally.accepted]}
    assert tally.accepted == int(rec.trace().accepted.sum()) and tally.replay_failures == 0


def test_an_observer_can_stop_the_chain_and_ctrl_c_keeps_what_was_done():
    end, _, _, _ = run(extra=[lambda sw: sw.it == 99])
    assert end.iterations == 100 and not end.interrupted

    def interrupt(sw):
        if sw.it == 120:
            raise KeyboardInterrupt
    end, visits, rec, tally = run(extra=[interrupt])
    assert end.interrupted and end.iterations == 121
    assert rec.trace().iter[-1] == 119 and sum(tally.moves["indep"][:1]) == 121


def test_a_resumed_loop_starts_where_it_is_told():
    end = sample_chain(np.random.default_rng(0), toy_kernel(), STATES[0], 10, start=7)
    assert end.iterations == 10


def tempered_run(tmp_path, n=120):
    """A tempered toy chain whose trace is written as it goes, and recorded."""
    heats = [1.0, 0.5, 0.25]
    kernel = build_tempered_kernel(local_replicas(toy_kernel()), "neighbours")
    rd = RunDir(tmp_path / "live")
    visits, rec, swaps = VisitCounter(str), TraceRecorder(("mod3",)), SwapCounter(3)
    with rd.open_trace(0, ("mod3",), tempered=True) as f:
        sample_chain(replica_rngs(4, 0, 3), kernel, tempered_start([STATES[0]] * 3, heats),
                     n, burn_in=20, observers=[swaps, visits, rec, TraceWriter(f.write)])
    return rd, visits, rec, swaps


def test_the_trace_written_as_it_goes_is_the_recorded_trace(tmp_path):
    rd, visits, rec, swaps = tempered_run(tmp_path)
    after = RunDir(tmp_path / "after")
    after.write_trace(0, rec.trace(), ("mod3",), tempered=True)
    live = rd.chain_file(0, "trace.csv").read_bytes()
    assert live == after.chain_file(0, "trace.csv").read_bytes()
    lines = live.decode().splitlines()
    assert lines[0] == "iter,model,log_lik,mod3,d,accepted,swap" and len(lines) == 101
    assert all(re.fullmatch(r"\d-\d:[01](;\d-\d:[01])*", ln.split(",")[-1])
               for ln in lines[1:])
    back = rd.read_trace(0)
    t = rec.trace()
    assert back["log_lik"].tolist() == [round(x, 10) for x in t.log_lik.tolist()]
    assert back["swap"][0].count(":") == len(t.swaps_of(0))
    # the swaps recorded are those counted (over the kept iterations)
    assert sum(len(t.swaps_of(r)) for r in range(len(t))) == len(t.swaps)
    cfg = dict(temper=3, burn_in=20, thin=1, iterations=120)
    assert rd.check_trace(0, cfg, ("mod3",)) == 100


def test_a_trace_that_is_not_this_run_s_is_refused(tmp_path):
    rd, *_ = tempered_run(tmp_path)
    with pytest.raises(TraceError, match="iteration 20 where 25 was due"):
        rd.check_trace(0, dict(temper=3, burn_in=25, thin=1, iterations=120), ("mod3",))
    with pytest.raises(TraceError, match="not the header"):
        rd.check_trace(0, dict(temper=1, burn_in=20, thin=1, iterations=120), ("mod3",))


def test_a_resumed_writer_skips_the_rows_it_has(tmp_path):
    rd, _, rec, _ = tempered_run(tmp_path)
    full = rd.chain_file(0, "trace.csv").read_text()
    cut = full.splitlines(keepends=True)
    rd.chain_file(0, "trace.csv").write_text("".join(cut[:41]) + cut[41][:7])  # a cut row
    written = []
    w = TraceWriter(lambda *row: written.append(row), skip=40)
    kernel = build_tempered_kernel(local_replicas(toy_kernel()), "neighbours")
    visits = VisitCounter(str)
    with rd.open_trace(0, ("mod3",), tempered=True, keep_rows=40) as f:
        sample_chain(replica_rngs(4, 0, 3), kernel,
                     tempered_start([STATES[0]] * 3, [1.0, 0.5, 0.25]), 120, burn_in=20,
                     observers=[visits, TraceWriter(f.write, skip=40), w])
    assert rd.chain_file(0, "trace.csv").read_text() == full and len(written) == 60


def test_round_trips_count_arrivals_at_the_cold_end_from_the_hot_end(tmp_path):
    _, _, _, swaps = tempered_run(tmp_path, n=400)
    assert set(swaps.counts()) == {"0-1", "1-2"}
    assert all(0 <= a <= n for n, a in swaps.counts().values())
    assert swaps.round_trips >= 1
