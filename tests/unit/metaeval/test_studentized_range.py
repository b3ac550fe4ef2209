"""The studentized range's CDF and quantile against scipy.stats.studentized_range."""

from __future__ import annotations

import pytest
from scipy import stats

from irmeta.metaeval.stats.studentized_range import studentized_range_cdf, studentized_range_quantile
from irmeta.metaeval.stats.tukey_hsd import tukey_hsd_critical_values

# (p, runs, df): TREC-8's 129 runs x 50 topics, few runs, few degrees of freedom and a
# large q, many runs, and both sides of scipy's switch to the infinite-df form
CASES = [(0.95, 129, 6272), (0.99, 129, 6272), (0.95, 2, 5), (0.95, 3, 2), (0.99, 10, 1), (0.95, 129, 1),
         (0.9, 5, 30), (0.95, 300, 1000), (0.999, 20, 4), (0.95, 4, 50_000), (0.95, 4, 100_000),
         (0.99, 129, 200_000), (0.5, 3, 10)]


@pytest.mark.slow
@pytest.mark.parametrize(("p", "k", "df"), CASES)
def test_the_quantile_is_scipys(p, k, df):
    assert studentized_range_quantile(p, k, df) == pytest.approx(stats.studentized_range.ppf(p, k, df), rel=1e-9)


@pytest.mark.parametrize(("q", "k", "df"), [(6.2, 129, 6272), (3.0, 2, 5), (40.0, 10, 1), (0.5, 3, 10),
                                            (5.0, 4, 200_000)])
def test_the_cdf_is_scipys(q, k, df):
    assert studentized_range_cdf(q, k, df) == pytest.approx(stats.studentized_range.cdf(q, k, df), abs=1e-11)


def test_tukey_critical_values_are_the_quantiles_and_bad_arguments_are_refused():
    assert tukey_hsd_critical_values(129, 6272, [0.05]) == {0.05: studentized_range_quantile(0.95, 129, 6272)}
    assert studentized_range_cdf(0.0, 5, 10) == 0.0
    for p, k, df in [(0.95, 1, 10), (0.95, 5, 0), (1.0, 5, 10), (0.2, 5, 10)]:
        with pytest.raises(ValueError, match="need k >= 2"):
            studentized_range_quantile(p, k, df)
