"""The event definitions: one grammar for every engine, the command line and the report.

Several measures (ROC AUC, lift, gain, the Kolmogorov-Smirnov statistic, DeLong's test) need
0/1 events; on a continuous target the user says which rows are events with ``events``:

* ``None``: the labels of a 0/1 target, otherwise :data:`DEFAULT_EVENTS` (the true top 10 %);
* ``"top:q"`` (or ``"top:p%"``): the rows whose target is among the largest fraction ``q``,
  ties at the boundary included;
* ``">=t"``, ``">t"`` or a number ``t`` (``y >= t``): a threshold on the target;
* ``"value"``: no events, the target itself is the value captured (gain and profit only);
* a relevance function ``phi`` (events where ``phi(y) >=`` its ``event_threshold``, 0.5 by
  default) or a pair ``(phi, threshold)`` (Torgo and Ribeiro 2009).

:func:`parse_events` reads a definition into an :class:`EventRule` before it meets the data;
the measures apply it (on the host or a device), and the Dask engine reads the same rule, so
a definition means the same everywhere and is refused with the same message.

References
----------
Torgo, L. and Ribeiro, R. P. (2009). Precision and recall for regression. *Discovery Science
(DS 2009)*, LNCS 5808, 332-346. doi:10.1007/978-3-642-04747-3_26
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from typing import Any, Literal

import numpy as np

from ranklens._foundation.format import plain_number
from ranklens._foundation.validation import check_probability

__all__ = [
    "DEFAULT_EVENTS",
    "DEFAULT_RELEVANCE_THRESHOLD",
    "EventRule",
    "events_words",
    "parse_events",
]

#: Event definition used for a non-binary ``y_true`` when ``events=None``: the true top 10 %
#: (ties at the boundary included, see :func:`ranklens.targeting.roc_curve`).
DEFAULT_EVENTS = "top:0.1"

#: The relevance above which a row is an event when a relevance function gives no
#: ``event_threshold`` (as in :func:`ranklens.extremes.regression_precision_recall`).
DEFAULT_RELEVANCE_THRESHOLD = 0.5


def _threshold(text: str, spec: str) -> float:
    """The number in ``spec`` (the text ``text``), which must be finite."""
    try:
        t = float(text)
    except ValueError:
        t = math.nan
    if not math.isfinite(t):
        raise ValueError(f"events={spec!r}: the threshold must be a finite number; got {text!r}")
    return t


@dataclasses.dataclass(frozen=True)
class EventRule:
    """An event definition as read from ``events``, before it meets ``y_true``.

    The targeting measures apply it on the host or on a device (:meth:`threshold_events` works
    on any array namespace); the Dask engine reads the same rule.
    ``kind`` is ``"default"`` (the labels of a binary ``y_true``, else :data:`DEFAULT_EVENTS`),
    ``"value"``, ``"top"`` (``bound`` is the fraction ``q``), ``">="`` or ``">"`` (``bound`` is
    the threshold ``t``), or ``"relevance"`` (``relevance`` with its ``relevance_threshold``).
    """

    kind: Literal["default", "value", "top", ">=", ">", "relevance"]
    bound: float = math.nan
    relevance: Any = None
    relevance_threshold: Any = None

    @property
    def threshold_text(self) -> str:
        """The text of a threshold rule, ``"y >= t"`` or ``"y > t"`` (every engine's)."""
        return f"y {self.kind} {self.bound:g}"

    def threshold_events(self, y: Any) -> tuple[Any, str]:
        """The 0/1 events ``y >= t`` (or ``y > t``) of a threshold rule, on the host or a device
        (``y`` of any array namespace), and the definition's text."""
        above = y >= self.bound if self.kind == ">=" else y > self.bound
        return above.astype(np.float64), self.threshold_text


def parse_events(events: Any) -> EventRule:
    """Read the event definition ``events`` (see :func:`ranklens.targeting.roc_curve`).

    Raises
    ------
    ValueError
        If ``events`` is none of the definitions; the message names those accepted. A
        threshold must be a finite number, the fraction of ``"top:q"`` in (0, 1) (``"top:5%"``
        is 0.05).
    """
    if events is None:
        return EventRule("default")
    if isinstance(events, str):
        spec = events.strip().replace(" ", "")
        if spec == "value":
            return EventRule("value")
        if spec.startswith("top:"):
            text = spec[4:]
            percent = text.endswith("%")
            q = _threshold(text[:-1] if percent else text, events)
            q = check_probability(q / 100.0 if percent else q, "the fraction in events='top:q'")
            return EventRule("top", q)
        if spec.startswith(">="):
            return EventRule(">=", _threshold(spec[2:], events))
        if spec.startswith(">"):
            return EventRule(">", _threshold(spec[1:], events))
        raise ValueError(
            "events must be None, 'value', 'top:q' (e.g. 'top:0.1'), '>=t' or '>t' (e.g. '>=100'),"
            f" a number t (y >= t), a relevance callable, or (relevance, threshold); got {events!r}"
        )
    if isinstance(events, numbers.Real) and not isinstance(events, bool):
        t = float(events)
        if not math.isfinite(t):
            raise ValueError(f"events: a numeric threshold must be finite; got {events!r}")
        return EventRule(">=", t)
    if isinstance(events, tuple) and len(events) == 2 and callable(events[0]):
        return EventRule("relevance", relevance=events[0], relevance_threshold=events[1])
    if callable(events):
        threshold = getattr(events, "event_threshold", DEFAULT_RELEVANCE_THRESHOLD)
        return EventRule("relevance", relevance=events, relevance_threshold=threshold)
    raise ValueError(
        "events must be None, 'value', 'top:q', '>=t', '>t', a number, a relevance callable or "
        f"(relevance, threshold); got {type(events).__name__} {events!r:.40}"
    )


_TOP_TEXT = re.compile(r"^top:([0-9.eE+-]+)\s*\(y >= ([^;]+); event share ([^)]+)\)$")
_THRESHOLD_TEXT = re.compile(r"^y\s*(>=|>|<=|<)\s*([-0-9.eE+]+)$")
_RELEVANCE_TEXT = re.compile(r"^relevance >= ([-0-9.eE+]+)")


def _amount(value: float, unit: str | None = None) -> str:
    """A threshold as a reader writes it, the report's plain numbers to four significant digits
    ("512", "1,235", "0.0312", "25.2 million"), with its unit ("$512", "512 EUR")."""
    v = float(value)
    text = plain_number(abs(v), 4)
    sign = "-" if v < 0 else ""
    if not unit:
        return sign + text
    if len(unit) == 1 and not unit.isalnum():
        return f"{sign}{unit}{text}"
    return f"{sign}{text} {unit}"


def events_words(definition: str, unit: str | None = None) -> str:
    """An event definition, as the results write it, in a reader's words.

    The results keep the precise definition (``"top:0.1 (y >= 512.013; event share 0.1)"``);
    the report writes it as a phrase: "the top 10% of values, at least 512".

    Parameters
    ----------
    definition : str
        The ``event_definition`` of a result (``"binary"``, ``"value"``, ``"y >= 100"``,
        ``"top:q (y >= v; event share s)"``, ``"relevance >= t (...)"``).
    unit : str, optional
        The target's unit or currency ("$", "EUR"), written with the thresholds.

    Returns
    -------
    str
        A noun phrase naming the events.

    Examples
    --------
    >>> events_words("top:0.1 (y >= 512.013; event share 0.1002)")
    'the top 10% of values, at least 512'
    >>> events_words("y > 3", unit="$")
    'values above $3'
    >>> events_words("binary")
    'the cases labelled 1'
    """
    text = str(definition).strip()
    if text == "binary":
        return "the cases labelled 1"
    if text == "value":
        return "the value of each case (no events: the value itself is captured)"
    top = _TOP_TEXT.match(text)
    if top:
        share = 100 * float(top.group(1))
        return f"the top {share:.3g}% of values, at least {_amount(float(top.group(2)), unit)}"
    threshold = _THRESHOLD_TEXT.match(text)
    if threshold:
        words = {">=": "at least", ">": "above", "<=": "at most", "<": "below"}
        return f"values {words[threshold.group(1)]} {_amount(float(threshold.group(2)), unit)}"
    relevance = _RELEVANCE_TEXT.match(text)
    if relevance:
        return (
            "the values the relevance function marks as extreme (relevance at least "
            f"{float(relevance.group(1)):g})"
        )
    return text
