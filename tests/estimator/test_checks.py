"""scikit-learn's own estimator checks (sklearn.utils.estimator_checks)."""
import pytest
from sklearn.datasets import make_regression
from sklearn.preprocessing import StandardScaler, scale
from sklearn.utils.estimator_checks import parametrize_with_checks

from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor

# (whose short chains do not converge: the checks fit with the default 4 chains)
pytestmark = pytest.mark.filterwarnings(
    "ignore::slpy.estimator.convergence.ConvergenceWarning")

# Short chains keep the ~70 checks a class fast. The classifier's start from slpy's
# greedy CART tree, so that check_classifiers_train (accuracy > 0.83 on blobs) passes
# with a wide margin (0.95); the regressor's score is tested below.
ESTIMATORS = [BayesianTreeClassifier(n_iter=50, init="greedy", random_state=0),
              BayesianTreeRegressor(n_iter=50, random_state=0)]

# The exclusions, each with its reason; docs/python.md lists them (test_docs checks).
EXPECTED_FAILURES = {
    BayesianTreeRegressor: {
        "check_regressors_train":
            "the check sets alpha = 0.01 on any regressor that has an `alpha` and no "
            "`alphas` (meant for linear models' regularisation); here alpha is "
            "GROWTREE's probability that the root splits: under a prior that almost "
            "never splits, the checks' 50-iteration chains have not yet left the "
            "one-leaf tree (test_regressor_scores_on_the_checks_data runs the same "
            "data with 200 iterations)",
    },
}


def expected_failed_checks(estimator):
    return EXPECTED_FAILURES.get(type(estimator), {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_regressor_scores_on_the_checks_data():
    """check_regressors_train's data and threshold: the prior's own alpha passes; the
    check's alpha = 0.01 fails it in the checks' 50 iterations, not in 200."""
    X, y = make_regression(n_samples=200, n_features=10, n_informative=1, bias=5.0,
                           noise=20, random_state=42)
    X, y = StandardScaler().fit_transform(X), scale(y)
    r = BayesianTreeRegressor(n_iter=200, random_state=0)
    assert r.fit(X, y).score(X, y) > 0.5
    assert r.fit(X.tolist(), y.tolist()).predict(X).shape == y.shape
    assert r.set_params(alpha=0.01, n_iter=50).fit(X, y).score(X, y) < 0.5
    assert r.set_params(alpha=0.01, n_iter=200).fit(X, y).score(X, y) > 0.5
