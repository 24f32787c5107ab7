"""Bootstrap bands of a curve and where one model beats another (Rosset et al. 2005, Fig. 5;
:func:`ranklens.bands.curve_bands`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ranklens.bands import curve_bands
from ranklens.plot._base import Display

__all__ = ["BeatProbabilityDisplay", "CurveBandsDisplay"]

_X_LABELS = {
    "cutoff_auc": "cutoff: share of cases counted as top",
    "rank_lift": "share of cases targeted",
    "gain": "share targeted",
    "lift": "share targeted",
}
_Y_LABELS = {
    "cutoff_auc": "AUC at the cutoff",
    "rank_lift": "cumulative inverse rank captured",
    "gain": "share of events captured",
    "lift": "lift",
}


class _BandsBase(Display):
    """Displays of a :class:`~ranklens.bands.CurveBandsResult` (all its models at once)."""

    _compute = staticmethod(curve_bands)

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        predictions: Mapping[str, Any],
        *,
        ax: Any = None,
        name: str | None = None,
        plot_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run :func:`ranklens.bands.curve_bands` on ``{model: y_pred}`` and draw it."""
        result = cls._compute_result(y_true, predictions, **kwargs)
        return cls(result, name=name).plot(ax=ax, **dict(plot_kwargs or {}))

    def _labels(self, ax: Any) -> None:
        curve = self.result.curve
        if not ax.get_xlabel():
            ax.set_xlabel(_X_LABELS.get(curve, "x"))
        ax.set_xlim(0, 1)
        from matplotlib.ticker import PercentFormatter

        ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))


class CurveBandsDisplay(_BandsBase):
    """Each model's curve with its bootstrap band (Rosset et al. 2005, Fig. 5, for
    ``curve="cutoff_auc"``).

    The shaded band is pointwise (at each x separately); with ``simultaneous=True`` the dashed
    lines add the simultaneous band, which covers the whole curve with the stated confidence.
    Unlike :class:`CutoffAUCDisplay`, the x axis here is the plain share of cases (the grid the
    bootstrap was read on).
    """

    _legend_loc = "lower left"

    def __init__(self, result: Any, *, name: str | None = None, simultaneous: bool = False):
        super().__init__(result, name=name)
        self.simultaneous = simultaneous

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        level = round(100 * r.confidence_level)
        artists = []
        # Several models' fills stack into one smear: past two models each band is drawn
        # fainter, and its edges as thin lines of the model's colour show where it ends.
        many = len(r.models) > 2
        for m, model in enumerate(r.models):
            line = self._line(ax, r.x, r.estimate[m], max_points=max_points, label=model, **kwargs)
            color = line.get_color()
            band = self._band(
                ax,
                r.x,
                r.lower[m],
                r.upper[m],
                max_points=max_points,
                color=color,
                alpha=0.08 if many else 0.18,
            )
            artists += [line, band]
            if many:
                for edge in (r.lower[m], r.upper[m]):
                    artists.append(
                        self._line(ax, r.x, edge, max_points=max_points, color=color, linewidth=0.5)
                    )
            if self.simultaneous:
                for edge in (r.simultaneous_lower[m], r.simultaneous_upper[m]):
                    artists.append(
                        self._line(
                            ax,
                            r.x,
                            edge,
                            max_points=max_points,
                            color=color,
                            linestyle="--",
                            linewidth=0.8,
                        )
                    )
        if r.curve == "cutoff_auc":
            artists += self._once(
                ax,
                "ranklens-bands-random",
                lambda: [ax.axhline(0.5, color="0.6", linestyle=":", linewidth=1)],
            )
        if not ax.get_title():
            ax.set_title(
                f"{_Y_LABELS.get(r.curve, r.curve)}: {level}% bootstrap bands "
                f"({r.n_bootstrap} replicates)",
                fontsize=10,
            )
        if not ax.get_ylabel():
            ax.set_ylabel(_Y_LABELS.get(r.curve, r.curve))
        self._labels(ax)
        return artists


class BeatProbabilityDisplay(_BandsBase):
    """For each pair of models, the share of bootstrap replicates in which the first model's
    curve is above the second's, along the curve (Rosset et al. 2005, Sect. 5.4: "within a 0.1 to
    0.9 cutoff range M1 outperforms M2 more than 95% of the time").

    Dotted lines mark 95% and 5%: outside them one model is ahead in at least 95% of resamples.
    """

    ylabel = "share of replicates where a beats b"
    _legend_loc = "best"

    def __init__(self, result: Any, *, name: str | None = None, pairs: Any = None):
        super().__init__(result, name=name)
        wanted = None if pairs is None else {tuple(p) for p in pairs}
        self.pairs = [
            k for k, pair in enumerate(result.pairs) if wanted is None or tuple(pair) in wanted
        ]

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        artists = []
        for k in self.pairs:
            a, b = r.pairs[k]
            artists.append(
                self._line(
                    ax,
                    r.x,
                    r.prob_a_beats_b[k],
                    max_points=max_points,
                    label=f"{a} beats {b}",
                    **kwargs,
                )
            )
        artists += self._once(
            ax,
            "ranklens-beats-levels",
            lambda: (
                [
                    ax.axhline(level, color="0.5", linestyle=":", linewidth=1)
                    for level in (0.05, 0.95)
                ]
                + [ax.axhline(0.5, color="0.8", linewidth=0.8)]
            ),
        )
        if not ax.get_title():
            ax.set_title(
                f"Where one model beats another ({_Y_LABELS.get(r.curve, r.curve)})", fontsize=10
            )
        ax.set_ylim(-0.02, 1.02)
        self._labels(ax)
        return artists
