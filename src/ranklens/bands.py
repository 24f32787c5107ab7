"""Bootstrap bands for evaluation curves, and where one model beats another.

Rosset, Perlich & Zadrozny (2005), Fig. 5, and (2007), Sect. 6.4: the cutoff AUC curve,
the cumulative-rank lift, the gain and the lift curve of every model are recomputed on paired
bootstrap replicates (the multiplicity weights of :func:`ranklens.compare_models`) and read off a
fixed grid; the result holds pointwise and simultaneous bands and, for each pair of models, the
fraction of replicates in which the first is above the second at each grid point.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import ranklens._inference.device_engine as _device_engine
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.linear_quantiles import linear_interpolation, linear_positions
from ranklens._foundation.results import Result
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_positive_int,
    check_probability,
    check_sample_weight,
)
from ranklens._inference.resampling import (
    Progress,
    Resampler,
    check_predictions,
    quiet,
    resolve_block_length,
)
from ranklens.exceptions import warn_undefined
from ranklens.metrics import available_curves, get_curve

__all__ = ["CurveBandsResult", "curve_bands"]

# --------------------------------------------------------------------------------------------
# curve bands
# --------------------------------------------------------------------------------------------


def _curve_kinds() -> tuple[str, ...]:
    """The registered curves that can carry bands (they say how to read them on a grid)."""
    return available_curves(banded=True)


@dataclasses.dataclass(frozen=True, repr=False)
class CurveBandsResult(Result):
    """Bootstrap bands of a performance curve on a fixed grid, per model and per pair of models.

    Attributes
    ----------
    curve : str
        ``"cutoff_auc"``, ``"rank_lift"``, ``"gain"`` or ``"lift"``.
    models : tuple of str
    x : ndarray, shape (n_grid,)
        The grid: the fraction of positives (the true top fraction) for ``"cutoff_auc"``, the
        fraction targeted otherwise.
    estimate : ndarray, shape (n_models, n_grid)
        The curve of each model on the full sample, read off at ``x``.
    lower, upper : ndarray, shape (n_models, n_grid)
        Pointwise percentile bands at ``confidence_level``.
    simultaneous_lower, simultaneous_upper : ndarray, shape (n_models, n_grid)
        Simultaneous bands: the pointwise percentile band widened (its tail probability
        calibrated) until ``confidence_level`` of the bootstrap curves lie inside it at every x,
        so the whole curve is covered with about that probability, where the pointwise band
        holds at each x separately.
    pairs : tuple of (str, str)
    difference, difference_lower, difference_upper : ndarray, shape (n_pairs, n_grid)
        ``curve(a) - curve(b)`` and its pointwise percentile interval.
    prob_a_beats_b : ndarray, shape (n_pairs, n_grid)
        Fraction of replicates in which model ``a``'s curve is above model ``b``'s at ``x`` (a
        tie, the two values equal within ``1e-12`` of the larger, counts 1/2): Rosset et al.
        (2005), Sect. 5.4, "within a 0.1 to 0.9 cutoff range M1 outperforms M2 more than 95% of
        the time". Every curve here is higher-is-better.
    n_undefined : ndarray, shape (n_models,)
        Replicates in which the curve was undefined (e.g. no events in the resample).
    n_bootstrap : int
    confidence_level : float
    replicates : ndarray, shape (n_bootstrap, n_models, n_grid)
    """

    curve: str
    models: tuple[str, ...]
    x: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    simultaneous_lower: np.ndarray
    simultaneous_upper: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    difference: np.ndarray
    difference_lower: np.ndarray
    difference_upper: np.ndarray
    prob_a_beats_b: np.ndarray
    n_undefined: np.ndarray
    n_bootstrap: int
    confidence_level: float
    replicates: np.ndarray = dataclasses.field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per model and grid point: ``model, x, estimate, lower, upper,
        simultaneous_lower, simultaneous_upper``."""
        n_grid = self.x.shape[0]
        return pd.DataFrame(
            {
                "model": np.repeat(np.array(self.models, dtype=object), n_grid),
                "x": np.tile(self.x, len(self.models)),
                "estimate": self.estimate.ravel(),
                "lower": self.lower.ravel(),
                "upper": self.upper.ravel(),
                "simultaneous_lower": self.simultaneous_lower.ravel(),
                "simultaneous_upper": self.simultaneous_upper.ravel(),
            }
        )

    def pairs_frame(self) -> pd.DataFrame:
        """One row per pair and grid point: ``model_a, model_b, x, difference, difference_lower,
        difference_upper, prob_a_beats_b``."""
        n_grid = self.x.shape[0]
        return pd.DataFrame(
            {
                "model_a": np.repeat(np.array([a for a, _ in self.pairs], dtype=object), n_grid),
                "model_b": np.repeat(np.array([b for _, b in self.pairs], dtype=object), n_grid),
                "x": np.tile(self.x, len(self.pairs)),
                "difference": self.difference.ravel(),
                "difference_lower": self.difference_lower.ravel(),
                "difference_upper": self.difference_upper.ravel(),
                "prob_a_beats_b": self.prob_a_beats_b.ravel(),
            }
        )


def _default_grid(curve: str) -> np.ndarray:
    if curve == "cutoff_auc":
        return np.round(np.arange(1, 100) / 100.0, 2)
    return np.round(np.arange(1, 101) / 100.0, 2)


def _check_grid(grid: Any, curve: str) -> np.ndarray:
    if grid is None:
        return _default_grid(curve)
    x = as_1d_float(grid, "grid")
    if np.any(np.diff(x) <= 0):
        raise ValueError("grid must be strictly increasing")
    low_ok = x[0] > 0 if curve == "lift" else x[0] >= 0
    if not low_ok or x[-1] > 1:
        bounds = "(0, 1]" if curve == "lift" else "[0, 1]"
        raise ValueError(
            f"grid holds fractions and must lie in {bounds} for curve={curve!r}; "
            f"got values from {x[0]!r} to {x[-1]!r}"
        )
    return x


def _curve_reader(curve: str, grid: np.ndarray, events: Any) -> Callable[..., np.ndarray]:
    """``read(y, pred, w) -> values at grid`` for the registered curve ``curve``.

    The curve's own registration says how it is read on a grid (``CurveSpec.on_grid``); the
    event definition goes to the curves that take one.
    """
    spec = get_curve(curve)
    on_grid = spec.on_grid
    if on_grid is None:  # pragma: no cover - _check_curve admits banded curves only
        raise ValueError(f"curve {curve!r} cannot carry bands")
    extra = {"events": events} if "events" in inspect.signature(spec.func).parameters else {}

    def read(y: np.ndarray, pred: np.ndarray, w: np.ndarray | None) -> np.ndarray:
        return on_grid(spec.func(y, pred, sample_weight=w, **extra), grid)

    return read


def _linear_quantiles(ordered: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(a, q, axis=0)`` (method ``"linear"``) from ``ordered = np.sort(a, axis=0)``.

    NumPy's own arithmetic, step for step, so the numbers are the same to the last bit
    (``tests/inference/test_compare_bands.py`` compares them on ties, short columns and the
    bisection's levels): the positions and the interpolation of
    :mod:`ranklens._foundation.linear_quantiles`. Only selecting the
    order statistics differs: a sort once instead of a partition per call (for tied values of
    opposite zero sign the chosen zero may differ in sign, not in value). ``ordered`` holds
    finite values only.
    """
    previous, following, weight = linear_positions(ordered.shape[0], q)
    weight = weight.reshape(weight.shape + (1,) * (ordered.ndim - 1))
    return linear_interpolation(ordered[previous], ordered[following], weight)


def _simultaneous_band(
    reps: np.ndarray, estimate: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise percentile band widened until ``level`` of the replicate curves lie inside.

    The tail probability ``gamma`` of the pointwise band ``[q(gamma/2), q(1 - gamma/2)]`` is
    calibrated by bisection so that the fraction of replicates inside the band at every grid
    point is at least ``level`` (Davison & Hinkley 1997, Sect. 5.4 / 7.x). Unlike a symmetric
    ``estimate +- c sd`` band it respects the curve's range and its skewness at the ends.
    """
    finite = np.isfinite(reps).all(axis=1)
    curves = reps[finite]
    if curves.shape[0] < 2:
        nan = np.full(estimate.shape, math.nan)
        return nan, nan.copy()

    # The bisection asks for about 32 pairs of quantiles of the same replicate curves: one sort
    # of each grid column, then each pair is read off in O(grid) (np.quantile would select
    # again every time; about 0.4 s of a 500-row three-model evaluation).
    ordered = np.sort(curves, axis=0)

    def band(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = _linear_quantiles(ordered, np.array([gamma / 2, 1 - gamma / 2]))
        return lo, hi

    def coverage(gamma: float) -> float:
        lo, hi = band(gamma)
        return float(np.mean(np.all((curves >= lo) & (curves <= hi), axis=1)))

    low, high = 0.0, 1.0 - level  # coverage(0) = 1; the pointwise level is the widest gamma
    if coverage(high) >= level:
        return band(high)
    for _ in range(30):
        mid = 0.5 * (low + high)
        if coverage(mid) >= level:
            low = mid
        else:
            high = mid
    return band(low)


def _pointwise(reps: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - level
    if not np.isnan(reps).any():
        # np.nanquantile's numbers without its loop over columns: on data without NaN it runs
        # the same quantile arithmetic per column (about 5x slower for 1,000 x 3 x 99)
        lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2], axis=0)
        return lo, hi
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        lo, hi = np.nanquantile(reps, [alpha / 2, 1 - alpha / 2], axis=0)
    return lo, hi


@raises_input_errors(
    "y_true",
    "predictions",
    probabilities=("confidence_level",),
    counts=("n_bootstrap",),
    also=("if ``groups`` has another length or missing labels",),
)
@shared_paragraphs
def curve_bands(
    y_true: ArrayLike,
    predictions: Any,
    *,
    curve: str = "cutoff_auc",
    grid: Any = None,
    events: Any = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    random_state: Any = None,
    sample_weight: ArrayLike | None = None,
    show_progress: bool | None = None,
    scheme: str = "multinomial",
    groups: ArrayLike | None = None,
    device: str | None = None,
    block_length: float | str = "auto",
) -> CurveBandsResult:
    """Bootstrap bands for a performance curve, and where model A beats model B along it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    predictions : mapping of str to array-like, or DataFrame
        One prediction (score) vector per model.
    curve : {"cutoff_auc", "rank_lift", "gain", "lift"}, default "cutoff_auc"
        :func:`ranklens.ranking.cutoff_auc_curve` (x = fraction of the truth called positive,
        Rosset et al. 2005, Fig. 2 and 5), :func:`ranklens.ranking.rank_lift_curve` (Fig. 3),
        :func:`ranklens.targeting.gain_curve` or :func:`ranklens.targeting.lift_curve` (x = fraction
        targeted).
    grid : array-like, optional
        Strictly increasing fractions in [0, 1] ((0, 1] for the lift); default 0.01, ..., 0.99
        for the cutoff AUC and 0.01, ..., 1 otherwise. The cutoff AUC is linear in the fraction
        of positives between two cuts; gain and lift are read off their straight segments.
    events : optional
        Event definition of the gain and lift curves (see :func:`ranklens.targeting.gain_curve`;
        default: the true top 10 %). A definition relative to the data (``"top:0.1"``) is
        re-applied in every replicate, as part of the statistic.
    n_bootstrap, confidence_level, random_state, sample_weight, show_progress, scheme, groups
        As in :func:`compare_models` (``groups``: the clustered bootstrap of units;
        ``scheme``: multinomial, Poisson, stratified, auto, or the block schemes
        ``"stationary"`` and ``"circular"`` for rows in time order); the same
        ``random_state``, ``scheme``, ``groups`` and ``block_length`` give the same replicates
        as :func:`compare_models`.
    block_length : float or "auto", default "auto"
        The block length of a block scheme, as in :func:`compare_models`.
    device : {"cpu", "gpu"} or None, default None (where the inputs live)
        None evaluates on a CUDA device when an input lives there (CuPy arrays, DLPack tensors
        of torch or JAX on a GPU), else on the CPU; ``"cpu"`` copies device inputs to the host.
        ``"gpu"`` (aliases ``"cuda"``, ``"cupy"``) evaluates the replicate curves on a CUDA device
        through CuPy (``pip install "ranklens[gpu]"``), for the curves whose sweep has an
        array-namespace form (the cutoff AUC and the rank lift); the others raise a
        ``ValueError`` naming the curve. Multinomial replicates are then drawn on the device
        (reproducible from ``random_state``, as in ``compare_models(device="gpu")``, but not the
        CPU's draws); for the same replicate weights the curves equal the CPU's (integer weights
        summed exactly in int64).

    Returns
    -------
    CurveBandsResult
        Pointwise and simultaneous (sup-t) bands per model; per pair the difference with its
        pointwise interval and the fraction of replicates in which ``a`` is above ``b``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rosset et al. (2005), Sect. 5.4 (Figure 5) and (2007), Sect. 6.4: the AUC at every cutoff for
    two models, with a bootstrap of their difference ("within a 0.1 to 0.9 cutoff range M1
    outperforms M2 more than 95% of the time"; "the differences in AUC are significant at these
    cutoffs"). The same paired resampling as :func:`compare_models` (one multiplicity vector per
    replicate shared by all models), each curve recomputed with case weights ``multiplicity *
    sample_weight`` and read off at a fixed grid.

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s

    %(efron1987)s
    """
    if curve not in _curve_kinds():
        raise ValueError(f"curve must be one of {_curve_kinds()}; got {curve!r}")
    on_device = _device_engine.resolve_device(device, y_true, predictions, sample_weight) == "gpu"
    y, names, preds = check_predictions(y_true, predictions)
    n = y.shape[0]
    sw = check_sample_weight(sample_weight, n, normalize=False)
    x = _check_grid(grid, curve)
    n_boot = check_positive_int(n_bootstrap, "n_bootstrap", minimum=2)
    level = check_probability(confidence_level, "confidence_level")
    progress = show_progress
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"show_progress must be True, False or None; got {progress!r}")
    resampler = Resampler.resolve(
        scheme, groups, y, resolve_block_length(block_length, scheme, y, preds)
    )
    if on_device:  # refuse before any work: a curve without the device sweep, or no device
        _device_engine.device_curve_sweep(get_curve(curve))
        _device_engine.device_namespace()
    read = _curve_reader(curve, x, events)
    n_models = len(names)
    estimate = np.stack([read(y, pred, sw) for pred in preds])

    rng = np.random.default_rng(random_state)
    boot_rng, _ = rng.spawn(2)  # the same replicates as compare_models with this random_state
    reps = np.empty((n_boot, n_models, x.shape[0]))
    # A curve that declares a sweep form is read per replicate from weighted sums over an order
    # sorted once; the others are recomputed by their function per replicate and model.
    sweep = get_curve(curve).sweep
    states = None
    if not on_device and sweep is not None and (sw is None or np.all(sw > 0)):
        states = [sweep.prepare(y, pred) for pred in preds]
        # used only where it reproduces the curve function on the full sample
        full = np.ones((1, n)) if sw is None else sw[None, :]
        for m in range(n_models):
            with quiet():
                check = sweep.evaluate(states[m], full, x)[0]
            if not np.allclose(check, estimate[m], rtol=1e-9, atol=1e-12, equal_nan=True):
                states = None
                break
    with Progress(n_boot, f"{curve} bands", progress) as bar:
        if on_device:  # the replicate curves on the GPU (ranklens._inference.device_engine)
            with quiet():
                reps = _device_engine.curve_band_replicates(
                    get_curve(curve),
                    y,
                    preds,
                    sw,
                    x,
                    estimate,
                    resampler,
                    boot_rng,
                    n_boot,
                    bar.advance,
                )
        start = 0
        for block in () if on_device else resampler.blocks(boot_rng, n_boot):
            if states is not None and sweep is not None:
                w_block = block if sw is None else block * sw[None, :]
                with quiet():
                    for m in range(n_models):
                        reps[start : start + block.shape[0], m] = sweep.evaluate(
                            states[m], w_block, x
                        )
                start += block.shape[0]
                bar.advance(block.shape[0])
                continue
            with quiet():
                for r, counts in enumerate(block):
                    w = counts if sw is None else counts * sw
                    for m, pred in enumerate(preds):
                        try:
                            reps[start + r, m] = read(y, pred, w)
                        except (ValueError, ZeroDivisionError, FloatingPointError):
                            reps[start + r, m] = math.nan
            start += block.shape[0]
            bar.advance(block.shape[0])

    undefined = ~np.isfinite(reps).all(axis=2)
    n_undefined = undefined.sum(axis=0)
    reps[undefined] = math.nan
    for m, name in enumerate(names):
        if n_undefined[m] and np.isfinite(estimate[m]).all():
            warn_undefined(
                f"the {curve} curve of model {name!r} is undefined in {int(n_undefined[m])} of "
                f"{n_boot} bootstrap replicates (e.g. no events in the resample); they are left "
                "out of its bands",
                stacklevel=2,
            )
    lower, upper = _pointwise(reps, level)
    sim = [_simultaneous_band(reps[:, m], estimate[m], level) for m in range(n_models)]
    pair_index = list(itertools.combinations(range(n_models), 2))
    diffs = np.stack([reps[:, a] - reps[:, b] for a, b in pair_index]) if pair_index else None
    if diffs is None:
        empty = np.empty((0, x.shape[0]))
        difference = diff_lo = diff_hi = beats = empty
    else:
        difference = np.stack([estimate[a] - estimate[b] for a, b in pair_index])
        diff_lo, diff_hi = _pointwise(np.moveaxis(diffs, 0, 1), level)
        beats = _beats(reps, pair_index, diffs)
    return CurveBandsResult(
        curve=curve,
        models=names,
        x=x,
        estimate=estimate,
        lower=lower,
        upper=upper,
        simultaneous_lower=np.stack([s[0] for s in sim]),
        simultaneous_upper=np.stack([s[1] for s in sim]),
        pairs=tuple((names[a], names[b]) for a, b in pair_index),
        difference=difference,
        difference_lower=diff_lo,
        difference_upper=diff_hi,
        prob_a_beats_b=beats,
        n_undefined=n_undefined,
        n_bootstrap=n_boot,
        confidence_level=level,
        replicates=reps,
    )


#: Two replicate values closer than this, relative to the larger, are a tie: curves that are
#: equal in exact arithmetic differ by round-off, whose sign would otherwise decide a win.
TIE_RTOL = 1e-12


def _beats(reps: np.ndarray, pair_index: list[tuple[int, int]], diffs: np.ndarray) -> np.ndarray:
    """Per pair and grid point, the fraction of replicates in which ``a`` is above ``b``, ties
    (equal within :data:`TIE_RTOL` of the larger value) counting 1/2; NaN replicates are left
    out, and a point without any is NaN.

    A relative tie keeps the win counts from depending on round-off: curves computed from case
    weights ``w`` and ``1000 w`` are equal in exact arithmetic but not to the last bit.
    """
    wins = np.empty((len(pair_index), reps.shape[2]))
    valid_counts = np.empty_like(wins)
    for k, (a, b) in enumerate(pair_index):
        d = diffs[k]
        valid = np.isfinite(d)
        scale = np.maximum(np.abs(reps[:, a]), np.abs(reps[:, b]))
        with np.errstate(invalid="ignore"):
            tie = np.abs(d) <= TIE_RTOL * scale
        wins[k] = np.where(valid, np.where(tie, 0.5, (d > 0).astype(np.float64)), 0.0).sum(axis=0)
        valid_counts[k] = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins / valid_counts


# --------------------------------------------------------------------------------------------
# agreement between two models' rankings
