"""MkDocs hook: the example gallery, drawn at build time.

Every curve in the curve registry that has a Display is computed for two models on one synthetic
data set and drawn with matplotlib (Agg) into a temporary folder; the PNGs and a generated
``gallery.md`` page are added to the site. Nothing is committed: a new curve with a Display
appears in the gallery without editing this file.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

_TMP = tempfile.TemporaryDirectory(prefix="ranklens-gallery-")

_INTRO = """# Gallery

Every evaluation curve of ranklens, drawn by its Display for two models (a good one and a noisier
one) on one synthetic data set of 2,000 cases with a skewed target. The figures are rendered when
the documentation is built, from the curve registry (`ranklens.metrics.available_curves`), so
they always show the current code. Each section names the function that computes the curve and
the Display that draws it.

"""


def _data() -> tuple[Any, dict[str, Any], dict[str, Any]]:
    import numpy as np

    rng = np.random.default_rng(2005)
    n = 2000
    y = rng.gamma(1.5, 2.0, size=n)
    preds = {
        "good": y + rng.normal(scale=1.0, size=n),
        "noisy": y + rng.normal(scale=3.0, size=n),
    }
    bounds = {name: (p - 2.5, p + 2.5) for name, p in preds.items()}
    return y, preds, bounds


def _render(out: Path) -> list[tuple[str, str, str, str]]:
    """Draw every registered curve that has a Display; returns (name, png, function, display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import ranklens.plot  # noqa: F401  (registers the Displays)
    from ranklens.metrics import available_curves, get_curve

    y, preds, bounds = _data()
    # task parameters for the curves that need one (the default relevance needs none)
    task = {"value_margin": 1.0, "cost_per_target": 0.5}
    drawn = []
    for name in available_curves():
        spec = get_curve(name)
        display = spec.display
        if display is None:
            continue
        kwargs = dict(spec.fixed)
        chosen = [k for k in spec.needs_any if k in task][:1]
        for key in (*spec.needs, *chosen):
            if key in task:
                kwargs[key] = task[key]
        if "value_margin" in kwargs:
            kwargs["cost_per_target"] = task["cost_per_target"]
        fig, ax = plt.subplots(figsize=(6.0, 4.2), dpi=90)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for model, pred in preds.items():
                if spec.inputs == "point":
                    result = spec.func(y, pred, **kwargs)
                elif spec.inputs == "interval":
                    result = spec.func(y, *bounds[model])
                else:
                    result = spec.func(y, pred, *bounds[model])
                display(result, name=model).plot(ax=ax)
        fig.tight_layout()
        png = f"gallery/{name}.png"
        (out / "gallery").mkdir(parents=True, exist_ok=True)
        fig.savefig(out / png)
        plt.close(fig)
        drawn.append((name, png, spec.func.__name__, display.__name__))
    return drawn


def on_files(files: Files, config: Any) -> Files:
    out = Path(_TMP.name)
    drawn = _render(out)
    for _, png, _, _ in drawn:
        files.append(
            File(png, src_dir=str(out), dest_dir=config["site_dir"], use_directory_urls=False)
        )
    sections = [
        f"## {name.replace('_', ' ')}\n\n`ranklens.{func}` drawn by "
        f"`ranklens.plot.{disp}`.\n\n![{name}]({png})\n"
        for name, png, func, disp in drawn
    ]
    files.append(File.generated(config, "gallery.md", content=_INTRO + "\n".join(sections)))
    return files
