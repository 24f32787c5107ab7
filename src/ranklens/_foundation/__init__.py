"""Layer 0, the foundations: what every layer above reads and nothing of ranklens beneath it.

Input validation (``validation``), the result types (``results``), the measure and curve
registries (``registry``, ``curve_registry``), the computational forms every engine reads
(``forms``), the interval formulas over NumPy shared by measures and inference
(``interval_formulas``), the event definitions (``events``), the shared docstring paragraphs
(``docstrings``), the performance policy (``route``), the disk cache's configuration for the
numba kernels (``cache``), number formatting, the optional extras, progress reporting and the
other small helpers. A module here imports other foundations only (and the flat
``ranklens.exceptions`` and ``ranklens._version``), never a module of a layer above;
``tests/common/test_architecture.py`` checks it.
"""
