"""Layer 4, the private side of inference: the resampling and the bootstrap's machinery.

The resampling schemes and their drivers (``resampling``), the bootstrap's evaluators of the
computational forms (``evaluators``), a comparison's methods in words (``method_names``), the
Diebold-Mariano comparison's arrays (``diebold_mariano``) and the device path that draws
replicates on a GPU through the array-API forms (``device_engine``). The public inference
modules (``ranklens.compare``, ``ranklens.bands``, ``ranklens.robustness``,
``ranklens.agreement``, ``ranklens.delong``, ``ranklens.segments``, ``ranklens.timeseries``) sit
in this layer beside them. A module here imports
the layers below (the foundations, the computation, the measures' shared modules and
``ranklens.metrics``) and this layer only; the device path never imports a public measure
module. ``tests/common/test_architecture.py`` checks it.
"""
