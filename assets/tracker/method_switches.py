"""The configuration key or flag that turns a method on in a framework, read from the
implementing commit's added lines: `algorithm.adv_estimator=grpo` (Hydra), `loss_type:
dr_grpo` (YAML), `loss_type: str = "dr_grpo"` (a dataclass field), `--use_kl_loss` (an
argparse flag).

What a commit row holds decides what can be read: `added_text` keeps the lines of
documentation files and the lines with a URL elsewhere, so assignments are read from it;
`added_tokens` keeps the identifiers of code, so from configuration files only the
identifiers that name the method (`sapo_temperature_neg`) are kept, without a value.
An assignment counts where its value or key names the method (an unambiguous alias,
letters and digits only) or, for the documentation of a recipe, where the file's path
names it (recipe/drgrpo/README.md lists the keys the recipe sets).
"""

from __future__ import annotations

import polars as pl

from orchestration.tables import CORE_METHOD_SWITCHES

#: One assignment: an argparse flag with an optional value, a dataclass field with its
#: default, or a key (dotted for Hydra) with `=` or `: ` and a value. The alternatives are
#: tried in this order at each position, so a dataclass field is not read as YAML.
ASSIGNMENT = (
    r"(?P<flag>--[A-Za-z][\w\-]*)(?:[ \t]*=?[ \t]*[\"']?(?P<flag_value>[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*))?"
    r"|(?P<field>[A-Za-z_]\w*)[ \t]*:[ \t]*[A-Za-z_][\w\[\]., |]*?[ \t]*=[ \t]*(?:field\([ \t]*default[ \t]*=[ \t]*)?"
    r"[\"']?(?P<field_value>[\w.\-]+)"
    r"|\+{0,2}(?P<key>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:=|[ \t]*:[ \t]+)[\"']?(?P<value>[\w.\-]+)"
)

#: Files whose identifiers are configuration: YAML, TOML, JSON, config modules (a
#: script's identifiers are mostly its own names: run_x, main_x).
CONFIG_PATH = r"(?i)(\.(ya?ml|toml|json|cfg|ini)$|config[^/]*$|args[^/]*\.py$|arguments[^/]*\.py$)"

#: Keys that name where output goes, not what runs (`output_dir=`, `logger.wandb.project=`).
BOOKKEEPING_KEY = r"(?i)(^|[._-])(dir|path|file|output|project|logger|wandb|experiment|exp)([._-]|$)"

#: Identifiers of functions and tests, not options.
FUNCTION_TOKEN = r"^(test|compute|get|run|main|train|make|build|load)_"

#: Names shorter than this match too much (`rl`, `po`).
MIN_NAME_CHARS = 3

#: 1: the value names the method; 2: the key; 3: only the file's path (a recipe's docs).
RANK_VALUE, RANK_KEY, RANK_PATH = 1, 2, 3


def _squashed(expr: pl.Expr) -> pl.Expr:
    """Lower case, letters and digits only: `dr_grpo`, `Dr. GRPO` and `drgrpo` agree."""
    return expr.str.to_lowercase().str.replace_all(r"[^a-z0-9]", "")


def method_names(aliases: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `name`: the unambiguous aliases of each paper, squashed."""
    return (
        aliases.filter(~pl.col("ambiguous").fill_null(False))
        .select("arxiv_id", name=_squashed(pl.col("alias")))
        .filter(pl.col("name").str.len_chars() >= MIN_NAME_CHARS)
        .unique()
    )


def implementing_files(inclusions: pl.DataFrame, commit_files: pl.DataFrame) -> pl.DataFrame:
    """The files each inclusion's commit changed: `arxiv_id`, `framework`, `commit_sha`,
    `path`, `added_text`, `added_tokens`."""
    return inclusions.select("arxiv_id", "framework", "commit_sha").join(
        commit_files.select("framework", pl.col("sha").alias("commit_sha"), "path", "added_text", "added_tokens"),
        on=["framework", "commit_sha"],
    )


def text_assignments(files: pl.DataFrame) -> pl.DataFrame:
    """Every assignment in the files' added text: `key`, `value` (null for a bare flag)."""
    matches = (
        files.select("arxiv_id", "framework", "commit_sha", "path", match=pl.col("added_text").str.extract_all(ASSIGNMENT))
        .explode("match")
        .drop_nulls("match")
    )
    groups = pl.col("match").str.extract_groups(ASSIGNMENT)
    return matches.with_columns(
        key=pl.coalesce(groups.struct.field("flag"), groups.struct.field("field"), groups.struct.field("key")),
        value=pl.coalesce(
            groups.struct.field("flag_value"), groups.struct.field("field_value"), groups.struct.field("value")
        ),
    ).drop("match")


def _looks_like_config_key(key: pl.Expr) -> pl.Expr:
    """A flag, or a lower-case identifier with `_` or `.` (prose like `Note: this` and
    formulas like `L_CISPO: -A_t` are not), that says what runs rather than where output goes."""
    return (
        (key.str.starts_with("--") | key.str.contains(r"^[a-z0-9_.]+$") & key.str.contains(r"[._]"))
        & ~key.str.contains(BOOKKEEPING_KEY)
    )


def switches_in_text(files: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    candidates = text_assignments(files).filter(_looks_like_config_key(pl.col("key"))).join(names, on="arxiv_id")
    return candidates.with_columns(
        rank=pl.when(_squashed(pl.col("value")).str.contains(pl.col("name"), literal=True))
        .then(RANK_VALUE)
        .when(_squashed(pl.col("key")).str.contains(pl.col("name"), literal=True))
        .then(RANK_KEY)
        .when(
            _squashed(pl.col("path").str.replace(r"\.[^./]*$", "")).str.contains(pl.col("name"), literal=True)
            & pl.col("path").str.contains(r"(?i)\.(md|mdx|rst|txt|adoc)$")
            & ~pl.col("key").str.starts_with("--")  # a recipe's docs pass flags of other tools too (--port)
        )
        .then(RANK_PATH)
    ).filter(pl.col("rank").is_not_null())


def switches_in_tokens(files: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    tokens = (
        files.filter(pl.col("path").str.contains(CONFIG_PATH))
        .select("arxiv_id", "framework", "commit_sha", "path", key=pl.col("added_tokens"))
        .explode("key")
        .filter(pl.col("key").str.contains(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$") & ~pl.col("key").str.contains(FUNCTION_TOKEN))
    )
    return (
        tokens.join(names, on="arxiv_id")
        .filter(_squashed(pl.col("key")).str.contains(pl.col("name"), literal=True))
        .with_columns(value=pl.lit(None, pl.Utf8), rank=pl.lit(RANK_KEY))
    )


def method_switches(inclusions: pl.DataFrame, commit_files: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """core.method_switches: one row per (paper, framework, key, value, path) of the
    implementing commit that turns the method on, best first (`rank`)."""
    files = implementing_files(inclusions, commit_files)
    names = method_names(aliases)
    columns = list(CORE_METHOD_SWITCHES.schema)
    found = pl.concat(
        [
            switches_in_text(files, names).select(columns).cast(CORE_METHOD_SWITCHES.schema),
            switches_in_tokens(files, names).select(columns).cast(CORE_METHOD_SWITCHES.schema),
        ]
    )
    return (
        found.group_by("arxiv_id", "framework", "key", "value", "path", "commit_sha")
        .agg(pl.col("rank").min())
        .select(columns)
        .sort("arxiv_id", "framework", "rank", "key", "value", "path", nulls_last=True)
    )


def best_switches(switches: pl.DataFrame) -> pl.DataFrame:
    """The one switch per (paper, framework) the site shows: the best rank, then the
    shortest key (the general option rather than one of its sub-keys)."""
    return (
        switches.sort("rank", pl.col("key").str.len_chars(), "key", "value", nulls_last=True)
        .group_by("arxiv_id", "framework", maintain_order=True)
        .first()
        .select("arxiv_id", "framework", "key", "value")
    )
