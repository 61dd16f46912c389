"""The sorting-based unique values and pairs are np.unique's, on every size from empty up."""
import numpy as np
import pytest

from schedlab.core._arrays import unique_pairs, unique_values


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 50_000])
@pytest.mark.parametrize("high", [3, 10**12])
def test_unique_values_and_pairs_are_numpys(n, high):
    rng = np.random.default_rng(n + high)
    a, b = rng.integers(-5, high, n), rng.integers(0, 4, n)
    np.testing.assert_array_equal(unique_values(a), np.unique(a))
    rows = np.unique(np.stack([a, b], axis=1), axis=0) if n else np.empty((0, 2), np.int64)
    ua, ub = unique_pairs(a, b)
    np.testing.assert_array_equal(ua, rows[:, 0])
    np.testing.assert_array_equal(ub, rows[:, 1])
