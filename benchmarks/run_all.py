"""Run every benchmark script in this folder, one after the other (``make bench``)."""

from __future__ import annotations

import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).parent

if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n=== {script.name} ===", flush=True)
        sys.argv = [str(script), *(["--quick"] if quick else [])]
        runpy.run_path(str(script), run_name="__main__")
