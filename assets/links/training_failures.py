"""Training failures: issues that report one (NaN or inf loss, divergence, reward or
entropy collapse, loss or gradient spikes, KL blow-up, reward hacking), each linked to
the implementation it concerns where it names a method, loss, config key or file that
the evidence ties to one paper."""

import polars as pl

from assets.links.evidence import UTC_TIME, alias_key
from orchestration.tables import CORE_TRAINING_FAILURES

#: Kinds of failure and the words that report them, matched on the lower-cased title,
#: body and recorded tokens as whole words (the recorded threads carry tokens only).
FAILURE_PATTERNS: dict[str, str] = {
    # ASCII word edges: in Chinese prose ("变成nan") \b finds none.
    "nan_or_inf": r"(?:^|[^a-z0-9_])(nan|nans|inf|infs|infinity|infinite)(?:[^a-z0-9_]|$)",
    # Not "divergence" alone: "KL divergence" names a quantity, not a failure.
    "divergence": r"\b(diverge|diverged|diverges|diverging|instabilit\w*|unstable|destabiliz\w*)\b",
    "collapse": r"\b(collaps\w*)\b",
    "spike": r"\b(spik\w*|explod\w*|explosion|blow[\s_-]?ups?|blew|blows)\b",
    "reward_hacking": r"\b(reward[\s_-]?hack\w*|hacking)\b",
    # Output degenerating into one repeated character (`!!!!!!!!`), reported with NaNs.
    "degenerate_output": r"!{8,}|\b(gibberish|garbled)\b",
}
#: KL named together with a blow-up or NaN word: the KL term is what failed.
_KL = r"\b(kl|kl_loss|kl_divergence|low_var_kl)\b"
_BLOWUP = r"\b(nan|inf|explod\w*|spik\w*|blow[\s_-]?ups?|huge|diverged|diverges|diverging)\b"
#: A title that is a feature request, even one naming a failure ("Feature request:
#: reward-hacking monitoring"): a wish, not a report.
_REQUEST_TITLE = r"(?i)feature[\s_-]*request|\[feature|\[rfc\b|\bproposal\b|roadmap"
#: A title asking for a feature: its body may discuss collapse or NaNs as motivation.
_FEATURE_TITLE = r"(?i)feature|support|\badd|integrat|implement|request|proposal|\brfc\b|roadmap|\[new"



def failure_kinds(text: pl.Expr) -> pl.Expr:
    """The failure kinds a (lower-cased) text reports, as a list (empty: none)."""
    kinds = [pl.when(text.str.contains(pattern)).then(pl.lit(kind)) for kind, pattern in FAILURE_PATTERNS.items()]
    kinds.append(pl.when(text.str.contains(_KL) & text.str.contains(_BLOWUP)).then(pl.lit("kl_blowup")))
    return pl.concat_list(kinds).list.drop_nulls()


def failure_reports(threads: pl.DataFrame) -> pl.DataFrame:
    """Issues (not pull requests: a fix is not a report) whose title, body or recorded
    tokens report a training failure, with the kinds found."""
    title = pl.col("title").fill_null("")
    body = pl.concat_str(
        pl.col("body").fill_null(""), pl.col("body_tokens").fill_null([]).list.join(" "), separator=" \n "
    )
    in_title = failure_kinds(title.str.to_lowercase())
    in_body = failure_kinds(body.str.to_lowercase())
    return (
        threads.filter(pl.col("kind") == "issue")
        .with_columns(
            failure_kinds=pl.when(title.str.contains(_REQUEST_TITLE))
            .then(pl.lit([], pl.List(pl.Utf8)))
            .when(in_title.list.len() > 0)
            .then(pl.concat_list(in_title, in_body).list.unique(maintain_order=True))
            .when(~title.str.contains(_FEATURE_TITLE))
            .then(in_body)
            .otherwise(pl.lit([], pl.List(pl.Utf8)))
        )
        .filter(pl.col("failure_kinds").list.len() > 0)
    )


def implementation_keys(evidence: pl.DataFrame) -> pl.DataFrame:
    """(framework, key, arxiv_id): the identifiers and file stems that implementation
    evidence ties to exactly one paper in a framework (a file implementing several
    papers, like a shared core_algos.py, names none of them)."""
    implementing = evidence.filter(
        (pl.col("source_type") == "commit") & (pl.col("evidence_class") == "implementation")
    )
    named = implementing.filter(pl.col("matched_by") == "alias").with_columns(
        _alias=alias_key(pl.col("matched_text"))
    )
    identifiers = named.filter(pl.col("in_code")).select("framework", "arxiv_id", key="_alias")
    # A file named for the method (dapo_ray_trainer.py, gspo_loss.py); a generic one
    # (core_algos.py, grpo.md) ties to no paper.
    files = (
        named.filter(pl.col("path").is_not_null())
        .with_columns(key=alias_key(pl.col("path").str.replace(r"^.*/", "").str.replace(r"\.[^.]*$", "")))
        .filter(pl.col("key").str.contains(pl.col("_alias"), literal=True))
        .select("framework", "arxiv_id", "key")
    )
    keys = pl.concat([identifiers, files]).filter(pl.col("key").str.len_chars() >= 3).unique()
    single = keys.group_by("framework", "key").agg(pl.col("arxiv_id").n_unique().alias("papers"))
    return keys.join(single.filter(pl.col("papers") == 1), on=["framework", "key"], how="semi")


def training_failures_of(
    threads: pl.DataFrame, evidence: pl.DataFrame, inclusions: pl.DataFrame
) -> pl.DataFrame:
    """One row per failure report and implementation it concerns (one row with a null
    paper where it concerns none that the evidence knows)."""
    reports = failure_reports(threads)
    included = inclusions.select("arxiv_id", "framework", "commit_sha", "included_at")
    # The key shown is the first naming of the paper: the thread's own text, then its
    # comments in the order they were written.
    named = (
        evidence.filter(pl.col("source_type").is_in(["thread", "comment"]))
        .sort(
            "source_type", "occurred_at", "comment_id", "matched_text",
            descending=[True, False, False, False], nulls_last=True,
        )
        .select("framework", number=pl.col("source_ref").cast(pl.Int64), arxiv_id="arxiv_id", link_key="matched_text")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
        .join(included, on=["arxiv_id", "framework"])
        .with_columns(linked_by=pl.lit("named"))
    )
    words = pl.concat_str(pl.col("title").fill_null(""), pl.col("body").fill_null(""), separator=" ").str.extract_all(
        r"[A-Za-z_][A-Za-z0-9_.+-]*"
    )
    tokens = (
        reports.select("framework", "number", token=pl.concat_list(pl.col("body_tokens").fill_null([]), words))
        .explode("token")
        .drop_nulls("token")
        .with_columns(
            key=alias_key(pl.col("token").str.replace(r"\.py$", "")),
            _position=pl.int_range(pl.len()).over("framework", "number"),
        )
    )
    # The key shown is the first word that names the implementation.
    by_identifier = (
        tokens.join(implementation_keys(evidence), on=["framework", "key"])
        .sort("_position")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
        .select("framework", "number", "arxiv_id", link_key="token")
        .join(included, on=["arxiv_id", "framework"])
        .with_columns(linked_by=pl.lit("identifier"))
    )
    links = (
        pl.concat([named, by_identifier.select(named.columns)], how="vertical")
        .join(reports.select("framework", "number"), on=["framework", "number"], how="semi")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
    )
    return (
        reports.join(links, on=["framework", "number"], how="left")
        .select(
            "framework",
            "number",
            "title",
            "state",
            "author",
            url="html_url",
            created_at="created_at",
            failure_kinds="failure_kinds",
            arxiv_id="arxiv_id",
            linked_by="linked_by",
            link_key="link_key",
            commit_sha="commit_sha",
            included_at="included_at",
        )
        .cast(CORE_TRAINING_FAILURES.schema)
        .sort("framework", "number", "arxiv_id", nulls_last=True)
    )
