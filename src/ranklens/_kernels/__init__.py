"""Numba kernels: pure numeric code on NumPy arrays, no validation, plotting or I/O.

Public wrappers in the concept modules validate input and call these. Every kernel has a slow,
definitional twin in the tests (``tests/reference.py``) that it is checked against.
"""
