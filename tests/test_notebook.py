"""examples/notebook.ipynb runs in a Jupyter kernel (nbclient) and shows what it
promises: a sample with its proof tree (HTML), a progress bar, a tree drawn as SVG,
the partial dependence figure and ArviZ's PSIS-LOO."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra")
nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra")
pytest.importorskip("arviz", reason="the notebook uses ArviZ (slpy[diagnostics])")


@pytest.fixture(scope="module")
def kernel():
    """Skip when no Jupyter kernel can start here (no ipykernel, no kernel spec)."""
    from jupyter_client.manager import start_new_kernel
    try:
        km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    except Exception as e:          # NoSuchKernel, a kernel that dies, a timeout, ...
        pytest.skip(f"no Jupyter kernel can start: {type(e).__name__}: {e}")
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_example_notebook_runs(kernel):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "the notebook is kept without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    data = [o.get("data", {}) for o in outputs]
    html = [d["text/html"] for d in data if "text/html" in d]
    assert any("proof tree: 4 choice points" in h and "growtree.slp" in h for h in html)
    svg = [d["image/svg+xml"] for d in data if "image/svg+xml" in d]
    assert len(svg) == 1 and svg[0].lstrip().startswith("<svg") and "bare_nuclei" in svg[0]
    assert any("image/png" in d for d in data)              # partial dependence
    stderr = "".join(o.get("text", "") for o in outputs if o.get("name") == "stderr")
    stdout = "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")
    widgets = [d for d in data if "application/vnd.jupyter.widget-view+json" in d]
    # the progress bar: a widget with ipywidgets, else text on standard output (a
    # notebook shows standard error in red)
    assert widgets or ("4 chains:" in stdout and "4000/4000" in stdout)
    assert "chains:" not in stderr and "IProgress" not in stderr
    text = "".join(d.get("text/plain", "") for d in data)
    assert "elpd_loo" in text and "Pareto k" in text
