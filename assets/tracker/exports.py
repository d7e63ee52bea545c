"""Open data: every core and metrics table as Parquet and CSV beside the site, described by
a Frictionless Data package (`datapackage.json`) so pandas, polars, DuckDB or R load them
without the project."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import polars as pl

from orchestration.tables import Table

DATA_DIR = "data"


def frictionless_type(dtype: pl.DataType) -> str:
    """The Table Schema type of a polars column type."""
    if dtype.is_integer():
        return "integer"
    if dtype.is_float():
        return "number"
    if dtype == pl.Boolean:
        return "boolean"
    if isinstance(dtype, pl.Datetime):
        return "datetime"
    if dtype == pl.Date:
        return "date"
    if isinstance(dtype, pl.List):
        return "array"
    return "string"


def csv_ready(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with list columns as JSON arrays (what Table Schema's `array` reads in CSV)."""
    lists = [name for name, dtype in frame.schema.items() if isinstance(dtype, pl.List)]
    return frame.with_columns(
        pl.struct(name).struct.json_encode().str.replace(r'^\{"[^"]*":', "").str.strip_suffix("}").alias(name)
        for name in lists
    )


def write_table(site_dir: Path, table: Table, frame: pl.DataFrame) -> list[dict[str, object]]:
    """Write `frame` as `data/<table>.parquet` and `.csv`; their data package resources."""
    data_dir = site_dir / DATA_DIR
    data_dir.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(data_dir / f"{table.name}.parquet")
    csv_ready(frame).write_csv(data_dir / f"{table.name}.csv", datetime_format="%Y-%m-%dT%H:%M:%SZ")
    schema = {"fields": [{"name": name, "type": frictionless_type(dtype)} for name, dtype in table.schema.items()]}
    common = {"description": table.description, "schema": schema, "rows": frame.height}
    return [
        {"name": table.name, "path": f"{DATA_DIR}/{table.name}.csv", "format": "csv", "mediatype": "text/csv",
         "encoding": "utf-8", **common},
        {"name": f"{table.name}.parquet", "path": f"{DATA_DIR}/{table.name}.parquet", "format": "parquet",
         "mediatype": "application/vnd.apache.parquet", **common},
    ]


def data_package(resources: list[dict[str, object]], as_of: datetime) -> str:
    """`datapackage.json` of the exported tables, measured as of `as_of`."""
    package = {
        "name": "inclusion-tracker",
        "title": "RL training methods from arXiv papers in seven open-source RL post-training frameworks",
        "as_of": as_of.isoformat(),
        "created": as_of.isoformat(),
        "profile": "data-package",
        "resources": resources,
    }
    return json.dumps(package, indent=2, ensure_ascii=False) + "\n"
