"""The settings of a run of :func:`ranklens.dask.evaluate` and the plan of its passes, decided
before any read."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._foundation.registry import MetricSpec
from ranklens.dask import _delong as _dl
from ranklens.dask import _engine as _e
from ranklens.dask import _lagged as _lag
from ranklens.dask import _listwise as _lw
from ranklens.dask import _noether as _nt
from ranklens.dask import _robustness as _rb
from ranklens.dask import _sums as _s
from ranklens.dask._blocks import BlockKey


def check_inference(inference: str, n_bootstrap: int, groups: str | None) -> None:
    """Refuse an ``inference`` the engine has no method for, or replicates it would lack."""
    if inference not in ("auto", "bootstrap"):
        raise ValueError(f"inference must be 'auto' or 'bootstrap'; got {inference!r}")
    if inference == "bootstrap" and not n_bootstrap:
        raise ValueError("inference='bootstrap' needs n_bootstrap replicates (>= 2)")
    if groups is not None and not n_bootstrap:
        # Units only matter to the bootstrap: analytic intervals assume independent rows, so
        # with units and no replicates there would be no interval the units could change.
        raise ValueError(
            f"groups={groups!r} needs n_bootstrap replicates (>= 2): the units are resampled "
            "by the bootstrap, and the analytic intervals assume independent rows"
        )


def prediction_columns(predictions: Sequence[str] | str) -> list[str]:
    """The prediction columns, one per model, as a list (at least one)."""
    preds = [predictions] if isinstance(predictions, str) else list(predictions)
    if not preds:
        raise ValueError("predictions: give at least one prediction column")
    return preds


@dataclass(frozen=True)
class Options:
    """The settings of one run: the arguments of :func:`ranklens.dask.evaluate` of the same
    names, with ``y`` its ``y_true``, ``preds`` its ``predictions`` as a list, ``weight`` its
    ``sample_weight``, ``measures`` its ``metrics`` and ``intervals`` a dict (empty without
    intervals)."""

    y: str
    preds: list[str]
    weight: str | None
    groups: str | None
    measures: Sequence[str] | None
    events: Any
    intervals: dict[str, tuple[str, str]]
    alpha: float | None
    relevance: Any
    event_threshold: float | None
    n_bins: int
    exact: bool
    n_bootstrap: int
    random_state: int
    confidence_level: float
    n_buckets: int | None
    title: str
    storage_options: dict[str, Any] | None
    curve_arrays: bool
    cost_benefit: Any
    budget: float | None
    cost_per_target: float | None
    value_margin: float | None
    inference: str
    k: int | None
    gains: str | None
    robustness: bool
    row_plots: bool
    #: The block bootstrap's key (:class:`ranklens.dask._blocks.BlockKey`), None for rows or units.
    blocks: BlockKey | None = None

    @property
    def unit(self) -> bool:
        """Whether every row counts once (no weight column)."""
        return self.weight is None

    @property
    def resampled_alike(self) -> bool:
        """Whether the replicates weigh rows one by one (no units, no blocks): only then do the
        analytic intervals, which assume independent rows, stand beside them."""
        return self.groups is None and self.blocks is None

    @property
    def block_rows(self) -> int | None:
        """Rows per block over the rows' positions (None: no blocks, or blocks in a column)."""
        return None if self.blocks is None else self.blocks.length

    @property
    def key_words(self) -> str:
        """What the replicates are keyed by, in words."""
        if self.blocks is not None:
            return self.blocks.words
        return f"groups {self.groups!r}" if self.groups else "row position"

    @property
    def labels(self) -> list[str]:
        """The columns read as they are, not as float64: the unit labels."""
        return [self.groups] if self.groups else []

    @property
    def columns(self) -> list[str]:
        """The columns of the engine's passes: the truth, the predictions, weight and units."""
        return list(
            dict.fromkeys(
                [
                    self.y,
                    *self.preds,
                    *([self.weight] if self.weight else []),
                    *([self.groups] if self.groups else []),
                ]
            )
        )

    @property
    def every_column(self) -> list[str]:
        """:attr:`columns` and the bounds of the prediction intervals."""
        bounds = [c for pair in self.intervals.values() for c in pair]
        return list(dict.fromkeys([*self.columns, *bounds]))

    @property
    def ranked_list_params(self) -> dict[str, Any]:
        """NDCG's task parameters, passed by name (None: the measure's default)."""
        return {"k": self.k, "gains": self.gains}

    @property
    def measure_context(self) -> dict[str, Any]:
        """The parameters the measures of their own passes take by name."""
        return {
            "alpha": self.alpha,
            "relevance": self.relevance,
            "event_threshold": self.event_threshold,
        }

    @property
    def replicates(self) -> dict[str, Any] | None:
        """The replicates' numbers and seed, as the passes of their own take them (None
        without replicates)."""
        if not self.n_bootstrap:
            return None
        return dict(reps=np.arange(int(self.n_bootstrap)), seed=_s.poisson_seed(self.random_state))


@dataclass(frozen=True)
class PassPlan:
    """Which passes a run makes and what they carry, decided from its settings before any read.

    Attributes
    ----------
    specs : Any
        The engine's plan (:func:`ranklens.dask._engine.plan`) less the measures claimed by
        passes of their own: its ``ratio``, ``sweep`` and ``curve`` measures and the
        ``unsupported`` ones with the reason.
    claimed, listed, lagged : Any
        The measures of passes of their own: sums and medians (:mod:`ranklens.dask._sums`),
        ranked lists (:mod:`ranklens.dask._listwise`), lag-scaled (:mod:`ranklens.dask._lagged`).
    table_specs, table_rules : list
        The robustness table's measures and their leave-one-out rules (none without it).
    robust_here : bool
        Whether the table comes from this run's passes (this run is the table's own), not from
        runs of its own after them.
    want_curves : bool
        Whether the ranked curves are read (and with them the event threshold, the decile table
        and DeLong's interval of the AUC).
    want_pairs : bool
        Whether the rows are shuffled by truth (the rank correlations, the cutoff AUC).
    noether : bool
        Whether the shuffles give Noether's interval of Kendall's tau.
    delong_c, delong_auc : bool
        Whether the shuffles give DeLong's variances of Harrell's C, covariances of the AUC.
    depths : numpy.ndarray
        The depths of the lifts asked for, in increasing order.
    """

    specs: Any
    claimed: Any
    listed: Any
    lagged: Any
    table_specs: list[MetricSpec]
    table_rules: list[Any]
    robust_here: bool
    want_curves: bool
    want_pairs: bool
    noether: bool
    delong_c: bool
    delong_auc: bool
    depths: np.ndarray

    @property
    def ratio_forms(self) -> list[Any]:
        """The ratio-of-sums forms of the ratio measures, in order."""
        return [spec.capabilities.batched for spec in self.specs.ratio]

    @property
    def robust_forms(self) -> list[Any]:
        """The forms of the table's losses whose per-row values the scan keeps (this run's
        passes computing the table)."""
        return [
            spec.capabilities.batched
            for spec, r in zip(self.table_specs, self.table_rules, strict=True)
            if self.robust_here and r is _rb.LOSS
        ]

    @property
    def robust_tau(self) -> bool:
        """Whether the shuffles find the table's candidate rows of Kendall's tau."""
        return self.robust_here and _rb.TAU in self.table_rules

    @property
    def robust_rho(self) -> bool:
        """Whether the shuffles find the table's candidate rows of Spearman's rho."""
        return self.robust_here and _rb.RHO in self.table_rules

    @property
    def robust_rows(self) -> bool:
        """Whether per-row counts and positions travel through the shuffles for the table."""
        return self.robust_tau or self.robust_rho

    @property
    def per_row(self) -> bool:
        """Whether the shuffles count each row's pairs (Noether's interval, the table's rules)."""
        return self.noether or self.robust_rows

    @property
    def chain(self) -> bool:
        """Whether the shuffles are chained: every model's columns on the rows of the last."""
        return self.want_pairs or self.delong_auc


def plan_passes(options: Options) -> PassPlan:
    """The passes of a run, from its settings alone.

    Raises
    ------
    ValueError
        When prediction intervals come without ``alpha``, or a measure is not registered.
    """
    if options.intervals and options.alpha is None:
        raise ValueError(
            "alpha is required with prediction intervals (a central 1 - alpha interval); got None"
        )
    requested = _e.plan(options.measures)
    specs, claimed = _s.claim(requested, bool(options.intervals))
    specs, listed = _lw.claim(specs)  # ranked-list measures (NDCG): ranklens.dask._listwise
    specs, lagged = _lag.claim(specs)  # lag-scaled measures (pmap): ranklens.dask._lagged
    # the robustness table: in these passes when this run is the table's own (unweighted, its
    # measures and no others), else by unweighted runs of its own after these passes, one model
    # a run (the table is unweighted, as in memory). Its per-row columns (each row's position,
    # Spearman's leave-one-out sums) and Spearman's extra shuffle never ride along the report's
    # shuffles, which at 1e8 rows already fill workers of 1 GiB.
    table_specs = _rb.table_specs() if options.robustness and options.exact else []
    table_rules = [_rb.rule(spec) for spec in table_specs]
    swept = {spec.name for spec in specs.sweep}
    asked = [s.name for s in [*requested.ratio, *requested.sweep, *requested.curve]]
    robust_here = (
        bool(table_specs)
        and options.unit
        and {*asked, *requested.unsupported} <= {spec.name for spec in table_specs}
        and all(
            r is _rb.LOSS or spec.name in swept
            for spec, r in zip(table_specs, table_rules, strict=True)
        )
    )
    # the ranked curves (and with them the event threshold, the decile table and DeLong's
    # interval of the AUC) only where something asks for them: a run of rank correlations alone
    # reads the data neither for the threshold nor for the curve pieces
    want_curves = (
        bool(specs.curve) or options.curve_arrays or bool(options.n_bootstrap) or not options.exact
    )
    want_pairs = bool(specs.sweep) or options.curve_arrays  # the cutoff AUC: the truth shuffle
    # DeLong's interval of Harrell's C and the paired tests of the AUC and C: per-row counts
    # travelling with the rows through the chained shuffles (ranklens.dask._delong); with
    # units (groups) the comparison is the replicates' throughout, as in memory
    analytic = options.inference == "auto" and options.resampled_alike
    return PassPlan(
        specs=specs,
        claimed=claimed,
        listed=listed,
        lagged=lagged,
        table_specs=table_specs,
        table_rules=table_rules,
        robust_here=robust_here,
        want_curves=want_curves,
        want_pairs=want_pairs,
        # Noether's interval of tau (unweighted, as in memory): exact per-row sums of the shuffles
        noether=options.unit and want_pairs and any(_nt.wanted(spec) for spec in specs.sweep),
        delong_c=analytic and want_pairs and _dl.wanted(specs.sweep, _dl.HARRELL_C),
        delong_auc=analytic and len(options.preds) >= 2 and _dl.wanted(specs.curve, _dl.AUC),
        depths=_depths(specs.curve, want_curves),
    )


def _depths(curve: Sequence[MetricSpec], want_curves: bool) -> np.ndarray:
    """The depths at which the curve pieces read the lift: those of the measures read at a
    depth, and with the curves :data:`ranklens.evaluation.HEADLINE_DEPTH` (the counts at depth
    of a 0/1 target, ``extras["at_depth"]``, without a budget)."""
    from ranklens.evaluation import HEADLINE_DEPTH

    depths = {d for d in map(_depth, curve) if d is not None}
    if want_curves:
        depths.add(HEADLINE_DEPTH)
    return np.array(sorted(depths))


def _depth(spec: MetricSpec) -> float | None:
    """The depth of a curve measure read at one depth (a lift), else None."""
    curve = spec.capabilities.curve
    return None if curve is None else curve.depth


class Clock:
    """The wall time of each phase of a run (``extras["seconds"]``); a phase timed in pieces
    adds them up."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._since = time.perf_counter()

    def lap(self, name: str) -> None:
        """Charge the time since the last lap to the phase ``name``."""
        now = time.perf_counter()
        self.timings[name] = round(self.timings.get(name, 0.0) + now - self._since, 3)
        self._since = now
