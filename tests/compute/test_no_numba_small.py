"""Small first calls of DeLong's intervals, the business curves and NDCG do not import numba.

DeLong's dispatchers live in :mod:`ranklens._compute.xp.delong` and the curves' ranking step in
:mod:`ranklens._compute.xp.ranked_keys`; both import their numba kernels only when a call takes
them. A fresh process reads a CSV written by pandas, runs small unweighted calls, and must not have
imported numba; the numbers must equal, bit for bit, those of another fresh process in which every
threshold is 0 (the kernels forced, as ``ranklens warmup`` forces them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reference_compare import float_bits

_CALLS = """
import json, sys
import numpy as np
import pandas as pd
import ranklens
from ranklens.delong import delong_interval, delong_test
{force}
df = pd.read_csv({csv!r})
y, good, poor, label = df["y"], df["good"], df["poor"], df["label"]
out = {{}}


def plain(r):
    return {{k: np.asarray(v).tolist() for k, v in r.to_dict().items()
             if isinstance(v, float | int | list | np.ndarray | np.floating)}}


out["delong_test"] = plain(delong_test(y, good, poor))
out["delong_interval"] = plain(delong_interval(label, good))
out["roc"] = plain(ranklens.roc_curve(label, good))
out["gain"] = plain(ranklens.gain_curve(y, poor))
out["accuracy_ratio"] = ranklens.accuracy_ratio(y, good)
out["ndcg"] = ranklens.ndcg_score(y, good)
out["modules"] = sorted(
    m for m in sys.modules if m == "numba" or m.startswith("ranklens._compute.kernels.")
)
print(json.dumps(out))
"""

_FORCE = """
from ranklens._foundation.route import POLICY
POLICY.delong_numpy_below = POLICY.sort_numpy_below = 0
POLICY.dcg_numpy_below = POLICY.curve_helpers_numpy_below = 0
"""


@pytest.fixture
def scores_csv(tmp_path) -> str:
    rng = np.random.default_rng(5)
    n = 500
    y = np.round(rng.lognormal(3.0, 1.0, n), 2)
    frame = pd.DataFrame(
        {
            "y": y,
            "good": np.round(y * rng.lognormal(0.0, 0.3, n), 1),
            "poor": np.round(y.mean() + rng.normal(0.0, y.std(), n), 0),
            "label": (y > np.quantile(y, 0.8)).astype(int),
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_importing_the_measures_and_the_pipeline_does_not_import_numba(fresh_python):
    got = fresh_python(
        """
        import json, sys
        import ranklens.delong, ranklens.targeting, ranklens.listwise, ranklens.evaluation
        import ranklens._engines.budget
        print(json.dumps("numba" in sys.modules))
        """
    )
    assert got is False


def test_small_calls_do_not_import_numba_and_equal_the_kernels(fresh_python, scores_csv):
    numpy_run = fresh_python(_CALLS.format(force="", csv=scores_csv))
    kernel_run = fresh_python(_CALLS.format(force=_FORCE, csv=scores_csv))
    assert numpy_run.pop("modules") == []  # neither numba nor any kernel module
    modules = kernel_run.pop("modules")
    assert "numba" in modules and "ranklens._compute.kernels.delong" in modules
    assert "ranklens._compute.kernels.curves" in modules
    assert float_bits(numpy_run) == float_bits(kernel_run)
    roc = numpy_run["roc"]
    assert 0.5 < roc["auc"] < 1.0 and 0.0 < roc["auc_std_error"] < 0.1  # a real result
    assert len(roc["fpr"]) > 10 and numpy_run["ndcg"] > 0.5


def test_routes_decide_without_importing_numba():
    import sys

    from ranklens._compute.xp import delong as _xd
    from ranklens._compute.xp import ranked_keys
    from ranklens._foundation.route import POLICY

    assert not _xd._numpy_route(np.ones(10), 10)  # weighted: the kernels
    assert not _xd._numpy_route(None, POLICY.delong_numpy_below)  # large: the kernels
    assert not _xd._numpy_products(POLICY.delong_numpy_below)
    assert not ranked_keys._numpy_route(POLICY.sort_numpy_below)
    if "ranklens._compute.kernels.curves" in sys.modules:  # imported: its own rule decides
        assert not ranked_keys._numpy_route(10)
