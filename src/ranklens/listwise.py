"""Rank-list scores: NDCG for continuous targets and Payne et al.'s rank-distance NDCG.

``ndcg_score`` scores one ranking (the rows of ``y_pred``, best first) against relevance
``y_true``; ``ndcg_by_group`` scores many queries at once. Ties in the prediction are averaged the
way scikit-learn does (``ignore_ties=False``): tied items share the mean of their gains, so the
score does not depend on the arbitrary order of ties. ``rank_distance_ndcg`` is Payne, Li & Qin's
(2016) measure, computed with an exact, overflow-free formula.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ranklens._compute.xp import dcg as _dcg

# ranked_order: a radix argsort, ~3x np.argsort at n = 1e7 (NumPy's stable sort of the same keys
# on small data while the kernel module is not imported, so numba is not imported for it)
from ranklens._compute.xp import ranked_keys as _kcu
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import RankedListForm, ReplicateForm, ReplicateSweep
from ranklens._foundation.registry import register_metric
from ranklens._foundation.results import Result
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_group_codes,
    check_pair,
    check_positive_int,
    check_sample_weight,
)
from ranklens.exceptions import DomainError, warn_undefined

__all__ = ["GroupedNDCGResult", "ndcg_by_group", "ndcg_score", "rank_distance_ndcg"]

_GAINS = ("linear", "exponential")


def _check_common(
    y_true: Any, y_pred: Any, k: Any, gains: Any, sample_weight: Any, min_n: int
) -> tuple[np.ndarray, np.ndarray, float, bool, np.ndarray | None]:
    y, pred = check_pair(y_true, y_pred, min_n=min_n)
    if gains not in _GAINS:
        raise ValueError(f"gains must be one of {_GAINS}; got {gains!r}")
    k_float = math.inf if k is None else float(check_positive_int(k, "k"))
    problem = _check_relevance(y, 0)
    if problem is not None:
        raise problem
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    return y, pred, k_float, gains == "exponential", w


def _check_relevance(y: np.ndarray, offset: int) -> DomainError | None:
    """The error for the first negative relevance of ``y`` (rows ``offset``, ``offset + 1``,
    ... of the data); None when there is none."""
    negative = y < 0
    if not negative.any():
        return None
    first = int(np.flatnonzero(negative)[0])
    return DomainError(
        "y_true must be non-negative for NDCG (it is the relevance gain); "
        f"got {float(y[first])!r} at position {offset + first}. Transform the target first with "
        "a rule fixed in advance (e.g. subtract a known lower bound, or use relevance grades)"
    )


def _ndcg_segment(
    y_sorted: np.ndarray,
    key_sorted: np.ndarray,
    w_sorted: np.ndarray | None,
    start: float,
    y_max: float,
    *,
    k: int | None = None,
    gains: str = "linear",
) -> float:
    """The DCG (gains over ``y_max``) of a run of whole tie blocks after ``start`` positions."""
    if gains not in _GAINS:
        raise ValueError(f"gains must be one of {_GAINS}; got {gains!r}")
    k_float = math.inf if k is None else float(check_positive_int(k, "k"))
    from ranklens._compute.kernels import listwise as _kl  # imports numba

    return float(
        _kl.tie_averaged_dcg_from(
            np.ascontiguousarray(y_sorted, dtype=np.float64),
            np.ascontiguousarray(key_sorted, dtype=np.float64),
            np.ones(0) if w_sorted is None else np.ascontiguousarray(w_sorted, dtype=np.float64),
            w_sorted is not None,
            float(y_max),
            gains == "exponential",
            k_float,
            float(start),
        )
    )


def _ndcg_finalize(
    dcg: float, ideal: float, *, k: int | None = None, gains: str = "linear"
) -> float:
    del k, gains  # they shaped the sums
    return _ratio(float(dcg), float(ideal))


# DCG over the predicted order and IDCG over the true one, each a sum of runs with carry-ins
_NDCG_LIST = RankedListForm(_ndcg_segment, _ndcg_finalize, _check_relevance, params=("k", "gains"))


@dataclasses.dataclass(frozen=True)
class _NdcgSweepState:
    y_by_pred: np.ndarray  # (models, n): y in each model's ranked order
    pred_keys: np.ndarray  # (models, n): the sorted keys (ties in the prediction)
    orders: np.ndarray  # (models, n)
    ideal_y: np.ndarray
    order_true: np.ndarray


def _ndcg_sweep_prepare(y: np.ndarray, preds: np.ndarray, params: Any) -> Any:
    """Each model's ranked order and the ideal order, once (default ``k`` and gains only)."""
    if params or (y < 0).any():
        return None
    ranked = [_kcu.ranked_order(pred) for pred in preds]
    order_true = _kcu.ranked_order(y)[0]
    return _NdcgSweepState(
        y_by_pred=np.stack([y[order] for order, _ in ranked]),
        pred_keys=np.stack([keys for _, keys in ranked]),
        orders=np.stack([order for order, _ in ranked]),
        ideal_y=np.ascontiguousarray(y[order_true]),
        order_true=order_true,
    )


def _ndcg_sweep_evaluate(state: _NdcgSweepState, weights: np.ndarray, wanted: Any) -> Any:
    """Each replicate's NDCG from the orders fixed once: the function's kernel on the
    replicate's weights gathered into those orders, O(n) a replicate and model."""
    n_models, n = state.orders.shape
    out = np.full((weights.shape[0], len(wanted), n_models), np.nan)
    ratios = _dcg.ndcg_sweep_on_numpy_route(state, weights)
    if ratios is not None:
        out[:] = ratios[:, None, :]
        return out
    bounds = np.array([0, n], dtype=np.int64)
    for r in range(weights.shape[0]):
        w = weights[r]
        if not w.sum() > 0:
            continue  # the function refuses weights summing to 0
        w_by_true = np.ascontiguousarray(w[state.order_true])
        for m in range(n_models):
            dcg, ideal = _dcg.grouped_ndcg(
                state.y_by_pred[m],
                state.pred_keys[m],
                np.ascontiguousarray(w[state.orders[m]]),
                state.ideal_y,
                state.ideal_y,
                w_by_true,
                bounds,
                bounds,
                True,
                False,
                math.inf,
                calls=weights.shape[0] * n_models,
            )
            if ideal[0] > 0.0:
                out[r, :, m] = dcg[0] / ideal[0]
    return out


# The bootstrap's replicates without calling the function: orders fixed, weights gathered.
_NDCG_SWEEP = ReplicateSweep(_ndcg_sweep_prepare, _ndcg_sweep_evaluate, "NDCG, orders fixed")


@register_metric(
    "ndcg_score",
    plain_name="NDCG",
    meaning="How close the top of the model's list is to the ideal list (1 = ideal).",
    higher_is_better=True,
    family="listwise",
    batched=ReplicateForm(_NDCG_SWEEP, "ndcg"),
    ranked_list=_NDCG_LIST,
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def ndcg_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    k: int | None = None,
    gains: str = "linear",
    sample_weight: ArrayLike | None = None,
) -> float:
    """Normalised discounted cumulative gain of one ranking by ``y_pred`` (higher is better).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Relevance, >= 0. Negative values raise a ``ValueError``: a gain must be non-negative for
        IDCG to be the best attainable DCG and NDCG to lie in [0, 1], and any automatic shift
        (by the sample minimum, say) would make the score depend on the sample. Transform the
        target with a rule fixed in advance.
    y_pred : array-like of shape (n,)
        Scores; higher is ranked first. One ranking, 1-D (no reshaping as in scikit-learn).
    k : int, optional
        Only the first ``k`` positions count (NDCG@k); default all.
    gains : {"linear", "exponential"}
        ``"linear"``: g(y) = y, as in scikit-learn; scale-free (y in cents or dollars gives the same
        NDCG), hence the default for continuous targets. ``"exponential"``: g(y) = 2^y - 1
        (Burges et al. 2005; Payne et al.'s form), meant for graded relevance 0, 1, 2, ...; it
        depends on the units of y (computed without overflow for any y).
    sample_weight : array-like of shape (n,), optional
        Multiplicities: a row of weight w occupies w consecutive positions, so integer weights
        give exactly the NDCG of the list with rows repeated (what a bootstrap replicate needs).
        Real weights occupy fractional stretches of the list. NDCG is not scale-free in the
        weights: doubling every weight doubles the list length.

    Returns
    -------
    float
        NaN with an ``UndefinedMetricWarning`` when every ``y_true`` is 0 (IDCG = 0; scikit-learn
        returns 0 there).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``DCG@k = sum_{i <= k} g(y_(i)) / log2(i + 1)`` over the rows in decreasing ``y_pred``;
    ``NDCG@k = DCG@k / IDCG@k``, where IDCG ranks by ``y_true`` itself (Payne, Li & Qin 2016,
    "Normalized Discounted Cumulative Gain"; Jarvelin & Kekalainen 2002). Rows tied in ``y_pred``
    share the mean gain of their block (scikit-learn's ``ndcg_score`` with ``ignore_ties=False``),
    so the result never depends on how ties happen to be ordered.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    *ACM Transactions on Information Systems* 20(4), 422-446. doi:10.1145/582415.582418

    Burges, C. et al. (2005). Learning to rank using gradient descent. *Proceedings of the 22nd
    International Conference on Machine Learning (ICML 2005)*, 89-96. doi:10.1145/1102351.1102363

    %(payne2016)s

    Examples
    --------
    >>> round(ndcg_score([3, 2, 1, 0], [0.9, 0.8, 0.1, 0.2]), 4)  # the last two swapped
    0.9854
    """
    y, pred, k_float, exponential, w = _check_common(y_true, y_pred, k, gains, sample_weight, 2)
    n = y.shape[0]
    if w is None and k_float < n / 4:
        # Only the top k can count: keep them (and every tie of the k-th score) in O(n); the
        # ideal list is cut to the k largest y, the predicted one to the rows kept.
        kk = int(k_float)
        ideal_y = np.sort(np.partition(y, n - kk)[n - kk :])[::-1]
        keep = np.flatnonzero(pred >= np.partition(pred, n - kk)[n - kk])
        y, pred = y[keep], pred[keep]
    else:
        ideal_y = None
    order, pred_keys = _kcu.ranked_order(pred)
    if w is None:
        w_by_pred = w_by_true = np.ones(0)
        if ideal_y is None:
            ideal_y = np.sort(y)[::-1]
    else:
        w_by_pred = w[order]
        order_true = _kcu.ranked_order(y)[0]
        ideal_y = y[order_true]
        w_by_true = w[order_true]
    ideal_y = np.ascontiguousarray(ideal_y)
    dcg, ideal = _dcg.grouped_ndcg(
        y[order],
        pred_keys,
        w_by_pred,
        ideal_y,
        ideal_y,
        w_by_true,
        np.array([0, y.shape[0]], dtype=np.int64),
        np.array([0, ideal_y.shape[0]], dtype=np.int64),
        w is not None,
        exponential,
        k_float,
    )
    return _ratio(float(dcg[0]), float(ideal[0]))


def _ratio(dcg: float, ideal: float) -> float:
    if ideal <= 0.0:
        warn_undefined("NDCG is undefined: every y_true is 0, so the ideal DCG is 0")
        return math.nan
    return dcg / ideal


@dataclasses.dataclass(frozen=True, repr=False)
class GroupedNDCGResult(Result):
    """NDCG of every query (group) and their mean.

    Attributes
    ----------
    mean : float
        Unweighted mean NDCG over the groups where it is defined.
    groups : numpy.ndarray
        Group labels, sorted.
    scores : numpy.ndarray
        NDCG per group (NaN where every ``y_true`` of the group is 0).
    sizes : numpy.ndarray of int
        Rows per group.
    n_undefined : int
        Groups left out of the mean because they have no relevant item.
    k : int or None
    gains : str
    """

    mean: float
    groups: np.ndarray
    scores: np.ndarray
    sizes: np.ndarray
    n_undefined: int
    k: int | None
    gains: str


@raises_input_errors(
    "y_true", "y_pred", also=("if ``groups`` has another length or missing labels",)
)
def ndcg_by_group(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    groups: ArrayLike,
    *,
    k: int | None = None,
    gains: str = "linear",
    sample_weight: ArrayLike | None = None,
) -> GroupedNDCGResult:
    """NDCG of each query in a long table (one row per item, ``groups`` naming its query).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Relevance of each item (non-negative).
    y_pred : array-like of shape (n,)
        Scores; each group is ranked by them, highest first.
    groups : array-like of shape (n,)
        The query each row belongs to.
    k : int, optional
        Score only the top k of each query (NDCG@k); default the whole list.
    gains : {"linear", "exponential"}, default "linear"
        ``g(y) = y`` or ``2^y - 1`` (see :func:`ndcg_score`).
    sample_weight : array-like of shape (n,), optional
        Non-negative item weights (see :func:`ndcg_score`).

    Returns
    -------
    GroupedNDCGResult
        NDCG of every query, their mean over queries with a defined NDCG, and the count of
        undefined ones.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Each group is ranked by ``y_pred`` on its own, with the same definition, tie rule, gains and
    weights as :func:`ndcg_score`; the mean is over queries, each counting once. All groups are
    scored in one O(n log n) pass. Groups of one row are allowed (their NDCG is 1).

    Queries with no relevant item (all ``y_true = 0``) have no defined NDCG: they get NaN, are
    left out of the mean and counted in ``n_undefined`` (with an ``UndefinedMetricWarning``).
    Conventions differ here: scikit-learn scores such a query 0, LightGBM 1; apply either to
    ``scores`` if needed.

    NDCG_q@k = DCG_q@k / IDCG_q@k per query q, as in :func:`ndcg_score`; the mean counts each
    query once.

    References
    ----------
    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    *ACM Transactions on Information Systems* 20(4), 422-446. doi:10.1145/582415.582418
    """
    y, pred, k_float, exponential, w = _check_common(y_true, y_pred, k, gains, sample_weight, 1)
    codes, labels = as_group_codes(groups, y.shape[0])
    sizes = np.bincount(codes, minlength=labels.shape[0])
    starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    # by group, then by decreasing score: a stable sort by group of the ranked rows
    order_pred = _kcu.ranked_order(pred)[0]
    order_pred = order_pred[np.argsort(codes[order_pred], kind="stable")]
    order_true = _kcu.ranked_order(y)[0]
    order_true = order_true[np.argsort(codes[order_true], kind="stable")]
    weighted = w is not None
    dcg, ideal = _dcg.grouped_ndcg(
        y[order_pred],
        pred[order_pred],
        w[order_pred] if w is not None else np.ones(0),
        y[order_true],
        y[order_true],
        w[order_true] if w is not None else np.ones(0),
        starts,
        starts,
        weighted,
        exponential,
        k_float,
    )
    defined = ideal > 0.0
    scores = np.full(labels.shape[0], math.nan)
    scores[defined] = dcg[defined] / ideal[defined]
    n_undefined = int((~defined).sum())
    if n_undefined:
        warn_undefined(
            f"{n_undefined} of {labels.shape[0]} group(s) have no relevant item (every y_true is "
            "0, or zero total weight): their NDCG is NaN and they are left out of the mean"
        )
    mean = float(scores[defined].mean()) if defined.any() else math.nan
    return GroupedNDCGResult(
        mean=mean,
        groups=labels,
        scores=scores,
        sizes=sizes,
        n_undefined=n_undefined,
        k=None if k is None else int(k_float),
        gains=gains,
    )


@shared_paragraphs
def rank_distance_ndcg(true_rank: Any, pred_rank: Any, *, n: int, k: int | None = None) -> float:
    """Payne et al.'s (2016) NDCG with rank-distance relevance ``rel_i = max(0, n - |p_i - t_i|)``.

    Parameters
    ----------
    true_rank : array-like of shape (p,)
        True ranks of the listed items (1 = best), distinct, in [1, n]; usually ``1..p``.
    pred_rank : array-like of shape (p,)
        Their predicted ranks, >= 1. They may exceed ``n`` (the paper's third example predicts 50
        among 20 lines): the relevance is then 0.
    n : int
        Total number of items ranked (p <= n).
    k : int, optional
        Score only the first ``k`` positions of the list.

    Returns
    -------
    float
        NDCG in [0, 1]; 1 when every item is predicted at its true rank.

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer; if ``k`` is not a positive integer; if an argument is
        outside its documented range. The message names the argument.

    Notes
    -----
    The list holds the top items by true rank; item i (in increasing true rank ``t_i``) sits at
    position i and has predicted rank ``p_i``. With gains ``2^rel - 1`` and discount
    ``1/log2(i + 1)`` the text's NDCG overflows for n > 1000; ranklens uses the exact, stable
    equivalent:

    ``NDCG = (sum_i w_i 2^(-d_i) - 2^(-n) W) / ((1 - 2^(-n)) W)``,
    ``w_i = 1/log2(i + 1)``, ``W = sum_i w_i``, ``d_i = min(|p_i - t_i|, n)``.

    The paper's three examples (n = 20, top 10) give 0.897583, 0.900211 and 0.914857 (the
    text's example terms drop the "- 1" and its IDCG mixes logarithm bases).

    References
    ----------
    %(payne2016)s

    Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
    *ACM Transactions on Information Systems* 20(4), 422-446. doi:10.1145/582415.582418

    Examples
    --------
    >>> round(rank_distance_ndcg(range(1, 11), [1, 2, 4, 3, 5, 6, 7, 8, 9, 10], n=20), 6)
    0.897583
    """
    t, p = check_pair(true_rank, pred_rank, min_n=1, names=("true_rank", "pred_rank"))
    n = check_positive_int(n, "n")
    if t.shape[0] > n:
        raise ValueError(f"true_rank lists {t.shape[0]} items but n = {n}; need p <= n")
    for name, arr in (("true_rank", t), ("pred_rank", p)):
        if (arr < 1).any():
            first = int(np.flatnonzero(arr < 1)[0])
            raise ValueError(f"{name} must be >= 1; got {float(arr[first])!r} at position {first}")
    if (t > n).any():
        first = int(np.flatnonzero(t > n)[0])
        raise ValueError(
            f"true_rank must be <= n = {n}; got {float(t[first])!r} at position {first}"
        )
    if np.unique(t).size != t.size:
        raise ValueError("true_rank must not repeat a rank; the list order would be ambiguous")
    order = np.argsort(t, kind="stable")
    distance = np.minimum(np.abs(p[order] - t[order]), float(n))
    if k is not None:
        distance = distance[: check_positive_int(k, "k")]
    from ranklens._compute.kernels import listwise as _kl  # imports numba

    return float(_kl.rank_distance_ndcg_kernel(np.ascontiguousarray(distance), n))
