"""The result protocol, checked over every result class and every registered curve.

The classes are found by walking ``Result.__subclasses__()`` after importing every public module,
and the curves through the curve registry, so a new result or curve is covered without being
listed here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import math
import typing
import warnings

import numpy as np
import pandas as pd
import pytest

import ranklens
from ranklens._foundation.curve_registry import available_curves, get_curve
from ranklens._foundation.results import REPR_MAX_CHARS, ConfidenceInterval, CurveResult, Result

for _module in (*ranklens._EXPORTS, "robustness", "listwise", "relevance", "evaluation"):
    importlib.import_module(f"ranklens.{_module}")
# The Dask engine's row summaries (RowSummary) are results too: imported here, not left to
# whichever test module happens to be collected first (its package needs the dask extra's pyarrow).
with contextlib.suppress(ImportError):
    importlib.import_module("ranklens.dask")


def _all_subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


RESULT_CLASSES = sorted(
    {c for c in _all_subclasses(Result) if dataclasses.is_dataclass(c) and c is not CurveResult},
    key=lambda c: (c.__module__, c.__qualname__),
)
BIG = 50_000


def _fake_value(annotation: str):
    """A large value of the field's declared type (arrays of BIG elements)."""
    a = annotation.replace(" ", "")
    if "ndarray" in a or "Array" in a:
        return np.arange(BIG, dtype=np.float64)
    if a.startswith("tuple") or a.startswith("Sequence"):
        return tuple(f"name{k}" for k in range(200))
    if a.startswith("dict") or a.startswith("Mapping"):
        return {f"key{k}": float(k) for k in range(200)}
    if a.startswith("ConfidenceInterval"):
        return ConfidenceInterval(0.1, 0.2)
    if a.startswith("str"):
        return "a" * 500
    if a.startswith("int"):
        return 123_456
    if a.startswith("bool"):
        return True
    return 0.123456789


def _fake(cls: type) -> Result:
    """An instance with every field large, made without ``__init__`` (no validation)."""
    obj = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(obj, f.name, _fake_value(str(f.type)))
    return obj


def test_the_walk_finds_the_result_classes():
    names = {c.__name__ for c in RESULT_CLASSES}
    assert len(RESULT_CLASSES) >= 30
    assert {"ComparisonResult", "RankingSummary", "RocCurveResult", "ModelEvaluation"} <= names


@pytest.mark.parametrize("cls", RESULT_CLASSES, ids=lambda c: c.__name__)
def test_repr_is_compact_by_construction(cls):
    text = repr(_fake(cls))
    assert text.startswith(cls.__name__ + "(")
    assert len(text) <= REPR_MAX_CHARS, len(text)
    assert "\n" not in text
    assert "49999" not in text  # no array element is printed


@pytest.mark.parametrize("cls", RESULT_CLASSES, ids=lambda c: c.__name__)
def test_default_html_and_frame(cls):
    if cls._repr_html_ is Result._repr_html_:
        html = _fake(cls)._repr_html_()
        assert "<table>" in html and "49999" not in html and len(html) < 20_000
    if cls.to_frame in (Result.to_frame, CurveResult.to_frame) and not issubclass(cls, CurveResult):
        frame = _fake(cls).to_frame()
        assert isinstance(frame, pd.DataFrame) and len(frame) in (1, BIG)


def test_a_dataclass_decorator_cannot_bring_the_long_repr_back():
    @dataclasses.dataclass(frozen=True)  # repr=True: would print every element
    class Probe(Result):
        values: np.ndarray

    text = repr(Probe(np.arange(10_000.0)))
    assert text == "Probe(values=<array shape=(10000,) dtype=float64>)"


def test_to_frame_default_columns_and_scalars():
    @dataclasses.dataclass(frozen=True)
    class Probe(Result):
        a: np.ndarray
        b: np.ndarray
        total: float
        ci: ConfidenceInterval

    frame = Probe(np.arange(3.0), np.ones(3), 2.5, ConfidenceInterval(1.0, 4.0)).to_frame()
    assert list(frame.columns) == ["a", "b"]
    assert frame.attrs == {"total": 2.5, "ci_low": 1.0, "ci_high": 4.0}

    @dataclasses.dataclass(frozen=True)
    class Scalars(Result):
        n: int
        ci: ConfidenceInterval

    row = Scalars(4, ConfidenceInterval(math.nan, math.nan)).to_frame()
    assert list(row.columns) == ["n", "ci_low", "ci_high"] and len(row) == 1


# --------------------------------------------------------------------------------------------
# curves, found through the registry


def _curve_result(name: str):
    rng = np.random.default_rng(7)
    y = rng.gamma(2.0, size=300)
    y[:40] = y[40:80]  # ties in the truth
    pred = np.round(y + rng.normal(size=300), 1)  # and in the prediction
    spec = get_curve(name)
    kwargs = dict(spec.fixed)
    if "value_margin" in spec.needs_any:
        kwargs.update(value_margin=1.0, cost_per_target=0.5)
    args = (y, pred) if spec.inputs == "point" else (y, pred, pred - 1.0, pred + 1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spec, spec.func(*args, **kwargs)


@pytest.mark.parametrize("name", available_curves())
def test_every_curve_implements_the_curve_protocol(name):
    spec, r = _curve_result(name)
    ret = typing.get_type_hints(spec.func)["return"]
    assert issubclass(ret, CurveResult) and isinstance(r, ret)
    x, y = r.x, r.y
    assert x.dtype == y.dtype == np.float64 and x.shape == y.shape and x.ndim == 1 and x.size
    finite = x[np.isfinite(x)]
    assert np.all(np.diff(finite) >= 0), "x must be increasing"
    assert isinstance(r.area, float)
    assert isinstance(r.x_label, str) and r.x_label and r.x_label != "x"
    assert isinstance(r.y_label, str) and r.y_label and r.y_label != "y"
    # at() reads the curve at its own points (the last point of a run of equal x, as a step)
    k = np.flatnonzero(np.isfinite(x) & np.isfinite(y) & np.r_[np.diff(x) > 0, True])
    assert np.allclose(np.asarray(r.at(x[k]), dtype=float), y[k], equal_nan=True)
    assert isinstance(r.at(float(x[k[-1]])), float)
    frame = r.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) in (x.size, x.size - 0)
    if type(r).to_frame is CurveResult.to_frame:
        assert list(frame.columns[:2]) == ["x", "y"]
        assert np.array_equal(frame["y"].to_numpy(), y, equal_nan=True)
        assert frame.attrs["x_label"] == r.x_label


@pytest.mark.parametrize("name", available_curves(banded=True))
def test_at_agrees_with_the_band_grid(name):
    spec, r = _curve_result(name)
    assert spec.on_grid is not None
    grid = np.linspace(0.05, 1.0, 20)
    assert np.allclose(spec.on_grid(r, grid), np.asarray(r.at(grid), float), equal_nan=True)


def test_every_curve_class_is_registered_or_known():
    registered = {typing.get_type_hints(get_curve(n).func)["return"] for n in available_curves()}
    curve_classes = {c for c in RESULT_CLASSES if issubclass(c, CurveResult)}
    assert registered <= curve_classes
    assert len(curve_classes) >= 14


def test_rec_at_is_the_exact_step():
    from ranklens.residual import rec_curve

    r = rec_curve([0.0, 1.0, 2.0, 3.0], [0.0, 1.5, 2.0, 5.0])  # errors 0, 0.5, 0, 2
    assert r.at(0.0) == 0.5 and r.at(0.49) == 0.5 and r.at(0.5) == 0.75 and r.at(10.0) == 1.0
    assert r.at(-1.0) == 0.0 and math.isnan(r.at(math.nan))
    assert r.area == r.area_over_curve


# --------------------------------------------------------------------------------------------
# intervals and counts


def test_intervals_are_confidence_interval_tuples_and_nan_when_undefined():
    from ranklens.agreement import ranking_agreement
    from ranklens.ranking import ranking_summary

    rng = np.random.default_rng(1)
    y = rng.normal(size=40)
    s = ranking_summary(y, y + rng.normal(size=40))
    assert isinstance(s.tau_ci, ConfidenceInterval) and s.tau_ci.low < s.tau_ci.high
    assert s.confidence_interval() == s.tau_ci
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = ranking_summary([1, 2, 3, 4], [1, 3, 2, 4], sample_weight=[1, 2, 1, 1])
        agree = ranking_agreement([1, 2, 3, 4], [1, 3, 2, 4], sample_weight=[1, 2, 1, 1])
    for ci in (weighted.tau_ci, agree.tau_ci):
        assert isinstance(ci, ConfidenceInterval)
        assert math.isnan(ci.low) and math.isnan(ci.high)


@pytest.mark.parametrize("cls", RESULT_CLASSES, ids=lambda c: c.__name__)
def test_no_interval_field_is_a_plain_tuple_or_optional(cls):
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name.endswith("_ci") or f.name == "ci":
            assert hints[f.name] is ConfidenceInterval, f.name


def test_counts_are_floats_with_the_exact_integers_beside_them():
    from ranklens.ranking import ranking_summary

    y, p = [1, 2, 2, 3, 4, 5], [2, 1, 3, 3, 5, 4]
    plain = ranking_summary(y, p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = ranking_summary(y, p, sample_weight=[1.0] * 6)
    count_fields = (
        "discordant_pairs",
        "concordant_pairs",
        "tied_true_only_pairs",
        "tied_pred_only_pairs",
        "tied_both_pairs",
        "weighted_discordance",
    )
    for field in count_fields:
        assert type(getattr(plain, field)) is float
        assert type(getattr(weighted, field)) is float
        assert getattr(plain, field) == getattr(weighted, field)
        assert getattr(plain, field) == plain.exact_counts[field]
    assert isinstance(plain.exact_counts["discordant_pairs"], int)
    assert sum(plain.exact_counts[f] for f in count_fields[:5]) == 6 * 5 // 2
    assert weighted.exact_counts is None


def test_comparison_notebook_view_has_table_2_layout():
    from ranklens.compare import compare_models

    rng = np.random.default_rng(3)
    y = rng.normal(size=80)
    preds = {"a": y + rng.normal(size=80), "b": y + 2 * rng.normal(size=80)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare_models(
            y, preds, metrics=("kendall_tau", "mean_squared_error"), n_bootstrap=50
        )
    html = res._repr_html_()
    header = html.split("<thead>")[1].split("</thead>")[0]
    assert [h.split("</th>")[0] for h in header.split("<th>")[1:]] == [
        "measure",
        "a",
        "b",
        "a − b",
        "z",
        "p",
    ]
    body = html.split("<tbody>")[1]
    assert body.count("<tr>") == 2 and "kendall_tau" in body and "mean_squared_error" in body
    assert f"{res.values[0, 0]:.4f} [" in body
