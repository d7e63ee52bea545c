"""The papers stage: papers, the names their methods go by, and their screening."""

from dataclasses import dataclass

import dagster as dg
import polars as pl

from assets.papers.affiliations import (
    arxiv_affiliations,
    maintainer_companies_from_sources,
    override_affiliations,
    papers_without_affiliations,
    read_affiliation_overrides,
)
from assets.papers.aliases import paper_aliases_of, read_alias_overrides
from assets.papers.kind_model import committed_kind_model
from assets.papers.papers import papers_from_entries
from assets.papers.screening import paper_screening_of, read_screening_overrides
from assets.papers.screening_model import committed_screening_model
from assets.preview import table_metadata, waiting_overrides_metadata
from orchestration.clients.openalex import openalex_affiliations
from orchestration.curation import waiting_for_papers
from orchestration.jobs import derived_automation
from orchestration.clients.reports import (
    ReportFetch,
    ReportFetchError,
    ReportTextsPlan,
    fetch_report_texts,
    report_texts_plan,
    stored_report_texts,
    tech_report_config,
)
from orchestration.resources import ArxivSource, Curation, OpenAlexSource
from orchestration.settings import frameworks, maintainer_companies
from orchestration.tables import (
    CORE_PAPER_ALIASES,
    CORE_PAPER_SCREENING,
    CORE_PAPERS,
    RAW_ARXIV_ENTRIES,
    RAW_OPENALEX_WORKS,
    catalog,
)
from orchestration.warehouse import WRITER_POOL, Warehouse, replace_table


@dg.asset(
    group_name="papers",
    **catalog(CORE_PAPERS),
    kinds={"polars", "duckdb"},
    deps=[dg.AssetKey("arxiv_entries")],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def papers(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    """One row per arXiv paper (id without version): its latest version's metadata,
    `published_at` of its first version (UTC) and its `cohort`, the quarter of that date.
    """
    entries = warehouse.table_or_empty(RAW_ARXIV_ENTRIES.name, RAW_ARXIV_ENTRIES.empty())
    result = papers_from_entries(entries)
    with warehouse.connect() as conn:
        replace_table(conn, CORE_PAPERS.name, result)
    per_cohort = result.group_by("cohort").len().sort("cohort")
    context.log.info(f"papers: {result.height} papers from {entries.height} entry versions")
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "version", "cohort", "published_at", "title"],
            papers_per_cohort=dg.MetadataValue.md(
                "\n".join(f"- {cohort}: {count}" for cohort, count in per_cohort.iter_rows())
            ),
        )
    )


#: What the aliases and the screening read of core.papers.
_PAPER_INPUT_COLUMNS = ["arxiv_id", "title", "abstract", "comment", "author_affiliations", "cohort"]


@dataclass
class AliasInputs:
    """What paper_aliases reads of the warehouse: the papers, and which technical-report
    texts are cached and which are to be fetched (None: no configured report harvested)."""

    papers: pl.DataFrame
    reports: ReportTextsPlan | None


@dataclass
class FetchedReportTexts:
    """What the fetch of report texts received, or why there is no text this run."""

    fetched: ReportFetch | pl.DataFrame | None
    unavailable: str | None = None


@dg.op(description="Read the papers and the cached report texts (in the writer pool).", ins={"papers": dg.In(dg.Nothing)}, pool=WRITER_POOL)
def read_alias_inputs(context: dg.OpExecutionContext, warehouse: Warehouse, arxiv: ArxivSource) -> AliasInputs:
    with warehouse.session():
        source = warehouse.read_table(CORE_PAPERS, _PAPER_INPUT_COLUMNS)
        report_ids = tech_report_config().reports_among(source["arxiv_id"].to_list())
        plan = report_texts_plan(warehouse, arxiv.report_texts(), report_ids, context.log) if report_ids else None
    return AliasInputs(source, plan)


@dg.op(description="Fetch the technical-report texts not cached yet (no warehouse, no writer slot).")
def fetch_alias_report_texts(context: dg.OpExecutionContext, arxiv: ArxivSource, inputs: AliasInputs) -> FetchedReportTexts:
    if inputs.reports is None:
        return FetchedReportTexts(None)
    try:
        return FetchedReportTexts(fetch_report_texts(arxiv.report_texts(), inputs.reports, context.log))
    except (FileNotFoundError, ReportFetchError) as unavailable:
        return FetchedReportTexts(None, str(unavailable))


@dg.op(description="Cache the fetched report texts, find the names and replace the table (in the writer pool).", pool=WRITER_POOL)
def write_paper_aliases(
    context: dg.OpExecutionContext,
    curation: Curation,
    warehouse: Warehouse,
    inputs: AliasInputs,
    reports: FetchedReportTexts,
) -> dg.Output:
    source, plan, unavailable = inputs.papers, inputs.reports, reports.unavailable
    overrides = read_alias_overrides(curation.path("aliases.csv"))
    with warehouse.session() as conn:
        passages = None
        if plan is not None and reports.fetched is not None:
            try:
                passages = stored_report_texts(warehouse, plan, reports.fetched, context.log)
            except ReportFetchError as error:
                unavailable = str(error)
        if unavailable is not None:
            # Names from the abstracts still stand; the report names come with the next run that reads them.
            context.log.warning(f"paper_aliases: no technical-report text this run ({unavailable})")
            passages, report_text_note = None, f"unavailable: {unavailable}"
        else:
            report_text_note = f"{0 if passages is None else passages['report_id'].n_unique()} of {len(plan.wanted) if plan else 0} harvested reports"
        result = paper_aliases_of(source, overrides, passages)
        replace_table(conn, CORE_PAPER_ALIASES.name, result)
    from_overrides = int(result["source"].eq("override").sum())
    removed = int(overrides["action"].eq("remove").sum())
    waiting = waiting_for_papers(overrides, source)
    context.log.info(
        f"paper_aliases: {result.height} names of {result['arxiv_id'].n_unique()} papers; "
        f"{waiting.height} curated alias row(s) wait for papers not harvested yet"
    )
    return dg.Output(
        None,
        metadata=table_metadata(
            result,
            ["arxiv_id", "alias", "normalized", "source", "ambiguous", "case_sensitive"],
            papers_with_aliases=result["arxiv_id"].n_unique(),
            ambiguous_aliases=int(result["ambiguous"].sum()),
            aliases_from_overrides=from_overrides,
            aliases_removed_by_overrides=removed,
            aliases_from_reports=int(result["source"].eq("report").sum()),
            # Names only the learned name model found (assets/papers/name_model.py).
            aliases_learned=int(result["source"].eq("learned").sum()),
            report_texts=report_text_note,
            **waiting_overrides_metadata({"aliases.csv": waiting}),
        ),
    )


@dg.graph_asset(
    group_name="papers",
    **catalog(CORE_PAPER_ALIASES),
    kinds={"polars", "duckdb"},
    ins={"papers": dg.AssetIn(dg.AssetKey("papers"), dagster_type=dg.Nothing)},
    automation_condition=derived_automation,
)
def paper_aliases(papers):
    """One row per (paper, name its method goes by): `alias` as written, `normalized`
    (lower case, no spaces/hyphens/underscores/dots), `source` (title_prefix, acronym,
    we_propose, named, enumerated, long_form; learned: found by the name model alone;
    report, variant, override), `ambiguous` (claimed by two or more papers) and
    `case_sensitive` (a short all-capital acronym).
    `report` names come from the text of the configured technical reports
    (orchestration/config/tech_reports.toml), fetched outside the writer pool and cached
    in raw.report_texts; overrides/aliases.csv adds and removes names.
    """
    inputs = read_alias_inputs.alias("read")(papers)
    return write_paper_aliases.alias("write")(inputs, fetch_alias_report_texts.alias("fetch")(inputs))


@dg.asset(
    group_name="papers",
    **catalog(CORE_PAPER_SCREENING),
    kinds={"polars", "duckdb"},
    deps=[papers, dg.AssetKey("openalex_works")],
    pool=WRITER_POOL,
    automation_condition=derived_automation,
)
def paper_screening(
    context: dg.AssetExecutionContext, curation: Curation, warehouse: Warehouse, openalex: OpenAlexSource
) -> dg.MaterializeResult:
    """One row per paper: `is_general_rl_method` with the learned model's
    `screening_probability` and `screening_terms` (what weighed most) and the rules'
    `screening_score` and `screening_reasons` (the rules that fired); and the features
    the study compares: `policy_params_b`/`large_policy` (largest policy trained, null when unknown),
    `loss_change_kind` (coefficient, clip, mask, weight, new_objective, advantage,
    sampling, reward; `other` for anything else and every paper that is not a general
    method) with its cue and `loss_change_reasons` (every cue found, as kind/field; the
    learned kind model decides where it is sure: cue `learned <p>: <words>`),
    `code_released`/`code_url`, `maintainer_company`
    (null when no affiliation is known) with `affiliation_source` (overrides, then arXiv's
    field, then in snapshot mode the recorded affiliations, then OpenAlex's answers cached
    in raw.openalex_works, then the GitHub organisation of the code URL, then e-mail
    domains in the comment or abstract). `verdict_source` says whether
    overrides/screening.csv replaced the rules' verdict.
    """
    source = warehouse.read_table(CORE_PAPERS, _PAPER_INPUT_COLUMNS)
    screening_overrides = read_screening_overrides(curation.path("screening.csv"))
    affiliation_overrides = read_affiliation_overrides(curation.path("affiliations.csv"))
    curated = override_affiliations(affiliation_overrides)
    recorded = arxiv_affiliations(source)
    printed = openalex.recorded_affiliations(context.log)
    unknown = papers_without_affiliations(source, curated, recorded, printed)
    works = warehouse.read_table(RAW_OPENALEX_WORKS).filter(pl.col("arxiv_id").is_in(unknown))
    looked_up = openalex_affiliations(works)
    maintainers = maintainer_companies_from_sources(
        source, [curated, recorded, printed, looked_up], maintainer_companies(), [f.repo for f in frameworks()]
    )
    result = paper_screening_of(source, maintainers, screening_overrides)
    model = committed_screening_model()
    with warehouse.connect() as conn:
        replace_table(conn, CORE_PAPER_SCREENING.name, result)
    general = int(result["is_general_rl_method"].sum())
    general_by_source = (
        result.filter("is_general_rl_method").group_by(pl.col("affiliation_source").fill_null("unknown")).len()
    )
    waiting = {
        "screening.csv": waiting_for_papers(screening_overrides, source),
        "affiliations.csv": waiting_for_papers(affiliation_overrides, source),
    }
    context.log.info(
        f"paper_screening: {general} of {result.height} papers propose a general RL method; "
        f"{sum(rows.height for rows in waiting.values())} curated row(s) wait for papers not harvested yet"
    )
    return dg.MaterializeResult(
        metadata=table_metadata(
            result,
            ["arxiv_id", "is_general_rl_method", "screening_probability", "policy_params_b", "loss_change_kind",
             "code_released", "maintainer_company", "verdict_source"],
            general_rl_methods=general,
            # What the verdicts' model was trained on, and how it does on batches it was not.
            screening_model_labelled_papers=int(model.meta.get("labelled_papers", 0)),
            screening_model_cross_validated_f1=float(model.meta.get("cross_validated_f1", float("nan"))),
            # Kinds the learned kind model decided (it is sure), the rest are the rules'.
            kinds_from_kind_model=int(result["loss_change_cue"].str.starts_with("learned ").sum()),
            kind_model_cross_validated_accuracy=float(committed_kind_model().meta.get("cross_validated_accuracy", float("nan"))),
            verdicts_from_overrides=int(result["verdict_source"].eq("override").sum()),
            papers_with_overridden_values=int((result["overridden"].list.len() > 0).sum()),
            large_policies=int(result["large_policy"].fill_null(False).sum()),
            policy_size_unknown=int(result["policy_params_b"].is_null().sum()),
            code_released=int(result["code_released"].sum()),
            maintainer_company_unknown=int(result["maintainer_company"].is_null().sum()),
            papers_per_affiliation_source=dg.MetadataValue.json(
                dict(result.group_by("affiliation_source").len().drop_nulls().sort("affiliation_source").iter_rows())
            ),
            maintainer_company_known=int(result["maintainer_company"].is_not_null().sum()),
            general_methods_per_affiliation_source=dg.MetadataValue.json(
                dict(general_by_source.sort("affiliation_source").iter_rows())
            ),
            **waiting_overrides_metadata(waiting),
        )
    )
