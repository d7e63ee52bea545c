"""Commit, changed-file and contribution-document records of the frameworks, as polars frames.

Two sources feed the same schemas: the frameworks' git mirrors (`orchestration.clients.git`)
and the recorded snapshot histories (`<owner>__<repo>.jsonl.gz`, see
../shared/snapshots/README.md). Both reduce a changed file to the same three things,
with the rules of the snapshot so that either source links alike:

- `added_text`: documentation files (.md .mdx .rst .txt .adoc): every added line; other
  files: only the added lines that hold a URL, `arxiv` or `doi.org`; each line cut to
  ADDED_LINE_CAP characters, the whole to ADDED_TEXT_CAP (`added_text_truncated`);
- `added_tokens`: other files only: the distinct identifier tokens of every added line
  (`[A-Za-z_][A-Za-z0-9_]*`, a trailing `++` kept, two characters or more), sorted, at
  most MAX_ADDED_TOKENS;
- `additions` and `deletions`: line counts against the first parent, null for binary files.

Merges are diffed against their first parent; a renamed file is its new path.

A commit whose author or commit time cannot be read (git accepts time zones no calendar
has; a recorded line may lack a time) is not stored as a commit: it goes, with its
files' paths, to the quarantine rows (raw.quarantine, `source` git_commits, keyed by its
URL), so that no inclusion is dated by a time nobody can read and nothing is lost.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl
from orchestration.tables import RAW_FRAMEWORK_DOCS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES, RAW_QUARANTINE

_UTC_TIME = pl.Datetime("us", "UTC")

#: raw.quarantine `source` of the commits whose times cannot be read.
COMMITS_SOURCE = "git_commits"


class CommitRecords(NamedTuple):
    """Commits (RAW_GIT_COMMITS.schema), their files (RAW_GIT_COMMIT_FILES.schema) and
    the commits that could not be read (RAW_QUARANTINE.schema)."""

    commits: pl.DataFrame
    files: pl.DataFrame
    quarantine: pl.DataFrame


#: Files whose added lines are kept whole (prose, where papers are cited and named).
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc")
#: Longest `added_text` of one file row (the snapshot's cap too).
ADDED_TEXT_CAP = 200_000
#: Longest added line kept in `added_text`: the snapshot cuts longer ones (minified
#: JSON, data rows, one-line paragraphs) there. A line is kept or not by its whole text,
#: and its tokens come from its whole text.
ADDED_LINE_CAP = 500
#: Most `added_tokens` of one file row: the first ones in sorted order.
MAX_ADDED_TOKENS = 2000
#: Shorter identifier tokens (`i`, `x`) are noise and are not recorded.
MIN_TOKEN_LENGTH = 2

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\+\+)?")
#: IDENTIFIER's matches of MIN_TOKEN_LENGTH (2) or more: two identifier characters or
#: more, or one and `++` (`i++`). The same matches at the same places as IDENTIFIER,
#: less the short ones, without a Python filter.
_LONG_IDENTIFIER = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]+(?:\+\+)?|\+\+)")
_REFERENCE = re.compile(r"https?://|arxiv|doi\.org", re.IGNORECASE)
_LOWER_REFERENCE = re.compile(r"https?://|arxiv|doi\.org")

#: Fields of one snapshot line, as polars reads them.
_SNAPSHOT_LINE_SCHEMA: dict[str, pl.DataType] = {
    "repo": pl.Utf8(),
    "sha": pl.Utf8(),
    "parents": pl.List(pl.Utf8()),
    "authored_at": pl.Utf8(),
    "committed_at": pl.Utf8(),
    "author": pl.Utf8(),
    "message": pl.Utf8(),
    "html_url": pl.Utf8(),
    "diff_incomplete": pl.Boolean(),
    "files": pl.List(
        pl.Struct(
            {
                "path": pl.Utf8(),
                "additions": pl.Int64(),
                "deletions": pl.Int64(),
                "added_text": pl.Utf8(),
                "added_tokens": pl.List(pl.Utf8()),
            }
        )
    ),
}


def is_documentation(path: str) -> bool:
    """Whether every added line of `path` is kept as text (by its suffix, any case)."""
    return path.lower().endswith(DOC_SUFFIXES)


def sorted_tokens(tokens: Iterable[str]) -> list[str]:
    """The distinct `tokens`, sorted, at most MAX_ADDED_TOKENS."""
    return sorted(set(tokens))[:MAX_ADDED_TOKENS]


def identifiers_in(text: str) -> list[str]:
    """The identifier tokens of some text, repeats included, too short ones left out.

    A newline is no identifier character, so lines joined by newlines tokenize alike.
    """
    return _LONG_IDENTIFIER.findall(text)


def added_tokens_of(lines: Iterable[str]) -> list[str]:
    """The distinct identifier tokens of added lines, as the snapshot records them."""
    return sorted_tokens(identifiers_in("\n".join(lines)))


def _referencing_lines(text: str) -> Iterator[str]:
    """The lines of `text` that hold a URL, `arxiv` or `doi.org` (any case), each once."""
    # Searching the lower-cased text is several times faster than ignoring case, and its
    # positions are the text's unless a character lower-cases to two (rare).
    lowered = text.lower()
    pattern, searched = (_LOWER_REFERENCE, lowered) if len(lowered) == len(text) else (_REFERENCE, text)
    position = 0
    while (found := pattern.search(searched, position)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        end = len(text) if end < 0 else end
        yield text[start:end]
        position = end + 1


class AddedLines:
    """The added lines of one changed file, reduced while they stream in to what its row
    keeps: the capped `added_text` and, for code, the identifier tokens.

    Lines come one by one (`add`) or as blocks joined by newlines (`add_block`: a
    tokenizer pass and a reference search per block, not per line).
    """

    def __init__(self, path: str, cap: int = ADDED_TEXT_CAP) -> None:
        self.path = path
        self.documentation = is_documentation(path)
        self.truncated = False
        self._pieces: list[str] = []
        self._room = cap
        self._tokens: set[str] = set()

    def add(self, line: str) -> None:
        self.add_block(line)

    def add_block(self, text: str) -> None:
        """Adds the lines of `text` (joined by newlines, without a final one)."""
        if self.documentation:
            if not self.truncated:
                self._keep(text.split("\n"))
            return
        self._tokens.update(identifiers_in(text))
        if not self.truncated:
            self._keep(_referencing_lines(text))

    def _keep(self, lines: Iterable[str]) -> None:
        for line in lines:
            line = line[:ADDED_LINE_CAP]
            piece = f"\n{line}" if self._pieces else line
            if len(piece) > self._room:
                self._pieces.append(piece[: self._room])
                self._room, self.truncated = 0, True
                return
            self._pieces.append(piece)
            self._room -= len(piece)

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    @property
    def tokens(self) -> list[str]:
        return sorted_tokens(self._tokens)


def added_text_of(path: str, lines: Iterable[str]) -> tuple[str, bool]:
    """(added_text, truncated) of a file's added lines."""
    added = AddedLines(path)
    for line in lines:
        added.add(line)
    return added.text, added.truncated


def commit_html_url(repo: str, sha: str) -> str:
    return f"https://github.com/{repo}/commit/{sha}"


def _utc_from_iso(column: str) -> pl.Expr:
    """An ISO-8601 text with its UTC offset (`+08:00`, or `Z`; fractions of a second
    allowed) as a UTC time; null where malformed (git accepts bogus time zones that no
    calendar has)."""
    return (
        pl.col(column)
        .str.replace(r"Z$", "+00:00")
        .str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%z", time_unit="us", strict=False)
        .dt.convert_time_zone("UTC")
    )


def _time_problem(column: str) -> pl.Expr:
    """Why the text time `column` cannot be read (null where it can)."""
    return (
        pl.when(pl.col(column).is_null())
        .then(pl.lit(f"no {column}"))
        .when(_utc_from_iso(column).is_null())
        .then(pl.format(f"bad {column} '{{}}': not an ISO-8601 time with a UTC offset", pl.col(column)))
    )


def dated_commits(commits: pl.DataFrame, files: pl.DataFrame) -> CommitRecords:
    """`commits` (RAW_GIT_COMMITS columns, the times still ISO-8601 text) with their times
    in UTC, and `files` (RAW_GIT_COMMIT_FILES.schema); a commit whose times cannot be read
    goes to the quarantine instead, with its JSON (its files' paths included)."""
    problems = commits.with_columns(_reason=pl.coalesce(_time_problem("committed_at"), _time_problem("authored_at")))
    undated = problems.filter(pl.col("_reason").is_not_null())
    dated = problems.filter(pl.col("_reason").is_null()).drop("_reason")
    dated = dated.with_columns(_utc_from_iso("authored_at"), _utc_from_iso("committed_at")).cast(RAW_GIT_COMMITS.schema)
    if undated.is_empty():
        return CommitRecords(dated, files, RAW_QUARANTINE.empty())
    paths = files.join(undated.select("sha"), on="sha", how="semi").group_by("sha", maintain_order=True).agg(paths=pl.col("path"))
    quarantine = undated.join(paths, on="sha", how="left", maintain_order="left").select(
        source=pl.lit(COMMITS_SOURCE),
        source_ref=pl.coalesce("html_url", pl.format("{} {}", "framework", "sha")),
        reason="_reason",
        raw_text=pl.struct(
            "sha", "parents", "author", "authored_at", "committed_at", "message", pl.col("paths").fill_null([])
        ).struct.json_encode(),
        framework="framework",
    )
    return CommitRecords(
        dated,
        files.join(undated.select("sha"), on="sha", how="anti", maintain_order="left"),
        pl.concat([RAW_QUARANTINE.empty(), quarantine], how="diagonal_relaxed").cast(RAW_QUARANTINE.schema),
    )


def commit_records(commits: Mapping[str, list[Any]], files: Mapping[str, list[Any]]) -> CommitRecords:
    """Commits and files from columns, the commits' times still ISO-8601 text (see dated_commits)."""
    text_times = {**RAW_GIT_COMMITS.schema, "authored_at": pl.Utf8(), "committed_at": pl.Utf8()}
    return dated_commits(
        pl.DataFrame(dict(commits), schema=text_times), pl.DataFrame(dict(files), schema=RAW_GIT_COMMIT_FILES.schema)
    )


def snapshot_docs_frame(records: Iterable[Mapping[str, Any]], framework_slug: str) -> pl.DataFrame:
    """Rows of RAW_FRAMEWORK_DOCS.schema from the lines of a snapshot `<owner>__<repo>.docs.jsonl`, in
    path order. `fetched_at` is the recorded head's commit time (UTC): the documents are
    as of then, and a reload gives the same rows."""
    recorded = {"path": pl.Utf8(), "blob_sha": pl.Utf8(), "text": pl.Utf8(), "head_committed_at": pl.Utf8()}
    frame = pl.DataFrame([{name: record.get(name) for name in recorded} for record in records], schema=recorded)
    return (
        frame.with_columns(framework=pl.lit(framework_slug), fetched_at=_utc_from_iso("head_committed_at"))
        .select(list(RAW_FRAMEWORK_DOCS.schema))
        .cast(RAW_FRAMEWORK_DOCS.schema)
        .sort("path")
    )


def _snapshot_bytes(lines_or_path: str | os.PathLike[str] | bytes | Iterable[Mapping[str, Any]]) -> bytes:
    """The JSON lines of a snapshot: a path (gzipped or not), their bytes, or parsed lines."""
    if isinstance(lines_or_path, (str, os.PathLike)):
        path = Path(lines_or_path)
        with path.open("rb") as handle:
            raw = handle.read()
        return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    if isinstance(lines_or_path, (bytes, bytearray)):
        return bytes(lines_or_path)
    buffer = io.StringIO()
    for line in lines_or_path:
        buffer.write(json.dumps(line))
        buffer.write("\n")
    return buffer.getvalue().encode("utf-8")


def snapshot_commit_frames(
    lines_or_path: str | os.PathLike[str] | bytes | Iterable[Mapping[str, Any]], framework_slug: str
) -> CommitRecords:
    """Commits, files and quarantined commits of one framework's snapshot history
    `<owner>__<repo>.jsonl.gz`.

    One commit row per line, in the file's order (newest first), times converted to UTC;
    one file row per recorded changed path. `added_text_truncated` is where the recorded
    text reaches the cap (the snapshot cut its text there and did not say so).
    """
    data = _snapshot_bytes(lines_or_path)
    if not data.strip():
        return CommitRecords(empty_commits(), empty_commit_files(), RAW_QUARANTINE.empty())
    lines = pl.read_ndjson(io.BytesIO(data), schema=_SNAPSHOT_LINE_SCHEMA).with_columns(
        framework=pl.lit(framework_slug, pl.Utf8()),
        diff_incomplete=pl.col("diff_incomplete").fill_null(False),
        parents=pl.col("parents").fill_null([]),
    )
    commits = lines.select(list(RAW_GIT_COMMITS.schema))
    files = (
        lines.select("framework", "sha", "files")
        .explode("files")
        .filter(pl.col("files").is_not_null())
        .unnest("files")
        .with_columns(
            added_text=pl.col("added_text").fill_null(""),
            added_tokens=pl.col("added_tokens").fill_null([]),
        )
    )
    files = _merge_tab_suffixed_paths(files).with_columns(
        added_text_truncated=pl.col("added_text").str.len_chars() >= ADDED_TEXT_CAP
    )
    return dated_commits(commits, files.select(list(RAW_GIT_COMMIT_FILES.schema)).cast(RAW_GIT_COMMIT_FILES.schema))


def _merge_tab_suffixed_paths(files: pl.DataFrame) -> pl.DataFrame:
    """One row per recorded path, where the recorder split a path with a space in two.

    git ends such a path with a tab in a patch's `+++` line; the recorder keyed the added
    text and tokens by that, and the line counts by the true path, so a path like
    `docs/User Guides/x.md` came as two rows: counts without text, and text under
    `x.md<TAB>` without counts. The two are merged back into one row per path: counts of
    the first, text and tokens of the second. (The recorder took such a document for
    code: its text holds only the reference lines, and its tokens, kept here although
    documents have none, are all that is left of its other lines.)
    """
    tab_suffixed = pl.col("path").str.ends_with("\t")
    if not files.select(tab_suffixed.any()).item():
        return files
    recorded_text = (
        files.filter(tab_suffixed)
        .with_columns(pl.col("path").str.strip_suffix("\t"))
        .unique(["sha", "path"], keep="first", maintain_order=True)
    )
    counted = files.filter(~tab_suffixed)
    merged = counted.join(
        recorded_text.select("sha", "path", _text="added_text", _tokens="added_tokens"),
        on=["sha", "path"],
        how="left",
        maintain_order="left",
    ).with_columns(
        added_text=pl.coalesce("_text", "added_text"),
        added_tokens=pl.coalesce("_tokens", "added_tokens"),
    )
    without_counts = recorded_text.join(counted, on=["sha", "path"], how="anti", maintain_order="left")
    return pl.concat([merged.drop("_text", "_tokens"), without_counts], how="vertical")


def empty_commits() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GIT_COMMITS.schema)


def empty_commit_files() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_GIT_COMMIT_FILES.schema)


def empty_docs() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_FRAMEWORK_DOCS.schema)
