"""Partitions of the tracker's assets."""

import dagster as dg

from orchestration.settings import HARVEST_START, frameworks

#: One partition per UTC day of arXiv submissions, from the start of the study window.
daily_partitions = dg.DailyPartitionsDefinition(start_date=HARVEST_START.isoformat(), timezone="UTC")

#: One partition per configured framework (its slug).
framework_partitions = dg.StaticPartitionsDefinition([framework.slug for framework in frameworks()])
