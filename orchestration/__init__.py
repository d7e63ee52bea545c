"""Dagster code location of the inclusion tracker: definitions, resources, jobs, CLI."""
