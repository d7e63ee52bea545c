"""Curation CSVs (overrides/*.csv): people's corrections, which win over the rules.

Every file has a header row, the columns its reader names, and a non-empty `reason`
column: a correction nobody can explain is not kept. A malformed row fails the run with
`file:line: column value: reason` (`OverrideError`), because silently dropping a
correction would silently bring back the verdict it corrects. An absent file, or one
with only a header, is no corrections at all. Lines whose first cell starts with `#`
are comments. Every row keeps its `line`, so later errors and reports can point at it.

A row about a paper that is not harvested (yet) is not an error: it waits for its paper
(`waiting_for_papers`) and applies once the paper arrives.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import polars as pl

#: The overrides folder of the repository (next to assets/).
OVERRIDES_DIR = Path(__file__).resolve().parents[1] / "overrides"

REASON = "reason"
#: The line of the file a row came from (1-based, as editors count), on every row read.
LINE = "line"

#: An arXiv id as the tables store it, without a version. New style: YYMM.NNNN up to
#: 1412, YYMM.NNNNN from 1501; old style: archive/YYMMNNN.
ARXIV_ID_REGEX = (
    r"^(?:(?:0[7-9]|1[0-4])(?:0[1-9]|1[0-2])\.\d{4}|(?:1[5-9]|[2-9]\d)(?:0[1-9]|1[0-2])\.\d{5}"
    r"|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})$"
)
ARXIV_ID_FORMAT = (ARXIV_ID_REGEX, "not an arXiv id without version (2503.14476, hep-th/0101001)")
#: Columns checked in every curation file that has them.
DEFAULT_FORMATS = {"arxiv_id": ARXIV_ID_FORMAT}

UTC_TIME = pl.Datetime("us", "UTC")

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


class OverrideError(ValueError):
    """A curation file cannot be read: the message names the file, the line and the reason."""


def _fail(path: Path, line: int, reason: str) -> OverrideError:
    return OverrideError(f"{path}:{line}: {reason}")


def cell_error(path: Path, line: int, column: str, value: object, reason: str) -> OverrideError:
    """`file:line: column value: reason`, the form of every error about one cell."""
    return _fail(path, line, f"{column} {value!r}: {reason}")


def iso_time(text: pl.Expr) -> pl.Expr:
    """An ISO-8601 date or time as UTC (a time without offset is taken as UTC); null when
    the text is none of these."""
    with_offset = text.str.replace(r"Z$", "+00:00")
    return pl.coalesce(
        with_offset.str.to_datetime("%Y-%m-%dT%H:%M:%S%z", time_unit="us", strict=False).dt.convert_time_zone("UTC"),
        with_offset.str.to_datetime("%Y-%m-%dT%H:%M:%S", time_unit="us", strict=False).dt.replace_time_zone("UTC"),
        with_offset.str.to_datetime("%Y-%m-%d", time_unit="us", strict=False).dt.replace_time_zone("UTC"),
    )


def _raw_rows(path: Path, names: Sequence[str]) -> tuple[list[int], list[list[str]]]:
    """Line numbers and cells of the data rows, after checking the header and field counts."""
    content = path.read_bytes()
    try:
        text = content.decode("utf-8-sig")  # a spreadsheet's byte-order mark is no column name
    except UnicodeDecodeError as error:
        line = content[: error.start].count(b"\n") + 1
        raise _fail(path, line, f"not UTF-8 text (byte 0x{content[error.start]:02x}); save the file as UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    lines: list[int] = []
    cells: list[list[str]] = []
    while True:
        try:
            row = next(reader, None)
        except csv.Error as error:  # a NUL byte, a stray quote, an overlong field
            raise _fail(path, reader.line_num, f"not a CSV row ({error}); quote cells that hold commas, quotes or line breaks") from None
        if row is None:
            break
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


_TYPE_NAMES = {pl.Boolean: "true or false", pl.Int64: "a whole number", pl.Float64: "a number"}


def _type_name(dtype: pl.DataType) -> str:
    if dtype == UTC_TIME:
        return "an ISO-8601 date or time (2025-04-03 or 2025-04-03T12:00:00Z)"
    return _TYPE_NAMES.get(dtype, str(dtype))


def _typed(column: pl.Series, dtype: pl.DataType) -> pl.Series:
    if dtype == UTC_TIME:
        return pl.select(iso_time(pl.lit(column)).alias(column.name)).to_series()
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
    formats: Mapping[str, tuple[str, str]] | None = None,
    unique: Sequence[str] = (),
) -> pl.DataFrame:
    """The validated rows of one curation CSV, typed as `columns`, plus `reason` and `line`.

    `columns` maps each column (besides `reason`, which every file has) to its polars
    type (Utf8, Boolean as true/false/yes/no/1/0, Int64, Float64, UTC_TIME as ISO-8601).
    `required` names the columns that may not be blank (default: all of them; a blank
    optional cell is null); `allowed` the values a text column may take; `formats` a
    (regular expression, reason) a text column must match, besides `DEFAULT_FORMATS`
    (an `arxiv_id` is always checked); `unique` the columns whose combination may appear
    only once. Raises `OverrideError` as `file:line: column value: reason`.
    """
    path = Path(path)
    schema: dict[str, pl.DataType] = {**columns, REASON: pl.Utf8}
    names = list(schema)
    required_names = set(columns) if required is None else set(required)
    required_names.add(REASON)
    patterns = {name: rule for name, rule in {**DEFAULT_FORMATS, **(formats or {})}.items() if name in schema}
    empty = pl.DataFrame(schema={**schema, LINE: pl.Int64})
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
            what = "empty: every correction says why" if name == REASON else "empty: this column is required"
            raise cell_error(path, bad, name, "", what)
        values = _typed(text, dtype)
        wrong = values.is_null() & ~blank
        if wrong.any():
            index = wrong.arg_true()[0]
            raise cell_error(path, line_of[index], name, text[index], f"must be {_type_name(dtype)}")
        if allowed and name in allowed:
            unknown = ~blank & ~text.is_in(list(allowed[name]))
            if unknown.any():
                index = unknown.arg_true()[0]
                raise cell_error(
                    path, line_of[index], name, text[index], f"unknown; expected one of {sorted(allowed[name])}"
                )
        if name in patterns:
            pattern, reason = patterns[name]
            mismatched = ~blank & ~text.str.contains(pattern)
            if mismatched.any():
                index = mismatched.arg_true()[0]
                raise cell_error(path, line_of[index], name, text[index], reason)
        typed[name] = values
    frame = pl.DataFrame(typed, schema=schema).with_columns(line_of.alias(LINE))
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


def waiting_for_papers(overrides: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """The override rows about papers that are not in `papers` (not harvested in this
    window, or not yet): set aside, never turned into evidence, verdicts or inclusions."""
    return overrides.join(papers.select("arxiv_id"), on="arxiv_id", how="anti")


def about_known_papers(overrides: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """The override rows about papers that are in `papers`: the ones to apply now."""
    return overrides.join(papers.select("arxiv_id").unique(), on="arxiv_id", how="semi")
