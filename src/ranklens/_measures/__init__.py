"""Layer 2, what the measures share with the engines: the private side of the measure layer.

The rank sweep and the rank measures' values from its pair classes (``rank_sweep``), a target
ranked by a score and the gains table (``ranked``), the best model by depth (``by_depth``) and
the relevance functions, built alike in memory and on Dask (``relevance_functions``). The public
measure modules (``ranklens.ranking``, ``ranklens.targeting``, ...) sit in this layer beside
them; an engine reads these modules, never a measure module. A module here imports the layers
below (``ranklens._foundation``, ``ranklens._compute``) and this layer only;
``tests/common/test_architecture.py`` checks it.
"""
