"""L2-regularised logistic regression on sparse features, shared by the learned models
(screening_model.py, name_model.py): the features are rows of a polars frame, the
fit is SciPy's L-BFGS on the exact loss and gradient."""

from __future__ import annotations

import polars as pl


def fit_logistic_regression(
    values: pl.DataFrame, examples: pl.DataFrame, *, c: float, what: str
) -> tuple[pl.DataFrame, float]:
    """The weight of each `feature` and the intercept that minimise the logistic loss
    plus |w|² / 2c.

    `values`: `example`, `feature`, `value` (one row per non-zero cell); `examples`:
    `example`, `label` (bool), one row per training example. `what` names the model in
    the error raised if the optimiser does not converge."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.sparse import csr_matrix

    rows = examples.select("example", "label").with_row_index("row")
    columns = values.select("feature").unique().sort("feature").with_row_index("column")
    cells = values.join(rows.select("example", "row"), on="example").join(columns, on="feature")
    x = csr_matrix(
        (cells["value"].cast(pl.Float64).to_numpy(), (cells["row"].to_numpy(), cells["column"].to_numpy())),
        shape=(rows.height, columns.height),
    )
    y = rows["label"].cast(pl.Float64).to_numpy()

    def loss(parameters: np.ndarray) -> tuple[float, np.ndarray]:
        weights, intercept = parameters[:-1], parameters[-1]
        logits = x @ weights + intercept
        # log(1 + e^z) - y z, computed without overflow.
        value = np.logaddexp(0, logits).sum() - y @ logits + weights @ weights / (2 * c)
        residual = 1 / (1 + np.exp(-logits)) - y
        return value, np.append(x.T @ residual + weights / c, residual.sum())

    solution = minimize(loss, np.zeros(columns.height + 1), jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    if not solution.success:
        raise RuntimeError(f"{what} did not converge: {solution.message}")
    return columns.select("feature", weight=pl.Series(solution.x[:-1])), float(solution.x[-1])
