"""Layer 4, the private side of inference: the resampling and the bootstrap's machinery.

The resampling schemes and their drivers (``resampling``), the bootstrap's evaluators of the
computational forms (``evaluators``), a comparison's methods in words (``method_names``) and the
device path that draws replicates on a GPU through the array-API forms (``device_engine``). The
public inference modules (``ranklens.compare``, ``ranklens.bands``, ``ranklens.robustness``,
``ranklens.agreement``, ``ranklens.delong``) sit in this layer beside them. A module here imports
the layers below (the foundations, the computation, the measures' shared modules and
``ranklens.metrics``) and this layer only; the device path never imports a public measure
module. ``tests/common/test_architecture.py`` checks it.
"""
