"""The shared input checks: every message names the argument and what was received."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from ranklens._foundation.validation import as_1d_float, check_pair, check_sample_weight


@pytest.mark.parametrize(
    "value",
    [
        [1, 2, 3],
        np.array([1.0, 2.0, 3.0]),
        pd.Series([1, 2, 3]),
        pl.Series([1, 2, 3]),
        pd.DataFrame({"a": [1, 2, 3]}),
        pl.DataFrame({"a": [1, 2, 3]}),
        (1, 2, 3),
    ],
)
def test_array_likes_are_accepted(value):
    out = as_1d_float(value, "y_true")
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])
    assert out.dtype == np.float64


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (
            [1.0, np.nan, 2.0],
            r"y_true contains 1 NaN or missing value\(s\) \(first at position 1\)",
        ),
        ([1.0, np.inf, 2.0], r"y_true contains 1 infinite value"),
        ([], r"y_true has 0 observation"),
        ([1.0], r"y_true has 1 observation\(s\); at least 2"),
        (np.zeros((3, 2)), r"y_true must be 1-D; got an array of shape \(3, 2\)"),
        (["a", "b"], r"y_true must be numeric"),
        (np.array(["2020-01-01"], dtype="datetime64[D]").repeat(2), r"y_true must be numeric"),
        ("abc", r"y_true must be numeric .*got a string"),
        (None, r"y_true is required"),
    ],
)
def test_bad_input_messages_name_the_argument(value, pattern):
    # data of the wrong kind (strings, dates) raise TypeError; wrong shape or values ValueError
    error = TypeError if "numeric" in pattern else ValueError
    with pytest.raises(error, match=pattern):
        as_1d_float(value, "y_true", min_n=2)


def test_length_mismatch_names_both():
    with pytest.raises(
        ValueError, match="y_true and y_pred must have the same length; got 3 and 2"
    ):
        check_pair([1, 2, 3], [1, 2])


def test_sample_weight_checks():
    assert check_sample_weight(None, 3) is None
    np.testing.assert_array_equal(check_sample_weight([1, 0, 2], 3), [1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        check_sample_weight([1, -1, 2], 3)
    with pytest.raises(ValueError, match="sample_weight has length 2"):
        check_sample_weight([1, 1], 3)
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        check_sample_weight([0, 0, 0], 3)
    with pytest.raises(ValueError, match="sample_weight contains 1 NaN"):
        check_sample_weight([1, np.nan, 1], 3)
