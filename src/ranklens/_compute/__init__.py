"""Layer 1, the computation: pure functions over arrays, no validation, plotting or I/O.

``kernels`` holds the numba kernels, which import nothing of ranklens but each other and the
disk cache's configuration (``ranklens._foundation.cache``); ``xp`` holds the array-API forms
(one code on NumPy and on CuPy), which also choose between a kernel and its NumPy form by the
sizes of ``ranklens._foundation.route``. A module here imports layer 0 (``ranklens._foundation``)
and this layer only; ``tests/common/test_architecture.py`` checks it.
"""
