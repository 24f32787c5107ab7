"""The package version, at the bottom of the import graph (the report and JSON record it)."""

__version__ = "0.1.0"
