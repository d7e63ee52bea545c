"""L2-regularised logistic regression on sparse features, shared by the learned models
(screening_model.py, name_model.py, and kind_model.py with several classes): the
features are rows of a polars frame, the fit is SciPy's L-BFGS on the exact loss and
gradient."""

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


def _design_matrix(values: pl.DataFrame, examples: pl.DataFrame):
    """The examples' rows (in order), the features' columns (sorted) and the sparse
    matrix of `values` (`example`, `feature`, `value`) over them."""
    from scipy.sparse import csr_matrix

    rows = examples.with_row_index("row")
    columns = values.select("feature").unique().sort("feature").with_row_index("column")
    cells = values.join(rows.select("example", "row"), on="example").join(columns, on="feature")
    x = csr_matrix(
        (cells["value"].cast(pl.Float64).to_numpy(), (cells["row"].to_numpy(), cells["column"].to_numpy())),
        shape=(rows.height, columns.height),
    )
    return rows, columns, x


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

    rows, columns, x = _design_matrix(values, examples.select("example", "label"))
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


def fit_softmax_regression(
    values: pl.DataFrame, examples: pl.DataFrame, *, c: float, what: str
) -> tuple[pl.DataFrame, dict[str, float]]:
    """The weight of each `feature` for each `class` and each class's intercept that
    minimise the multinomial logistic (softmax) loss plus |W|² / 2c.

    `values` as for fit_logistic_regression; `examples`: `example`, `label` (the class,
    a string). Returns `feature`, `class`, `weight` and {class: intercept}."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import logsumexp, softmax

    classes = sorted(examples["label"].unique().to_list())
    if len(classes) < 2:
        raise ValueError(f"{what} needs examples of at least two classes")
    rows, columns, x = _design_matrix(values, examples.select("example", "label"))
    truth = np.zeros((rows.height, len(classes)))
    truth[np.arange(rows.height), rows["label"].replace_strict(classes, list(range(len(classes)))).to_numpy()] = 1.0
    features, width = columns.height, len(classes)

    def loss(parameters: np.ndarray) -> tuple[float, np.ndarray]:
        weights = parameters[: features * width].reshape(features, width)
        intercepts = parameters[features * width :]
        logits = x @ weights + intercepts
        value = logsumexp(logits, axis=1).sum() - (truth * logits).sum() + (weights * weights).sum() / (2 * c)
        residual = softmax(logits, axis=1) - truth
        return value, np.concatenate([(x.T @ residual + weights / c).ravel(), residual.sum(axis=0)])

    solution = minimize(loss, np.zeros(features * width + width), jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    if not solution.success:
        raise RuntimeError(f"{what} did not converge: {solution.message}")
    weights = solution.x[: features * width].reshape(features, width)
    frame = pl.concat(
        [columns.select("feature", **{"class": pl.lit(name)}, weight=pl.Series(weights[:, index])) for index, name in enumerate(classes)]
    )
    return frame, {name: float(value) for name, value in zip(classes, solution.x[features * width :])}


class Fitted(Protocol):
    """What a fitted model keeps: one `weight` per `feature` (and `class`, with several
    classes), and the intercept (one per class, with several)."""

    features: pl.DataFrame
    intercept: float | dict[str, float]


def _keys(features: pl.DataFrame) -> list[str]:
    """The columns that name a weight: `feature`, and `class` where there are several."""
    return [column for column in features.columns if column in ("feature", "class")]


def _per_class(intercept: float | dict[str, float]) -> dict[str, float]:
    """The intercepts by class; a single intercept is the class ""."""
    return intercept if isinstance(intercept, dict) else {"": intercept}


def _rounded(intercept: float | dict[str, float]) -> float | dict[str, float]:
    return {name: round(value, 6) for name, value in intercept.items()} if isinstance(intercept, dict) else round(intercept, 6)


def same_fit(left: Fitted, right: Fitted, tolerance: float = 1e-3) -> bool:
    """The same features, and weights and intercepts within `tolerance` (the optimiser
    stops at a tolerance; the files keep six decimals)."""
    joined = left.features.join(right.features, on=_keys(left.features), how="full", suffix="_other")
    ours, theirs = _per_class(left.intercept), _per_class(right.intercept)
    return (
        joined.height == left.features.height == right.features.height
        and bool((joined["weight"] - joined["weight_other"]).abs().max() <= tolerance)
        and ours.keys() == theirs.keys()
        and all(abs(ours[name] - theirs[name]) <= tolerance for name in ours)
    )


def write_fitted(
    features: pl.DataFrame, intercept: float | dict[str, float], threshold: float, meta: dict, features_path: Path, meta_path: Path
) -> None:
    """The features as CSV, sorted and with floats rounded (a retrained model's diff shows
    what changed), and `intercept`, `threshold` and `meta` as JSON."""
    features_path.parent.mkdir(parents=True, exist_ok=True)
    features.sort(_keys(features)).with_columns(pl.selectors.float().round(6)).write_csv(features_path)
    meta_path.write_text(json.dumps({"intercept": _rounded(intercept), "threshold": threshold, **meta}, indent=2, sort_keys=True) + "\n")


def read_fitted(
    features_path: Path, meta_path: Path, schema: dict, *, what: str, trainer: str
) -> tuple[pl.DataFrame, float | dict[str, float], float, dict]:
    """The features, intercept, threshold and the rest of the meta `write_fitted` wrote;
    a missing file says which script trains the model."""
    for path in (features_path, meta_path):
        if not path.exists():
            raise FileNotFoundError(f"no {what} at {path}: train one with {trainer}")
    meta = json.loads(meta_path.read_text())
    intercept = meta.pop("intercept")
    intercept = {name: float(value) for name, value in intercept.items()} if isinstance(intercept, dict) else float(intercept)
    return pl.read_csv(features_path, schema=schema), intercept, float(meta.pop("threshold")), meta
