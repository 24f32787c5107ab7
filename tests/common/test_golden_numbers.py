"""The numbers of today, kept: ``ranklens evaluate`` on the demo's two case studies and a set
with ties and weights, and a sample of the public functions, against the fixture recorded by
``tests/golden/record.py`` (which says when to record it again).

Every number equals the recorded one to 1e-12 relative, every string and every key is the same;
only the time the bootstrap took (``settings["bootstrap time"]``) is left out. The replicates
are compared to 1e-12 too, not bit for bit: a weighted replicate of ``compare_models`` computed
on the NumPy route of a cold process and on the compiled kernels of a warm one can differ in
the last bit (0.7891296485077847 against ...846), so the order the tests run in would decide.
A change that moves code must leave this test green; a change that means to move numbers
records the fixture again and says why.
"""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
from typing import Any

import pytest
from typer.testing import CliRunner

from ranklens.cli import app, exact_float_parsing

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"

#: Keys whose values depend on the clock, not on the numbers.
VOLATILE = {"bootstrap time"}

#: Keys that version the document's layout: a later minor version of the same major one only
#: adds fields (2.3 added ``segments``, 2.4 ``serial_dependence``, 2.5 ``windows``, 2.6
#: ``calibration``, each written only when it applies), so the recorded documents stay valid
#: under it; a new major version would need them recorded again.
LAYOUT_VERSIONS = {"schema_version"}


def _record_module() -> Any:
    spec = importlib.util.spec_from_file_location("golden_record", GOLDEN / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


record = _record_module()


def _same(got: Any, want: Any, where: str) -> None:
    """``got`` equals ``want`` (JSON values): numbers to 1e-12 relative, everything else
    exactly."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(want), (where, sorted(set(got) ^ set(want)))
        for key, value in want.items():
            if key in LAYOUT_VERSIONS:
                _same_layout(got[key], value, f"{where}.{key}")
            elif key not in VOLATILE:
                _same(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert isinstance(got, (int, float)), (where, got, want)
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=0.0), (where, got, want)
    else:
        assert got == want, (where, got, want)


def _same_layout(got: str, want: str, where: str) -> None:
    """``got`` is ``want``'s layout version or a later minor version of the same major one."""
    got_major, got_minor = (int(part) for part in got.split("."))
    want_major, want_minor = (int(part) for part in want.split("."))
    assert got_major == want_major and got_minor >= want_minor, (where, got, want)


@pytest.mark.parametrize("name", sorted(record.RUNS))
def test_evaluate_gives_the_recorded_document(name, tmp_path):
    path = GOLDEN / f"{name}.csv"
    rows = sum(1 for _ in path.open()) - 1
    out = tmp_path / f"{name}.json"
    result = CliRunner().invoke(app, [*record.run_args(name, path, rows), "--json", str(out)])
    assert result.exit_code == 0, result.output
    want = json.loads((GOLDEN / f"{name}.json").read_text())
    _same(json.loads(out.read_text()), want, name)


def test_public_functions_give_the_recorded_results():
    import pandas as pd

    frame = pd.read_csv(GOLDEN / "synthetic.csv", **exact_float_parsing())
    got = json.loads(json.dumps(record.api_sample(frame)))
    want = json.loads((GOLDEN / "api.json").read_text())
    _same(got, want, "api")
