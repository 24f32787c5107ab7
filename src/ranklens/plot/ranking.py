"""The ranking plots of Rosset, Perlich & Zadrozny (2005), Figures 1-3.

The results come from :mod:`ranklens.ranking`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.plot._base import Display, legend_number, percent_axis, share_axes, thin_indices
from ranklens.ranking import concordance_profile, cutoff_auc_curve, rank_lift_curve

__all__ = ["ConcordanceProfileDisplay", "CutoffAUCDisplay", "RankLiftDisplay"]


class ConcordanceProfileDisplay(Display):
    """Figure 1: share of correctly ranked pairs per observation, with its local envelope.

    Cases run left to right in decreasing order of prediction. Dots are each case's share of
    correctly ordered pairs, the faint line above them the locally optimal envelope (the best that
    case could reach if its prediction alone were moved); the thick lines are running means of
    both over ``window`` neighbouring cases, which show where along the ranking the model orders
    well (the distance of the dots from the envelope) and where the envelope itself is low.
    Cases below 50% (strongly out of place, worth a look) are marked. The mean of the dots is the
    normalised tau (the dotted level). One model per axes reads best.

    Parameters
    ----------
    window : int, optional
        Cases per running mean (default ``max(5, n // 25)``); 1 turns the means off.
    """

    _compute = staticmethod(concordance_profile)
    xlabel = "cases by decreasing prediction (share of cases)"
    ylabel = "correctly ranked pairs"
    title = "Concordance profile"
    _legend_loc = "below"

    def __init__(self, result: Any, *, name: str | None = None, window: int | None = None):
        super().__init__(result, name=name)
        self.window = window

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        n = r.fraction_correct.shape[0]
        x = (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)
        idx = thin_indices(x, r.fraction_correct, max_points=max_points)
        color = kwargs.pop("color", None) or _next_color(ax)
        dots = ax.scatter(
            x[idx],
            r.fraction_correct[idx],
            s=kwargs.pop("s", 4),
            color=color,
            alpha=0.45,
            linewidths=0,
            zorder=2,
        )
        envelope = self._line(
            ax,
            x,
            r.envelope,
            max_points=max_points,
            color=color,
            linewidth=0.6,
            alpha=0.35,
            zorder=1,
        )
        artists = [dots, envelope]
        window = self.window if self.window is not None else max(5, n // 25)
        if window > 1 and n > window:
            mean_c = _running_mean(r.fraction_correct, window)
            mean_e = _running_mean(r.envelope, window)
            artists.append(
                self._line(
                    ax,
                    x,
                    mean_c,
                    max_points=max_points,
                    color=color,
                    linewidth=1.8,
                    label=self._label(name, f"τ̃ = {legend_number(r.area)}; running mean"),
                    **kwargs,
                )
            )
            artists.append(
                self._line(
                    ax,
                    x,
                    mean_e,
                    max_points=max_points,
                    color=color,
                    linewidth=1.4,
                    linestyle="--",
                    label="locally optimal envelope, running mean",
                )
            )
        else:
            dots.set_label(self._label(name, f"τ̃ = {legend_number(r.area)}"))
        artists.append(ax.axhline(r.area, color=color, linestyle=":", linewidth=1))
        low = np.flatnonzero(r.fraction_correct < 0.5)
        n_low = low.size
        if low.size > max_points:
            low = low[thin_indices(x[low], r.fraction_correct[low], max_points=max_points)]
        artists.append(
            ax.scatter(
                x[low],
                r.fraction_correct[low],
                marker="x",
                s=16,
                color="#c62828",
                linewidths=0.8,
                zorder=4,
                label=f"below 50% ({n_low:,} cases)",
            )
        )
        ax.set_ylim(0, 1.02)
        share_axes(ax)
        percent_axis(ax.yaxis)
        return artists


def _next_color(ax: Any) -> Any:
    """The axes' next cycle colour (through a public call: draw and remove an empty line)."""
    (probe,) = ax.plot([], [])
    color = probe.get_color()
    probe.remove()
    return color


def _running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Centred moving average (shorter windows at the ends); NaN entries are skipped."""
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    csum = np.concatenate(([0.0], np.cumsum(np.where(finite, v, 0.0))))
    ccount = np.concatenate(([0], np.cumsum(finite)))
    i = np.arange(v.size)
    lo = np.clip(i - window // 2, 0, v.size)
    hi = np.clip(i + (window - window // 2), 0, v.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (csum[hi] - csum[lo]) / (ccount[hi] - ccount[lo])


class CutoffAUCDisplay(Display):
    """Figure 2 (and Figure 5 with several models): the AUC of separating the true top i from
    the rest, at every cutoff i, on an axis stretched by the pairs each cutoff separates.

    With that stretching the area under the curve is the normalised Spearman rho. The top axis
    shows the cutoff as the share of cases counted as "top". A curve high on the left means the
    largest targets are ranked well.
    """

    _compute = staticmethod(cutoff_auc_curve)
    xlabel = "cutoffs, weighted by the pairs they separate"
    ylabel = "AUC at the cutoff"
    title = ""  # the top axis takes the title's place
    _legend_loc = "lower left"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        if r.auc.size == 0:
            return []
        x = np.append(r.x_edges[:-1], r.x_edges[-1])
        y = np.append(r.auc, r.auc[-1])
        kwargs.setdefault("drawstyle", "steps-post")
        summary = f"ρ̃ = {legend_number(r.area)}"
        line = self._model_line(ax, x, y, name, summary, max_points=max_points, **kwargs)
        artists = [line]
        artists += self._once(
            ax,
            "ranklens-cutoff-random",
            lambda: [ax.axhline(0.5, color="0.6", linestyle="--", linewidth=1, label="random")],
        )
        if not any(
            getattr(a, "get_gid", lambda: None)() == "ranklens-cutoff-top" for a in ax.child_axes
        ):
            top = _cutoff_axis(ax, r)
            if top is not None:
                artists.append(top)
        ax.set_xlim(0, 1)
        lo = float(np.nanmin(r.auc)) if np.isfinite(r.auc).any() else 0.0
        ax.set_ylim(min(0.45, lo - 0.02), 1.0)
        return artists


def _cutoff_axis(ax: Any, r: Any) -> Any:
    """Top axis: where the cutoffs at 10%, 25%, ... of cases lie on the stretched x axis."""
    shares = np.array([0.1, 0.25, 0.5, 0.75, 0.9])
    frac = r.fraction_positive
    if frac.size < 2:
        return None
    centers = (r.x_edges[:-1] + r.x_edges[1:]) / 2
    positions = np.interp(shares, frac, centers)
    top = ax.secondary_xaxis("top")
    top.set_gid("ranklens-cutoff-top")
    top.set_xticks(positions)
    top.set_xticklabels([f"{100 * s:g}%" for s in shares], fontsize=7)
    top.set_xlabel("cutoff: share of cases counted as top", fontsize=8)
    return top


class RankLiftDisplay(Display):
    """Figure 3: cumulative inverse rank of the truth captured by targeting the top predictions.

    Between the optimal ordering (dashed) and the worst (dotted); the normalised area between them
    is the normalised Spearman rho. Read it like a lift chart: with 10% of the cases targeted,
    how much of the total inverse rank did the model capture compared to the optimum?
    """

    _compute = staticmethod(rank_lift_curve)
    xlabel = "share of cases targeted (by decreasing prediction)"
    ylabel = "cumulative inverse rank captured"
    title = "Rank lift"
    _legend_loc = "lower right"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        x = r.fraction_targeted
        summary = f"area = {legend_number(r.area)}"
        line = self._model_line(ax, x, r.model, name, summary, max_points=max_points, **kwargs)
        artists = [line]
        artists += self._once(
            ax,
            "ranklens-ranklift-bounds",
            lambda: [
                self._baseline(ax, x, r.optimal, "optimal", max_points=max_points, linestyle="--"),
                self._baseline(ax, x, r.worst, "worst", max_points=max_points),
                self._diagonal(ax, color="0.7", linestyle=None, linewidth=0.8),
            ],
        )
        share_axes(ax, y=True)
        return artists
