"""Commit records from recorded histories: snapshot_commit_frames and SnapshotCommits on
small fixtures written here, and on the real ../shared/snapshots where present; and the
added-text and token rules that the git source shares with the snapshot."""

from __future__ import annotations

import gzip
import json
import logging
import random
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from orchestration.clients.commit_records import ADDED_LINE_CAP, ADDED_TEXT_CAP, IDENTIFIER, MAX_ADDED_TOKENS, MIN_TOKEN_LENGTH, added_text_of, added_tokens_of, identifiers_in, is_documentation, snapshot_commit_frames
from orchestration.clients.git import GitUnavailableError, SnapshotCommits
from orchestration.clients.snapshot_files import SnapshotFileError
from orchestration.settings import Framework, framework, frameworks
from tests.helpers import recorded_counts, shared_snapshots
from tests.snapshot_fixtures import blob_sha, doc_record, write_docs
from orchestration.tables import RAW_FRAMEWORK_DOCS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES

ACME = Framework("acme", "acme/rl", "main", (), ())

def commit_line(sha: str, *, committed_at: str = "2025-04-01T20:30:00+08:00", files: list | None = None, **fields) -> dict:
    return {
        "repo": "acme/rl", "sha": sha, "parents": ["p" * 40], "authored_at": "2025-04-01T10:00:00-04:00",
        "committed_at": committed_at, "author": "Ada", "message": f"Commit {sha[:4]}\n\nBody.",
        "html_url": f"https://github.com/acme/rl/commit/{sha}", "diff_incomplete": False,
        "files": files if files is not None else [], **fields,
    }  # fmt: skip


def write_history(folder: Path, stem: str, lines: list[dict]) -> Path:
    (folder / "github").mkdir(parents=True, exist_ok=True)
    path = folder / "github" / f"{stem}.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
    return path


SMALL_HISTORY = [
    commit_line(
        "b" * 40,
        parents=["a" * 40, "c" * 40],
        files=[
            {"path": "docs/grpo.md", "additions": 2, "deletions": 0, "added_text": "GRPO\nhttps://arxiv.org/abs/2402.03300", "added_tokens": []},
            {"path": "assets/logo.png", "additions": None, "deletions": None, "added_text": "", "added_tokens": []},
            {"path": "src/loss.py", "additions": 3, "deletions": 1, "added_text": "x" * ADDED_TEXT_CAP, "added_tokens": ["grpo_loss", "torch"]},
        ],
    ),
    commit_line("a" * 40, committed_at="2025-03-31T23:59:59+00:00", parents=[], diff_incomplete=True),
]  # fmt: skip


# -- snapshot_commit_frames ---------------------------------------------------------------


def test_frames_of_a_small_history(tmp_path):
    path = write_history(tmp_path, "acme__rl", SMALL_HISTORY)
    commits, files, quarantine = snapshot_commit_frames(path, "acme")
    assert quarantine.is_empty()

    assert commits.schema == pl.Schema(RAW_GIT_COMMITS.schema)
    assert files.schema == pl.Schema(RAW_GIT_COMMIT_FILES.schema)
    assert commits["sha"].to_list() == ["b" * 40, "a" * 40]
    newest = commits.row(0, named=True)
    assert newest["committed_at"] == datetime(2025, 4, 1, 12, 30, tzinfo=UTC)  # +08:00 → UTC
    assert newest["authored_at"] == datetime(2025, 4, 1, 14, 0, tzinfo=UTC)  # -04:00 → UTC
    assert newest["parents"] == ["a" * 40, "c" * 40]
    assert newest["message"] == "Commit bbbb\n\nBody."
    assert (newest["framework"], newest["diff_incomplete"]) == ("acme", False)
    assert commits.row(1, named=True)["parents"] == []
    assert commits.row(1, named=True)["diff_incomplete"] is True

    assert files["sha"].to_list() == ["b" * 40] * 3  # the commit without files has no rows
    assert files["path"].to_list() == ["docs/grpo.md", "assets/logo.png", "src/loss.py"]
    assert files["additions"].to_list() == [2, None, 3]
    assert files["added_tokens"].to_list() == [[], [], ["grpo_loss", "torch"]]
    assert files["added_text_truncated"].to_list() == [False, False, True]  # the recorded text reaches the cap


def test_lines_bytes_and_paths_give_the_same_frames(tmp_path):
    path = write_history(tmp_path, "acme__rl", SMALL_HISTORY)
    from_path = snapshot_commit_frames(path, "acme")
    from_lines = snapshot_commit_frames(SMALL_HISTORY, "acme")
    from_bytes = snapshot_commit_frames(gzip.decompress(path.read_bytes()), "acme")
    for frames in (from_lines, from_bytes):
        assert all(frame.equals(expected) for frame, expected in zip(frames, from_path, strict=True))


def test_a_path_with_a_space_recorded_in_two_rows_is_one_row():
    """The recorder keyed text by git's tab-terminated `+++` path: merged back into one row."""
    spaced = "docs/User Guides/grpo.md"
    line = commit_line(
        "d" * 40,
        files=[
            {"path": spaced, "additions": 3, "deletions": 1, "added_text": "", "added_tokens": []},
            {"path": "src/a.py", "additions": 1, "deletions": 0, "added_text": "", "added_tokens": ["aa"]},
            {"path": spaced + "\t", "additions": None, "deletions": None, "added_text": "see https://x.org", "added_tokens": ["GRPO", "see"]},
            {"path": "docs/only text.md\t", "additions": None, "deletions": None, "added_text": "t", "added_tokens": []},
        ],
    )  # fmt: skip
    files = snapshot_commit_frames([line], "acme").files
    assert files.select("path", "additions", "deletions", "added_text", "added_tokens").rows() == [
        (spaced, 3, 1, "see https://x.org", ["GRPO", "see"]),
        ("src/a.py", 1, 0, "", ["aa"]),
        ("docs/only text.md", None, None, "t", []),
    ]


def test_empty_history(tmp_path):
    commits, files, quarantine = snapshot_commit_frames([], "acme")
    assert commits.is_empty() and files.is_empty() and quarantine.is_empty()
    assert commits.schema == pl.Schema(RAW_GIT_COMMITS.schema)


# -- the rules shared with the git source -------------------------------------------------


def test_tokens_are_distinct_sorted_identifiers():
    lines = ['LOSSES = register_policy_loss("gspo")  # i++ C++ x', "loss_type: dr_grpo v0.23.0rc1 x", "ZeRO++ 9lives"]
    assert added_tokens_of(lines) == [
        "C++", "LOSSES", "ZeRO++", "dr_grpo", "gspo", "i++", "lives", "loss_type", "rc1", "register_policy_loss", "v0",
    ]  # fmt: skip


def test_the_tokenizer_is_the_identifier_pattern_less_short_tokens():
    rng = random.Random(7)
    alphabet = "aZ_9+ +\n.-(é"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        expected = [token for token in IDENTIFIER.findall(text) if len(token) >= MIN_TOKEN_LENGTH]
        assert identifiers_in(text) == expected, text


def test_tokens_are_capped():
    tokens = added_tokens_of(f"name_{number:05d}" for number in range(MAX_ADDED_TOKENS + 10))
    assert len(tokens) == MAX_ADDED_TOKENS
    assert tokens[-1] == f"name_{MAX_ADDED_TOKENS - 1:05d}"


def test_added_text_keeps_documentation_and_references_of_code():
    lines = ["# GSPO", "", "see https://arxiv.org/abs/2507.18071", "x = 1", "# arXiv:2402.03300", "DOI: doi.org/10.1/x"]
    assert added_text_of("docs/GSPO.MD", lines) == ("\n".join(lines), False)
    assert added_text_of("src/gspo.py", lines) == (
        "see https://arxiv.org/abs/2507.18071\n# arXiv:2402.03300\nDOI: doi.org/10.1/x",
        False,
    )
    assert [is_documentation(p) for p in ("a.md", "a.mdx", "a.rst", "a.txt", "a.adoc", "a.py", "LICENSE")] == [True] * 5 + [False] * 2


def test_added_text_is_capped():
    lines = ["y" * 499] * 500
    text, truncated = added_text_of("notes.txt", lines)
    assert truncated and text == "\n".join(lines)[:ADDED_TEXT_CAP]
    exactly = ["y" * 499] * 400 + [""]  # 400 × 499 characters and 400 newlines
    assert added_text_of("notes.txt", exactly) == ("\n".join(exactly), False)
    assert len("\n".join(exactly)) == ADDED_TEXT_CAP


def test_long_lines_are_cut_but_kept_and_tokenized_whole():
    line = "a" * 600 + " https://arxiv.org/abs/2402.03300 tail_token"
    assert added_text_of("src/data.py", [line]) == ("a" * ADDED_LINE_CAP, False)
    assert "tail_token" in added_tokens_of([line])


# -- SnapshotCommits ----------------------------------------------------------------------


def test_snapshot_source_returns_the_whole_history(tmp_path):
    write_history(tmp_path, "acme__rl", SMALL_HISTORY)
    batch = SnapshotCommits(tmp_path).refresh(ACME, None)
    assert (batch.head, batch.full_rescan, batch.commits_scanned) == ("b" * 40, True, 2)
    assert batch.files.height == 3
    # Another watermark (an older load) reloads it all: idempotent.
    assert SnapshotCommits(tmp_path).refresh(ACME, "a" * 40).full_rescan


def test_the_watermark_of_an_unchanged_file_parses_nothing(tmp_path, monkeypatch):
    write_history(tmp_path, "acme__rl", SMALL_HISTORY)
    loaded = SnapshotCommits(tmp_path).refresh(ACME, None)

    def no_full_parse(*_args, **_kwargs):
        raise AssertionError("the whole file was parsed")

    monkeypatch.setattr("orchestration.clients.git.snapshot_commit_frames", no_full_parse)
    batch = SnapshotCommits(tmp_path).refresh(ACME, loaded.watermark)
    assert (batch.head, batch.full_rescan, batch.commits_scanned) == ("b" * 40, False, 0)
    assert batch.watermark == loaded.watermark
    assert batch.commits.is_empty() and batch.files.is_empty()


def test_a_changed_file_with_the_same_head_is_read_again(tmp_path):
    write_history(tmp_path, "acme__rl", SMALL_HISTORY)
    loaded = SnapshotCommits(tmp_path).refresh(ACME, None)
    write_history(tmp_path, "acme__rl", SMALL_HISTORY[:1])
    batch = SnapshotCommits(tmp_path).refresh(ACME, loaded.watermark)
    assert (batch.head, batch.full_rescan, batch.commits_scanned) == ("b" * 40, True, 1)
    assert batch.watermark != loaded.watermark
    # The bare head (a watermark of a load that kept no digest) is no proof either.
    assert SnapshotCommits(tmp_path).refresh(ACME, "b" * 40).full_rescan


def test_missing_snapshot_file_is_named(tmp_path):
    (tmp_path / "github").mkdir()
    with pytest.raises(GitUnavailableError, match=r"snapshot .*github/acme__rl\.jsonl\.gz not found"):
        SnapshotCommits(tmp_path).refresh(ACME, None)


DOCUMENTED = Framework("acme", "acme/rl", "main", (), ("docs/RULES.md", ".github/ISSUE_TEMPLATE/"))


def test_recorded_contribution_docs_as_the_mirror_gives_them(tmp_path, caplog):
    write_docs(
        tmp_path,
        ACME,
        [
            doc_record(ACME, "docs/RULES.md", "Be kind.\n"),
            doc_record(ACME, ".github/ISSUE_TEMPLATE/bug.yml", "name: Bug\n"),
            doc_record(ACME, "CONTRIBUTING.md", "# Contributing\n\nOpen an issue first.\n"),
            doc_record(ACME, "GOVERNANCE.md", "Maintainers decide.\n"),
        ],
    )
    with caplog.at_level(logging.INFO):
        docs = SnapshotCommits(tmp_path).contribution_docs(DOCUMENTED)
    assert docs.schema == pl.Schema(RAW_FRAMEWORK_DOCS.schema)
    # CONTRIBUTING.md is looked for everywhere; GOVERNANCE.md is not configured for acme.
    assert docs["path"].to_list() == [".github/ISSUE_TEMPLATE/bug.yml", "CONTRIBUTING.md", "docs/RULES.md"]
    assert "GOVERNANCE.md not in contribution_docs of acme" in caplog.text
    rules = docs.row(2, named=True)
    assert rules == {
        "framework": "acme", "path": "docs/RULES.md", "blob_sha": blob_sha("Be kind.\n"),
        "fetched_at": datetime(2025, 4, 1, 12, 30, tzinfo=UTC), "text": "Be kind.\n",
    }  # fmt: skip
    assert SnapshotCommits(tmp_path).contribution_docs(DOCUMENTED).equals(docs)  # a reload gives the same rows


def test_no_recorded_docs_is_no_docs(tmp_path):
    assert SnapshotCommits(tmp_path).contribution_docs(ACME).is_empty()


def test_a_corrupt_docs_line_is_named(tmp_path):
    path = write_docs(tmp_path, ACME, [doc_record(ACME, "CONTRIBUTING.md", "Hi\n"), '{"path": "GOVERN'])
    with pytest.raises(SnapshotFileError, match=rf"{path}:2: not a JSON line"):
        SnapshotCommits(tmp_path).contribution_docs(ACME)


def test_a_cut_document_text_is_named(tmp_path):
    path = write_docs(tmp_path, ACME, [{**doc_record(ACME, "CONTRIBUTING.md", "Open an issue first.\n"), "text": "Open an"}])
    with pytest.raises(SnapshotFileError, match=rf"{path}: the text of CONTRIBUTING.md does not hash to its blob_sha"):
        SnapshotCommits(tmp_path).contribution_docs(ACME)


# -- the real recorded histories ----------------------------------------------------------


@pytest.mark.snapshots
def test_all_recorded_histories_load_whole():
    """Every recorded commit, one row each (the load's time is bench/ingest.py's)."""
    snapshot = shared_snapshots()
    source = SnapshotCommits(snapshot)
    batches = {fw.slug: source.refresh(fw, None) for fw in frameworks()}

    assert {slug: batch.commits.height for slug, batch in batches.items()} == recorded_counts(snapshot).commits
    for slug, batch in batches.items():
        commits, files = batch.commits, batch.files
        assert commits.schema == pl.Schema(RAW_GIT_COMMITS.schema) and files.schema == pl.Schema(RAW_GIT_COMMIT_FILES.schema)
        assert commits["sha"].n_unique() == commits.height, slug
        assert commits["committed_at"].dtype == pl.Datetime("us", "UTC")
        assert commits["committed_at"].null_count() == 0 and commits["authored_at"].null_count() == 0, slug
        assert (commits["framework"] == slug).all() and (files["framework"] == slug).all()
        assert batch.head == commits["sha"][0] and batch.full_rescan
        assert files.height > commits.height, slug
        assert files["added_tokens"].dtype == pl.List(pl.Utf8())
        assert files["added_tokens"].list.len().sum() > 0, slug
        assert files.join(commits, on="sha", how="anti").is_empty(), slug  # every file row has its commit


@pytest.mark.snapshots
def test_the_recorded_watermark_is_a_no_change():
    """Given its own watermark, the recording parses nothing (how fast: bench/ingest.py)."""
    source = SnapshotCommits(shared_snapshots())
    verl = framework("verl")
    loaded = source.refresh(verl, None)
    batch = source.refresh(verl, loaded.watermark)
    assert (batch.commits_scanned, batch.commits.height, batch.files.height, batch.full_rescan) == (0, 0, 0, False)
    assert batch.head == loaded.head == loaded.commits["sha"][0]


@pytest.mark.snapshots
def test_recorded_tokens_follow_the_shared_rules():
    """The tokens of a code file's recorded reference lines are among its recorded tokens
    (where neither the text, its lines nor the tokens were cut off)."""
    files = snapshot_commit_frames(shared_snapshots() / "github" / "alibaba__ROLL.jsonl.gz", "roll").files
    code = files.filter(
        (pl.col("added_text") != "")
        & ~pl.col("added_text_truncated")
        & (pl.col("added_tokens").list.len() < MAX_ADDED_TOKENS)
        & ~pl.col("path").str.to_lowercase().str.contains(r"\.(md|mdx|rst|txt|adoc)$")
    )
    assert code.height > 50
    for text, recorded in code.select("added_text", "added_tokens").iter_rows():
        whole_lines = [line for line in text.split("\n") if len(line) < ADDED_LINE_CAP]
        assert set(added_tokens_of(whole_lines)) <= set(recorded)
