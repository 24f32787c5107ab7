"""Render :class:`~ranklens.report.ModelEvaluation` objects as one self-contained HTML file.

The renderer only reads result objects; it never recomputes a measure. Plots are drawn from the
stored curves by :mod:`ranklens.plot` and embedded as inline SVG, styles are inline, and there is
no script and no external resource, so the file opens anywhere without a network.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import pathlib
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ranklens._format import format_number, result_html
from ranklens._registry import FAMILIES, direction_of, shaded_positions
from ranklens._version import __version__
from ranklens.report.adapters import (
    comparison_intervals,
    comparison_tables,
    robustness_tables,
    section_tables,
)
from ranklens.report.figures import build_figures
from ranklens.report.tables import Cell, Row, Section, Table
from ranklens.report.tables import header as _header

__all__ = [
    "format_number",
    "render_html",
    "result_html",
    "write_html",
    "write_text_atomic",
    "write_texts_atomic",
]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


# --------------------------------------------------------------------------------------------
# Reading guides: what to look at in each section, in a few sentences.

GUIDES = {
    "summary": (
        "One row per registered measure, one column per model; the best value in each row is "
        "shaded, using the measure's direction (&uarr; higher is better, &darr; lower is better). "
        "With a bootstrap comparison, the small numbers under a value are its confidence interval: "
        "two models whose intervals overlap widely are not clearly different. Residual measures "
        "(MSE, MAE) can be dominated by a few large targets; the rank measures (Kendall's tau, "
        "Spearman's rho and their [0, 1] forms) ask only whether the model orders the cases "
        "correctly, which is what targeting needs (Rosset et al. 2005)."
    ),
    "comparison": (
        "Each row compares two models on one measure with a paired bootstrap: the difference "
        "(first minus second), its bootstrap standard deviation, the Gaussian p-value and an "
        "interval for the difference (the layout of Rosset et al. 2005, Table 2). A small p-value "
        "with an interval that excludes zero means the difference is unlikely to be resampling "
        "noise. The band plots show where along the ranking one model beats the other."
    ),
    "ranking": (
        "<em>Concordance profile</em> (Rosset et al. 2005, Fig. 1): each dot is a case, taken in "
        "decreasing order of prediction, at the share of pairs it orders correctly; the thick "
        "lines are running means of the dots and of the locally optimal envelope (the best the "
        "case could reach if its prediction alone were moved). A gap between the two lines is "
        "local misordering; red crosses below 50% are cases strongly out of place, worth a "
        "closer look. The dotted level is the normalised tau. <em>AUC by cutoff</em> (Fig. 2): "
        "the AUC of separating the true top i from the rest, at every cutoff, on an axis "
        "stretched so the area under the curve equals the normalised rho; a curve high on the "
        "left means the largest targets are ranked well. <em>Rank lift</em> (Fig. 3): "
        "cumulative inverse rank captured when targeting the top fraction by prediction, "
        "between the worst and the optimal ordering."
    ),
    "targeting": (
        "Targeting curves treat the top of the prediction ranking as the customers to contact "
        "(Provost &amp; Fawcett 2013, ch. 8). <em>Gain</em>: share of events (or of the "
        "total target value) captured against the share targeted; the diagonal is random "
        "targeting. <em>Lift</em>: gain divided by the share targeted (lift 2 = twice as good as "
        "random). <em>ROC</em>: true against false positive rate. <em>Profit</em>: money made "
        "against depth; the vertical line is the most the budget can pay for. Where curves cross, "
        "the better model depends on how many you can target."
    ),
    "extremes": (
        "Rare extreme values (Torgo &amp; Ribeiro 2009): the relevance function phi(y) says how "
        "much each target value matters (0 = ordinary, 1 = an extreme worth catching). Precision "
        "asks how many predicted extremes were real and accurate, recall how many real extremes "
        "were predicted accurately. The agreement plot ranks many models by an average error and "
        "by the F measure: points far from the diagonal are models the two disagree on, so choose "
        "the measure that matches the use."
    ),
    "errors": (
        "<em>REC</em> (Bi &amp; Bennett 2003): share of cases predicted within each error "
        "tolerance; higher and further left is better, and the area over the curve estimates the "
        "mean error. <em>RROC</em> (Hern&aacute;ndez-Orallo 2013): total over-prediction against "
        "total under-prediction as a constant shift is added to the predictions; the point closest "
        "to the origin is the best shift, and a large area means large errors."
    ),
    "intervals": (
        "Prediction intervals against the truth, cases in order of prediction: points outside the "
        "band are misses. The interval score (Gneiting &amp; Raftery 2007) adds the width to "
        "2/alpha times each miss's distance, so it rewards intervals that are narrow <em>and</em> "
        "cover; coverage alone can be bought with width."
    ),
    "robustness": (
        "How much one observation can move an evaluation (Rosset et al. 2005, Table 1): each "
        "measure on the whole test set, without its single most influential observation, and the "
        "percent change. Additive losses can be moved arbitrarily by one case (breakdown point "
        "1/n); the rank measures move by at most O(1/n)."
    ),
}


# --------------------------------------------------------------------------------------------
# Tables


def _plain(text: str) -> str:
    """A docstring line without reStructuredText markup (``code``, :func:`x`)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def direction_symbol(info: Mapping[str, Any]) -> str:
    """The direction column: ↑ higher, ↓ lower, ``≈ t`` closest to the target t, blank for a
    measure that is not ranked."""
    direction = direction_of(info)
    if direction == "target":
        target = info.get("target")
        return "≈" if target is None else f"≈ {format_number(target)}"
    return {"higher": "↑", "lower": "↓"}.get(direction, "")


def best_models(values: Sequence[float], info: Mapping[str, Any] | bool) -> set[int]:
    """Positions of the best values under a measure's direction; empty when all are equal,
    fewer than two are finite, or the measure is not ranked (a target measure is best closest
    to its target, never by size).

    ``info`` is the measure's entry of ``evaluation.metrics`` (a bool, the earlier form, means
    ``higher_is_better``).
    """
    if isinstance(info, bool):
        info = {"higher_is_better": info}
    return shaded_positions(values, info)


def _family_order(metrics: dict[str, dict[str, Any]]) -> list[str]:
    seen = list(dict.fromkeys(m["family"] for m in metrics.values()))
    return [f for f in FAMILIES if f in seen] + [f for f in seen if f not in FAMILIES]


def summary_table(evaluation: Any) -> Table:
    """Every model and measure, grouped by family; CIs from the comparison when it ran."""
    intervals = comparison_intervals(evaluation.comparison)
    models = list(evaluation.model_names)
    rows: list[Row] = []
    for family in _family_order(evaluation.metrics):
        rows.append(Row(group=family.capitalize()))
        for metric, info in evaluation.metrics.items():
            if info["family"] != family:
                continue
            values = [evaluation.values.get(m, {}).get(metric) for m in models]
            best = best_models(values, info)
            description = _plain(info.get("description", ""))
            cells = [
                Cell(
                    metric,
                    css="measure",
                    title=description,
                    sub=f"{direction_symbol(info)} {description}",
                )
            ]
            for j, model in enumerate(models):
                value = values[j]
                problem = evaluation.problems.get(model, {}).get(metric, "")
                if metric not in evaluation.values.get(model, {}):
                    cells.append(Cell("", css="missing"))
                    continue
                css = "best" if j in best else ""
                text = format_number(value)
                if value is None or not math.isfinite(value):
                    css = "missing"
                failed = getattr(problem, "kind", "") == "failed"
                if failed:  # never a dash that reads as "not applicable"
                    css, text = "failed", "failed"
                ci = intervals.get((model, metric))
                sub = f"[{format_number(ci[0])}, {format_number(ci[1])}]" if ci else ""
                cells.append(
                    Cell(
                        text,
                        css=css,
                        title=str(problem) if problem else "",
                        sub=sub,
                        key=f"{model}:{metric}",
                    )
                )
            rows.append(Row(cells=cells))
    header = _header("measure", *models)
    note = ""
    if intervals:
        level = evaluation.settings.get("confidence_level", 0.95)
        # The replicates that ran: a time budget may have reduced those requested.
        replicates = getattr(evaluation.comparison, "n_bootstrap", None)
        if replicates is None:
            replicates = evaluation.settings.get("n_bootstrap")
        note = f"Intervals: {round(100 * level)}% paired bootstrap, {replicates} replicates."
    return Table(header=header, rows=rows, caption="", note=note, css="summary")


# --------------------------------------------------------------------------------------------
# Generic result rendering (notebooks)


# --------------------------------------------------------------------------------------------
# Whole documents


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("ranklens.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def _settings_items(settings: dict[str, Any]) -> list[tuple[str, str]]:
    items = []
    for key, value in settings.items():
        if isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, int | float):
            text = f"{value:,.6g}"
        else:
            text = str(value)
        items.append((key.replace("_", " "), text))
    return items


def _problems(evaluation: Any) -> list[tuple[str, str, str]]:
    return [
        (who, what, why)
        for who, items in evaluation.problems.items()
        for what, why in items.items()
    ]


def task_view(
    evaluation: Any,
    *,
    index: int = 0,
    figures: bool = True,
    figure_errors: list[str] | None = None,
) -> dict[str, Any]:
    """The template's view of one evaluation: facts, sections with tables and figures.

    Plots that could not be drawn are appended to ``figure_errors`` (when given) as
    ``"<section> plot <k>: <error>"``.
    """
    sections = [Section("summary", "Measures", GUIDES["summary"], [summary_table(evaluation)])]
    drawn = {}
    if figures:
        drawn = build_figures(evaluation, prefix=f"t{index}")
        if figure_errors is not None:
            figure_errors.extend(v.error for views in drawn.values() for v in views if v.error)
    comparison = comparison_tables(evaluation.comparison)
    if comparison or drawn.get("comparison"):
        sections.append(
            Section(
                "comparison",
                "Model comparison",
                GUIDES["comparison"],
                comparison,
                drawn.get("comparison", []),
            )
        )
    for key, title in (
        ("ranking", "Ranking"),
        ("targeting", "Targeting"),
        ("extremes", "Rare extremes"),
        ("errors", "Error curves"),
        ("intervals", "Prediction intervals"),
    ):
        tables = section_tables(evaluation, key)
        if drawn.get(key) or tables:
            sections.append(Section(key, title, GUIDES[key], tables, drawn.get(key, [])))
    robust = robustness_tables(evaluation.robustness)
    if robust:
        sections.append(
            Section("robustness", "Evaluation robustness", GUIDES["robustness"], robust)
        )
    if not figures:
        pass
    elif not any(s.figures for s in sections):
        sections[0].notes.append("No plots: install matplotlib (pip install 'ranklens[plot]').")
    return {
        "id": f"task-{index + 1}-{_slug(evaluation.title)}",
        "title": evaluation.title,
        "description": evaluation.description,
        "target": evaluation.target,
        "n": f"{evaluation.n:,}",
        "n_dropped": evaluation.n_dropped,
        "models": list(evaluation.model_names),
        "settings": _settings_items(evaluation.settings),
        "sections": sections,
        "problems": _problems(evaluation),
    }


def render_html(
    evaluations: Any,
    *,
    title: str = "ranklens report",
    subtitle: str = "",
    figures: bool = True,
    figure_errors: list[str] | None = None,
) -> str:
    """The report as one HTML string: every evaluation a section, plots inline.

    Parameters
    ----------
    evaluations : ModelEvaluation or sequence of them
        Computed results (:func:`ranklens.report.evaluate_models`); nothing is recomputed.
    title, subtitle : str
        Page heading.
    figures : bool
        Whether to draw plots (needs matplotlib; without it the report has tables only).
    figure_errors : list of str, optional
        Receives one message per plot that could not be drawn. The report keeps a note in the
        plot's place either way; a caller that must not pass over a failure (the command line)
        reads this list.

    Returns
    -------
    str
        A self-contained HTML document.
    """
    if not isinstance(evaluations, list | tuple):
        evaluations = [evaluations]
    template = _environment().get_template("report.html.j2")
    return template.render(
        title=title,
        subtitle=subtitle,
        version=__version__,
        created=_dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        tasks=[
            task_view(ev, index=i, figures=figures, figure_errors=figure_errors)
            for i, ev in enumerate(evaluations)
        ],
    )


def write_html(path: str | pathlib.Path, evaluations: Any, **kwargs: Any) -> pathlib.Path:
    """Render (:func:`render_html`), then write to ``path`` atomically; returns the resolved path.

    The whole report is rendered before the file is touched, and written with
    :func:`write_text_atomic`: a rendering error or a full disk leaves a previous report intact.

    Parameters
    ----------
    path : str or pathlib.Path
        Where to write the report.
    evaluations : ModelEvaluation or sequence of them
        As in :func:`render_html`.
    **kwargs
        Passed to :func:`render_html` (``title``, ``subtitle``, ``figures``).

    Returns
    -------
    pathlib.Path
        The resolved path written.
    """
    text = render_html(evaluations, **kwargs)
    return write_text_atomic(path, text)


def write_text_atomic(path: str | pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the resolved path.

    See :func:`write_texts_atomic`.

    Parameters
    ----------
    path : str or pathlib.Path
        Target file.
    text : str
        Contents, written as UTF-8.

    Returns
    -------
    pathlib.Path
        The resolved path written.
    """
    (written,) = write_texts_atomic({pathlib.Path(path): text})
    return written


# The target paths of write_texts_atomic: any mapping whose keys are str, Path or both (a bound
# type variable, as Mapping is invariant in its key type).
_PathT = TypeVar("_PathT", bound=str | pathlib.Path)


def write_texts_atomic(outputs: Mapping[_PathT, str]) -> list[pathlib.Path]:
    """Write several files so that readers see all old or all new contents, never a torn file.

    Each text goes to a temporary file in its target's directory (so the final rename stays on
    one file system), is flushed to disk, and only when every file is staged are they moved into
    place with :func:`os.replace`. A failure while staging removes the temporary files and leaves
    every previous file untouched: a JSON result is never replaced while its HTML report fails.
    A replaced file keeps its permissions; a new one gets the usual ``0o666 & ~umask``.

    Parameters
    ----------
    outputs : mapping of path to str
        Target files and their contents (UTF-8).

    Returns
    -------
    list of pathlib.Path
        The resolved paths, in the order given.
    """
    staged: list[tuple[str, pathlib.Path]] = []
    try:
        for target, text in outputs.items():
            path = pathlib.Path(target)
            fd, temporary = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
            )
            staged.append((temporary, path))
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            # mkstemp creates the file private (0o600); the report is an ordinary output file.
            os.chmod(temporary, _file_mode(path))
        for temporary, path in staged:
            os.replace(temporary, path)
    except BaseException:
        for temporary, _path in staged:
            with contextlib.suppress(FileNotFoundError):  # already moved into place
                os.unlink(temporary)
        raise
    return [path.resolve() for _temporary, path in staged]


def _file_mode(path: pathlib.Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)  # the only portable way to read it: set and restore at once
        os.umask(umask)
        return 0o666 & ~umask
