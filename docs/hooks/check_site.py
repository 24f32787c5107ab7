"""Check the built documentation site as a reader opening it from disk would meet it.

* every internal link names a page (``cli.html``), never a folder (``cli/``), which a browser
  opening ``file://`` shows as a folder listing;
* no Sphinx role (``:func:`...```) is left as raw text in the rendered pages.

Usage: ``python docs/hooks/check_site.py build/site``; exits 1 listing each problem.
"""

from __future__ import annotations

import pathlib
import re
import sys

HREF = re.compile(r'href="([^"#?]*)[^"]*"')
RAW_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|obj|exc):`")


def problems(site: pathlib.Path) -> list[str]:
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
        for target in HREF.findall(text):
            external = "://" in target or target.startswith("mailto:")
            if target and not external and (target.endswith("/") or target in (".", "..")):
                found.append(f"{name}: link to a folder: {target}")
        if RAW_ROLE.search(text):
            found.append(f"{name}: raw Sphinx role {RAW_ROLE.search(text).group(0)}")
    return found


if __name__ == "__main__":
    listed = problems(pathlib.Path(sys.argv[1]))
    for line in listed:
        print(line)
    sys.exit(1 if listed else 0)
