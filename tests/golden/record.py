"""Record the numbers the library gives today, as the fixture that keeps them equal.

Run ``python tests/golden/record.py`` only when a change of numbers is intended (a fix, a new
default), and say which and why in the commit. ``tests/common/test_golden_numbers.py`` recomputes
everything recorded here and compares it number for number (1e-12 relative; the bootstrap
replicates exactly), so that moving code never changes a result unnoticed.

What is recorded (``tests/golden/``):

* ``wallet.csv``, ``sp500.csv``: the predictions of the demo's two case studies (the models are
  fitted once, here; the tests read the predictions, so a new scikit-learn cannot move them;
  ``sp500.csv`` has the test days' dates too, and its run gives them as ``--time`` and
  evaluates quarter by quarter with ``--window Q``, as the demo does),
  and ``synthetic.csv``: a small set with ties in the target and the predictions, case weights
  and one model's interval bounds;
* ``<name>.json``: ``ranklens evaluate`` on each of them, the command line's JSON document with
  a fixed seed, 100 bootstrap replicates and the replicates included (the time budget is set far
  above the run, so nothing is cut by the clock);
* ``api.json``: every registered measure with and without weights, and a sample of the public
  functions' results (``to_dict()``), on the synthetic set.
"""

from __future__ import annotations

import json
import math
import pathlib
import sys
from typing import Any

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent

#: The command line's options of each recorded run (besides the file and ``--json``).
RUNS: dict[str, list[str]] = {
    "wallet": [
        "-t", "expenditure", "-p", "linear", "-p", "random_forest", "-p", "gbm", "-p", "knn",
        "--events", "top:0.1", "--cost-per-target", "25", "--value-margin", "0.1",
    ],
    "sp500": [
        "-t", "return", "-p", "linear", "-p", "gbm", "-p", "gbm_extremes",
        "--interval", "gbm:gbm_lower:gbm_upper", "--alpha", "0.1", "--events", "top:0.05",
        "--time", "date", "--window", "Q",
    ],
    "synthetic": [
        "-t", "y", "-p", "a", "-p", "b", "-p", "c", "--weight", "w",
        "--interval", "a:a_lower:a_upper", "--alpha", "0.2",
    ],
}  # fmt: skip

#: Options every run shares: a fixed seed, replicates in the document, no cut by the clock.
COMMON = ["--bootstrap", "100", "--seed", "0", "--bootstrap-budget", "1e9", "-q"]


def synthetic(n: int = 240, seed: int = 20261128) -> pd.DataFrame:
    """Ties in the target and in two predictions, positive weights with a few zeros, and one
    model's interval bounds."""
    rng = np.random.default_rng(seed)
    y = np.round(rng.lognormal(1.0, 0.8, n), 1)
    frame = pd.DataFrame(
        {
            "y": y,
            "a": np.round(y * rng.lognormal(0.0, 0.3, n), 0),
            "b": y + rng.normal(0.0, 2.0, n),
            "c": np.round(np.sqrt(y) + rng.normal(0.0, 0.5, n), 1),
            "w": np.where(rng.random(n) < 0.05, 0.0, rng.uniform(0.5, 2.0, n)),
        }
    )
    frame["a_lower"] = frame["a"] * 0.6
    frame["a_upper"] = frame["a"] * 1.5 + 0.5
    return frame


def demo_inputs() -> dict[str, pd.DataFrame]:
    """The demo's test truth and predictions of both case studies."""
    from ranklens._demo import fit_sp500_models, fit_wallet_models

    y, predictions = fit_wallet_models(0)
    wallet = pd.DataFrame({"expenditure": y, **predictions})
    sp = fit_sp500_models(0)
    columns: dict[str, Any] = {
        "date": sp["dates_test"],
        "return": sp["y_test"],
        **sp["predictions"],
    }
    for model, (lower, upper) in sp["intervals"].items():
        columns[f"{model}_lower"], columns[f"{model}_upper"] = lower, upper
    return {"wallet": wallet, "sp500": pd.DataFrame(columns)}


def plain(value: Any) -> Any:
    """``value`` as JSON: arrays as lists, NaN and infinities as strings."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else repr(v)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if hasattr(value, "to_dict"):
        return plain(value.to_dict())
    return value


def outcome(call: Any) -> Any:
    """``call()`` as JSON, or the class and message of the ``ValueError`` it raises (a measure
    outside its domain on these data says so, and that too must stay the same)."""
    try:
        return plain(call())
    except ValueError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def api_sample(frame: pd.DataFrame) -> dict[str, Any]:
    """Every registered measure with and without weights, and a sample of public results."""
    import warnings

    import ranklens as rl
    from ranklens.metrics import available_metrics, get_metric

    y, w = frame["y"].to_numpy(), frame["w"].to_numpy()
    a, b = frame["a"].to_numpy(), frame["b"].to_numpy()
    lower, upper = frame["a_lower"].to_numpy(), frame["a_upper"].to_numpy()
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in available_metrics(inputs="point"):
            func = get_metric(name).func
            out[f"metric:{name}"] = outcome(lambda f=func: f(y, a))
            out[f"metric:{name}:weighted"] = outcome(lambda f=func: f(y, a, sample_weight=w))
        for name in available_metrics(inputs="interval"):
            func = get_metric(name).func
            try:
                value = outcome(lambda f=func: f(y, lower, upper, alpha=0.2))
            except TypeError:  # a measure of the bounds alone (coverage, width)
                value = outcome(lambda f=func: f(y, lower, upper))
            out[f"metric:{name}"] = value
        out["ranking_summary"] = plain(rl.ranking_summary(y, a))
        out["ranking_summary:weighted"] = plain(rl.ranking_summary(y, a, sample_weight=w))
        out["delong_interval"] = plain(rl.delong_interval(y > np.median(y), a))
        out["delong_test"] = plain(rl.delong_test(y > np.median(y), a, b))
        out["compare_models"] = plain(
            rl.compare_models(y, {"a": a, "b": b}, n_bootstrap=50, random_state=0)
        )
        out["compare_models:weighted"] = plain(
            rl.compare_models(y, {"a": a, "b": b}, n_bootstrap=50, random_state=0, sample_weight=w)
        )
        out["roc_curve"] = plain(rl.roc_curve(y, a, events="top:0.2"))
        out["decile_table"] = plain(rl.decile_table(y, a, sample_weight=w))
    return out


def run_args(name: str, path: pathlib.Path, rows: int) -> list[str]:
    """The command line of the recorded run of ``name`` (the wallet's campaign budget pays for
    20 % of its rows at 25 a target, as in the demo)."""
    extra = ["--budget", f"{0.2 * rows * 25:g}"] if name == "wallet" else []
    return ["evaluate", str(path), *RUNS[name], *extra, *COMMON, "--include-replicates"]


def record_run(name: str, path: pathlib.Path, rows: int) -> None:
    """``ranklens evaluate`` on ``path``; its JSON document next to it."""
    from typer.testing import CliRunner

    from ranklens.cli import app

    out = HERE / f"{name}.json"
    args = [*run_args(name, path, rows), "--json", str(out)]
    result = CliRunner().invoke(app, args)
    if result.exit_code != 0:
        raise SystemExit(f"{name}: exit {result.exit_code}\n{result.output}")


def main() -> None:
    inputs = {**demo_inputs(), "synthetic": synthetic()}
    for name, frame in inputs.items():
        path = HERE / f"{name}.csv"
        frame.to_csv(path, index=False, float_format="%.17g")
        record_run(name, path, len(frame))
        print(f"recorded {name}: {len(frame)} rows", file=sys.stderr)
    from ranklens.cli import exact_float_parsing

    sample = api_sample(pd.read_csv(HERE / "synthetic.csv", **exact_float_parsing()))
    (HERE / "api.json").write_text(json.dumps(sample, indent=1, sort_keys=True) + "\n")
    print(f"recorded api.json: {len(sample)} results", file=sys.stderr)


if __name__ == "__main__":
    main()
