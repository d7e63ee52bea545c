"""Cohort metrics (the `metrics` schema): pure polars transforms of the core tables,
each returning exactly one metrics table, computed as of a given date.

- windows: as-of date, cohorts, and whether a cohort's 180-day window is closed
- cohort_inclusion: general methods included, and within 180 days, per cohort and framework
- peers: included methods vs the other general methods (Fisher's exact test)
- thread_coverage: threads citing never-included methods; how proposals ended
- failure_reports: training-failure issues per included implementation
- time_to_inclusion: Kaplan-Meier curves of days to first inclusion; lags per framework
- first_inclusions: which framework included a method first, and the order of the rest
- tech_reports: which widely included methods the technical reports of large models state
"""
