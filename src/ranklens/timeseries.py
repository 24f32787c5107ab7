"""Comparing models on rows in time order: the Diebold-Mariano test of equal expected loss, and
the evaluation over time windows.

Forecasts, daily returns and scores logged in production arrive in time order, and their
errors are serially dependent: an ``h``-step-ahead forecast error is correlated with the next
``h - 1``, and the size of the errors persists. The paired bootstrap of rows treats them as
independent and understates the variance of a mean loss. The Diebold & Mariano (1995) test
compares two models' mean losses with the variance of the loss differential at the forecast
horizon, with the small-sample correction of Harvey, Leybourne & Newbold (1997) (R's
``forecast::dm.test``). It applies to measures that are the mean of a per-row loss (the mean
absolute and squared errors, the lin-lin and epsilon-insensitive losses); the others are refused
by name.

:func:`by_window` asks whether a model's lead holds over time: every model on every window
(a calendar period or a number of rows), with a block bootstrap within each window
(:func:`ranklens.segments.by_segment` with the windows as the segments, in time order), each
model against the pick with the false discovery rate controlled over every window, how often
the pick's lead is clear, not clear or reversed, and a test of a trend in the difference over
the windows (a fixed-effect meta-regression, Hedges & Olkin 1985; Borenstein et al. 2009).

References
----------
Borenstein, M., Hedges, L. V., Higgins, J. P. T. and Rothstein, H. R. (2009). *Introduction to
Meta-Analysis*, chapter 20, "Meta-regression". Wiley.

Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of Business &
Economic Statistics* 13(3), 253-263.

Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
squared errors. *International Journal of Forecasting* 13(2), 281-291.

Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic Press.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens._foundation.multiplicity import fdr_adjust
from ranklens._foundation.normal import ndtr
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.results import ConfidenceInterval, Result
from ranklens._foundation.serial import DieboldMariano, diebold_mariano
from ranklens._foundation.times import as_time_series, parse_times
from ranklens._foundation.validation import as_1d_float, check_probability, check_sample_weight
from ranklens._inference.diebold_mariano import loss_rows
from ranklens.metrics import get_metric
from ranklens.segments import (
    DEFAULT_SEGMENT_METRICS,
    TEST_COLUMNS,
    VALUE_COLUMNS,
    SegmentEvaluation,
    SegmentSettings,
    group_labels,
    prediction_columns,
    segment_evaluation,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DieboldMarianoTestResult", "WindowEvaluation", "by_window", "diebold_mariano_test"]


@dataclasses.dataclass(frozen=True)
class DieboldMarianoTestResult(Result):
    """The Diebold-Mariano test of two models' mean losses.

    Attributes
    ----------
    metric : str
        The measure (the mean of a per-row loss).
    value_a, value_b : float
        Each model's measure.
    difference : float
        ``value_a - value_b``, the mean loss differential ``dbar``.
    std_error : float
        Its standard error at the horizon (Harvey, Leybourne & Newbold's correction included).
    statistic : float
        ``difference / std_error``, referred to Student's t with ``df`` degrees of freedom.
    p_value : float
        Two-sided p-value of "equal expected loss".
    ci : ConfidenceInterval
        ``difference -+ t_{df, (1 + confidence_level)/2} std_error``.
    horizon : int
        The horizon whose autocovariances entered the variance (see ``fell_back``).
    df : int
        ``n - 1``.
    fell_back : bool
        The variance at the horizon asked for was not positive, so the horizon-1 variance was
        used (as R's ``forecast::dm.test`` does).
    confidence_level : float
    n : int
        Rows.
    """

    metric: str
    value_a: float
    value_b: float
    difference: float
    std_error: float
    statistic: float
    p_value: float
    ci: ConfidenceInterval
    horizon: int
    df: int
    fell_back: bool
    confidence_level: float
    n: int


def diebold_mariano_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    metric: str = "mean_squared_error",
    horizon: int = 1,
    confidence_level: float = 0.95,
) -> DieboldMarianoTestResult:
    """Test whether two models' forecasts have equal expected loss (Diebold & Mariano 1995).

    The rows must be in time order. The loss differential ``d_t = L(y_t, a_t) - L(y_t, b_t)``
    of the measure's per-row loss ``L`` is tested for mean zero with the variance of its mean
    at the forecast horizon, ``V = (gamma_0 + 2 sum_{k=1}^{h-1} gamma_k) / n`` (an ``h``-step
    forecast error is at most ``MA(h - 1)``), and Harvey, Leybourne & Newbold's (1997)
    correction: ``DM* = (dbar / sqrt(V)) sqrt((n + 1 - 2h + h(h - 1)/n) / n)`` against
    Student's t with ``n - 1`` degrees of freedom. The numbers of R's ``forecast::dm.test(e_a,
    e_b, h = h, power = 2)`` for the squared error (``power = 1``: the absolute error).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The truth, in time order.
    y_pred_a, y_pred_b : array-like of shape (n,)
        The two models' forecasts.
    metric : str, default "mean_squared_error"
        A measure that is the mean of a per-row loss: ``"mean_squared_error"``,
        ``"mean_absolute_error"``, ``"linlin_loss"``, ``"epsilon_insensitive_loss"`` (others are
        refused by name).
    horizon : int, default 1
        The forecast horizon ``h`` of the forecasts (1: one step ahead).
    confidence_level : float, default 0.95
        Of the interval of the difference.

    Returns
    -------
    DieboldMarianoTestResult

    Raises
    ------
    ValueError
        If the measure is not a mean loss, ``horizon`` is not in [1, n - 1], the inputs differ
        in length or hold non-finite values, fewer than 3 rows are given, or the loss
        differential is constant (the test is undefined); the message names the argument.

    See Also
    --------
    ranklens.compare_models : ``method="diebold-mariano"`` compares every pair of models.

    References
    ----------
    Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of
    Business & Economic Statistics* 13(3), 253-263.

    Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
    squared errors. *International Journal of Forecasting* 13(2), 281-291.

    Examples
    --------
    >>> import numpy as np
    >>> import ranklens as rl
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> result = rl.diebold_mariano_test(y, y + rng.normal(size=300), y + 2 * rng.normal(size=300))
    >>> bool(result.p_value < 0.05), result.horizon
    (True, 1)
    """
    y = as_1d_float(y_true, "y_true")
    a = as_1d_float(y_pred_a, "y_pred_a")
    b = as_1d_float(y_pred_b, "y_pred_b")
    for name, values in (("y_pred_a", a), ("y_pred_b", b)):
        if values.shape[0] != y.shape[0]:
            raise ValueError(f"{name} has length {values.shape[0]}; y_true has {y.shape[0]}")
    level = check_probability(confidence_level, "confidence_level")
    spec = get_metric(metric)
    losses_a, losses_b = loss_rows(spec, y, a), loss_rows(spec, y, b)
    test: DieboldMariano = diebold_mariano(losses_a - losses_b, horizon)
    from scipy import stats  # loaded here: importing it takes about half a second

    half = float(stats.t.ppf(0.5 + level / 2.0, df=test.df)) * test.std_error
    return DieboldMarianoTestResult(
        metric=spec.name,
        value_a=float(losses_a.mean()),
        value_b=float(losses_b.mean()),
        difference=test.mean,
        std_error=test.std_error,
        statistic=test.statistic,
        p_value=test.p_value,
        ci=ConfidenceInterval(test.mean - half, test.mean + half),
        horizon=test.horizon,
        df=test.df,
        fell_back=test.fell_back,
        confidence_level=level,
        n=int(y.shape[0]),
    )


# ------------------------------------------------------------------------------------------------
# Windows: the rows cut into periods of time (or runs of rows), in time order

#: The calendar periods :func:`by_window` takes (pandas' period aliases), each with its name.
_PERIODS = {
    "Y": "year",
    "Q": "quarter",
    "M": "month",
    "W": "week",
    "D": "day",
    "h": "hour",
    "min": "minute",
    "s": "second",
}
#: pandas' offset aliases that name the same periods by their end (pandas >= 2.2 writes the
#: month as ``"ME"`` among offsets and ``"M"`` among periods): both are taken.
_END_ALIASES = {"YE": "Y", "QE": "Q", "ME": "M"}
_WINDOW = re.compile(r"(?P<base>[A-Za-z]+)(?:-(?P<anchor>[A-Z]{3}))?")

#: The trend test of the pick's difference over the windows, in words.
TREND_METHOD = (
    "fixed-effect meta-regression: inverse-variance weighted least squares of the windows' "
    "differences on the window index, z test of the slope"
)


@dataclasses.dataclass(frozen=True)
class TimeWindows:
    """The rows' windows, in time order.

    Attributes
    ----------
    order : ndarray of int64
        The rows in time order (a stable sort of ``time``: rows with the same time keep the
        order given); ``arange(n)`` without ``time``.
    codes : ndarray of int64
        Each row's window, row by row in time order (an index into ``labels``).
    labels : tuple of str
        The windows that hold rows, in time order (``"2024-03"``, ``"2024Q1"``,
        ``"rows 1-250"``).
    starts, ends : tuple of str or None
        Each window's start and end, ISO 8601 in the times' own zone: a calendar window is
        ``start <= t < end``; a window of rows runs from its first row's time to its last's
        (both included); None without ``time``.
    index : tuple of int
        Each window's position in the calendar (periods since the first window's, so a gap of
        empty periods is skipped) or among the windows of rows.
    kind : str
        ``"calendar"`` or ``"rows"``.
    period : str or int
        The calendar period (a pandas period alias: ``"M"``, ``"W-SUN"``, ...) or the rows per
        window.
    unit : str
        What one step of ``index`` is (``"month"``, ``"window"``).
    timezone : str or None
        The times' zone, None for naive times or none.
    notes : tuple of str
        Empty periods, a short last window, rows that were not in time order.
    """

    order: np.ndarray
    codes: np.ndarray
    labels: tuple[str, ...]
    starts: tuple[str | None, ...]
    ends: tuple[str | None, ...]
    index: tuple[int, ...]
    kind: str
    period: str | int
    unit: str
    timezone: str | None
    notes: tuple[str, ...]


def _check_window(window: Any) -> str | int:
    """``window`` as a pandas period alias (``"ME"`` read as ``"M"``) or a number of rows."""
    if isinstance(window, bool):
        raise ValueError(f"window must be a calendar period or a number of rows; got {window!r}")
    if isinstance(window, int | np.integer):
        if window < 1:
            raise ValueError(f"window must be at least 1 row; got {window!r}")
        return int(window)
    match = _WINDOW.fullmatch(window) if isinstance(window, str) else None
    base = None if match is None else _END_ALIASES.get(match["base"], match["base"])
    anchor = None if match is None else match["anchor"]
    if base not in _PERIODS or (anchor is not None and base not in ("Y", "Q", "W")):
        raise ValueError(
            "window must be a calendar period, one of "
            f"{sorted(_PERIODS) + sorted(_END_ALIASES)} (or 'W-MON', 'Q-MAR', ... anchored), "
            f"or a number of rows; got {window!r}"
        )
    return base if anchor is None else f"{base}-{anchor}"


def window_period(window: Any) -> str | int:
    """``window`` as :func:`by_window` takes it, checked without the data.

    Parameters
    ----------
    window : str or int
        A calendar period (a pandas period alias, ``"ME"``, ``"QE"`` and ``"YE"`` read as
        ``"M"``, ``"Q"`` and ``"Y"``) or a number of rows per window.

    Returns
    -------
    str or int
        The period alias, or the number of rows.

    Raises
    ------
    ValueError
        Naming ``window``: not a calendar period (a multiple such as ``"2M"`` is refused) nor
        a number of rows >= 1.
    """
    return _check_window(window)


def window_times(time: Any, n: int) -> pd.Series:
    """The rows' times as a pandas datetime Series (its time zone kept).

    Parameters
    ----------
    time : array-like of shape (n,)
        NumPy ``datetime64``, pandas datetimes (time-zone aware or not, NumPy- or
        Arrow-backed), polars or Arrow datetimes, Python datetimes, or ISO 8601 strings.
    n : int
        The rows of the data.

    Returns
    -------
    pandas.Series
        ``datetime64`` values, naive or with the zone given.

    Raises
    ------
    ValueError
        Naming ``time``: another length than the data, numbers or booleans (not times),
        strings that are not ISO 8601 dates or times or that mix time zones, missing times.
    """
    import pandas as pd

    series = as_time_series(time)
    if len(series) != n:
        raise ValueError(f"time has length {len(series)}; the data have {n} rows")
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        series = pd.Series(pd.DatetimeIndex(series))  # NumPy-backed, zone kept
    elif pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        raise ValueError(
            f"time must hold dates or times (datetime64, pandas or polars datetimes, ISO 8601 "
            f"strings); got {series.dtype}. For rows already in time order give time=None and "
            "a number of rows as window"
        )
    else:
        kind = pd.api.types.infer_dtype(series, skipna=True)
        if kind not in ("string", "datetime", "datetime64", "date", "empty"):
            raise ValueError(
                f"time must hold dates or times (datetimes or ISO 8601 strings); got {kind} values"
            )
        series, _ = parse_times(series, several_offsets=False)
    missing = int(series.isna().sum())
    if missing:
        raise ValueError(f"time has {missing} missing values (NaT); every row needs its time")
    return series


def _utc_instants(series: pd.Series) -> np.ndarray:
    """The times as ``datetime64`` instants (UTC for zone-aware times): what they are sorted by."""
    if series.dt.tz is not None:
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    return series.to_numpy()


def _iso(stamps: Any, tz: Any) -> tuple[str, ...]:
    """Period boundaries (naive wall times) as ISO 8601 in the zone ``tz`` (none: naive)."""
    if tz is not None:
        # a boundary at a shift of the clocks: the first of two equal wall times, the next one
        # that exists
        stamps = stamps.tz_localize(
            tz, ambiguous=np.ones(len(stamps), dtype=bool), nonexistent="shift_forward"
        )
    return tuple(t.isoformat() for t in stamps)


def _calendar_windows(times: pd.Series, period: str, order: np.ndarray) -> TimeWindows:
    import pandas as pd

    tz = times.dt.tz
    local = times.iloc[order].reset_index(drop=True)
    if tz is not None:
        local = local.dt.tz_localize(None)  # the wall time in the times' zone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        periods = local.dt.to_period(period)
        codes, present = pd.factorize(periods, sort=True)
        span = pd.period_range(present[0], present[-1], freq=period)
    index = span.get_indexer(present)
    unit = _PERIODS[period.split("-")[0]]
    notes = []
    empty = span.difference(present)
    if len(empty):
        listed = ", ".join(str(p) for p in empty[:6]) + (", ..." if len(empty) > 6 else "")
        verbs = "holds no rows and has" if len(empty) == 1 else "hold no rows and have"
        notes.append(
            f"{len(empty)} of the {len(span)} {unit}s from {span[0]} to {span[-1]} {verbs} no "
            f"window: {listed}"
        )
    if tz is not None:
        notes.append(f"windows are calendar {unit}s in the time zone {tz}")
    return TimeWindows(
        order=order,
        codes=np.asarray(codes, dtype=np.int64),
        labels=tuple(str(p) for p in present),
        starts=_iso(present.start_time, tz),
        ends=_iso((present + 1).start_time, tz),
        index=tuple(int(i) for i in index),
        kind="calendar",
        period=period,
        unit=unit,
        timezone=None if tz is None else str(tz),
        notes=tuple(notes),
    )


def _row_windows(times: pd.Series | None, size: int, order: np.ndarray) -> TimeWindows:
    n = order.shape[0]
    codes = np.arange(n, dtype=np.int64) // size
    count = int(codes[-1]) + 1
    first = [w * size for w in range(count)]
    last = [min(n, (w + 1) * size) - 1 for w in range(count)]
    starts: tuple[str | None, ...] = (None,) * count
    ends: tuple[str | None, ...] = (None,) * count
    if times is not None:
        ordered = times.iloc[order].reset_index(drop=True)
        starts = tuple(ordered.iloc[i].isoformat() for i in first)
        ends = tuple(ordered.iloc[i].isoformat() for i in last)
    notes = []
    if n % size and count > 1:
        notes.append(f"the last window holds {n % size} rows (windows of {size} rows)")
    tz = None if times is None else times.dt.tz
    return TimeWindows(
        order=order,
        codes=codes,
        labels=tuple(f"rows {a + 1}-{b + 1}" for a, b in zip(first, last, strict=True)),
        starts=starts,
        ends=ends,
        index=tuple(range(count)),
        kind="rows",
        period=size,
        unit="window",
        timezone=None if tz is None else str(tz),
        notes=tuple(notes),
    )


def time_windows(time: Any, window: Any, n: int) -> TimeWindows:
    """Put the rows in time order and cut them into windows.

    Parameters
    ----------
    time : array-like of shape (n,) or None
        The rows' times (see :func:`window_times`); None: the rows are in time order as given.
    window : str or int
        A calendar period (``"Y"``, ``"Q"``, ``"M"``, ``"W"``, ``"D"``, ``"h"``, ``"min"``,
        ``"s"``; ``"YE"``, ``"QE"``, ``"ME"`` taken for the same; ``"W-MON"``, ``"Q-MAR"``, ...
        anchored as pandas anchors them) or a number of rows per window.
    n : int
        The rows of the data.

    Returns
    -------
    TimeWindows
        The order, each row's window and the windows' names, bounds and positions.

    Raises
    ------
    ValueError
        Naming the argument: an unknown or multiple period (``"2M"``), a number of rows below
        1, a calendar period without ``time``, or a ``time`` :func:`window_times` refuses.
    """
    if isinstance(n, bool) or n < 1:
        raise ValueError(f"the data hold no rows; got {n}")
    period = _check_window(window)
    times = None if time is None else window_times(time, n)
    if times is None and isinstance(period, str):
        raise ValueError(
            f"window={window!r} is a calendar period and needs time; with time=None give a "
            "number of rows per window"
        )
    order = np.arange(n, dtype=np.int64)
    notes: tuple[str, ...] = ()
    if times is not None:
        instants = _utc_instants(times)
        order = np.argsort(instants, kind="stable").astype(np.int64)
        if (np.diff(order) < 0).any():
            notes = (
                "the rows were not in time order: sorted by time (rows with the same time "
                "in the order given)",
            )
    if isinstance(period, int):
        cut = _row_windows(times, period, order)
    else:
        assert times is not None
        cut = _calendar_windows(times, period, order)
    return dataclasses.replace(cut, notes=(*notes, *cut.notes))


# ------------------------------------------------------------------------------------------------
# The trend of a difference over the windows


def fixed_effect_trend(x: Any, estimates: Any, std_errors: Any) -> dict[str, float]:
    """The inverse-variance weighted least-squares slope of estimates on ``x`` and its z test.

    A fixed-effect meta-regression (Hedges & Olkin 1985; Borenstein et al. 2009, ch. 20) of
    estimates ``d_i`` with known standard errors ``s_i`` on one covariate ``x_i``: with weights
    ``w_i = 1 / s_i^2``, ``xbar = sum w x / sum w`` and ``S_xx = sum w (x - xbar)^2``,

    ``b = sum w (x - xbar) (d - dbar) / S_xx``,  ``se(b) = 1 / sqrt(S_xx)``,
    ``z = b / se(b)``,  ``p = 2 Phi(-|z|)``,

    and the residual heterogeneity ``Q_E = sum w (d - a - b x)^2``, referred to chi-squared
    with ``k - 2`` degrees of freedom: a large ``Q_E`` says the estimates vary about the line
    more than their standard errors allow, and the slope's standard error is then too small.
    The numbers of statsmodels' ``WLS(d, [1, x], weights=w).fit(cov_type="fixed scale")``.

    Parameters
    ----------
    x : array-like of shape (k,)
        The covariate (a window's index).
    estimates : array-like of shape (k,)
        The estimates ``d_i``.
    std_errors : array-like of shape (k,)
        Their standard errors, finite and positive.

    Returns
    -------
    dict
        ``slope``, ``std_error``, ``z``, ``p_value``, ``intercept``, ``heterogeneity``
        (``Q_E``), ``heterogeneity_df`` (``k - 2``), ``heterogeneity_p_value``.

    Raises
    ------
    ValueError
        If the arrays differ in length, hold fewer than 3 estimates, a standard error that is
        not finite and positive, or ``x`` takes a single value.

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. and Rothstein, H. R. (2009).
    *Introduction to Meta-Analysis*, chapter 20, "Meta-regression". Wiley.

    Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic
    Press.

    Examples
    --------
    >>> from ranklens.timeseries import fixed_effect_trend
    >>> trend = fixed_effect_trend([0, 1, 2, 3], [0.1, 0.2, 0.35, 0.4], [0.05, 0.05, 0.1, 0.1])
    >>> round(trend["slope"], 4), round(trend["std_error"], 4)
    (0.1062, 0.0335)
    """
    xs = np.asarray(x, dtype=np.float64)
    d = np.asarray(estimates, dtype=np.float64)
    se = np.asarray(std_errors, dtype=np.float64)
    if not (xs.shape == d.shape == se.shape and xs.ndim == 1):
        raise ValueError("x, estimates and std_errors must be one-dimensional, of one length")
    if xs.shape[0] < 3:
        raise ValueError(f"a trend needs at least 3 estimates; got {xs.shape[0]}")
    if not (np.isfinite(se).all() and (se > 0).all() and np.isfinite(d).all()):
        raise ValueError("std_errors must be finite and positive, estimates finite")
    w = 1.0 / se**2
    xbar = float(np.sum(w * xs) / np.sum(w))
    dbar = float(np.sum(w * d) / np.sum(w))
    sxx = float(np.sum(w * (xs - xbar) ** 2))
    if not sxx > 0.0:
        raise ValueError("x takes a single value: no slope")
    slope = float(np.sum(w * (xs - xbar) * (d - dbar)) / sxx)
    intercept = dbar - slope * xbar
    std_error = 1.0 / math.sqrt(sxx)
    z = slope / std_error
    q = float(np.sum(w * (d - intercept - slope * xs) ** 2))
    df = xs.shape[0] - 2
    from scipy import stats  # loaded here: importing it takes about half a second

    return {
        "slope": slope,
        "std_error": std_error,
        "z": z,
        "p_value": 2.0 * ndtr(-abs(z)),
        "intercept": intercept,
        "heterogeneity": q,
        "heterogeneity_df": float(df),
        "heterogeneity_p_value": float(stats.chi2.sf(q, df)) if df > 0 else math.nan,
    }


# ------------------------------------------------------------------------------------------------
# The evaluation over windows

_WINDOW_COLUMNS = (
    "window",
    "window_index",
    "window_start",
    "window_end",
    *VALUE_COLUMNS,
    "difference_sd",
    *TEST_COLUMNS,
    "block_length",
)
_STABILITY_COLUMNS = (
    "metric",
    "model",
    "pick",
    "n_windows",
    "clear",
    "same_direction",
    "reversed",
    "other_direction",
    "tied",
    "not_tested",
    "statement",
)
_TREND_COLUMNS = (
    "metric",
    "model",
    "pick",
    "n_windows",
    "slope",
    "std_error",
    "z",
    "p_value",
    "q_value",
    "intercept",
    "heterogeneity",
    "heterogeneity_df",
    "heterogeneity_p_value",
    "unit",
    "statement",
    "reason",
)
#: The fewest windows with an estimated difference a trend is tested on.
MIN_TREND_WINDOWS = 3


def _bounds(values: Sequence[str | None], timezone: str | None) -> pd.Series:
    """ISO 8601 window bounds as pandas times, in their zone (NaT where there is none)."""
    import pandas as pd

    if timezone is not None:
        parsed = pd.to_datetime(list(values), utc=True, format="ISO8601")
        return pd.Series(parsed.tz_convert(timezone))
    return pd.Series(pd.to_datetime(list(values), format="ISO8601"))


@dataclasses.dataclass(frozen=True)
class WindowEvaluation(Result):
    """Every model on every time window: values, intervals, the comparison with the pick, how
    stable the pick's lead is and whether the difference trends.

    What :func:`by_window` returns. :meth:`to_frame` is the long table (one row per window,
    measure and model), :meth:`stability_frame` and :meth:`trend_frame` one row per measure and
    model against the pick, :meth:`summary` the sentences.

    Attributes
    ----------
    models, metrics : tuple of str
        The models (in the order given) and the measures (registry names).
    picks : dict
        ``picks[metric]``: the model the others are compared with (the ``pick`` given, else
        the model best on all the rows on that measure).
    overall : dict
        ``overall[metric][model]``: the value on all the rows.
    windows : tuple of str
        The windows that hold rows, in time order (``"2024-03"``, ``"2024Q1"``,
        ``"2024-01-01/2024-01-07"``, ``"rows 1-250"``).
    window_starts, window_ends : tuple of str or None
        Each window's bounds, ISO 8601 in the times' zone: a calendar window is
        ``start <= t < end``; a window of rows runs from its first row's time to its last's
        (both included); None without ``time``.
    window_index : tuple of int
        Each window's position: periods since the first window's (a gap of empty periods is
        skipped, not closed up), or its rank among the windows of rows. The trend's covariate.
    records : tuple of dict
        The long table's rows (see :meth:`to_frame`).
    stability : tuple of dict
        Per measure and model other than the pick, over the windows: ``clear`` (the pick
        clearly better), ``same_direction`` (the pick ahead, not clearly), ``reversed`` (the
        model clearly better), ``other_direction`` (the model ahead, not clearly), ``tied``,
        ``not_tested`` (too small, undefined or not compared), ``n_windows`` (their sum), and
        ``statement``, one sentence.
    trends : tuple of dict
        Per measure and model other than the pick, the trend of ``value(model) - value(pick)``
        over the windows (:func:`fixed_effect_trend`): ``slope`` (per ``unit``), ``std_error``,
        ``z``, ``p_value``, ``q_value`` (adjusted over the trends, as the verdicts),
        ``intercept``, ``heterogeneity`` (the residual ``Q_E``), ``heterogeneity_df``,
        ``heterogeneity_p_value``, ``n_windows`` (the windows with an estimated difference),
        ``unit``, ``statement``; ``reason`` says why a trend was not tested (``""`` when it
        was), its numbers then NaN.
    window : str or int
        The window asked for: a pandas period alias (``"M"``, ``"W-SUN"``) or rows per window.
    window_kind : str
        ``"calendar"`` or ``"rows"``.
    unit : str
        One step of ``window_index`` (``"month"``, ``"week"``, ``"window"``).
    timezone : str or None
        The times' zone (calendar windows are periods of its wall time), None when naive.
    scheme : str
        How each window's bootstrap resampled its rows (``"stationary"`` by default).
    block_length : float or str
        The block length asked (``"auto"``: each window's own).
    block_lengths : dict
        ``block_lengths[window]``: the block length each compared window's bootstrap drew.
    trend_method : str
        The trend test, in words (:data:`TREND_METHOD`).
    fdr_method : str
        ``"benjamini-hochberg"`` or ``"benjamini-yekutieli"``.
    fdr_level : float
        The false discovery rate the verdicts (and the trends' ``q_value``) control.
    n_tests : int
        The comparisons in the verdicts' family (every pair of models in every window with an
        interval, every measure).
    confidence_level : float
        Of the intervals.
    n_bootstrap : int
        Bootstrap replicates per window.
    min_rows, min_events : int
        The smallest window with an interval, in rows and (for measures of events) events.
    evaluation : SegmentEvaluation
        The evaluation by segment it was built on (the windows as the segments of the slicing
        ``"window"``, the rows in time order).
    events : str or None
        The event definition every window applies, fixed on all the rows.
    notes : tuple of str
        What the reader should know: empty periods, a short last window, rows that were not in
        time order, the time zone.
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    picks: dict[str, str]
    overall: dict[str, dict[str, float]]
    windows: tuple[str, ...]
    window_starts: tuple[str | None, ...]
    window_ends: tuple[str | None, ...]
    window_index: tuple[int, ...]
    records: tuple[dict[str, Any], ...]
    stability: tuple[dict[str, Any], ...]
    trends: tuple[dict[str, Any], ...]
    window: str | int
    window_kind: str
    unit: str
    timezone: str | None
    scheme: str
    block_length: float | str
    block_lengths: dict[str, float]
    trend_method: str
    fdr_method: str
    fdr_level: float
    n_tests: int
    confidence_level: float
    n_bootstrap: int
    min_rows: int
    min_events: int
    evaluation: SegmentEvaluation
    events: Any = None
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The long table: one row per window, measure and model, windows in time order.

        Returns
        -------
        pandas.DataFrame
            Columns ``window, window_index, window_start, window_end, metric, model, value,
            ci_lower, ci_upper, interval_method, n_rows, n_events, status, reason, pick,
            difference, difference_sd, difference_ci_lower, difference_ci_upper, p_value,
            q_value, verdict, block_length``. ``window_start`` and ``window_end`` are pandas
            times in the times' zone (NaT without ``time``); ``difference`` is ``value(model) -
            value(pick)``, ``difference_sd`` its bootstrap standard deviation (the standard
            error of the Wald test and of the trend); ``verdict`` and ``status`` as
            :meth:`ranklens.segments.SegmentEvaluation.to_frame`'s.
        """
        import pandas as pd

        columns = list(_WINDOW_COLUMNS)
        frame = pd.DataFrame(
            [{c: r.get(c) for c in columns} for r in self.records], columns=columns
        )
        numeric = ("value", "ci_lower", "ci_upper", "difference", "difference_sd")
        for column in (*numeric, "p_value", "q_value", "block_length"):
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64")
        for column in ("window_start", "window_end"):
            frame[column] = _bounds(list(frame[column]), self.timezone)
        frame.attrs.update(fdr_method=self.fdr_method, fdr_level=self.fdr_level)
        return frame

    def stability_frame(self) -> pd.DataFrame:
        """How often the pick's lead is clear, not clear or reversed: one row per measure and
        model other than the pick.

        Returns
        -------
        pandas.DataFrame
            Columns ``metric, model, pick, n_windows, clear, same_direction, reversed,
            other_direction, tied, not_tested, statement``.
        """
        import pandas as pd

        columns = list(_STABILITY_COLUMNS)
        return pd.DataFrame([{c: r[c] for c in columns} for r in self.stability], columns=columns)

    def trend_frame(self) -> pd.DataFrame:
        """The trend of each model's difference from the pick over the windows.

        Returns
        -------
        pandas.DataFrame
            Columns ``metric, model, pick, n_windows, slope, std_error, z, p_value, q_value,
            intercept, heterogeneity, heterogeneity_df, heterogeneity_p_value, unit, statement,
            reason``; the method in ``frame.attrs["method"]``.
        """
        import pandas as pd

        columns = list(_TREND_COLUMNS)
        frame = pd.DataFrame([{c: r[c] for c in columns} for r in self.trends], columns=columns)
        frame.attrs.update(method=self.trend_method)
        return frame

    def summary(self) -> str:
        """The stability of the pick's lead and the trends, in sentences.

        Returns
        -------
        str
            For the report and the terminal.
        """
        size = f"calendar {self.unit}s" if self.window_kind == "calendar" else f"{self.window} rows"
        lines = [f"{len(self.windows)} windows ({size})."]
        lines += [f"{s['statement']}." for s in self.stability]
        lines += [f"{t['statement']}." for t in self.trends]
        return " ".join(lines)


def _cell_records(
    records: Sequence[dict[str, Any]],
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The records of each measure and model, windows in time order."""
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in records:
        cells.setdefault((record["metric"], record["model"]), []).append(record)
    return cells


def _listing(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _lead(record: dict[str, Any], pick_record: dict[str, Any], spec: MetricSpec) -> str:
    """Where one window stands: the pick's lead clear, not clear, reversed, ..."""
    verdict = record.get("verdict")
    if verdict == "worse":
        return "clear"
    if verdict == "better":
        return "reversed"
    if verdict != "no clear difference":
        return "not_tested"
    good = spec.goodness([pick_record["value"], record["value"]])
    if not np.isfinite(good).all():
        return "not_tested"
    if good[0] > good[1]:
        return "same_direction"
    return "other_direction" if good[0] < good[1] else "tied"


def _stability(
    records: Sequence[dict[str, Any]], picks: dict[str, str], specs: dict[str, MetricSpec]
) -> tuple[dict[str, Any], ...]:
    """Per measure and model other than the pick: the windows counted by where they stand."""
    cells = _cell_records(records)
    out = []
    for (metric, model), cell in cells.items():
        pick = picks[metric]
        if model == pick:
            continue
        counts = dict.fromkeys(_STABILITY_COLUMNS[4:10], 0)
        for record, pick_record in zip(cell, cells[(metric, pick)], strict=True):
            counts[_lead(record, pick_record, specs[metric])] += 1
        n = len(cell)
        parts = [f"clear in {counts['clear']} of {n} window{'s' if n != 1 else ''}"]
        if counts["same_direction"]:
            parts.append(f"in its direction but not clear in {counts['same_direction']}")
        parts.append(f"reversed in {counts['reversed']}")
        if counts["other_direction"]:
            parts.append(f"the other way but not clear in {counts['other_direction']}")
        if counts["tied"]:
            parts.append(f"tied in {counts['tied']}")
        if counts["not_tested"]:
            parts.append(f"not tested in {counts['not_tested']} (too small or undefined)")
        statement = f"On {metric}, the lead of {pick} over {model} is {_listing(parts)}"
        out.append(
            dict(metric=metric, model=model, pick=pick, n_windows=n, **counts, statement=statement)
        )
    return tuple(out)


def _trend_words(trend: dict[str, Any], level: float, spec: MetricSpec) -> str:
    """What a trend says of the pick's lead (lower is better: ``d = model - pick`` is the
    lead; higher is better: its negative; a target: no direction)."""
    direction = spec.direction
    if not trend["q_value"] <= level:
        return "no clear trend"
    if direction not in ("lower", "higher"):
        return "a clear trend"
    grows = (trend["slope"] > 0) == (direction == "lower")
    return f"the lead of {trend['pick']} {'grows' if grows else 'shrinks'}"


def _trends(
    records: Sequence[dict[str, Any]],
    picks: dict[str, str],
    specs: dict[str, MetricSpec],
    unit: str,
    settings: SegmentSettings,
) -> tuple[dict[str, Any], ...]:
    """Per measure and model other than the pick, the trend of the difference over windows."""
    out = []
    for (metric, model), cell in _cell_records(records).items():
        pick = picks[metric]
        if model == pick:
            continue
        used = [
            r
            for r in cell
            if r["status"] == "estimated"
            and math.isfinite(r.get("difference", math.nan))
            and r.get("difference_sd", math.nan) > 0.0
            and math.isfinite(r["difference_sd"])
        ]
        trend: dict[str, Any] = dict(
            metric=metric, model=model, pick=pick, n_windows=len(used), unit=unit, reason=""
        )
        trend.update(dict.fromkeys(_TREND_COLUMNS[4:13], math.nan))
        if len(used) < MIN_TREND_WINDOWS:
            trend["reason"] = (
                f"{len(used)} window{'s' if len(used) != 1 else ''} with an estimated "
                f"difference, fewer than {MIN_TREND_WINDOWS}"
            )
        else:
            trend.update(
                fixed_effect_trend(
                    [r["window_index"] for r in used],
                    [r["difference"] for r in used],
                    [r["difference_sd"] for r in used],
                )
            )
        out.append(trend)
    q = [float(v) for v in fdr_adjust([t["p_value"] for t in out], settings.fdr)] if out else []
    level = float(settings.fdr_level)
    for trend, q_value in zip(out, q, strict=True):
        trend["q_value"] = float(q_value)
        pair = f"{trend['model']} - {trend['pick']}"
        if trend["reason"]:
            trend["statement"] = (
                f"On {trend['metric']}, no trend test of {pair} ({trend['reason']})"
            )
            continue
        trend["statement"] = (
            f"On {trend['metric']}, {pair} changes by {trend['slope']:+.3g} per {unit} "
            f"(standard error {trend['std_error']:.2g}, p = {trend['p_value']:.2g}, "
            f"{trend['n_windows']} windows): "
            f"{_trend_words(trend, level, specs[trend['metric']])}"
        )
    return tuple(out)


def _window_records(
    evaluation: SegmentEvaluation, windows: TimeWindows
) -> tuple[dict[str, Any], ...]:
    """The evaluation's records with each window's bounds and position."""
    position = {label: i for i, label in enumerate(windows.labels)}
    out = []
    for record in evaluation.records:
        i = position[record["segment"]]
        row: dict[str, Any] = {
            "window": record["segment"],
            "window_index": windows.index[i],
            "window_start": windows.starts[i],
            "window_end": windows.ends[i],
        }
        row.update((k, v) for k, v in record.items() if k not in ("slicing", "segment"))
        out.append(row)
    return tuple(out)


def by_window(
    y_true: Any,
    predictions: Any,
    time: Any = None,
    *,
    window: str | int,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: Any = None,
    groups: Any = None,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    scheme: str = "stationary",
    block_length: float | str = "auto",
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    min_rows: int = 30,
    min_events: int = 10,
    random_state: Any = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
) -> WindowEvaluation:
    """Evaluate and compare the models on every time window, and ask whether the lead holds.

    The rows are put in time order (a stable sort of ``time``) and cut into windows: calendar
    periods of ``time`` (months, quarters, weeks, ...) or runs of ``window`` rows. Every window
    is a segment of :func:`ranklens.segments.by_segment`, which does the rest: every measure for
    every model on the window's rows, its interval from a bootstrap of those rows only (by
    default the stationary bootstrap of Politis & Romano 1994, blocks of consecutive rows of
    the window), each model's paired difference from the pick with its interval, and the
    verdicts of every window, measure and model adjusted together to control the false
    discovery rate.

    Over the windows, for each measure and each model other than the pick:

    * **stability**: in how many windows the pick's lead is clear (the model clearly worse), in
      the same direction but not clear, reversed (the model clearly better), the other way but
      not clear, tied, or not tested (a window too small, an undefined value);
    * **trend**: the fixed-effect meta-regression (Hedges & Olkin 1985; Borenstein et al.
      2009) of the windows' differences ``d_i = value(model) - value(pick)`` on the window
      index ``x_i``, weighted by ``w_i = 1 / s_i^2`` with ``s_i`` the bootstrap standard
      deviation of ``d_i``: the slope ``b = sum w (x - xbar)(d - dbar) / sum w (x - xbar)^2``
      (``xbar``, ``dbar`` weighted means), its standard error ``1 / sqrt(sum w (x - xbar)^2)``
      and ``p = 2 Phi(-|b| / se(b))`` (:func:`fixed_effect_trend`), on the windows with an
      estimated difference (at least 3); the p-values of the trends are adjusted together as
      the verdicts are (``q_value``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The truth.
    predictions : mapping of str to array-like of shape (n,), or DataFrame
        One prediction (or score) per model, at least two models.
    time : array-like of shape (n,), optional
        Each row's time: NumPy ``datetime64``, pandas datetimes (time-zone aware or not),
        polars or Arrow datetimes, Python datetimes, or ISO 8601 strings (anything else, a
        missing time or strings that do not parse are refused, naming ``time``). None: the
        rows are in time order as given (then ``window`` must be a number of rows).
    window : str or int
        A calendar period of ``time``: ``"Y"``, ``"Q"``, ``"M"`` (the calendar month),
        ``"W"`` (weeks from Monday to Sunday), ``"D"``, ``"h"``, ``"min"``, ``"s"``, anchored
        as pandas anchors periods (``"W-MON"``, ``"Q-MAR"``, ``"Y-JUN"``), and pandas' offset
        aliases of the same periods (``"ME"``, ``"QE"``, ``"YE"``); a zone-aware ``time`` is
        cut at the wall-clock boundaries of its zone. Or an int: windows of that many
        consecutive rows in time order (the last one may be shorter). Periods without rows
        have no window; ``notes`` lists them.
    metrics : sequence of str, default :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS`
        Registry names of measures of point predictions.
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights.
    groups : array-like of shape (n,), optional
        Unit ids, resampled whole within each window; only with a scheme that draws no blocks
        (``scheme="multinomial"``), else refused.
    pick : str, optional
        The model every other is compared with; default, per measure, the model best on all
        the rows.
    n_bootstrap : int, default 1000
        Bootstrap replicates per window (0: values only).
    scheme : str, default "stationary"
        How each window's bootstrap resamples its rows, as :func:`ranklens.compare_models`:
        ``"stationary"`` or ``"circular"`` blocks of consecutive rows, or a scheme of single
        rows (``"multinomial"``, ...).
    block_length : float or "auto", default "auto"
        The block length of a block scheme: ``"auto"``, each window's own automatic length
        (Politis & White 2004, corrected by Patton, Politis & White 2009), or a number of rows
        used in every window.
    confidence_level : float, default 0.95
        Of the intervals of the values and the differences (each unadjusted).
    interval : {"auto", "bca", "percentile", "studentized"}, default "auto"
        The bootstrap interval, as :func:`ranklens.compare_models`.
    fdr : {"bh", "by"}, default "bh"
        The false discovery rate procedure of the verdicts and the trends (Benjamini &
        Hochberg 1995, or Benjamini & Yekutieli 2001 under any dependence).
    fdr_level : float, default 0.05
        The false discovery rate.
    min_rows : int, default 30
        A window with fewer rows gets its values and counts, but no interval, no verdict and
        no place in the trend.
    min_events : int, default 10
        For a measure of events, the fewest events and non-events a window needs.
    random_state : int, SeedSequence, Generator or None, default 0
        The seed: window ``j`` (in time order) draws from ``SeedSequence(entropy,
        spawn_key=(0, j))`` of it.
    events, relevance, event_threshold, k, gains : optional
        Task parameters of the measures, as :func:`ranklens.segments.by_segment` (the event
        definition fixed on all the rows, so every window counts the same events).

    Returns
    -------
    WindowEvaluation
        The long table (:meth:`WindowEvaluation.to_frame`), the stability of the pick's lead
        and the trends (:meth:`WindowEvaluation.stability_frame`,
        :meth:`WindowEvaluation.trend_frame`), the settings and :meth:`WindowEvaluation.summary`.

    Raises
    ------
    ValueError
        Naming the argument: ``window`` not a calendar period or a number of rows >= 1 (a
        multiple such as ``"2M"`` is refused), a calendar period without ``time``, ``time`` of
        another length, not times, unparsable or missing, and what
        :func:`ranklens.segments.by_segment` refuses (``groups`` with a block scheme, an
        unknown measure, ``pick`` or ``fdr``, ...).

    See Also
    --------
    ranklens.segments.by_segment : the evaluation by segment this is built on.
    diebold_mariano_test : one test of equal expected loss over all the rows.

    Notes
    -----
    Each window's value is the measure called on that window's rows, exactly. The windows are
    disjoint and their bootstraps independent, so the fixed-effect meta-regression treats the
    differences as independent estimates with known variances; serial dependence that reaches
    across a window's boundary makes that only approximately true. The trend's standard error
    assumes the differences scatter about the line by their own standard errors only: a large
    residual heterogeneity (``heterogeneity``, ``Q_E``, with its chi-squared p-value) says
    they scatter more, and the slope's p-value is then too small. The windows' positions are
    calendar positions, so a gap of empty periods counts as time passed.

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical
    and powerful approach to multiple testing. *Journal of the Royal Statistical Society B*
    57(1), 289-300.

    Borenstein, M., Hedges, L. V., Higgins, J. P. T. and Rothstein, H. R. (2009).
    *Introduction to Meta-Analysis*, chapter 20, "Meta-regression". Wiley.

    Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic
    Press.

    Politis, D. N. and Romano, J. P. (1994). The stationary bootstrap. *Journal of the
    American Statistical Association* 89(428), 1303-1313.

    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import ranklens as rl
    >>> rng = np.random.default_rng(0)
    >>> time = pd.date_range("2024-01-01", periods=360, freq="D")
    >>> y = rng.normal(size=360)
    >>> preds = {"a": y + rng.normal(size=360), "b": y + 1.3 * rng.normal(size=360)}
    >>> result = rl.timeseries.by_window(
    ...     y, preds, time, window="QE", metrics=["mean_absolute_error"], n_bootstrap=200
    ... )
    >>> result.windows
    ('2024Q1', '2024Q2', '2024Q3', '2024Q4')
    >>> print(result.stability[0]["statement"])  # doctest: +NORMALIZE_WHITESPACE
    On mean_absolute_error, the lead of a over b is clear in 3 of 4 windows, reversed in 0
    and the other way but not clear in 1

    """
    return window_evaluation(y_true, predictions, time, window, SegmentSettings.of(locals()))


def window_evaluation(
    y_true: Any, predictions: Any, time: Any, window: str | int, settings: SegmentSettings
) -> WindowEvaluation:
    """Evaluate every time window in memory: the work of :func:`by_window`.

    The rows are put in time order and every window is a segment of the slicing ``"window"``
    (:func:`ranklens.segments.segment_evaluation`), read into the windows' result by
    :func:`window_result`.

    Parameters
    ----------
    y_true, predictions, time, window
        As :func:`by_window`.
    settings : SegmentSettings
        Every other argument of :func:`by_window`.

    Returns
    -------
    WindowEvaluation

    Raises
    ------
    ValueError
        As :func:`by_window`.
    """
    y = as_1d_float(y_true, "y_true")
    n = y.shape[0]
    windows = time_windows(time, window, n)
    order = windows.order
    preds = {m: v[order] for m, v in prediction_columns(predictions, n).items()}
    weight = check_sample_weight(settings.sample_weight, n, normalize=False)
    units = group_labels(settings.groups, n)
    settings = dataclasses.replace(
        settings,
        sample_weight=None if weight is None else weight[order],
        groups=None if units is None else units[order],
    )
    evaluation = segment_evaluation(y[order], preds, _window_labels(windows), settings)
    return window_result(evaluation, windows, settings)


def _window_labels(windows: TimeWindows) -> pd.Series:
    """Each row's window (rows in time order) as the labels of one slicing, ``"window"``, its
    segments in time order."""
    import pandas as pd

    codes = pd.Categorical.from_codes(windows.codes, categories=list(windows.labels))
    return pd.Series(codes, name="window")


def window_result(
    evaluation: SegmentEvaluation, windows: TimeWindows, settings: SegmentSettings
) -> WindowEvaluation:
    """The window evaluation of a by-segment evaluation of the windows: the records with the
    windows' bounds and positions, the stability of the pick's lead and the trends.

    Every engine of :func:`by_window` builds its result here.

    Parameters
    ----------
    evaluation : SegmentEvaluation
        The evaluation of the slicing ``"window"``, its segments the windows in time order.
    windows : TimeWindows
        The windows (their ``labels``, ``starts``, ``ends``, ``index``, ``kind``, ``period``,
        ``unit``, ``timezone`` and ``notes`` are read, not the rows' ``order`` and ``codes``).
    settings : SegmentSettings
        Its ``metrics`` (the measures asked), ``fdr`` and ``fdr_level`` (for the trends) are
        read.

    Returns
    -------
    WindowEvaluation

    References
    ----------
    Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic
    Press.
    """
    metrics = settings.metrics
    names = [metrics] if isinstance(metrics, str | MetricSpec) else list(metrics)
    specs = {
        spec.name: spec
        for spec in (m if isinstance(m, MetricSpec) else get_metric(m) for m in names)
    }
    records = _window_records(evaluation, windows)
    block_lengths = {
        r["window"]: float(r["block_length"]) for r in records if r.get("block_length") is not None
    }
    return WindowEvaluation(
        models=evaluation.models,
        metrics=evaluation.metrics,
        picks=evaluation.picks,
        overall=evaluation.overall,
        windows=windows.labels,
        window_starts=windows.starts,
        window_ends=windows.ends,
        window_index=windows.index,
        records=records,
        stability=_stability(records, evaluation.picks, specs),
        trends=_trends(records, evaluation.picks, specs, windows.unit, settings),
        window=windows.period,
        window_kind=windows.kind,
        unit=windows.unit,
        timezone=windows.timezone,
        scheme=evaluation.scheme,
        block_length=evaluation.block_length,
        block_lengths=block_lengths,
        trend_method=TREND_METHOD,
        fdr_method=evaluation.fdr_method,
        fdr_level=evaluation.fdr_level,
        n_tests=evaluation.n_tests,
        confidence_level=evaluation.confidence_level,
        n_bootstrap=evaluation.n_bootstrap,
        min_rows=evaluation.min_rows,
        min_events=evaluation.min_events,
        evaluation=evaluation,
        events=evaluation.events,
        notes=(*windows.notes, *evaluation.notes),
    )
