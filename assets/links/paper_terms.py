"""Descriptive names of a paper's method as code writes them, beyond its aliases: the
implementation evidence of a commit that cites the paper by id or title and names the
method in its code under a descriptive name (`geometric_mean_policy_optimization`,
`gmpo_loss`, a distinctive word of the abstract such as `fp16`).

A term is matched against *name parts*: an identifier split at `_`, `-`, `.` and `/`
(`gmpo_loss` → `gmpo`, `loss`), plus the whole identifier without separators.
"""

import polars as pl


def pattern_list(patterns: pl.Series) -> pl.Expr:
    """`patterns` (unique, sorted) as one list literal for the `str` many-pattern searches
    (contains_any, extract_many): a scalar, which polars 2.2 requires where earlier releases
    also took a column of lists."""
    return pl.lit(patterns.unique().sort().to_list(), dtype=pl.List(pl.Utf8))


#: A word of a title or abstract is distinctive when at most this many papers, or this
#: share of all papers (the larger), use it: `fp16`, `icepop`, not `entropy` or `policy`.
DISTINCTIVE_MAX_PAPERS = 2
DISTINCTIVE_MAX_SHARE = 0.01
#: A distinctive word of the abstract that this share of all commits or more use in their
#: identifiers (`true`, `supported`, `router`) is an ordinary word of code, not a name.
MAX_CODE_COMMIT_SHARE = 0.02
#: ... and by at least this many commits: in a short history every word is "common".
MIN_CODE_COMMITS = 2
#: Shorter words (`rl`, `kl`, `ppo`) are too common in code to say anything.
MIN_TERM_CHARS = 4
#: A long name: two to six capitalised (or hyphen-joined) words right before an alias in
#: parentheses, "Geometric-Mean Policy Optimization (GMPO)".
_LONG_NAME = r"((?:[A-Z][\w-]*\s+){1,5}[A-Z][\w-]*)\s*\(([^()]{2,30})\)"
_TITLE_PREFIX = r"^([^:]{2,40}):\s*(.+)$"
_WORD = r"[a-z][a-z0-9+]*[a-z0-9+]|[0-9]+[a-z][a-z0-9]*"
_PART_SEPARATORS = r"[_\-./\s]+"
#: A long name shorter than this (as a key) is no more specific than an acronym.
MIN_LONG_NAME_CHARS = 12


def _title_and_abstract(papers: pl.DataFrame) -> pl.Expr:
    abstract = pl.col("abstract").fill_null("") if "abstract" in papers.columns else pl.lit("")
    return pl.concat_str(pl.col("title").fill_null(""), pl.lit(". "), abstract)


def distinctive_terms(papers: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, term): the words of each paper's title and abstract that few papers use."""
    words = (
        papers.select(
            "arxiv_id",
            term=_title_and_abstract(papers).str.to_lowercase().str.extract_all(_WORD),
        )
        .explode("term")
        .drop_nulls("term")
        .unique()
        .filter(pl.col("term").str.len_chars() >= MIN_TERM_CHARS)
    )
    most = max(DISTINCTIVE_MAX_PAPERS, int(DISTINCTIVE_MAX_SHARE * papers.height))
    return words.filter(pl.len().over("term") <= most).select("arxiv_id", "term")


def long_names(papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, term): each long name written right before one of the paper's aliases
    in parentheses, or after an alias and a colon at the start of the title, and each
    alias of several words ("Rollout Routing Replay", whose acronym may be too short to
    use), as one key (`geometricmeanpolicyoptimization`)."""
    # Every "Long Name (X)" in one pass; it counts where X is one of the paper's aliases.
    before_alias = (
        papers.select("arxiv_id", found=_title_and_abstract(papers).str.extract_all(_LONG_NAME))
        .explode("found")
        .drop_nulls("found")
        .select(
            "arxiv_id",
            term=pl.col("found").str.extract(_LONG_NAME, 1),
            alias=pl.col("found").str.extract(_LONG_NAME, 2).str.strip_chars(),
        )
        .join(aliases.select("arxiv_id", "alias"), on=["arxiv_id", "alias"], how="semi")
        .drop("alias")
    )
    after_title_prefix = (
        papers.select(
            "arxiv_id",
            alias=pl.col("title").str.extract(_TITLE_PREFIX, 1),
            term=pl.col("title").str.extract(_TITLE_PREFIX, 2),
        )
        .join(aliases.select("arxiv_id", "alias"), on=["arxiv_id", "alias"], how="semi")
        .drop("alias")
    )
    several_words = aliases.filter(pl.col("alias").str.contains(r"\s")).select("arxiv_id", term=pl.col("alias"))
    return (
        pl.concat([before_alias, after_title_prefix, several_words])
        .drop_nulls("term")
        .select("arxiv_id", term=pl.col("term").str.to_lowercase().str.replace_all(r"[^a-z0-9+]", ""))
        .filter(pl.col("term").str.len_chars() >= MIN_LONG_NAME_CHARS)
        .unique()
    )


def descriptive_names(papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, term, kind) of the names a commit's code may give a paper's method:
    `long_name` (inside an identifier, separators removed: `GeometricMeanPolicyOptimizationTrainer`),
    `alias` (one part of an identifier: `gmpo` of `gmpo_loss`) and `distinctive` (one
    part: `fp16`). `aliases`: the usable ones (arxiv_id, alias, normalized)."""
    alias_parts = aliases.select("arxiv_id", term="normalized")
    return pl.concat(
        [
            long_names(papers, aliases).with_columns(kind=pl.lit("long_name")),
            alias_parts.with_columns(kind=pl.lit("alias")),
            distinctive_terms(papers).with_columns(kind=pl.lit("distinctive")),
        ]
    ).unique()


def identifier_part_uses(terms: pl.Series, files: pl.DataFrame) -> pl.DataFrame:
    """(framework, sha, part): each commit of `files` that uses one of `terms` as a part
    of an added identifier (name_parts), once per commit and term."""
    candidates = terms.unique().sort()
    out_schema = {"framework": pl.Utf8, "sha": pl.Utf8, "part": pl.Utf8}
    if candidates.is_empty():
        return pl.DataFrame(schema=out_schema)
    patterns = pattern_list(candidates)
    with_candidate = pl.col("added_tokens").fill_null([]).list.join(" ").str.contains_any(patterns, ascii_case_insensitive=True)
    return (
        # Only the files, then the identifiers, containing a candidate are split into parts.
        files.filter(with_candidate)
        .select("framework", "sha", token=pl.col("added_tokens"))
        .explode("token")
        .drop_nulls("token")
        .filter(pl.col("token").str.contains_any(patterns, ascii_case_insensitive=True))
        .select("framework", "sha", part=name_parts(pl.col("token")))
        .explode("part")
        .filter(pl.col("part").is_in(candidates.implode()))
        .unique()
        .cast(out_schema)
    )


def common_in_code(terms: pl.Series, files: pl.DataFrame) -> pl.Series:
    """The `terms` (distinctive words) that MAX_CODE_COMMIT_SHARE or more of the commits
    in `files`, and at least MIN_CODE_COMMITS, use as a part of an added identifier."""
    commits = files.select("framework", "sha").n_unique()
    used = identifier_part_uses(terms, files).group_by("part").len()
    most = max(MIN_CODE_COMMITS, MAX_CODE_COMMIT_SHARE * commits)
    return used.filter(pl.col("len") >= most)["part"].sort().alias(terms.name)


def name_parts(names: pl.Expr) -> pl.Expr:
    """Each identifier's (or path's) lower-case parts, and the whole of it without separators."""
    lower = names.fill_null("").str.to_lowercase()
    return pl.concat_list(
        lower.str.replace_all(_PART_SEPARATORS, " ").str.strip_chars().str.split(" "),
        lower.str.replace_all(_PART_SEPARATORS, ""),
    )
