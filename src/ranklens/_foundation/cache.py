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
``~/Library/Caches`` on macOS). Where that cannot be written either (a container whose ``HOME``
is read-only or missing), numba would refuse to define a cached kernel at all ("cannot cache
function ...: no locator available"), so the cache goes to a private folder in the temporary
directory instead (``ranklens-numba-<user id>``, mode 0700, used only when this user owns it and
no one else can write it; else a fresh ``mkdtemp`` folder for this process). Like any
``NUMBA_CACHE_DIR``, it then also holds the caches of other numba-compiled libraries in this
process (each under its own source path).
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import warnings
from typing import Any

__all__ = ["cache_dir", "configure", "is_compiled", "temp_cache_dir", "user_cache_dir"]

#: The folder of the kernel modules: numba's in-tree cache is its ``__pycache__``.
_KERNELS = pathlib.Path(__file__).resolve().parent.parent / "_compute" / "kernels"

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


def temp_cache_dir() -> pathlib.Path:
    """The fallback cache folder in the temporary directory, one per user (need not exist)."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return pathlib.Path(tempfile.gettempdir()) / f"ranklens-numba-{user}"


def _private(folder: pathlib.Path) -> bool:
    """Whether ``folder`` (made with mode 0700 when missing) is this user's alone and writable.

    numba's cache files are pickles that are loaded and run: a folder in a shared temporary
    directory is used only when no other user could have written into it.
    """
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return False
    return _can_write(folder)


def _fallback_dir() -> pathlib.Path | None:
    """The user cache folder, else a private temporary folder: None when nothing is writable."""
    try:  # Path.home() raises RuntimeError when HOME is unset and the user has no entry
        folder = user_cache_dir()
    except RuntimeError:
        folder = None
    if folder is not None and _can_write(folder):
        return folder
    try:  # gettempdir raises FileNotFoundError when no temporary directory is usable
        shared = temp_cache_dir()
        return shared if _private(shared) else pathlib.Path(tempfile.mkdtemp(prefix="ranklens-"))
    except OSError:
        return None


def _writable(folder: pathlib.Path) -> bool:
    """Whether numba could keep its in-tree cache in ``folder`` (its own test: make, then write).

    ``os.access`` is not enough: it says yes to root on a read-only mount, and no to nothing
    that an ACL allows.
    """
    return _can_write(folder)


def _can_write(folder: pathlib.Path) -> bool:
    """Whether ``folder`` can be made (when missing) and a file written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def configure() -> None:
    """Point numba's cache at the user cache folder when the package folder is read-only.

    Called by :mod:`ranklens._compute.kernels` before any kernel is defined; does nothing when
    ``NUMBA_CACHE_DIR`` is set (the user's choice wins) or the in-tree cache is writable. When
    the user cache folder cannot be written either, a private folder in the temporary directory
    is used (see the module's docstring).
    """
    global _configured
    if _configured:
        return
    _configured = True
    if os.environ.get("NUMBA_CACHE_DIR") or _writable(_KERNELS / "__pycache__"):
        return
    folder = _fallback_dir()
    if folder is None:
        # no writable folder anywhere, not even a temporary one: numba cannot define a cached
        # kernel (RuntimeError "no locator available"); say where the cache could go instead
        warnings.warn(
            "ranklens cannot cache its compiled kernels: neither its install folder, the user "
            f"cache folder ({user_cache_dir()}) nor the temporary directory can be written; "
            "set NUMBA_CACHE_DIR to a writable folder",
            RuntimeWarning,
            stacklevel=3,
        )
        return
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
