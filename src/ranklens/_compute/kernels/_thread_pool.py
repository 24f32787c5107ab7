"""Numba's thread pool, launched when a module of parallel kernels is imported.

A kernel loaded from numba's on-disk cache that calls a ``parallel=True`` kernel (the serial
radix argsort of :mod:`ranklens._compute.kernels.ranking` calls the parallel radix sort of
:mod:`ranklens._compute.kernels.curves`) runs the callee's parallel loops on the thread pool without
launching it, and the process crashes (a segmentation fault) when no earlier call has. Every
module that defines parallel kernels imports this one, so the pool is running before any of
them can be called. :func:`numba.get_num_threads` launches it (once per process; it honours
``NUMBA_NUM_THREADS``).
"""

import numba

numba.get_num_threads()
