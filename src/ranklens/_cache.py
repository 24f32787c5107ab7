"""Where numba keeps the compiled kernels, so that they are compiled once per install.

Every kernel is ``@njit(cache=True)``: the first call compiles it (seconds) and writes the machine
code to a cache that later processes load in milliseconds. numba's own rule for the cache is,
in order: ``NUMBA_CACHE_DIR`` when set; else a ``__pycache__`` folder beside the source, when it
can write there; else a numba-wide user folder. An install the user cannot write to (a system
site-packages, a container image, a read-only network share) would then fall back to numba's
folder silently, or to no cache at all when that folder cannot be made, and compile again in
every process.

:func:`configure` makes that case explicit before any kernel module is imported (numba picks a
kernel's cache folder when the kernel is defined): when ``NUMBA_CACHE_DIR`` is unset and the
package's own folder is not writable, it sets ``NUMBA_CACHE_DIR`` to ``ranklens/numba`` under the
user cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``; ``%LOCALAPPDATA%`` on Windows,
``~/Library/Caches`` on macOS). Like any ``NUMBA_CACHE_DIR``, it then also holds the caches of
other numba-compiled libraries in this process (each under its own source path).
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
from typing import Any

__all__ = ["cache_dir", "configure", "is_compiled", "user_cache_dir"]

#: The folder of the kernel modules: numba's in-tree cache is its ``__pycache__``.
_KERNELS = pathlib.Path(__file__).resolve().parent / "_kernels"

_configured = False


def user_cache_dir() -> pathlib.Path:
    """The per-user cache folder for ranklens's compiled kernels (it need not exist yet)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(pathlib.Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(pathlib.Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(base) / "ranklens" / "numba"


def _writable(folder: pathlib.Path) -> bool:
    """Whether numba could keep its in-tree cache in ``folder`` (its own test: make, then write).

    ``os.access`` is not enough: it says yes to root on a read-only mount, and no to nothing
    that an ACL allows.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def configure() -> None:
    """Point numba's cache at the user cache folder when the package folder is read-only.

    Called by :mod:`ranklens._kernels` before any kernel is defined; does nothing when
    ``NUMBA_CACHE_DIR`` is set (the user's choice wins) or the in-tree cache is writable.
    """
    global _configured
    if _configured:
        return
    _configured = True
    if os.environ.get("NUMBA_CACHE_DIR") or _writable(_KERNELS / "__pycache__"):
        return
    folder = user_cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # nowhere to write: numba compiles in memory, as it would have
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:
        # numba read its configuration when it was imported; a kernel defined from now on
        # must see the new folder.
        numba.core.config.reload_config()


def cache_dir() -> pathlib.Path:
    """The folder where the kernels' compiled code is (or will be) cached."""
    configure()
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return pathlib.Path(given)
    return _KERNELS / "__pycache__"


def is_compiled(dispatcher: Any) -> bool:
    """Whether a kernel has machine code in this process or in numba's on-disk cache.

    A kernel called only from other kernels is compiled (and cached) with its first caller; in a
    later process the caller's cached code is loaded and the callee's dispatcher stays empty, so
    the cache index is what tells that it was compiled.
    """
    if dispatcher.signatures:
        return True
    # numba's cache index file: a private attribute, whose place has moved between numba
    # releases (``_cache._cache_file._index_path`` in 0.59-0.68, ``_cache._index_path`` before);
    # when neither is found no cache is known, and the caller takes the cheaper path.
    cache = getattr(dispatcher, "_cache", None)
    for holder in (getattr(cache, "_cache_file", None), cache):
        path = getattr(holder, "_index_path", None)
        if isinstance(path, str):
            return os.path.exists(path)
    return False
