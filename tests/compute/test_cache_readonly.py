"""A read-only install whose user cannot write a cache anywhere in ``HOME`` still runs the kernels.

numba keeps compiled kernels (``@njit(cache=True)``) beside the source or in its user folder;
where neither can be written it refuses to define the kernel at all ("cannot cache function
'_descending_keys': no locator available"). :func:`ranklens._foundation.cache.configure` then points
the cache at a private folder in the temporary directory.

The install is simulated so that it is unwritable even for root (who ignores file modes): the
package is copied with a regular *file* in place of ``_compute/kernels/__pycache__`` (no folder can
be made there) and ``HOME`` lies below a regular file (no ``~/.cache`` can be made).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import stat
import subprocess
import sys

import numpy as np
from sklearn.metrics import roc_auc_score

import ranklens
from ranklens._foundation import cache as _cache

_SCRIPT = """
import os, sys
import numpy as np
from ranklens._compute.kernels import curves  # defines the cached kernels: raised before the fix
from ranklens.targeting import roc_auc
rng = np.random.default_rng(7)
y = (rng.random(50_000) < 0.3).astype(float)
s = y + rng.normal(size=50_000)
print(repr(roc_auc(y, s)))
print(os.environ.get("NUMBA_CACHE_DIR", ""))
"""


def _read_only_copy(root: pathlib.Path) -> pathlib.Path:
    """The package copied under ``root/site`` with no writable kernel cache beside it."""
    site = root / "site"
    source = pathlib.Path(ranklens.__file__).resolve().parent
    shutil.copytree(source, site / "ranklens", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "ranklens" / "_compute" / "kernels" / "__pycache__").write_text("not a folder")
    for path in [site, *site.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return site


def test_kernels_run_without_a_writable_install_or_home(tmp_path):
    site = _read_only_copy(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("HOME lies below this file, so nothing can be made in it")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")
    }
    env.update(
        HOME=str(blocker / "home"),
        TMPDIR=str(temp),
        PYTHONPATH=str(site),
        PYTHONDONTWRITEBYTECODE="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    value, cache = done.stdout.split("\n")[:2]
    rng = np.random.default_rng(7)
    y = (rng.random(50_000) < 0.3).astype(float)
    s = y + rng.normal(size=50_000)
    assert abs(float(value) - roc_auc_score(y, s)) <= 1e-12
    # the compiled kernels went to this user's private folder in the temporary directory
    assert pathlib.Path(cache).parent == temp
    assert any(pathlib.Path(cache).rglob("*.nbi"))
    if hasattr(os, "getuid"):
        assert stat.S_IMODE(pathlib.Path(cache).stat().st_mode) & 0o077 == 0


def test_a_temporary_folder_of_another_user_is_not_trusted(monkeypatch, tmp_path):
    """A shared ``ranklens-numba-<uid>`` that others can write is not used (its pickles would be
    loaded and run): a fresh private folder is made instead."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setattr(_cache, "user_cache_dir", lambda: tmp_path / "blocker" / "cache")
    (tmp_path / "blocker").write_text("no folder below a file")
    monkeypatch.setattr(_cache, "temp_cache_dir", lambda: shared)
    monkeypatch.setattr(_cache.tempfile, "tempdir", str(tmp_path))
    chosen = _cache._fallback_dir()
    assert chosen is not None and chosen != shared
    assert chosen.parent == tmp_path and chosen.name.startswith("ranklens-")
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700
