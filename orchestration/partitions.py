"""Partitions of the tracker's assets."""

import re
import warnings
from datetime import date

import dagster as dg

from orchestration.settings import HARVEST_START, frameworks

# A range backfill of these partitions must be one run (one paged arXiv query, one
# recomputation of the quarters); Dagster still labels the parameter beta, and that
# notice would otherwise print on every load of the code location.
warnings.filterwarnings("ignore", message=r"Parameter `backfill_policy`", category=dg.BetaWarning)

#: One partition per UTC day of arXiv submissions, from the start of the study window.
daily_partitions = dg.DailyPartitionsDefinition(start_date=HARVEST_START.isoformat(), timezone="UTC")

#: One partition per configured framework (its slug).
framework_partitions = dg.StaticPartitionsDefinition([framework.slug for framework in frameworks()])

#: One partition per quarterly cohort (the calendar quarter of papers' first versions, UTC)
#: from 2025-Q1, extending by itself; the quarter in progress is one too (its figures are
#: provisional). A key is the quarter's first day (2025-04-01): people read the quarter as
#: its label (`cohort_label`: 2025-Q2) in every table, description and piece of metadata.
cohort_partitions = dg.TimeWindowPartitionsDefinition(
    cron_schedule="0 0 1 1,4,7,10 *",
    start=HARVEST_START.isoformat(),
    fmt="%Y-%m-%d",
    timezone="UTC",
    end_offset=1,
)

_COHORT_LABEL = re.compile(r"^(\d{4})-Q([1-4])$")


def cohort_label(partition_key: str) -> str:
    """The cohort a partition key stands for: 2025-04-01 -> 2025-Q2."""
    first_day = date.fromisoformat(partition_key)
    return f"{first_day.year}-Q{(first_day.month - 1) // 3 + 1}"


def cohort_partition_key(label: str) -> str:
    """The partition key of a cohort label: 2025-Q2 -> 2025-04-01 (ValueError on anything else)."""
    match = _COHORT_LABEL.match(label)
    if not match:
        raise ValueError(f"not a cohort: {label!r} (expected a quarter like 2025-Q2)")
    year, quarter = int(match[1]), int(match[2])
    return date(year, 3 * quarter - 2, 1).isoformat()
