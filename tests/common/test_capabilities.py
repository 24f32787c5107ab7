"""What a measure declares when it registers, and that every declaration is true.

A measure's fast paths (batched bootstrap form, exact leave-one-out, breakdown bound, the forms a
piecewise engine computes, from which its computational form follows) are declared at its
registration and read by the engines, which never name a measure. These tests make a slow path a
decision, never an accident:

* a measure whose value behaves like a declared form (a map of one rank-sweep output, a weighted
  mean of per-row losses) but does not declare it fails, whatever module registers it;
* every registered measure has a computational form or is listed below with the reason;
* every declaration is checked against the registered function: the batched form on random
  weights and through the bootstrap engine, the leave-one-out against brute force on data with
  ties, the breakdown bound against corruptions. The leave-one-out's cost against one call is a
  timing, so it is measured in benchmarks/bench_robustness.py, not asserted here.

The lists of measures come from the registry at collection time, as in test_metrics_registry.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from ranklens import breakdown_curve, compare_models, most_influential
from ranklens._foundation.forms import RankStatistic, RankSweepForm, RatioForm, SumsForm
from ranklens._foundation.registry import Capabilities, ComputationalForm, register_metric
from ranklens.exceptions import RanklensWarning
from ranklens.metrics import available_metrics, get_metric

ALL = available_metrics()
POINT = available_metrics(inputs="point")

# Measures that have no computational form, and why none of the three forms provides what
# they need. A new entry needs a reason of this kind, not "not done yet".
NO_COMPUTATIONAL_FORM = {
    "median_absolute_error": "a quantile of the residuals: needs their order, not a sum or a sort "
    "by prediction or truth",
    "pmap": "order-dependent: its lag-1 scale needs the rows in their original order",
    "miscalibration": "an isotonic fit: pool-adjacent-violators merges adjacent blocks in the "
    "order of the prediction, a sequential pass that neither sums nor sorts in pieces provide",
    "discrimination": "an isotonic fit, as miscalibration",
}


def _caps(name):
    return get_metric(name).capabilities


def _declared(attribute):
    return [name for name in ALL if getattr(_caps(name), attribute) is not None]


def _tied_data(seed: int, n: int = 40):
    """Positive, continuous, skewed y with ties in y and in the prediction and two rare extremes."""
    rng = np.random.default_rng(seed)
    y = np.round(rng.lognormal(mean=1.0, sigma=0.8, size=n), 2)
    y[rng.choice(n, 4, replace=False)] = y[0]
    y[[n - 3, n - 1]] = np.round(y.max() * np.array([9.0, 12.0]), 2)  # box-plot outliers
    p = np.round(y * rng.lognormal(sigma=0.5, size=n), 2)
    p[rng.choice(n, 4, replace=False)] = p[1]
    return y, p


def _quiet_value(func, *args, **kwargs):
    """The measure's value, or None where it warns or refuses the data (outside its domain)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RanklensWarning)
            value = float(func(*args, **kwargs))
    except (RanklensWarning, ValueError, TypeError):
        return None
    return value if math.isfinite(value) else None


def _values(name, datasets):
    spec = get_metric(name)
    out = [_quiet_value(spec.func, y, p) for y, p in datasets]
    return None if any(v is None for v in out) else np.array(out)


DATASETS = [
    _tied_data(seed, n) for seed, n in zip(range(10), (30, 40, 50, 35, 45, 60, 32, 41, 55, 38))
]


# --- detectors: behaves like a form, so must declare it ------------------------------------------


def _rank_statistics(y, p):
    c = (1 + stats.somersd(y, p).statistic) / 2  # Harrell's C (scipy's somersd(x, y) is D(Y|X))
    return {
        RankStatistic.KENDALL_TAU_B: stats.kendalltau(y, p).statistic,
        RankStatistic.SPEARMAN_RHO: stats.spearmanr(y, p).statistic,
        RankStatistic.HARRELL_C: c,
    }


def _pair_classes(y, p):
    """The pair classes a rank statistic reads, by a double loop over the pairs."""
    conc = disc = tied_pred_only = distinct_y = distinct_pred = 0
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            sy, sp = np.sign(y[i] - y[j]), np.sign(p[i] - p[j])
            conc += sy * sp > 0
            disc += sy * sp < 0
            tied_pred_only += sy != 0 and sp == 0
            distinct_y += sy != 0
            distinct_pred += sp != 0
    return {
        "concordant": int(conc),
        "discordant": int(disc),
        "tied_pred_only": int(tied_pred_only),
        "distinct_y": int(distinct_y),
        "distinct_pred": int(distinct_pred),
    }


def _affine_in(values, reference):
    """Whether ``values = a + b * reference`` (b != 0) over the datasets, to rounding."""
    design = np.column_stack([np.ones_like(reference), reference])
    coef, *_ = np.linalg.lstsq(design, values, rcond=None)
    return abs(coef[1]) > 1e-6 and np.allclose(design @ coef, values, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", POINT)
def test_a_map_of_a_rank_sweep_output_declares_the_sweep_the_leave_one_out_and_a_bound(name):
    values = _values(name, DATASETS)
    if values is None:
        pytest.skip(f"{name} is undefined or refuses part of the generic data")
    refs = [_rank_statistics(y, p) for y, p in DATASETS]
    matches = [s for s in refs[0] if _affine_in(values, np.array([r[s] for r in refs]))]
    caps = _caps(name)
    if not matches and isinstance(caps.batched, RankSweepForm):
        # a statistic of its own (not one scipy computes): its form must give its values from
        # pair classes counted by brute force
        form = caps.batched
        mapped = [float(form.transform(form.statistic(_pair_classes(y, p)))) for y, p in DATASETS]
        np.testing.assert_allclose(mapped, values, rtol=1e-12, err_msg=name)
        matches = [form.statistic]
    if not matches:
        return
    assert isinstance(caps.batched, RankSweepForm), (
        f"{name} is a map of {matches[0].name} but does not declare batched=RankSweepForm(...): "
        "its bootstrap would call the function once per replicate"
    )
    assert caps.batched.statistic in matches
    assert caps.leave_one_out is not None, f"{name}: declare the O(n log n) leave-one-out"
    assert caps.breakdown is not None, f"{name}: declare its breakdown bound"
    assert caps.computational_form is ComputationalForm.SORTS_BY_PREDICTION_AND_TRUTH


def _finalizers():
    return {"identity": (lambda v: v, lambda v: v), "sqrt": (np.sqrt, np.square)}


@pytest.mark.parametrize("name", POINT)
def test_a_weighted_mean_of_per_row_losses_declares_its_ratio_form(name):
    """Detector: f(A + B) = finalize of the size-weighted mean of finalize^-1 f(A), f^-1 f(B)."""
    spec = get_metric(name)
    if spec.order_dependent:
        pytest.skip("order-dependent: the rows of a split are not exchangeable")
    rng = np.random.default_rng(11)
    splits = []
    for y, p in DATASETS[:4]:
        cut = rng.integers(8, y.shape[0] - 8)
        splits.append(((y, p), (y[:cut], p[:cut]), (y[cut:], p[cut:])))
    is_mean = False
    for _, (_, inverse) in _finalizers().items():
        ok = True
        for whole, a, b in splits:
            va, vb, vw = (_quiet_value(spec.func, *part) for part in (a, b, whole))
            if None in (va, vb, vw):
                ok = False
                break
            na, nb = a[0].shape[0], b[0].shape[0]
            mixed = (na * inverse(va) + nb * inverse(vb)) / (na + nb)
            ok &= math.isclose(inverse(vw), mixed, rel_tol=1e-9, abs_tol=1e-12)
        is_mean |= ok
    caps = spec.capabilities
    if is_mean:
        assert isinstance(caps.batched, RatioForm), (
            f"{name} is a weighted mean of per-row values but declares no RatioForm: its "
            "bootstrap would call the function once per replicate"
        )
        assert caps.leave_one_out is not None, f"{name}: declare the O(n) leave-one-out"


@pytest.mark.parametrize("name", POINT)
def test_a_mergeable_sums_measure_declares_its_ratio_form_and_leave_one_out(name):
    caps = _caps(name)
    if caps.computational_form is ComputationalForm.MERGEABLE_SUMS:
        assert isinstance(caps.batched, RatioForm), f"{name}: mergeable sums, so a ratio form"
        assert caps.leave_one_out is not None, f"{name}: mergeable sums, so an O(n) leave-one-out"
    if isinstance(caps.batched, RatioForm):
        assert caps.computational_form is ComputationalForm.MERGEABLE_SUMS


@pytest.mark.parametrize("name", available_metrics("residual"))
def test_every_residual_measure_declares_an_exact_leave_one_out(name):
    assert _caps(name).leave_one_out is not None


@pytest.mark.parametrize("name", ALL)
def test_every_measure_has_a_computational_form_or_is_listed_with_a_reason(name):
    form = _caps(name).computational_form
    if name in NO_COMPUTATIONAL_FORM:
        assert form is None, f"{name} has {form}: remove it from NO_COMPUTATIONAL_FORM"
    else:
        assert isinstance(form, ComputationalForm), (
            f"{name} has no computational form: declare the form it has in register_metric "
            "(batched=, sums=, curve=, ranked_list=), or list it in NO_COMPUTATIONAL_FORM with "
            "the reason none applies"
        )


def test_the_computational_form_is_derived_never_declared():
    assert "computational_form" not in inspect.signature(register_metric).parameters
    assert "computational_form" not in {f.name for f in dataclasses.fields(Capabilities)}
    sums = SumsForm(terms=lambda y, p: np.stack([y]), finalize=lambda s, n: float(s[0]))
    fitted = dataclasses.replace(sums, params=("relevance",))
    assert Capabilities(sums=sums).computational_form is ComputationalForm.MERGEABLE_SUMS
    assert Capabilities(sums=fitted).computational_form is (
        ComputationalForm.SORTS_BY_PREDICTION_AND_TRUTH
    )
    assert Capabilities().computational_form is None


@pytest.mark.parametrize("name", _declared("curve"))
def test_a_curve_measure_states_its_functional_once(name):
    caps = _caps(name)
    assert caps.batched.statistic is caps.curve, (
        f"{name}: curve= and the statistic of batched= are stated apart; declare both from "
        "one CurveForm"
    )


def test_a_spec_with_another_function_keeps_no_capabilities():
    import functools

    spec = get_metric("epsilon_insensitive_loss")
    bound = dataclasses.replace(spec, func=functools.partial(spec.func, epsilon=2.0))
    assert bound.capabilities.batched is None and bound.capabilities.leave_one_out is None
    same = dataclasses.replace(spec, name="renamed")
    assert same.capabilities == spec.capabilities


# --- every declaration agrees with the function -------------------------------------------------


@pytest.mark.parametrize(
    "name", [n for n in _declared("batched") if isinstance(_caps(n).batched, RatioForm)]
)
def test_ratio_form_equals_the_function_on_random_weights(name):
    """(The rank-sweep form is checked through the engine, below.)"""
    form = _caps(name).batched
    func = get_metric(name).func
    for seed, (y, p) in enumerate(DATASETS[:5]):
        if get_metric(name).family == "probability":  # a 0/1 target and probabilities
            y = (y > np.median(y)).astype(np.float64)
            p = (p - p.min()) / (p.max() - p.min())
        w = np.random.default_rng(seed).gamma(0.7, size=y.shape[0])
        assert form.evaluate(y, p, w) == pytest.approx(func(y, p, sample_weight=w), rel=1e-10)
        assert form.evaluate(y, p) == pytest.approx(func(y, p), rel=1e-10)


def _generic_twin(spec):
    """The same measure behind a wrapper: no capabilities, so the engine's generic path."""

    def func(y_true, y_pred, *, sample_weight=None):
        return spec.func(y_true, y_pred, sample_weight=sample_weight)

    twin = dataclasses.replace(spec, func=func)
    assert twin.capabilities.batched is None
    return twin


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", _declared("batched"))
def test_batched_form_equals_the_function_in_every_bootstrap_replicate(name, weighted):
    spec = get_metric(name)
    y, p = DATASETS[3]
    rng = np.random.default_rng(5)
    preds = {"a": p, "b": np.round(y * rng.lognormal(sigma=0.8, size=y.shape[0]), 1)}
    if spec.family == "probability":  # a 0/1 target and probabilities
        y = (y > np.median(y)).astype(np.float64)
        preds = {m: (v - v.min()) / (v.max() - v.min()) for m, v in preds.items()}
    kw = dict(n_bootstrap=30, random_state=2, show_progress=False, interval="percentile")
    if weighted:
        kw["sample_weight"] = rng.integers(0, 4, size=y.shape[0]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)  # undefined replicates are compared too
        fast = compare_models(y, preds, metrics=[spec], **kw)
        slow = compare_models(y, preds, metrics=[_generic_twin(spec)], **kw)
    assert fast.evaluation == ("kernel",) and slow.evaluation == ("generic",)
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-9, atol=1e-12)


def _brute_leave_one_out(func, y, p):
    out = np.empty(y.shape[0])
    keep = np.ones(y.shape[0], dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        for i in range(y.shape[0]):
            keep[i] = False
            out[i] = func(y[keep], p[keep])
            keep[i] = True
    return out


@pytest.mark.parametrize("name", _declared("leave_one_out"))
def test_leave_one_out_equals_brute_force_on_data_with_ties(name):
    spec = get_metric(name)
    loo = spec.capabilities.leave_one_out
    for y, p in DATASETS[:4]:
        if _quiet_value(spec.func, y, p) is None:
            pytest.skip(f"{name} refuses the generic data")
        np.testing.assert_allclose(
            loo(y, p), _brute_leave_one_out(spec.func, y, p), rtol=1e-9, atol=1e-12, equal_nan=True
        )
    # heavy ties, including rows whose removal leaves y_true or y_pred constant
    y = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 5.0])
    p = np.array([3.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    if _quiet_value(spec.func, y, p) is not None:
        np.testing.assert_allclose(
            loo(y, p), _brute_leave_one_out(spec.func, y, p), rtol=1e-9, atol=1e-12, equal_nan=True
        )


@pytest.mark.parametrize("name", _declared("breakdown"))
def test_declared_breakdown_bound_holds_for_random_corruptions(name):
    spec = get_metric(name)
    bound = spec.capabilities.breakdown
    rng = np.random.default_rng(4)
    n = 30
    for _ in range(20):
        y = rng.permutation(n).astype(float) + 1.0
        p = rng.permutation(n).astype(float) + 1.0
        k = int(rng.integers(1, n // 2))
        rows = rng.choice(n, k, replace=False)
        corrupted = y.copy()
        # gross errors, distinct from every other value, positive (log_rmse needs it)
        far = rng.uniform(1e3, 1e4, k)
        corrupted[rows] = np.where(rng.random(k) < 0.5, far * n, 1.0 / far)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RanklensWarning)
            change = abs(spec.func(corrupted, p) - spec.func(y, p))
        assert change <= float(bound.max_change(n, np.array([k]))[0]) + 1e-12
    # and the engine reports it (NaN for data with ties when it is proven without ties only)
    curve = breakdown_curve(y, p, name, fractions=[1 / n], n_random=2, random_state=0)
    assert curve.bound == bound.reference


@pytest.mark.parametrize("name", _declared("leave_one_out"))
def test_the_engine_uses_the_declared_leave_one_out(name):
    y, p = DATASETS[0]
    if _quiet_value(get_metric(name).func, y, p) is None:
        pytest.skip(f"{name} refuses the generic data")
    assert most_influential(y, p, name).method == "exact update"


@pytest.mark.parametrize("name", _declared("variance"))
def test_declared_variance_reaches_the_comparison(name):
    y, p = DATASETS[5]
    res = compare_models(y, {"m": p}, metrics=[name], n_bootstrap=20, show_progress=False)
    plug_in, unbiased = _caps(name).variance(y, p)
    assert res.variance_plug_in[0, 0] == plug_in and res.variance_unbiased[0, 0] == unbiased


# --- engines read specs only --------------------------------------------------------------------

ENGINES = ("compare", "bands", "robustness", "agreement")
MEASURE_MODULES = {"curves", "error_curves", "intervals", "listwise", "ranking", "relevance"}
MEASURE_MODULES |= {"residual", "utility"}
# Names of measures an engine may spell out: user-facing defaults that reproduce a paper's table,
# and the metric whose row ComparisonResult's tau_variance_* aliases read. None selects a code path.
NAMED_DEFAULTS = {
    ("compare", "DEFAULT_COMPARISON_METRICS"),
    ("compare", "_TAU_ALIAS_METRIC"),
    ("robustness", "TABLE1_METRICS"),
}


def _engine_tree(module):
    import ast
    import pathlib

    import ranklens

    path = pathlib.Path(ranklens.__file__).parent / f"{module}.py"
    if not path.exists():
        pytest.skip(f"ranklens.{module} does not exist")
    return ast.parse(path.read_text())


@pytest.mark.parametrize("module", ENGINES)
def test_engines_name_no_measure_and_import_no_private_measure_name(module):
    import ast

    tree = _engine_tree(module)
    allowed: set[int] = set()
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and (module, t.id) in NAMED_DEFAULTS for t in targets):
                allowed |= {id(c) for c in ast.walk(node)}
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    named = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in ALL
        and id(node) not in allowed | docstrings
    ]
    assert named == [], f"ranklens.{module} names measures {named}: declare a capability instead"
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").removeprefix("ranklens.") in MEASURE_MODULES
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert private == [], f"ranklens.{module} imports private measure names {private}"
    lookups = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in MEASURE_MODULES
    ]
    assert lookups == [], f"ranklens.{module} looks measures up by name: {lookups}"
