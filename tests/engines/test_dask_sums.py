"""ranklens.dask: the measures that are sums once their parameters are fitted, the interval
measures and the medians equal the in-memory ones, whatever the partitioning.

The reference is the registered in-memory function itself, called as the in-memory pipeline
calls it (``evaluation.score_quietly``: the same value, and the same problem kind where it is
NaN); floats to 1e-12 (relative). The exact selection is checked against the in-memory
order statistic (``ranklens._foundation.hinges.Sample.at``) at every position, with integer weights
whose cumulative sums land exactly on the positions.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402

import ranklens.dask as rd  # noqa: E402
from ranklens import SigmoidRelevance, evaluate_models  # noqa: E402
from ranklens._foundation.hinges import Sample  # noqa: E402
from ranklens._foundation.problems import score_quietly  # noqa: E402
from ranklens.dask._quantiles import Source, Target, select  # noqa: E402
from ranklens.metrics import available_metrics, get_metric  # noqa: E402
from ranklens.relevance import relevance_from_boxplot  # noqa: E402

TOL = 1e-12
ALPHA = 0.2
INTERVALS = {"a": ("lo", "hi"), "c": ("lo2", "hi2")}
SUMS_FAMILIES = {"extremes", "intervals"}


def _data(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # skewed, rounded: box-plot outliers in the high tail, long tie runs across partitions
    y = np.round(np.exp(rng.normal(size=n)), 1)
    a = np.round(y + rng.normal(size=n), 1)
    df = pd.DataFrame(
        {
            "y": y,
            "a": a,
            "b": rng.integers(0, 7, n).astype(float),
            "wi": rng.integers(0, 4, n).astype(float),  # integer weights, zeros included
            "wf": rng.uniform(0.0, 2.0, n),
        }
    )
    df.loc[::13, "wf"] = 0.0
    df["lo"], df["hi"] = a - 1.0, a + 1.5
    width = np.round(rng.uniform(0.0, 3.0, n), 1)
    df["lo2"], df["hi2"] = y - width + rng.normal(size=n), y + width
    df["hi2"] = np.maximum(df["hi2"], df["lo2"])
    return df


def _reference(name: str, df: pd.DataFrame, model: str, weight: str | None, **kw):
    """(value, problem) of the in-memory measure, called as the in-memory pipeline calls it: with
    weights, the default relevance is the unweighted box plot of ``y`` (evaluate_models')."""
    spec = get_metric(name)
    y = df["y"].to_numpy()
    if weight is not None:
        kw["sample_weight"] = df[weight].to_numpy()
        sums = spec.capabilities.sums
        if sums is not None and "relevance" in sums.params and "relevance" not in kw:
            kw["relevance"] = relevance_from_boxplot(y)
    if spec.inputs == "interval":
        lo, hi = INTERVALS[model]
        return score_quietly(spec.func, y, df[lo].to_numpy(), df[hi].to_numpy(), alpha=ALPHA, **kw)
    return score_quietly(spec.func, y, df[model].to_numpy(), **kw)


def _same(got: float, want: float) -> bool:
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return abs(got - want) <= TOL * max(1.0, abs(want))


def _check(
    ev, df: pd.DataFrame, weight: str | None, names, notes: bool = True, **kw
) -> tuple[int, int]:
    """Every value of ``names`` against the in-memory one: (compared, finite). ``notes=False``:
    an in-memory note (the default relevance's warning, which the pipeline records once in
    ``settings["relevance"]``) is not a problem of each measure."""
    compared = finite = 0
    for model in ev.model_names:
        for name in names:
            if name not in ev.values[model]:
                continue
            got = ev.values[model][name]
            problem = ev.problems.get(model, {}).get(name)
            assert problem is None or problem.kind != "skipped", (model, name, problem)
            want, want_problem = _reference(name, df, model, weight, **kw)
            assert _same(got, want), (model, name, got, want)
            if not notes and want_problem is not None and want_problem.kind == "note":
                want_problem = None
            kinds = (problem and problem.kind, want_problem and want_problem.kind)
            assert kinds[0] == kinds[1], (model, name, problem, want_problem)
            compared += 1
            finite += math.isfinite(got)
    return compared, finite


def _claimed_names() -> list[str]:
    out = []
    for name in available_metrics():
        caps = get_metric(name).capabilities
        if caps.sums is not None or caps.median is not None:
            out.append(name)
    return out


@pytest.mark.parametrize("weight", [None, "wi", "wf"])
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_sums_and_medians_equal_in_memory(client, weight, npartitions):
    df = _data(seed=npartitions)
    names = _claimed_names()
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        intervals=INTERVALS,
        alpha=ALPHA,
        metrics=names,
        n_buckets=4,
    )
    # the interval-only model "c" is evaluated on its intervals alone, as in memory
    assert ev.model_names == ("a", "b", "c")
    compared, finite = _check(ev, df, weight, names)
    n_point = sum(get_metric(m).inputs == "point" for m in names)
    n_interval = len(names) - n_point
    assert compared == 2 * n_point + 2 * n_interval
    assert finite >= compared - 4  # a model may have no predicted event (precision NaN)
    assert ev.settings["relevance"].startswith("box plot of the evaluated target")


def test_every_family_member_is_claimed():
    """The measures of rare extremes, the interval measures and the median declare a form."""
    for name in available_metrics():
        spec = get_metric(name)
        if spec.family in SUMS_FAMILIES:
            assert spec.capabilities.sums is not None, name
    assert get_metric("median_absolute_error").capabilities.median is not None


def test_default_relevance_without_outliers_falls_back_as_in_memory(client):
    """y without box-plot outliers: the relevance falls back to both fences with a note, as
    relevance_from_boxplot does, and the measures equal the in-memory ones (which warn)."""
    rng = np.random.default_rng(4)
    n = 900
    y = rng.integers(0, 40, n).astype(float)
    df = pd.DataFrame({"y": y, "a": y + np.round(rng.normal(size=n) * 8, 0), "wi": 1.0})
    df.loc[::5, "a"] = 95.0  # predictions beyond the fences: predicted events
    names = ["utility_precision", "utility_recall", "utility_f1", "sera"]
    ev = rd.evaluate(dd.from_pandas(df, npartitions=3), y_true="y", predictions="a", metrics=names)
    assert "no box-plot outliers" in ev.settings["relevance"]
    compared, finite = _check(ev, df, None, names, notes=False)
    assert compared == 4 and finite == 2  # no true event: recall and F undefined
    assert math.isfinite(ev.values["a"]["utility_precision"])


@pytest.mark.parametrize("weight", [None, "wi"])
def test_given_relevance_and_event_threshold(client, weight):
    df = _data(seed=9)
    phi = SigmoidRelevance(high_center=3.0)
    names = ["utility_precision", "utility_recall", "utility_f1", "sera"]
    names += ["relevance_weighted_squared_error", "relevance_weighted_absolute_error"]
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        metrics=names,
        relevance=phi,
        event_threshold=0.7,
    )
    kw = {"relevance": phi}
    compared = finite = 0
    for name in names:
        extra = {"event_threshold": 0.7} if name.startswith("utility") else {}
        c, f = _check(ev, df, weight, [name], **kw, **extra)
        compared, finite = compared + c, finite + f
    assert compared == 2 * len(names) and finite == compared


def test_same_as_evaluate_models_without_weights(client):
    """The pipeline's numbers and problem kinds (default relevance, alpha) without weights."""
    df = _data(n=1200, seed=5)
    names = _claimed_names()
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        intervals=INTERVALS,
        alpha=ALPHA,
        metrics=names,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate_models(
            df["y"],
            {"a": df["a"], "b": df["b"]},
            intervals={m: (df[lo], df[hi]) for m, (lo, hi) in INTERVALS.items()},
            alpha=ALPHA,
            robustness=False,
            curves=False,
        )
    compared = 0
    for model in ref.model_names:
        for name in names:
            if name not in ref.values[model]:
                assert name not in ev.values[model]
                continue
            assert _same(ev.values[model][name], ref.values[model][name]), (model, name)
            got, want = ev.problems.get(model, {}).get(name), ref.problems.get(model, {}).get(name)
            assert (got and got.kind) == (want and want.kind), (model, name)
            compared += 1
    assert compared >= 2 * 7 + 2 * 5
    assert ev.metrics["interval_coverage"]["target"] == pytest.approx(1 - ALPHA)


@pytest.mark.parametrize("kind", ["integers", "continuous"])
def test_exact_selection_at_every_position(client, kind):
    """Two-pass selection equals the in-memory order statistic of the repeated sample at every
    position k = 1..W (integer weights: cumulative weights land exactly on k), strict or not;
    with heavy tie runs (values of their own bucket) and with a continuous column (rows read)."""
    rng = np.random.default_rng(2)
    n = 400
    if kind == "integers":
        y = rng.integers(0, 25, n).astype(float)  # every value heavy in the sample
    else:
        y = np.round(rng.normal(size=n), 2)  # short tie runs, straddling buckets
    w = rng.integers(0, 4, n).astype(float)
    df = pd.DataFrame({"y": y, "w": w})
    frame = dd.from_pandas(df, npartitions=5)
    total = int(w.sum())
    sample = y[::7]
    for weight in (None, "w"):
        source = Source("y", weight=weight)
        size = n if weight is None else total
        positions = [*range(1, size + 1)]
        targets = [Target(source, float(k)) for k in positions]
        targets += [Target(source, float(k), strict=True) for k in positions[:-1]]
        got = select(dask, frame, targets, {source: sample}, n_buckets=3)
        ref = Sample.of(y, None if weight is None else w)
        keep = slice(None) if weight is None else w > 0
        xs = np.sort(y[keep])
        cum = np.cumsum(np.ones(xs.size) if weight is None else w[keep][np.argsort(y[keep])])
        want = [ref.at(k) for k in positions]
        # strict: the smallest value x with W(x) > k
        want += [float(xs[int(np.searchsorted(cum, k, side="right"))]) for k in positions[:-1]]
        assert got == want, weight


def test_heavy_values_are_not_sent_to_the_client(client, monkeypatch):
    """A 0/1 target: every hinge falls on a value of its own bucket, so no rows are read back."""
    from ranklens.dask import _quantiles

    def refuse(*args, **kwargs):
        raise AssertionError("rows of a single-valued bucket were read")

    monkeypatch.setattr(_quantiles, "bucket_values", refuse)
    rng = np.random.default_rng(8)
    n = 2000
    y = (rng.random(n) < 0.3).astype(float)
    df = pd.DataFrame({"y": y, "w": rng.integers(1, 4, n).astype(float)})
    source = Source("y", weight="w")
    from ranklens._foundation.hinges import hinge_positions

    positions = [*hinge_positions(float(df["w"].sum())), math.inf]
    got = select(
        dask,
        dd.from_pandas(df, npartitions=4),
        [Target(source, k) for k in positions],
        {source: y[::5]},
        n_buckets=4,
    )
    ref = Sample.of(y, df["w"].to_numpy())
    assert got[:-1] == [ref.at(k) for k in positions[:-1]]
    assert got[-1] == 1.0


def test_median_of_an_even_and_odd_number_of_rows(client):
    rng = np.random.default_rng(6)
    for n in (301, 300):
        y = rng.integers(0, 9, n).astype(float)
        df = pd.DataFrame({"y": y, "a": rng.integers(0, 9, n).astype(float)})
        df["wi"] = rng.integers(0, 3, n).astype(float)
        for weight in (None, "wi"):
            ev = rd.evaluate(
                dd.from_pandas(df, npartitions=3),
                y_true="y",
                predictions="a",
                sample_weight=weight,
                metrics=["median_absolute_error"],
            )
            want, _ = _reference("median_absolute_error", df, "a", weight)
            assert ev.values["a"]["median_absolute_error"] == want, (n, weight)


def test_interval_arguments_and_failures(client):
    df = _data(n=300, seed=1)
    frame = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match="alpha is required"):
        rd.evaluate(frame, y_true="y", predictions="a", intervals=INTERVALS)
    bad = df.copy()
    bad.loc[7, "hi"] = np.nan
    with pytest.raises(ValueError, match="'hi'"):
        rd.evaluate(
            dd.from_pandas(bad, npartitions=2),
            y_true="y",
            predictions="a",
            intervals={"a": ("lo", "hi")},
            alpha=ALPHA,
            metrics=["interval_score"],
        )
    crossed = df.copy()
    crossed.loc[11, ["lo", "hi"]] = [5.0, 1.0]
    ev = rd.evaluate(
        dd.from_pandas(crossed, npartitions=2),
        y_true="y",
        predictions="a",
        intervals={"a": ("lo", "hi")},
        alpha=ALPHA,
        metrics=["interval_score", "mean_interval_width"],
    )
    for name in ("interval_score", "mean_interval_width"):
        assert math.isnan(ev.values["a"][name])
        assert ev.problems["a"][name].kind == "failed"
        assert "lower" in ev.problems["a"][name].message
    # without intervals the interval measures are skipped, with the reason
    ev = rd.evaluate(frame, y_true="y", predictions="a", metrics=["interval_score"])
    assert ev.problems["a"]["interval_score"].kind == "skipped"


def test_constant_target_makes_the_relevance_undefined(client):
    df = pd.DataFrame({"y": np.full(200, 3.0), "a": np.linspace(0, 6, 200)})
    names = ["sera", "utility_f1", "median_absolute_error"]
    ev = rd.evaluate(dd.from_pandas(df, npartitions=2), y_true="y", predictions="a", metrics=names)
    for name in ("sera", "utility_f1"):
        assert math.isnan(ev.values["a"][name])
        assert ev.problems["a"][name].kind == "undefined"
        assert "constant" in ev.problems["a"][name].message
        _, want = _reference(name, df, "a", None)
        assert want is not None and want.kind == "undefined"
    want, _ = _reference("median_absolute_error", df, "a", None)
    assert ev.values["a"]["median_absolute_error"] == want


def test_field_containers_read_only_columns(client):
    """Columns from read_csv-like frames and read-only arrays give the same numbers."""
    df = _data(n=600, seed=3)
    ro = df.copy()
    for column in ro.columns:
        values = ro[column].to_numpy().copy()
        values.setflags(write=False)
        ro[column] = values
    names = ["sera", "utility_f1", "median_absolute_error", "interval_score"]
    got = rd.evaluate(
        dd.from_pandas(ro, npartitions=3),
        y_true="y",
        predictions="a",
        sample_weight="wi",
        intervals={"a": ("lo", "hi")},
        alpha=ALPHA,
        metrics=names,
    )
    compared, _ = _check(got, df, "wi", names)
    assert compared == 4


@pytest.mark.parametrize("groups", [None, "g"])
def test_poisson_bootstrap_of_lifts_equals_compare_models(
    client, dask_by_partitions, poisson_compare_models, groups
):
    """The lifts' replicates (with the AUC's) are identical for 1, 3 and 7 partitions and equal
    compare_models(..., scheme="poisson") replicate for replicate, by rows or by units."""
    rng = np.random.default_rng(21)
    n = 1500
    y = (rng.random(n) < 0.3).astype(float)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + 0.5 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.uniform(0.5, 2.0, n),
            "g": rng.integers(0, 150, n),
        }
    )
    measures = ["lift_at_5", "lift_at_10", "lift_at_20", "roc_auc"]
    n_rep = 12
    evaluations = dask_by_partitions(
        df,
        (1, 3, 7),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        groups=groups,
        n_bootstrap=n_rep,
        random_state=5,
        metrics=measures,
    )
    replicates = {k: ev.extras["bootstrap"]["replicates"] for k, ev in evaluations.items()}
    for parts in (3, 7):
        for model in ("a", "b"):
            for name in measures:
                np.testing.assert_allclose(
                    replicates[parts][model][name],
                    replicates[1][model][name],
                    rtol=TOL,
                    atol=TOL,
                    err_msg=name,
                )
    ref = poisson_compare_models(
        df, measures, n_bootstrap=n_rep, random_state=5, weight="w", groups=groups
    )
    assert ref.replicates.shape == (n_rep, len(measures), 2)
    for j, name in enumerate(ref.metrics):
        for i, model in enumerate(("a", "b")):
            np.testing.assert_allclose(
                replicates[1][model][name], ref.replicates[:, j, i], rtol=TOL, atol=TOL
            )
    assert np.isfinite(replicates[1]["a"]["lift_at_5"]).all()


def test_cli_engine_dask_intervals_and_extremes_as_in_memory(
    client, cli_dask_and_in_memory, results_entry
):
    """``ranklens evaluate --engine dask --lower --upper --alpha`` writes the in-memory run's
    values and statuses for the measures of extremes, the interval measures and the median."""
    # --lower/--upper belong to the one --pred (with several, the command line asks for
    # --interval MODEL:LOWER:UPPER, on either engine).
    df = _data(n=1600, seed=12)[["y", "a", "lo", "hi"]]
    common = ["--target", "y", "--pred", "a", "--lower", "lo", "--upper", "hi"]
    common += ["--alpha", str(ALPHA), "--bootstrap", "0", "-q"]
    got, want = cli_dask_and_in_memory(df, common, scheduler=client.scheduler.address, parts=4)
    compared = 0
    for model in ("a",):
        for name in _claimed_names():
            assert name in want["models"][model], name
            value, status = results_entry(got, model, name)
            ref_value, ref_status = results_entry(want, model, name)
            assert status == ref_status, (model, name)
            if ref_value is None:
                assert value is None, (model, name)
            else:
                assert _same(value, ref_value), (model, name, value, ref_value)
            compared += 1
    assert compared == 7 + 5


@pytest.mark.parametrize(("binary", "groups"), [(False, None), (True, "g")])
def test_poisson_bootstrap_of_tau_and_harrell_c_equals_compare_models(
    client, dask_by_partitions, poisson_compare_models, binary, groups
):
    """Kendall's tau-b and Harrell's C (and their maps) per replicate: identical for 1, 3 and 7
    partitions (ties straddling buckets; a 0/1 target's single-valued truth buckets) and equal
    to compare_models(..., scheme="poisson") replicate for replicate."""
    rng = np.random.default_rng(17)
    n = 1200
    y = (rng.random(n) < 0.3).astype(float) if binary else rng.integers(0, 40, n).astype(float)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + 0.05 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.integers(1, 4, n).astype(float),
            "g": rng.integers(0, 120, n),
        }
    )
    measures = ["kendall_tau", "tau_normalized", "somers_d"]
    n_rep = 8
    evaluations = dask_by_partitions(
        df,
        (1, 3, 7),
        extra_buckets=2,
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        groups=groups,
        n_bootstrap=n_rep,
        random_state=3,
        metrics=measures,
    )
    replicates = {k: ev.extras["bootstrap"]["replicates"] for k, ev in evaluations.items()}
    ref = poisson_compare_models(
        df, measures, n_bootstrap=n_rep, random_state=3, weight="w", groups=groups
    )
    for j, name in enumerate(ref.metrics):
        for i, model in enumerate(("a", "b")):
            want = ref.replicates[:, j, i]
            assert np.isfinite(want).all()
            for parts in (1, 3, 7):
                np.testing.assert_allclose(
                    replicates[parts][model][name], want, rtol=TOL, atol=TOL, err_msg=name
                )
    ev = evaluations[7]
    low, high = ev.extras["bootstrap"]["intervals"]["a"]["kendall_tau"]
    assert low <= ev.values["a"]["kendall_tau"] <= high


@pytest.mark.parametrize("groups", [None, "g"])
def test_poisson_bootstrap_of_the_sums_measures(client, dask_by_partitions, poisson_counts, groups):
    """SERA, the relevance-weighted errors and the interval measures per replicate: identical
    for 1, 3 and 7 partitions, each the in-memory function under the replicate's Poisson
    weights with the full-sample relevance (as evaluate_models binds it for its bootstrap)."""
    df = _data(n=900, seed=14)
    df["g"] = np.random.default_rng(1).integers(0, 90, len(df))
    names = ["sera", "relevance_weighted_squared_error", "relevance_weighted_absolute_error"]
    names += ["interval_score", "interval_coverage", "mean_interval_width"]
    n_rep = 6
    evaluations = dask_by_partitions(
        df,
        (1, 3, 7),
        extra_buckets=None,
        y_true="y",
        predictions="a",
        sample_weight="wi",
        groups=groups,
        intervals={"a": ("lo", "hi")},
        alpha=ALPHA,
        n_bootstrap=n_rep,
        random_state=4,
        metrics=[*names, "utility_f1"],
    )
    replicates = {k: ev.extras["bootstrap"]["replicates"]["a"] for k, ev in evaluations.items()}
    # the utility measures refit their accuracy per replicate in memory: not bootstrapped here
    assert "utility_f1" not in replicates[1]
    counts = poisson_counts(df, groups, n_rep, 4)
    w = df["wi"].to_numpy()
    phi = relevance_from_boxplot(df["y"].to_numpy())  # unweighted, as evaluate_models builds it
    for name in names:
        for parts in (3, 7):
            np.testing.assert_allclose(
                replicates[parts][name], replicates[1][name], rtol=TOL, atol=TOL, err_msg=name
            )
        kw = {"relevance": phi} if get_metric(name).inputs == "point" else {}
        want = [
            _reference(name, df, "a", None, sample_weight=counts[r] * w, **kw)[0]
            for r in range(n_rep)
        ]
        np.testing.assert_allclose(replicates[1][name], want, rtol=TOL, atol=TOL, err_msg=name)
        assert np.isfinite(replicates[1][name]).all(), name


@pytest.mark.parametrize("bad_response", [False, True])
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_a_row_domain_error_names_the_whole_datas_rows(client, npartitions, bad_response):
    """A measure undefined on some rows (Log-RMSE of a negative value) gets the in-memory
    message: the first offending value at its position in the whole data and the count of all
    the offending rows, whichever partitions they lie in; the response's check before the
    predictions', as in memory, even where a partition before holds only bad predictions."""
    df = _data(n=700, seed=9)
    df["y"], df["a"] = df["y"].clip(lower=0.1), df["a"].abs() + 0.1  # positive to begin with
    df.loc[400:, "b"] = df.loc[400:, "b"] - 3.0  # b's bad rows from row 400 on
    df.loc[[120, 130, 610], "a"] = -2.0  # a's: none in the first partition of 3 or 7
    if bad_response:
        df.loc[[650, 660, 699], "y"] = -1.0  # in the last partition only
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions, sort=False),
        y_true="y",
        predictions=["a", "b"],
        metrics=["log_rmse"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate_models(df["y"], {"a": df["a"], "b": df["b"]}, robustness=False, curves=False)
    for model in ("a", "b"):
        got, want = ev.problems[model]["log_rmse"], ref.problems[model]["log_rmse"]
        assert (got.kind, got.message) == (want.kind, want.message)
        if bad_response:
            assert "y_true + offset" in got.message and "position 650 (3 value(s)" in got.message
    if not bad_response:
        assert "got -2.0 at position 120 (3 value(s) <= 0)" in ev.problems["a"]["log_rmse"].message


def test_row_domain_errors_combine_and_pickle():
    import pickle

    from ranklens.exceptions import DomainError, RowDomainError

    template = "m needs x > 0; got {value!r} at position {position} ({count} value(s) <= 0). {{}}"
    first = RowDomainError(template, -1.5, 4, 2, 1)
    assert isinstance(first, DomainError) and isinstance(first, ValueError)
    assert str(first) == "m needs x > 0; got -1.5 at position 4 (2 value(s) <= 0). {}"
    again = pickle.loads(pickle.dumps(first))
    assert (str(again), again.check, again.count) == (str(first), 1, 2)
    later = RowDomainError(template, -0.5, 0, 3, 1)
    whole = RowDomainError.combine([(100, first), (250, later)])
    assert str(whole) == "m needs x > 0; got -1.5 at position 104 (5 value(s) <= 0). {}"
    # an earlier check failing in a later piece is the whole's error
    response = RowDomainError("y: {value} at {position} ({count})", -9.0, 7, 1, 0)
    assert str(RowDomainError.combine([(0, first), (300, response)])) == "y: -9.0 at 307 (1)"


def test_without_intervals_the_interval_measures_are_left_out_as_in_memory(client):
    """Every registered measure by default: the same names as ``evaluate_models`` (interval
    measures only with intervals); named without intervals, they are skipped with the reason."""
    df = _data(n=400, seed=2)
    ev = rd.evaluate(dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate_models(df["y"], {"a": df["a"]}, robustness=False, curves=False)
    assert set(ev.values["a"]) == set(ref.values["a"])
    assert "interval_score" not in ev.values["a"] and "interval_score" not in ev.metrics
    named = rd.evaluate(
        dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a"], metrics=["interval_score"]
    )
    assert named.problems["a"]["interval_score"].kind == "skipped"
    assert "needs prediction intervals" in named.problems["a"]["interval_score"].message
