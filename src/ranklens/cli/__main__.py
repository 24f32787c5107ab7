"""``python -m ranklens.cli``: the command line, as ``python -m ranklens`` runs it."""

from ranklens.cli import main

main()
