"""Evidence: every place where a framework cites or names a paper, classified as
implementation or citation (../shared/DESIGN.md, "Definitions").

A *place* is one commit message, one file a commit changed (its added text and added
identifier tokens), one issue or pull request (title and body, or its recorded tokens)
or one comment. A paper is recognised in a place by

- its arXiv id in any form: `arxiv.org/abs|pdf|html/2503.14476v2`, `arXiv:2503.14476`,
  `huggingface.co/papers/2503.14476`, `alphaxiv.org/abs/2503.14476`, a bare id in a
  citation (`eprint={2503.14476}`);
- its normalized title (lower case, punctuation as spaces);
- an unambiguous alias of `paper_aliases` ("Dr. GRPO" as `Dr. GRPO`, `dr grpo`,
  `drgrpo`); an all-capital acronym (`case_sensitive`) only in its own case in prose;
  never an alias that was a word of code in several frameworks long before the paper
  (`repo`, `pkl`: aliases_in_code_before_papers).

Prose is searched in ONE Aho-Corasick pass per text for all patterns of all papers at
once (`polars.Expr.str.extract_many`, the Rust aho-corasick automaton): ids, titles and
aliases are all padded, space-separated lower-case patterns over the text normalized the
same way, so the automaton's cost does not grow with the number of papers. Identifier
tokens (the code of a commit, the recorded tokens of a thread) are whole words: they are
matched by one hash join of normalized token against normalized alias (`dr_grpo`,
`DrGRPO` and `drgrpo` all name Dr. GRPO), never by substring, so `adapo` is not DAPO.

Classification rules are tried in order; the first that applies decides the class and
is recorded in `rule` (RULES lists them with their class). The deciding difference:
a README news item, an "awesome work / built with" list, a release blog or changelog, a
related-work citation in some other document, a notebook or a web page that links the
paper is a *citation*; code or config identifiers naming the method, an algorithm
documentation page, a recipe or example that comes with code, and tests are
*implementation*.
"""

import polars as pl

from assets.links.paper_terms import common_in_code, descriptive_names, identifier_part_uses, name_parts, pattern_list
from orchestration.settings import frameworks
from orchestration.tables import CORE_EVIDENCE

UTC_TIME = pl.Datetime("us", "UTC")


SOURCE_TYPES = ("commit", "thread", "comment")
MATCH_KINDS = ("arxiv_id", "title", "alias")  # in order of strength
EVIDENCE_CLASSES = ("implementation", "citation")

#: Every classification rule and the class it gives, in the order they are tried.
RULES: dict[str, str] = {
    # A framework's own system paper (AReaL in AReaL): the framework is that paper's
    # code from its first commit, not a method it took in; its history only cites it.
    "own_system_paper": "citation",
    # Threads and comments discuss a paper; only commits can include one.
    "thread_mention": "citation",
    "comment_mention": "citation",
    # Commit messages: a feature commit that changes code and names the method.
    "message_with_code": "implementation",
    # A message citing one paper (id or title) whose code names the method descriptively
    # (`geometric_mean_policy_optimization`, `gmpo_loss`, a distinctive word of the abstract).
    "message_cites_named_code": "implementation",
    "message_only": "citation",
    # Documents.
    "release_notes": "citation",  # blogs, changelogs, release notes, news
    "awesome_list": "citation",  # awesome work / built with / paper lists
    "readme_news": "citation",  # the repository's top-level README (news, highlights)
    "recipe_with_code": "implementation",  # a recipe/example README added with its code
    "recipe_readme_only": "citation",  # a recipe/example README pointing elsewhere
    # A recipe, example or guide page added with code that says it reproduces or follows
    # the one paper it cites ("to reproduce the results of [paper](arxiv…)"); "inspired
    # by", "reference:" and "not to replicate" stay citations.
    "doc_reproduces_paper": "implementation",
    "algorithm_doc": "implementation",  # a page of the algorithm docs, or a page named for the method
    "doc_citation": "citation",  # related work cited in some other document
    # Non-documentation files.
    "web_page": "citation",  # the project's website sources, notebooks
    "data_file": "citation",  # a word in a data set (jsonl, csv) is no code
    "data_loader": "citation",  # code under datasets/ that loads the paper's data set, not its method
    "script_mention": "citation",  # a shell script or Dockerfile that only uses the name (a data set, a model)
    "example_script": "implementation",  # a run script named for the method
    "test": "implementation",
    # A short acronym among a code file's tokens (`pods`, `prime`, `gpg`) names the method
    # only where the commit names the paper elsewhere too (message, docs, a path, an id).
    "unconfirmed_acronym": "citation",
    "config_identifier": "implementation",
    "code_identifier": "implementation",
    "code_reference": "implementation",  # the paper's link in a code comment or docstring
    # An alias inside a code file's URL line (github.com/PRIME-RL/...): an org or repo name.
    "url_mention": "citation",
}

_ID = r"\d{4}\.\d{4,5}"
#: An arXiv id written with its version: the version goes before matching, so every
#: form (`…/abs/2503.14476v2`, `arXiv:2503.14476`, `2503.14476`) becomes the same words.
_VERSIONED_ID = rf"({_ID})[vV]\d+"
#: What separates words for matching; `+` is kept so that REINFORCE++ is not REINFORCE.
_SEPARATORS = r"[^A-Za-z0-9+]+"
_ID_TOKEN = rf"^{_ID}(?:[vV]\d+)?$"
#: Alias separators dropped for the whole-token key (paper_aliases.normalized does the same).
_ALIAS_SEPARATORS = r"[\s\-_.]+"

#: Titles shorter than this (normalized characters, words) are names, not titles, and
#: would match ordinary prose: they count only through paper_aliases.
MIN_TITLE_CHARS = 20
MIN_TITLE_WORDS = 3
#: Aliases shorter than this are too likely to be another word.
MIN_ALIAS_CHARS = 3
#: A name found this many days or more before the paper's v1 was in use for something
#: else (TRL's UDM of 2024 is not a 2026 paper's): such a place is not evidence at all.
#: Closer to v1 it stays, and the early-inclusion check asks for a review.
ALIAS_PREDATES_PAPER_DAYS = 180
#: An alias that added identifiers of this many commits, in at least CODE_WORD_MIN_FRAMEWORKS
#: frameworks, used ALIAS_PREDATES_PAPER_DAYS or more before the paper's v1 was a word of
#: code before the paper named anything (`repo`, `pkl`, `cal`): it stays one afterwards
#: (`$REPO` in a script, "move repo helpers" in a message), so it names no paper at all.
#: An older method of the same acronym, or a method's code before its preprint, leaves a
#: few commits in one framework; those stay to the rule above.
CODE_WORD_MIN_COMMITS = 5
CODE_WORD_MIN_FRAMEWORKS = 2

DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc")
_DOC_SUFFIX = r"(?i)\.(md|mdx|rst|txt|adoc)$"
_RELEASE_PATH = r"(?i)(^|/)(blogs?|news|releases?|release[_-]notes?|changelogs?|history)(/|\.|$)|changelog|release[_-]?notes?"
_AWESOME_PATH = r"(?i)awesome|built[_-]?with|paper[_-]?(index|list)|(^|/)papers?\.(md|mdx|rst)$|publications?|citations?|references?\.(md|rst)$|(^|/)projects?\.(md|rst)$"
#: The repository's top-level README in any language (README.md, README_zh.md).
_TOP_README = r"(?i)^readme[^/]*$"
_README = r"(?i)(^|/)readme[^/]*$"
_RECIPE_DIR = r"(?i)^(.*?(?:^|/)(?:recipes?|examples?|projects?)/[^/]+)/"
_ALGORITHM_DOC = r"(?i)(^|/)(algo|algos|algorithm|algorithms)(/|$)"
_WEB_PATH = r"(?i)\.(ipynb|html?|js|jsx|ts|tsx|css|scss|svg)$|(^|/)(website|site|docs?|docs_[^/]+)/"
_TEST_PATH = r"(?i)(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_tests?\.[a-z]+$"
_CONFIG_PATH = r"(?i)\.(ya?ml|json|toml|ini|cfg|conf)$"
_DATA_PATH = r"(?i)\.(jsonl|csv|tsv|parquet|arrow|pkl|npy|txt)$|(^|/)(data|datasets?|evaluation|eval)/.*\.json$"
_DATA_LOADER_PATH = r"(?i)(^|/)(datasets?|data_preprocess)/"
_SCRIPT_PATH = r"(?i)\.(sh|bash|zsh)$|(^|/)(Dockerfile[^/]*|requirements[^/]*|setup\.py|pyproject\.toml)$"
#: A capitalised word (`Prime`): in code, prose in a string rather than an acronym.
_WORD_CASED = r"^[A-Z][a-z]+$"
#: A page saying it reproduces or follows a paper, right before that paper's id or link
#: (the last group), in the same paragraph.
_REPRODUCES_ID = (
    r"(?i)\b(reproduc\w*|replicat\w*|following\s+the\s+(approach|method|recipe|setup|setting|training)\s+"
    r"(described\s+|proposed\s+|used\s+)?(in|of|from)|as\s+(described|proposed)\s+in)\b(?:[^\n]|\n[^\n]){0,80}?(\d{4}\.\d{4,5})"
)
_NOT_REPRODUCING = r"(?i)\bnot\s+(to\s+|aim\w*\s+to\s+)?(reproduc|replicat)"
#: A commit subject about documentation, a revert or a merge: naming a method there says
#: nothing about code, even when the commit touches some.
_NON_CODE_SUBJECT = r"(?i)^\W*(\[?(docs?|readme|typo|ci|chore)\]?\b|docs?\(|revert|merge\b)|\breadme\b|\btypos?\b"


#: The directories of a URL (`https://github.com/PRIME-RL/PRIME` keeps `PRIME`) and the
#: organisation of a model id (`PRIME-RL/Eurus-2-7B-SFT`): names of places, not mentions.
_URL_DIRECTORIES = r"https?://[^\s)\]>\"'`]*/"
_MODEL_ID_ORG = r"\b[A-Za-z][A-Za-z0-9_.-]*/([A-Za-z][A-Za-z0-9_.]*-[A-Za-z0-9_.-]*[0-9])"


def without_place_names(text: pl.Expr) -> pl.Expr:
    """Text without URL directories and model-id organisations (the last URL segment,
    where an arXiv id stands, is kept)."""
    return text.fill_null("").str.replace_all(_URL_DIRECTORIES, " ").str.replace_all(_MODEL_ID_ORG, "${1}")


def normalized_prose(text: pl.Expr) -> pl.Expr:
    """Text as the matcher reads it: id versions dropped, every run of separators one
    space, padded with a space at both ends (the case is kept for acronyms)."""
    words = text.fill_null("").str.replace_all(_VERSIONED_ID, "${1}").str.replace_all(_SEPARATORS, " ")
    return pl.concat_str(pl.lit(" "), words, pl.lit(" "))


_padded_words = normalized_prose


def alias_key(alias: pl.Expr) -> pl.Expr:
    """An alias or identifier token as one key: lower case, separators removed."""
    return alias.str.to_lowercase().str.replace_all(_ALIAS_SEPARATORS, "")


#: Names of the frameworks themselves (their systems papers' aliases; `names` in
#: frameworks.toml): in a framework's own history they name the framework, not a method
#: it took in.
FRAMEWORK_NAMES = tuple(name for framework in frameworks() for name in framework.names)


def usable_aliases(aliases: pl.DataFrame) -> pl.DataFrame:
    """The aliases matching may use: not ambiguous, long enough, not a framework's own
    name, and naming one paper only."""
    usable = aliases.filter(
        ~pl.col("ambiguous").fill_null(True)
        & (pl.col("normalized").str.len_chars() >= MIN_ALIAS_CHARS)
        & ~pl.col("normalized").is_in(list(FRAMEWORK_NAMES))
    ).select("arxiv_id", "alias", "normalized", pl.col("case_sensitive").fill_null(False))
    # A spelling variant (`grpo_s`) of an acronym (GRPO-S) is not looser than the acronym:
    # code tokens find it through the shared key, and prose only in the acronym's own case.
    usable = usable.filter(pl.col("case_sensitive") | ~pl.col("case_sensitive").any().over("normalized"))
    unique_papers = usable.group_by("normalized").agg(pl.col("arxiv_id").n_unique().alias("papers"))
    return usable.join(unique_papers.filter(pl.col("papers") == 1), on="normalized", how="semi").unique(
        ["arxiv_id", "normalized", "alias"]
    )


def own_system_papers(aliases: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, framework key) of the papers named like a framework ("AReaL: A
    Large-Scale Asynchronous RL System" is AReaL's): the key is the framework slug
    without hyphens (`nemorl`)."""
    return (
        aliases.filter(pl.col("normalized").is_in(list(FRAMEWORK_NAMES)))
        .select("arxiv_id", _framework_key="normalized")
        .unique()
    )


def prose_patterns(papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """One row per pattern of the prose pass: `pattern` (padded lower-case words),
    `arxiv_id`, `matched_by`, and `exact`, the only spelling a case-sensitive alias
    may have (null where any case matches). A pattern of two papers is dropped."""
    ids = papers.select(
        "arxiv_id",
        pattern=_padded_words(pl.col("arxiv_id")).str.to_lowercase(),
        matched_by=pl.lit("arxiv_id"),
        exact=pl.lit(None, pl.Utf8),
    )
    titles = (
        papers.select("arxiv_id", pattern=_padded_words(pl.col("title")).str.to_lowercase())
        .filter(
            (pl.col("pattern").str.len_chars() >= MIN_TITLE_CHARS + 2)
            & (pl.col("pattern").str.count_matches(" ") > MIN_TITLE_WORDS)
        )
        .with_columns(matched_by=pl.lit("title"), exact=pl.lit(None, pl.Utf8))
    )
    usable = usable_aliases(aliases)
    spaced = _padded_words(pl.col("alias"))
    joined = pl.concat_str(pl.lit(" "), pl.col("alias").str.replace_all(_ALIAS_SEPARATORS, ""), pl.lit(" "))
    alias_rows = pl.concat(
        [
            usable.select("arxiv_id", "case_sensitive", written=spaced),
            usable.select("arxiv_id", "case_sensitive", written=joined),
        ]
    ).select(
        "arxiv_id",
        pattern=pl.col("written").str.to_lowercase(),
        matched_by=pl.lit("alias"),
        exact=pl.when(pl.col("case_sensitive")).then(pl.col("written")),
    )
    patterns = pl.concat([ids, titles, alias_rows], how="vertical").filter(pl.col("pattern").str.strip_chars() != "")
    single_paper = patterns.group_by("pattern").agg(pl.col("arxiv_id").n_unique().alias("papers"))
    return patterns.join(single_paper.filter(pl.col("papers") == 1), on="pattern", how="semi").unique(
        ["pattern", "arxiv_id", "matched_by", "exact"]
    )


def prose_matches(places: pl.DataFrame, patterns: pl.DataFrame, *, any_case: bool = False) -> pl.DataFrame:
    """(place_id, arxiv_id, matched_by, matched_text, in_own_case) of every pattern
    found in the places' `text`, in one Aho-Corasick pass per text over all patterns.
    A case-sensitive acronym found in another case (`dapo` for DAPO) is kept only with
    `any_case` (`in_own_case` false): it names the paper only as corroboration."""
    out_schema = {
        "place_id": pl.Int64,
        "arxiv_id": pl.Utf8,
        "matched_by": pl.Utf8,
        "matched_text": pl.Utf8,
        "in_own_case": pl.Boolean,
    }
    if places.is_empty() or patterns.is_empty():
        return pl.DataFrame(schema=out_schema)
    searchable = pattern_list(patterns["pattern"])
    found = (
        places.select(
            "place_id",
            found=normalized_prose(without_place_names(pl.col("text"))).str.extract_many(
                searchable, ascii_case_insensitive=True, overlapping=True
            ),
        )
        .explode("found")
        .drop_nulls("found")
        .unique()
        .with_columns(pattern=pl.col("found").str.to_lowercase())
    )
    hits = found.join(patterns, on="pattern").with_columns(
        in_own_case=pl.col("exact").is_null() | (pl.col("found") == pl.col("exact"))
    )
    if not any_case:
        hits = hits.filter("in_own_case")
    return hits.select(
        "place_id", "arxiv_id", "matched_by", "in_own_case", matched_text=pl.col("found").str.strip_chars()
    ).select(list(out_schema)).cast(out_schema)


def token_matches(places: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """(place_id, arxiv_id, matched_by, matched_text) of the places' whole `tokens`
    that name a paper: an arXiv id token, or a token whose key is an alias's key.

    In prose tokens (`tokens_are_code` false: a thread's recorded words) a
    case-sensitive acronym must be written in its own case; in code any case names it.
    """
    out_schema = {"place_id": pl.Int64, "arxiv_id": pl.Utf8, "matched_by": pl.Utf8, "matched_text": pl.Utf8}
    usable = usable_aliases(aliases).select(
        "arxiv_id",
        "normalized",
        exact=pl.when(pl.col("case_sensitive")).then(pl.col("alias").str.replace_all(_ALIAS_SEPARATORS, "")),
    )
    tokens = (
        places.select("place_id", "tokens_are_code", token=pl.col("tokens"))
        .filter(pl.col("token").list.len() > 0)
        .explode("token")
        .drop_nulls("token")
    )
    if tokens.is_empty():
        return pl.DataFrame(schema=out_schema)
    by_alias = (
        tokens.with_columns(normalized=alias_key(pl.col("token")))
        .join(usable, on="normalized")
        .filter(pl.col("tokens_are_code") | pl.col("exact").is_null() | (pl.col("token") == pl.col("exact")))
        .select("place_id", "arxiv_id", matched_by=pl.lit("alias"), matched_text=pl.col("token"))
    )
    by_id = (
        tokens.filter(pl.col("token").str.contains(_ID_TOKEN))
        .with_columns(arxiv_id=pl.col("token").str.extract(rf"^({_ID})", 1))
        .join(papers.select("arxiv_id"), on="arxiv_id", how="semi")
        .select("place_id", "arxiv_id", matched_by=pl.lit("arxiv_id"), matched_text=pl.col("token"))
    )
    return pl.concat([by_alias, by_id]).cast(out_schema)


def _corroborated(rows: pl.DataFrame, acronym_in_code: pl.Expr) -> pl.Expr:
    """Whether the commit of each row names the same paper independently of its short
    acronym among code tokens (another file with `pods` is no second opinion): in
    prose in the acronym's own case, by id or title, in its message in any case
    (`(fix): topr loss`), or in a path named for the method."""
    independent = (~acronym_in_code).any().over("framework", "source_ref", "arxiv_id")
    return independent | pl.col("_path_names_method") | pl.col("_message_names_paper")


_PLACE_SCHEMA: dict[str, pl.DataType] = {
    "framework": pl.Utf8(),
    "source_type": pl.Utf8(),
    "source_ref": pl.Utf8(),
    "comment_id": pl.Int64(),
    "url": pl.Utf8(),
    "occurred_at": UTC_TIME,
    "path": pl.Utf8(),
    "text": pl.Utf8(),
    "tokens": pl.List(pl.Utf8()),
    "tokens_are_code": pl.Boolean(),
}


def _commit_places(frame: pl.DataFrame, *, path: pl.Expr, text: pl.Expr, tokens: pl.Expr) -> pl.DataFrame:
    """Places of commits (a message, or a changed file): `frame` has the commit's
    framework, sha, committer time and URL."""
    return frame.select(
        "framework",
        source_type=pl.lit("commit"),
        source_ref=pl.col("sha"),
        comment_id=pl.lit(None, pl.Int64),
        url=pl.col("html_url"),
        occurred_at=pl.col("committed_at"),
        path=path,
        text=text,
        tokens=tokens,
        tokens_are_code=pl.lit(True),
    )


def evidence_places(
    commits: pl.DataFrame, files: pl.DataFrame, threads: pl.DataFrame, comments: pl.DataFrame
) -> pl.DataFrame:
    """Every searchable place, numbered (`place_id`): commit messages, changed files,
    threads (title and body, or the recorded tokens) and comments."""
    commit_keys = commits.select("framework", "sha", "committed_at", "html_url")
    messages = _commit_places(
        commits, path=pl.lit(None, pl.Utf8), text=pl.col("message"), tokens=pl.lit([], pl.List(pl.Utf8))
    )
    changed = _commit_places(
        files.join(commit_keys, on=["framework", "sha"]),
        path=pl.col("path"),
        text=pl.col("added_text"),
        tokens=pl.col("added_tokens"),
    )
    thread_places = threads.select(
        "framework",
        source_type=pl.lit("thread"),
        source_ref=pl.col("number").cast(pl.Utf8),
        comment_id=pl.lit(None, pl.Int64),
        url=pl.col("html_url"),
        occurred_at=pl.col("created_at"),
        path=pl.lit(None, pl.Utf8),
        text=pl.concat_str(pl.col("title").fill_null(""), pl.lit("\n"), pl.col("body").fill_null("")),
        tokens=pl.col("body_tokens").fill_null([]),
        tokens_are_code=pl.lit(False),
    )
    comment_places = comments.select(
        "framework",
        source_type=pl.lit("comment"),
        source_ref=pl.col("thread_number").cast(pl.Utf8),
        comment_id=pl.col("comment_id"),
        url=pl.col("html_url"),
        occurred_at=pl.col("created_at"),
        path=pl.lit(None, pl.Utf8),
        text=pl.col("body").fill_null(""),
        tokens=pl.col("body_tokens").fill_null([]),
        tokens_are_code=pl.lit(False),
    )
    places = pl.concat(
        [frame.cast(_PLACE_SCHEMA) for frame in (messages, changed, thread_places, comment_places)], how="vertical"
    )
    return places.with_row_index("place_id").with_columns(pl.col("place_id").cast(pl.Int64))


def paper_mentions(
    places: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame, prose_hits: pl.DataFrame | None = None
) -> pl.DataFrame:
    """One row per (place, paper): the strongest way the paper was found there
    (arXiv id, then title, then alias) and whether it was found in code tokens.
    `prose_hits`: the prose pass's matches when already computed (`prose_matches`)."""
    if prose_hits is None:
        prose_hits = prose_matches(places, prose_patterns(papers, aliases))
    in_text = (
        prose_hits.filter("in_own_case")
        .select("place_id", "arxiv_id", "matched_by", "matched_text")
        .with_columns(in_code=pl.lit(False))
    )
    in_tokens = token_matches(places, papers, aliases).join(
        places.select("place_id", "tokens_are_code"), on="place_id"
    ).select("place_id", "arxiv_id", "matched_by", "matched_text", in_code=pl.col("tokens_are_code"))
    acronyms = usable_aliases(aliases).filter(pl.col("case_sensitive")).select("arxiv_id").unique()
    strength = pl.col("matched_by").replace_strict({kind: rank for rank, kind in enumerate(MATCH_KINDS)}, default=9)
    # Of equally strong spellings (`DAPO`, `dapo`; `dr GRPO`, `DrGRPO`), the one shown is
    # fixed: a spelling in code first, one written as code writes names (not `Dft`, which
    # the acronym rule reads as prose) next, then the first in code-point order.
    return (
        pl.concat([in_text, in_tokens], how="vertical")
        .with_columns(_strength=strength, _word_cased=pl.col("matched_text").str.contains(_WORD_CASED))
        .sort(
            "place_id", "arxiv_id", "_strength", "in_code", "_word_cased", "matched_text",
            descending=[False, False, False, True, False, False],
        )
        .group_by("place_id", "arxiv_id", maintain_order=True)
        .agg(
            pl.col("matched_by").first(),
            pl.col("matched_text").first(),
            pl.col("in_code").any(),
        )
        # Whether the paper's alias here may be a short acronym (the rule needing corroboration).
        .with_columns(_case_sensitive=pl.col("arxiv_id").is_in(acronyms["arxiv_id"].implode()))
    )


def _commit_context(files: pl.DataFrame) -> pl.DataFrame:
    """Per commit: whether it changed code (a non-documentation, non-test file outside
    the website), the inputs of the message and recipe rules."""
    return files.group_by("framework", "sha").agg(
        changes_code=(
            ~pl.col("path").str.contains(_DOC_SUFFIX)
            & ~pl.col("path").str.contains(_TEST_PATH)
            & ~pl.col("path").str.contains(_WEB_PATH)
        ).any(),
        code_paths=pl.col("path").filter(~pl.col("path").str.contains(_DOC_SUFFIX)),
    )


def classified(
    mentions: pl.DataFrame,
    places: pl.DataFrame,
    files: pl.DataFrame,
    aliases: pl.DataFrame,
    named_in_messages: pl.DataFrame | None = None,
    cited_with_named_code: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Mentions with their place's columns, `evidence_class` and the deciding `rule`.
    `named_in_messages` (framework, source_ref, arxiv_id): commits whose message names
    the paper in any case, the corroboration of a short acronym among code tokens.
    `cited_with_named_code` (framework, source_ref, arxiv_id): commits whose message
    cites only that paper by id or title and whose code names it descriptively."""
    context = _commit_context(files)
    if named_in_messages is None:
        named_in_messages = pl.DataFrame(schema={"framework": pl.Utf8, "source_ref": pl.Utf8, "arxiv_id": pl.Utf8})
    if cited_with_named_code is None:
        cited_with_named_code = named_in_messages.clear()
    if "_subject" not in mentions.columns:
        mentions = mentions.with_columns(_subject=pl.lit(None, pl.Utf8), _subject_names_paper=pl.lit(None, pl.Boolean))
    own = own_system_papers(aliases).with_columns(_own_paper=pl.lit(True))
    rows = (
        mentions.join(places.drop("text", "tokens", "tokens_are_code"), on="place_id")
        .join(papers_reproduced(places), on=["place_id", "arxiv_id"], how="left")
        .with_columns(_framework_key=pl.col("framework").str.replace_all("-", ""))
        .join(own, on=["arxiv_id", "_framework_key"], how="left")
        .join(context, left_on=["framework", "source_ref"], right_on=["framework", "sha"], how="left")
        .join(
            named_in_messages.unique().with_columns(_message_names_paper=pl.lit(True)),
            on=["framework", "source_ref", "arxiv_id"],
            how="left",
        )
        .join(
            cited_with_named_code.unique().with_columns(_code_names_cited=pl.lit(True)),
            on=["framework", "source_ref", "arxiv_id"],
            how="left",
        )
        .with_columns(
            changes_code=pl.col("changes_code").fill_null(False),
            _message_names_paper=pl.col("_message_names_paper").fill_null(False),
            _code_names_cited=pl.col("_code_names_cited").fill_null(False),
            _own_paper=pl.col("_own_paper").fill_null(False),
            _reproduces=pl.col("_reproduces").fill_null(False),
            # Papers this place cites by id or title (related work when more than one).
            _papers_cited=pl.col("matched_by").is_in(["arxiv_id", "title"]).sum().over("place_id"),
            code_paths=pl.col("code_paths").fill_null([]),
            recipe_dir=pl.col("path").str.extract(_RECIPE_DIR, 1),
            path_key=alias_key(pl.col("path").fill_null("").str.replace(r"^.*/", "").str.replace(r"\.[^.]*$", "")),
        )
    )
    path = pl.col("path").fill_null("")
    is_doc = path.str.contains(_DOC_SUFFIX)
    recipe_with_code = _recipe_has_code(rows)
    rows = rows.with_columns(
        _page_papers=_papers_named_in(rows["path_key"], aliases),
        _recipe_papers=_papers_named_in(
            rows.select(alias_key(pl.col("recipe_dir").fill_null("").str.replace(r"^.*/", "")))["recipe_dir"], aliases
        ),
    )
    # A page named for the method (docs/algo/dapo.md, docs/source/gspo_token.md).
    page_names_method = pl.col("_page_papers").list.contains(pl.col("arxiv_id"))
    recipe_named_for_method = pl.col("_recipe_papers").list.contains(pl.col("arxiv_id"))
    rows = rows.with_columns(
        _path_names_method=page_names_method | recipe_named_for_method,
        _acronym=pl.col("_case_sensitive").fill_null(False),
    )
    acronym_in_code = pl.col("in_code") & pl.col("_acronym") & (pl.col("matched_by") == "alias")
    # A capitalised word among code tokens (`Prime`, `She`, `Arm`) is prose in a string,
    # not the acronym: an acronym in code is written all upper or all lower case.
    word_cased = pl.col("matched_text").str.contains(_WORD_CASED)
    confirmed = ~acronym_in_code | (~word_cased & _corroborated(rows, acronym_in_code))
    code_subject = pl.col("changes_code") & ~pl.col("_subject").fill_null("").str.contains(_NON_CODE_SUBJECT)
    page_names_other_paper = (pl.col("_page_papers").list.set_difference(pl.concat_list("arxiv_id")).list.len() > 0)
    rule = (
        pl.when(pl.col("_own_paper"))
        .then(pl.lit("own_system_paper"))
        .when(pl.col("source_type") == "thread")
        .then(pl.lit("thread_mention"))
        .when(pl.col("source_type") == "comment")
        .then(pl.lit("comment_mention"))
        .when(pl.col("path").is_null())
        .then(
            pl.when(code_subject & pl.col("_subject_names_paper"))
            .then(pl.lit("message_with_code"))
            .when(code_subject & pl.col("_code_names_cited"))
            .then(pl.lit("message_cites_named_code"))
            .otherwise(pl.lit("message_only"))
        )
        .when(is_doc & path.str.contains(_RELEASE_PATH))
        .then(pl.lit("release_notes"))
        .when(is_doc & path.str.contains(_AWESOME_PATH))
        .then(pl.lit("awesome_list"))
        .when(is_doc & path.str.contains(_TOP_README))
        .then(pl.lit("readme_news"))
        .when(
            is_doc
            & pl.col("_reproduces")
            & (pl.col("_papers_cited") == 1)
            & pl.when(pl.col("recipe_dir").is_not_null()).then(recipe_with_code).otherwise(pl.col("changes_code"))
        )
        .then(pl.lit("doc_reproduces_paper"))
        .when(is_doc & pl.col("recipe_dir").is_not_null() & path.str.contains(_README))
        # Only the README of a recipe named for the method: a recipe's README also cites
        # the related work it builds on (an async recipe citing every async system).
        .then(
            pl.when(recipe_with_code & recipe_named_for_method)
            .then(pl.lit("recipe_with_code"))
            .otherwise(pl.lit("recipe_readme_only"))
        )
        .when(is_doc & page_names_method)
        .then(pl.lit("algorithm_doc"))
        # An algorithm page named for another paper's method cites this one as related work.
        .when(is_doc & path.str.contains(_ALGORITHM_DOC) & ~page_names_other_paper)
        .then(pl.lit("algorithm_doc"))
        .when(is_doc)
        .then(pl.lit("doc_citation"))
        .when(~confirmed)
        .then(pl.lit("unconfirmed_acronym"))
        .when(path.str.contains(_DATA_PATH))
        .then(pl.lit("data_file"))
        .when(path.str.contains(_DATA_LOADER_PATH) & ~path.str.contains(_TEST_PATH))
        .then(pl.lit("data_loader"))
        .when(path.str.contains(_SCRIPT_PATH))
        .then(
            pl.when(page_names_method | recipe_named_for_method)
            .then(pl.lit("example_script"))
            .otherwise(pl.lit("script_mention"))
        )
        .when(path.str.contains(_TEST_PATH))
        .then(pl.lit("test"))
        .when(path.str.contains(_WEB_PATH) & ~(pl.col("in_code") & page_names_method))
        .then(pl.lit("web_page"))
        .when(pl.col("in_code") & path.str.contains(_CONFIG_PATH))
        .then(pl.lit("config_identifier"))
        .when(pl.col("in_code"))
        .then(pl.lit("code_identifier"))
        .when(pl.col("matched_by") == "alias")
        .then(pl.lit("url_mention"))
        .otherwise(pl.lit("code_reference"))
    )
    return (
        rows.with_columns(rule=rule)
        .with_columns(evidence_class=pl.col("rule").replace_strict(RULES))
        .select(list(CORE_EVIDENCE.schema))
    )


def papers_reproduced(places: pl.DataFrame) -> pl.DataFrame:
    """(place_id, arxiv_id, _reproduces) of the documentation files whose text says they
    reproduce or follow a paper right before its id (_REPRODUCES_ID), and never that
    they do not."""
    docs = places.filter(
        (pl.col("source_type") == "commit")
        & pl.col("path").fill_null("").str.contains(_DOC_SUFFIX)
        & ~pl.col("text").fill_null("").str.contains(_NOT_REPRODUCING)
    )
    return (
        docs.select("place_id", found=pl.col("text").fill_null("").str.extract_all(_REPRODUCES_ID))
        .explode("found")
        .drop_nulls("found")
        .select("place_id", arxiv_id=pl.col("found").str.extract(rf"({_ID})$", 1), _reproduces=pl.lit(True))
        .unique(["place_id", "arxiv_id"])
    )


def _papers_named_in(names: pl.Series, aliases: pl.DataFrame) -> pl.Series:
    """For each name (a file stem, a directory), the papers whose alias key it contains,
    found in one Aho-Corasick pass over all names."""
    keys = usable_aliases(aliases).select("arxiv_id", key="normalized").filter(
        pl.col("key").str.len_chars() >= MIN_ALIAS_CHARS
    )
    empty = pl.Series(names.name, [[]] * len(names), dtype=pl.List(pl.Utf8))
    if keys.is_empty() or names.is_empty():
        return empty
    found = (
        pl.DataFrame({"name": names})
        .with_row_index("_row")
        .select("_row", key=pl.col("name").str.extract_many(pattern_list(keys["key"]), overlapping=True))
        .explode("key")
        .drop_nulls("key")
        .join(keys, on="key")
        .group_by("_row")
        .agg(pl.col("arxiv_id").unique())
    )
    return (
        pl.DataFrame({"_row": pl.int_range(len(names), eager=True, dtype=pl.UInt32)})
        .join(found, on="_row", how="left")
        .sort("_row")["arxiv_id"]
        .fill_null([])
        .alias(names.name)
    )


def _recipe_has_code(rows: pl.DataFrame) -> pl.Expr:
    """Whether each row's recipe/example directory got a non-documentation file in the
    same commit (a README with its code, not a README pointing to another repository)."""
    with_code = (
        rows.with_row_index("_row")
        .filter(pl.col("recipe_dir").is_not_null())
        .select("_row", "recipe_dir", "code_paths")
        .explode("code_paths")
        .filter(pl.col("code_paths").str.starts_with(pl.col("recipe_dir") + "/"))
        .select("_row")
        .unique()
    )
    return pl.int_range(pl.len()).is_in(with_code["_row"].implode())


def evidence_of(
    commits: pl.DataFrame,
    files: pl.DataFrame,
    threads: pl.DataFrame,
    comments: pl.DataFrame,
    papers: pl.DataFrame,
    aliases: pl.DataFrame,
) -> pl.DataFrame:
    """One row per (paper, framework, place): every commit message, changed file,
    thread and comment that cites or names a paper, classified (CORE_EVIDENCE.schema)."""
    # An alias that was a word of code before its paper names nothing there.
    aliases = aliases.join(
        aliases_in_code_before_papers(commits, files, papers, aliases), on=["arxiv_id", "normalized"], how="anti"
    )
    places = evidence_places(commits, files, threads, comments)
    # The one multi-pattern pass over all prose; acronyms in another case are kept for
    # corroboration only.
    prose_hits = prose_matches(places, prose_patterns(papers, aliases), any_case=True)
    mentions = paper_mentions(places, papers, aliases, prose_hits)
    subjects = _message_subjects(places, mentions, prose_hits)
    result = classified(
        mentions.join(subjects, on=["place_id", "arxiv_id"], how="left"),
        places,
        files,
        aliases,
        _named_in_messages(places, prose_hits),
        cited_with_named_code(places, prose_hits, files, papers, aliases),
    )
    # Sorted on a full key (a place and a paper), so that the same input is written the same.
    return without_names_predating_papers(result, papers).sort(
        "framework", "occurred_at", "arxiv_id", "source_type", "source_ref", "comment_id", "path", nulls_last=True
    )


def aliases_in_code_before_papers(
    commits: pl.DataFrame, files: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame
) -> pl.DataFrame:
    """(arxiv_id, normalized) of the usable aliases that were words of code before their
    paper: parts of identifiers that CODE_WORD_MIN_COMMITS commits, of CODE_WORD_MIN_FRAMEWORKS
    frameworks or more, added ALIAS_PREDATES_PAPER_DAYS or more before the paper's v1."""
    keys = (
        usable_aliases(aliases)
        .select("arxiv_id", "normalized")
        .unique()
        .join(papers.select("arxiv_id", "published_at"), on="arxiv_id")
    )
    early = (
        keys.join(identifier_part_uses(keys["normalized"], files), left_on="normalized", right_on="part")
        .join(commits.select("framework", "sha", "committed_at"), on=["framework", "sha"])
        .filter(pl.col("committed_at") <= pl.col("published_at") - pl.duration(days=ALIAS_PREDATES_PAPER_DAYS))
    )
    return (
        early.group_by("arxiv_id", "normalized")
        .agg(commits=pl.struct("framework", "sha").n_unique(), frameworks=pl.col("framework").n_unique())
        .filter((pl.col("commits") >= CODE_WORD_MIN_COMMITS) & (pl.col("frameworks") >= CODE_WORD_MIN_FRAMEWORKS))
        .select("arxiv_id", "normalized")
        .sort("arxiv_id", "normalized")
    )


def without_names_predating_papers(evidence: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """Evidence without the alias matches ALIAS_PREDATES_PAPER_DAYS or more before the
    paper's v1: the name meant something else then."""
    published = papers.select("arxiv_id", "published_at")
    too_early = pl.col("occurred_at") < pl.col("published_at") - pl.duration(days=ALIAS_PREDATES_PAPER_DAYS)
    return (
        evidence.join(published, on="arxiv_id", how="left")
        .filter(~((pl.col("matched_by") == "alias") & too_early.fill_null(False)))
        .drop("published_at")
    )


def _named_in_messages(places: pl.DataFrame, prose_hits: pl.DataFrame) -> pl.DataFrame:
    """(framework, source_ref, arxiv_id) of commit messages naming a paper, in any case."""
    messages = places.filter((pl.col("source_type") == "commit") & pl.col("path").is_null())
    return (
        prose_hits.join(messages.select("place_id", "framework", "source_ref"), on="place_id")
        .select("framework", "source_ref", "arxiv_id")
        .unique()
    )


def cited_with_named_code(
    places: pl.DataFrame, prose_hits: pl.DataFrame, files: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame
) -> pl.DataFrame:
    """(framework, source_ref, arxiv_id) of the commits whose message cites exactly one
    paper by arXiv id or title while a code or config file it changes names that paper's
    method descriptively (paper_terms.descriptive_names) in an added identifier or in its
    path. Citing two papers makes neither the one implemented (related work) unless the
    code spells out the long name of exactly one of them (`enable_rollout_routing_replay`);
    a message that only names an alias is judged by the subject rule instead."""
    out_schema = {"framework": pl.Utf8, "source_ref": pl.Utf8, "arxiv_id": pl.Utf8}
    messages = places.filter((pl.col("source_type") == "commit") & pl.col("path").is_null())
    cited = (
        prose_hits.filter(pl.col("in_own_case") & pl.col("matched_by").is_in(["arxiv_id", "title"]))
        .join(messages.select("place_id", "framework", "source_ref"), on="place_id")
        .select("framework", "source_ref", "arxiv_id")
        .unique()
        .with_columns(_cited=pl.len().over("framework", "source_ref"))
    )
    path = pl.col("path")
    code_files = files.join(cited, left_on=["framework", "sha"], right_on=["framework", "source_ref"]).filter(
        ~path.str.contains(_DOC_SUFFIX)
        & ~path.str.contains(_TEST_PATH)
        & ~path.str.contains(_WEB_PATH)
        & ~path.str.contains(_DATA_PATH)
    )
    if code_files.is_empty():
        return pl.DataFrame(schema=out_schema)
    names = code_files.select(
        "framework", "sha", "arxiv_id", name=pl.concat_list(pl.col("added_tokens").fill_null([]), pl.col("path"))
    ).explode("name")
    terms = descriptive_names(papers, usable_aliases(aliases))
    parts = names.select("framework", "sha", "arxiv_id", part=name_parts(pl.col("name"))).explode("part")
    once_cited = code_files.filter(pl.col("_cited") == 1).select("framework", "sha", "arxiv_id").unique()
    by_part = parts.join(
        terms.filter(pl.col("kind") != "long_name"), left_on=["arxiv_id", "part"], right_on=["arxiv_id", "term"]
    ).join(once_cited, on=["framework", "sha", "arxiv_id"], how="semi")
    # A distinctive word of the abstract that much of the code uses is no name of the method.
    distinctive = pl.col("kind") == "distinctive"
    common = common_in_code(by_part.filter(distinctive)["part"], files)
    by_part = by_part.filter(~(distinctive & pl.col("part").is_in(common.implode())))
    long_terms = terms.filter(pl.col("kind") == "long_name")
    by_long_name = (
        names.select(
            "framework",
            "sha",
            "arxiv_id",
            term=alias_key(pl.col("name")).str.extract_many(pattern_list(long_terms["term"])),
        )
        .explode("term")
        .join(long_terms, on=["arxiv_id", "term"])
        if long_terms.height
        else by_part.clear()
    )
    # Of several cited papers, only the one whose long name the code spells out is implemented.
    singled_out = (
        by_long_name.select("framework", "sha", "arxiv_id").unique().filter(pl.len().over("framework", "sha") == 1)
    )
    return (
        pl.concat([by_part.select("framework", "sha", "arxiv_id"), singled_out])
        .select("framework", source_ref="sha", arxiv_id="arxiv_id")
        .unique()
        .cast(out_schema)
    )


def _message_subjects(places: pl.DataFrame, mentions: pl.DataFrame, prose_hits: pl.DataFrame) -> pl.DataFrame:
    """Per message mention: the subject line, and whether the paper is named in it
    (a method named in the subject is what the commit is about; one cited in the
    body of a long squashed description is usually related work). Any spelling as
    strong as the mention's counts (`REINFORCE++` in the subject, `reinforce plus plus`
    in the body), not just the one the mention shows."""
    messages = places.filter(pl.col("path").is_null() & (pl.col("source_type") == "commit")).select("place_id", "text")
    subject = pl.col("text").str.split("\n").list.first().fill_null("")
    return (
        prose_hits.filter("in_own_case")
        .join(mentions.select("place_id", "arxiv_id", "matched_by"), on=["place_id", "arxiv_id", "matched_by"])
        .join(messages, on="place_id")
        .with_columns(_subject=subject)
        .with_columns(
            _subject_names_paper=_padded_words(pl.col("_subject"))
            .str.to_lowercase()
            .str.contains(
                pl.concat_str(pl.lit(" "), pl.col("matched_text").str.to_lowercase(), pl.lit(" ")), literal=True
            )
        )
        .group_by("place_id", "arxiv_id")
        .agg(pl.col("_subject").first(), pl.col("_subject_names_paper").any())
    )
