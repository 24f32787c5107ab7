"""The ``ranklens`` console script (also ``python -m ranklens``).

The command line lives in :mod:`ranklens.cli`, which imports typer and rich, the ``cli`` extra.
This module imports neither: without them it prints one line saying how to install them and
exits with status 1, instead of an ImportError traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Check the ``cli`` extra, then run :mod:`ranklens.cli`."""
    from ranklens._foundation.extras import MissingExtraError, require

    try:
        require("cli", "the ranklens command")
    except MissingExtraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    from ranklens.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
