"""L2-regularised logistic regression on sparse features, shared by the learned models
(screening_model.py, name_model.py): the features are rows of a polars frame, the
fit is SciPy's L-BFGS on the exact loss and gradient."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import polars as pl
import polars.selectors


def probability(logit: pl.Expr, intercept: float) -> pl.Expr:
    """The model's probability from the summed feature weights (`logit`, null when no
    feature is known: 0), rounded to six decimals: float sums in another row order may
    differ in the last bit."""
    return (1 / (1 + (-(logit.fill_null(0.0) + intercept)).exp())).round(6)


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


class Fitted(Protocol):
    """What a fitted model keeps: one `weight` per `feature`, and the intercept."""

    features: pl.DataFrame
    intercept: float


def same_fit(left: Fitted, right: Fitted, tolerance: float = 1e-3) -> bool:
    """The same features, and weights and intercept within `tolerance` (the optimiser
    stops at a tolerance; the files keep six decimals)."""
    joined = left.features.join(right.features, on="feature", how="full", suffix="_other")
    return (
        joined.height == left.features.height == right.features.height
        and bool((joined["weight"] - joined["weight_other"]).abs().max() <= tolerance)
        and abs(left.intercept - right.intercept) <= tolerance
    )


def write_fitted(
    features: pl.DataFrame, intercept: float, threshold: float, meta: dict, features_path: Path, meta_path: Path
) -> None:
    """The features as CSV, sorted and with floats rounded (a retrained model's diff shows
    what changed), and `intercept`, `threshold` and `meta` as JSON."""
    features_path.parent.mkdir(parents=True, exist_ok=True)
    features.sort("feature").with_columns(pl.selectors.float().round(6)).write_csv(features_path)
    meta_path.write_text(json.dumps({"intercept": round(intercept, 6), "threshold": threshold, **meta}, indent=2, sort_keys=True) + "\n")


def read_fitted(
    features_path: Path, meta_path: Path, schema: dict, *, what: str, trainer: str
) -> tuple[pl.DataFrame, float, float, dict]:
    """The features, intercept, threshold and the rest of the meta `write_fitted` wrote;
    a missing file says which script trains the model."""
    for path in (features_path, meta_path):
        if not path.exists():
            raise FileNotFoundError(f"no {what} at {path}: train one with {trainer}")
    meta = json.loads(meta_path.read_text())
    return pl.read_csv(features_path, schema=schema), float(meta.pop("intercept")), float(meta.pop("threshold")), meta
