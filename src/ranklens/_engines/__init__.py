"""Layer 5, the private side of the engines: what runs a whole evaluation on one data set.

The bootstrap's time and memory budget of the in-memory pipeline (``budget``) and
``evaluate_models``, the one entry point that picks the engine, in memory or on Dask
(``entry``). The in-memory pipeline (``ranklens.evaluation``) and the Dask engine
(``ranklens.dask``) sit in this layer beside them. A module here imports the layers below and
this layer only; ``tests/common/test_architecture.py`` checks it.
"""
