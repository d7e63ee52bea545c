"""The audits of the links tables: what their blocking checks look for in the staged
rows before they are published (assets/audits.py). Column-level rules (well-formed ids
and URLs, allowed classes, unique keys) run as great-expectations 1.x suites, imported
only when an audit runs so that the code location loads fast."""

from datetime import datetime

import polars as pl

from assets.audits import Audit
from assets.links.evidence import EVIDENCE_CLASSES, MATCH_KINDS, RULES, SOURCE_TYPES
from assets.links.inclusions import INCLUSION_SOURCES
from orchestration.curation import ARXIV_ID_REGEX
from orchestration.settings import frameworks

URL_REGEX = r"^https?://[^\s/$.?#][^\s]*$"
#: An inclusion this long before the paper's v1 is more likely a wrong match than
#: authors upstreaming early: a warning to review, not an error.
EARLY_INCLUSION_DAYS = 90
_SHOWN = 5


def _gx_failures(frame: pl.DataFrame, name: str, expectations: list) -> list[str]:
    """What a great-expectations suite of `expectations` finds wrong in `frame`."""
    import great_expectations as gx  # slow to import: only when a check runs

    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    # Its tqdm bars would fill the run's output; the check's metadata says what it found.
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    batch_definition = (
        context.data_sources.add_pandas(f"{name}_source")
        .add_dataframe_asset(name)
        .add_batch_definition_whole_dataframe("all_rows")
    )
    suite = context.suites.add(gx.ExpectationSuite(name=f"{name}_suite", expectations=expectations))
    result = batch_definition.get_batch(batch_parameters={"dataframe": frame.to_pandas()}).validate(suite)
    failures = []
    for outcome in result.results:
        if not outcome.success:
            config = outcome.expectation_config
            column = config.kwargs.get("column") or config.kwargs.get("column_list")
            examples = outcome.result.get("partial_unexpected_list", [])[:_SHOWN]
            failures.append(f"{config.type} on {column}: {outcome.result.get('unexpected_count', '?')} row(s), e.g. {examples}")
    return failures


def _column_expectations(table: str, frame: pl.DataFrame) -> list:
    import great_expectations as gx

    expect = gx.expectations
    expectations = [
        expect.ExpectColumnValuesToNotBeNull(column="arxiv_id"),
        expect.ExpectColumnValuesToMatchRegex(column="arxiv_id", regex=ARXIV_ID_REGEX),
        expect.ExpectColumnValuesToBeInSet(column="framework", value_set=[f.slug for f in frameworks()]),
    ]
    if table == "evidence":
        expectations += [
            expect.ExpectColumnValuesToBeInSet(column="source_type", value_set=list(SOURCE_TYPES)),
            expect.ExpectColumnValuesToBeInSet(column="matched_by", value_set=list(MATCH_KINDS)),
            expect.ExpectColumnValuesToBeInSet(column="evidence_class", value_set=list(EVIDENCE_CLASSES)),
            expect.ExpectColumnValuesToBeInSet(column="rule", value_set=list(RULES)),
            expect.ExpectColumnValuesToMatchRegex(column="url", regex=URL_REGEX),
        ]
    if table == "inclusions":
        expectations += [
            expect.ExpectCompoundColumnsToBeUnique(column_list=["arxiv_id", "framework"]),
            expect.ExpectColumnValuesToNotBeNull(column="included_at"),
            expect.ExpectColumnValuesToBeInSet(column="source", value_set=list(INCLUSION_SOURCES)),
            expect.ExpectColumnValuesToMatchRegex(column="commit_url", regex=URL_REGEX),
        ]
    return expectations


def links_column_problems(table: str, frame: pl.DataFrame) -> list[str]:
    """Malformed ids and URLs, unknown frameworks, classes or rules, duplicate keys."""
    if frame.is_empty():
        return []
    return _gx_failures(frame, table, _column_expectations(table, frame))


def unknown_papers(frame: pl.DataFrame, papers: pl.DataFrame) -> list[str]:
    """Links whose paper is not in `papers` (a link to nothing would count in no cohort)."""
    if frame.is_empty() or "arxiv_id" not in frame.columns:
        return []
    missing = frame.filter(pl.col("arxiv_id").is_not_null()).join(papers, on="arxiv_id", how="anti")
    ids = missing["arxiv_id"].unique().sort().to_list()
    return [f"{len(ids)} paper(s) not in core.papers, e.g. {ids[:_SHOWN]}"] if ids else []


def inclusion_date_problems(inclusions_frame: pl.DataFrame, commits: pl.DataFrame, as_of: datetime) -> list[str]:
    """Inclusions dated outside their framework's recorded history or after the as-of date."""
    if inclusions_frame.is_empty():
        return []
    utc = pl.Datetime("us", "UTC")
    history = commits.group_by("framework").agg(
        first=pl.col("committed_at").min().cast(utc), last=pl.col("committed_at").max().cast(utc)
    )
    dated = inclusions_frame.with_columns(pl.col("included_at").cast(utc)).join(history, on="framework", how="left")
    wrong = dated.filter(
        (pl.col("included_at") > pl.lit(as_of, pl.Datetime("us", "UTC")))
        | pl.col("first").is_null()
        | (pl.col("included_at") < pl.col("first"))
        | (pl.col("included_at") > pl.col("last"))
    )
    return [
        f"{row['arxiv_id']} in {row['framework']} dated {row['included_at']}, outside "
        f"{row['first']} .. {row['last']} or after {as_of:%Y-%m-%d}"
        for row in wrong.head(_SHOWN).iter_rows(named=True)
    ] + ([f"… {wrong.height} in all"] if wrong.height > _SHOWN else [])


def early_inclusions(inclusions_frame: pl.DataFrame) -> pl.DataFrame:
    """Inclusions more than EARLY_INCLUSION_DAYS before the paper's first version."""
    return inclusions_frame.filter(pl.col("lag_days") < -EARLY_INCLUSION_DAYS)


def unknown_frameworks(frame: pl.DataFrame) -> list[str]:
    slugs = [f.slug for f in frameworks()]
    unknown = frame.filter(~pl.col("framework").is_in(slugs))["framework"].unique().to_list()
    return [f"unknown framework(s) {unknown}"] if unknown else []


EVIDENCE_VALID = Audit(
    "evidence_links_valid",
    "arXiv ids well-formed, frameworks configured, source types, match kinds, classes and rules from the allowed "
    "sets, URLs well-formed (great-expectations), and every paper in core.papers; run on the staged rows before "
    "they are published.",
)
INCLUSIONS_VALID = Audit(
    "inclusions_valid",
    "(paper, framework) unique, ids and commit URLs well-formed, frameworks configured (great-expectations), every "
    "paper in core.papers, and every date within its framework's recorded history and not after today; run on the "
    "staged rows before they are published.",
)
INCLUSIONS_NOT_LONG_BEFORE_PAPER = Audit(
    "inclusions_not_long_before_paper",
    f"Inclusions more than {EARLY_INCLUSION_DAYS} days before the paper's v1: a warning to review (a wrong match, "
    "or an override needed).",
    blocking=False,
)
PROPOSALS_LINK_KNOWN_PAPERS = Audit(
    "proposals_link_known_papers",
    "Every proposal's paper is in core.papers and its framework configured; run on the staged rows.",
)
TRAINING_FAILURES_LINK_KNOWN_PAPERS = Audit(
    "training_failures_link_known_papers",
    "Every linked paper is in core.papers and every framework configured; run on the staged rows.",
)


def early_inclusion_problems(inclusions_frame: pl.DataFrame) -> list[str]:
    """One line per inclusion more than EARLY_INCLUSION_DAYS before its paper's v1."""
    return [
        f"{arxiv_id} in {framework} ({lag:.0f} days)"
        for arxiv_id, framework, lag in early_inclusions(inclusions_frame).select("arxiv_id", "framework", "lag_days").iter_rows()
    ]
