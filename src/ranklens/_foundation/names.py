"""The names a user types: the closest known name to one that is not known.

Light on purpose (the standard library only): the command line suggests names before it
imports the library's numerical modules, and the library suggests the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(given: str, choices: Iterable[str], *, quote: bool = True) -> str:
    """``" (did you mean 'x'?)"`` for the choice closest to ``given`` (:mod:`difflib`'s ratio
    of at least 0.6), else ``""``; ``quote=False`` shows it bare (an option: ``--target``)."""
    close = difflib.get_close_matches(str(given), list(choices), n=1, cutoff=0.6)
    if not close:
        return ""
    return f" (did you mean {close[0]!r}?)" if quote else f" (did you mean {close[0]}?)"
