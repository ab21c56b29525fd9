"""benchmarks/mixing.py end to end in its --quick mode (1 CPU-second runs, Kyphosis and
BCW, two seeds): every figure of the issue is printed for both samplers, the Kyphosis
rows with their distance to the exact posterior."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mixing_quick(tmp_path):
    out = tmp_path / "mixing.json"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mixing.py"), "--quick",
                        "--json", str(out)], capture_output=True, text=True, timeout=600,
                       cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    head = ("| sampler | CPU s/seed | sweeps/seed | mean \\|dp\\| | max \\|dp\\| | R-hat | "
            "bulk ESS | ESS/CPU-s | TV seeds | TV exact | TV iid |")
    assert r.stdout.count(head) == 2
    summary = json.loads(out.read_text())["summary"]
    assert set(summary) == {"K", "BCW"}
    for name, by_sampler in summary.items():
        assert set(by_sampler) == {"uc", "default"}
        for s in by_sampler.values():
            assert 0 <= s["mean_dp"] <= s["max_dp"] <= 1
            assert 0 <= s["tv_seeds"] <= 1 and s["sweeps"] > 0
            assert (s["tv_exact"] is not None) == (name == "K")
            if name == "K":
                assert 0 < s["tv_exact"] < 1
                assert 0 < s["tv_iid"] < 1
