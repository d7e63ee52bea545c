"""Curation CSVs (overrides/*.csv): people's corrections, which win over the rules.

Every file has a header row, the columns its reader names, and a non-empty `reason`
column: a correction nobody can explain is not kept. A malformed row fails the run with
the file, the line and what is wrong (`OverrideError`), because silently dropping a
correction would silently bring back the verdict it corrects. An absent file, or one
with only a header, is no corrections at all. Lines whose first cell starts with `#`
are comments.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import polars as pl

#: The overrides folder of the repository (next to assets/).
OVERRIDES_DIR = Path(__file__).resolve().parents[1] / "overrides"

REASON = "reason"

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


class OverrideError(ValueError):
    """A curation file cannot be read: the message names the file, the line and the reason."""


def _fail(path: Path, line: int, reason: str) -> OverrideError:
    return OverrideError(f"{path}:{line}: {reason}")


def _raw_rows(path: Path, names: Sequence[str]) -> tuple[list[int], list[list[str]]]:
    """Line numbers and cells of the data rows, after checking the header and field counts."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header: list[str] | None = None
        lines: list[int] = []
        cells: list[list[str]] = []
        for row in reader:
            line = reader.line_num
            if not row or not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [cell.strip() for cell in row]
                missing = [name for name in names if name not in header]
                unknown = [name for name in header if name not in names]
                if missing:
                    raise _fail(path, line, f"missing column(s) {missing} in the header; expected {list(names)}")
                if unknown:
                    raise _fail(path, line, f"unknown column(s) {unknown} in the header; expected {list(names)}")
                if len(set(header)) != len(header):
                    raise _fail(path, line, "a column appears twice in the header")
                continue
            if len(row) != len(header):
                raise _fail(path, line, f"{len(row)} fields where the header has {len(header)}")
            by_name = dict(zip(header, row, strict=True))
            lines.append(line)
            cells.append([by_name[name].strip() for name in names])
    return lines, cells


def _typed(column: pl.Series, dtype: pl.DataType) -> pl.Series:
    if dtype == pl.Boolean:
        lowered = column.str.to_lowercase()
        return (
            pl.select(
                pl.when(lowered.is_in(list(_TRUE)))
                .then(True)
                .when(lowered.is_in(list(_FALSE)))
                .then(False)
                .otherwise(None)
                .alias(column.name)
            )
            .to_series()
        )
    return column.cast(dtype, strict=False)


def read_override_csv(
    path: Path,
    columns: Mapping[str, pl.DataType],
    *,
    required: Collection[str] | None = None,
    allowed: Mapping[str, Collection[str]] | None = None,
    unique: Sequence[str] = (),
) -> pl.DataFrame:
    """The validated rows of one curation CSV, typed as `columns`, plus `reason`.

    `columns` maps each column (besides `reason`, which every file has) to its polars
    type (Utf8, Boolean as true/false/yes/no/1/0, Int64, Float64). `required` names the
    columns that may not be blank (default: all of them; a blank optional cell is null);
    `allowed` the values a text column may take; `unique` the columns whose combination
    may appear only once. Raises `OverrideError` naming the file, the line and the reason.
    """
    path = Path(path)
    schema: dict[str, pl.DataType] = {**columns, REASON: pl.Utf8}
    names = list(schema)
    required_names = set(columns) if required is None else set(required)
    required_names.add(REASON)
    empty = pl.DataFrame(schema=schema)
    if not path.is_file():
        return empty
    lines, cells = _raw_rows(path, names)
    if not cells:
        return empty

    raw = pl.DataFrame(cells, schema={name: pl.Utf8 for name in names}, orient="row").with_columns(
        pl.col(names).replace("", None)
    )
    line_of = pl.Series("line", lines, dtype=pl.Int64)
    typed = {}
    for name, dtype in schema.items():
        text = raw[name]
        blank = text.is_null()
        if name in required_names and blank.any():
            bad = line_of.filter(blank)[0]
            what = "empty reason: every correction says why" if name == REASON else f"empty {name!r}"
            raise _fail(path, bad, what)
        values = _typed(text, dtype)
        wrong = values.is_null() & ~blank
        if wrong.any():
            index = wrong.arg_true()[0]
            raise _fail(path, line_of[index], f"{name!r} must be {dtype}, got {text[index]!r}")
        if allowed and name in allowed:
            unknown = ~blank & ~text.is_in(list(allowed[name]))
            if unknown.any():
                index = unknown.arg_true()[0]
                raise _fail(
                    path, line_of[index], f"unknown {name!r} {text[index]!r}; expected one of {sorted(allowed[name])}"
                )
        typed[name] = values
    frame = pl.DataFrame(typed, schema=schema)
    if unique:
        numbered = frame.with_row_index("row").with_columns(
            first=pl.col("row").min().over(list(unique), mapping_strategy="group_to_rows")
        )
        repeated = numbered.filter(pl.col("row") != pl.col("first"))
        if repeated.height:
            index, earlier = repeated["row"][0], repeated["first"][0]
            raise _fail(
                path, line_of[index], f"duplicate {list(unique)} (first on line {line_of[earlier]}); keep one row"
            )
    return frame
