"""GitMirrorCommits against local repositories: clone, incremental fetches, force-pushes,
merges, renames, binary files, capped text, damaged mirrors and missing git or remotes."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
from datetime import UTC, datetime

import polars as pl
import pytest

from orchestration.clients.commit_records import ADDED_TEXT_CAP
from orchestration.clients.git import _LOG_ARGS, GitMirrorCommits, GitUnavailableError, read_log_stream
from orchestration.settings import Framework
from fakes.git_repos import ISOLATED_GIT_ENV, GitRemote, drop_object
from orchestration.tables import RAW_FRAMEWORK_DOCS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES

ACME = Framework("acme", "acme/rl", "main", (), ("CONTRIBUTING.md", "docs/RULES.md", ".github/ISSUE_TEMPLATE/"))
LOG = logging.getLogger("test_git_commits")

README = "# Acme RL\n\nImplements GRPO (https://arxiv.org/abs/2402.03300).\n"
LOSS = 'import torch\n\n# DAPO: doi.org/10.1000/dapo\ndef grpo_loss(ratio, clip_eps):\n    return torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps)\n'
LOGO = b"\x89PNG\r\n\x1a\n\x00\x00\x00binary"


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch):
    """No user or system git configuration leaks into the mirror's commands."""
    for name, value in ISOLATED_GIT_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def remote(tmp_path) -> GitRemote:
    return GitRemote(tmp_path / "remotes", ACME.repo)


@pytest.fixture
def source(tmp_path, remote) -> GitMirrorCommits:
    return GitMirrorCommits(tmp_path / "mirrors", remote.url_template)


def build_history(remote: GitRemote) -> dict[str, str]:
    """root → rename → (feature branch: a doc) → main: binary change → merge of feature."""
    shas = {}
    shas["root"] = remote.commit(
        "Add GRPO loss\n\nFirst version of the loss.",
        {"README.md": README, "src/loss.py": LOSS, "assets/logo.png": LOGO},
        at="2025-03-01T10:00:00+08:00",
        committed_at="2025-03-01T12:30:00+08:00",
    )
    shas["rename"] = remote.rename(
        "src/loss.py", "src/losses.py", "Move the loss", append='LOSSES = register_policy_loss("gspo")  # i++ C++\n',
        at="2025-03-02T09:00:00-05:00",
    )  # fmt: skip
    remote.checkout("feature", create=True)
    shas["side"] = remote.commit("Document DAPO", {"docs/dapo.md": "# DAPO\n\nClip-higher.\n"}, at="2025-03-03T00:00:00+00:00")
    remote.checkout("main")
    shas["binary"] = remote.commit("New logo", {"assets/logo.png": LOGO + b"\x00v2"}, at="2025-03-04T00:00:00+00:00")
    shas["merge"] = remote.merge("feature", "Merge branch 'feature'", at="2025-03-05T00:00:00+00:00")
    remote.push()
    return shas


def files_of(batch, sha: str) -> pl.DataFrame:
    return batch.files.filter(pl.col("sha") == sha)


def test_first_refresh_clones_and_parses_every_commit(remote, source, tmp_path):
    shas = build_history(remote)
    batch = source.refresh(ACME, None, LOG)

    assert (tmp_path / "mirrors" / "acme__rl.git" / "HEAD").is_file()
    assert batch.commits.schema == pl.Schema(RAW_GIT_COMMITS.schema)
    assert batch.files.schema == pl.Schema(RAW_GIT_COMMIT_FILES.schema)
    assert (batch.head, batch.full_rescan, batch.commits_scanned) == (shas["merge"], True, 5)
    assert sorted(batch.commits["sha"]) == sorted(shas.values())

    root = batch.commits.row(by_predicate=pl.col("sha") == shas["root"], named=True)
    assert root["authored_at"] == datetime(2025, 3, 1, 2, 0, tzinfo=UTC)
    assert root["committed_at"] == datetime(2025, 3, 1, 4, 30, tzinfo=UTC)
    assert root["parents"] == []
    assert root["author"] == "Ada Lovelace"
    assert root["message"] == "Add GRPO loss\n\nFirst version of the loss."
    assert root["html_url"] == f"https://github.com/acme/rl/commit/{shas['root']}"
    assert root["diff_incomplete"] is False
    rename = batch.commits.row(by_predicate=pl.col("sha") == shas["rename"], named=True)
    assert rename["committed_at"] == datetime(2025, 3, 2, 14, 0, tzinfo=UTC)

    merge = batch.commits.row(by_predicate=pl.col("sha") == shas["merge"], named=True)
    assert merge["parents"] == [shas["binary"], shas["side"]]


def test_files_are_diffed_against_the_first_parent(remote, source):
    shas = build_history(remote)
    batch = source.refresh(ACME, None, LOG)

    root = {row["path"]: row for row in files_of(batch, shas["root"]).iter_rows(named=True)}
    assert set(root) == {"README.md", "src/loss.py", "assets/logo.png"}
    # Documentation: every added line, no tokens.
    assert root["README.md"]["added_text"] == README.removesuffix("\n")
    assert root["README.md"]["added_tokens"] == []
    assert (root["README.md"]["additions"], root["README.md"]["deletions"]) == (3, 0)
    # Code: only the lines with a reference as text, the identifiers of all lines as tokens.
    assert root["src/loss.py"]["added_text"] == "# DAPO: doi.org/10.1000/dapo"
    assert root["src/loss.py"]["added_tokens"] == [
        "DAPO", "clamp", "clip_eps", "dapo", "def", "doi", "grpo_loss", "import", "org", "ratio", "return", "torch",
    ]  # fmt: skip
    # Binary: no line counts.
    assert (root["assets/logo.png"]["additions"], root["assets/logo.png"]["deletions"]) == (None, None)
    assert files_of(batch, shas["binary"]).select("path", "additions", "deletions").rows() == [("assets/logo.png", None, None)]

    # A rename is the new path, with only the lines that changed.
    renamed = files_of(batch, shas["rename"]).row(0, named=True)
    assert files_of(batch, shas["rename"]).height == 1
    assert (renamed["path"], renamed["additions"], renamed["deletions"]) == ("src/losses.py", 1, 0)
    assert renamed["added_tokens"] == ["C++", "LOSSES", "gspo", "i++", "register_policy_loss"]
    assert renamed["added_text"] == ""

    # The merge brings in what its side branch changed, against the first parent.
    merged = files_of(batch, shas["merge"])
    assert merged.select("path", "additions", "deletions", "added_text").rows() == [
        ("docs/dapo.md", 3, 0, "# DAPO\n\nClip-higher.")
    ]
    assert not batch.files["added_text_truncated"].any()


def test_no_new_commits_costs_no_parsing(remote, source):
    build_history(remote)
    first = source.refresh(ACME, None, LOG)
    again = source.refresh(ACME, first.head, LOG)
    assert (again.head, again.full_rescan, again.commits_scanned) == (first.head, False, 0)
    assert again.commits.is_empty() and again.files.is_empty()
    assert again.commits.schema == pl.Schema(RAW_GIT_COMMITS.schema)


def test_new_commits_only_are_parsed(remote, source):
    build_history(remote)
    first = source.refresh(ACME, None, LOG)
    newer = [
        remote.commit("Add GSPO", {"src/gspo.py": "def gspo_loss():\n    pass\n"}, at="2025-04-01T08:00:00+02:00"),
        remote.commit("Docs for GSPO", {"docs/gspo.md": "GSPO: https://arxiv.org/abs/2507.18071\n"}, at="2025-04-02T08:00:00+02:00"),
    ]
    remote.push()

    batch = source.refresh(ACME, first.head, LOG)
    assert (batch.head, batch.full_rescan, batch.commits_scanned) == (newer[-1], False, 2)
    assert batch.commits["sha"].to_list() == newer[::-1]
    assert batch.files.select("sha", "path").rows() == [(newer[1], "docs/gspo.md"), (newer[0], "src/gspo.py")]


def test_force_push_rescans_the_rewritten_history(remote, source, caplog):
    shas = build_history(remote)
    first = source.refresh(ACME, None, LOG)
    remote.reset_hard(shas["binary"])
    rewritten = remote.commit("Redo the merge as a plain commit", {"docs/dapo.md": "# DAPO\n"}, at="2025-03-06T00:00:00+00:00")
    remote.push(force=True)

    with caplog.at_level(logging.WARNING, logger=LOG.name):
        batch = source.refresh(ACME, first.head, LOG)
    assert (batch.head, batch.full_rescan) == (rewritten, True)
    assert sorted(batch.commits["sha"]) == sorted(remote.history())
    assert shas["merge"] not in batch.commits["sha"].to_list()
    assert shas["side"] not in batch.commits["sha"].to_list()
    assert "force-push" in caplog.text


def test_unknown_watermark_rescans(remote, source):
    build_history(remote)
    batch = source.refresh(ACME, "0" * 40, LOG)
    assert batch.full_rescan and batch.commits_scanned == 5


def test_unreachable_remote_is_a_clear_error(tmp_path):
    source = GitMirrorCommits(tmp_path / "mirrors", f"file://{tmp_path}/nowhere/{{repo}}.git")
    with pytest.raises(GitUnavailableError) as raised:
        source.refresh(ACME, None, LOG)
    message = str(raised.value)
    assert "\n" not in message
    assert f"cannot clone file://{tmp_path}/nowhere/acme/rl.git into {tmp_path}/mirrors/acme__rl.git" in message
    assert "TRACKER_SNAPSHOT_DIR" in message and "--snapshot" in message
    assert not (tmp_path / "mirrors" / "acme__rl.git").exists()
    assert not list((tmp_path / "mirrors").glob("*.partial"))


def test_remote_gone_after_the_clone_is_a_clear_error(remote, source, tmp_path):
    build_history(remote)
    source.refresh(ACME, None, LOG)
    remote.bare.rename(remote.bare.with_name("moved.git"))
    with pytest.raises(GitUnavailableError, match=r"cannot fetch file://.*/acme/rl\.git into .*acme__rl\.git: .*TRACKER_SNAPSHOT_DIR"):
        source.refresh(ACME, None, LOG)


def test_credentials_in_the_remote_url_are_not_shown(tmp_path):
    source = GitMirrorCommits(tmp_path / "mirrors", "https://user:s3cret@127.0.0.1:9/{repo}.git")
    with pytest.raises(GitUnavailableError) as raised:
        source.refresh(ACME, None, LOG)
    assert "s3cret" not in str(raised.value)
    assert "https://***@127.0.0.1:9/acme/rl.git" in str(raised.value)


def test_missing_git_is_a_clear_error(tmp_path, monkeypatch, source):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(GitUnavailableError, match=r"^git not found on PATH; install git or set TRACKER_SNAPSHOT_DIR"):
        source.refresh(ACME, None, LOG)


def test_huge_added_text_is_capped(remote, source):
    line = "GRPO " * 19 + "end"  # 98 characters
    lines = [f"{number:05d} {line}" for number in range(3000)]  # about 312,000 characters
    sha = remote.commit("A long page", {"docs/long.md": "\n".join(lines) + "\n", "data/urls.py": "x = 1\n"})
    remote.push()
    batch = source.refresh(ACME, None, LOG)
    row = files_of(batch, sha).filter(pl.col("path") == "docs/long.md").row(0, named=True)
    assert row["added_text_truncated"] is True
    assert len(row["added_text"]) == ADDED_TEXT_CAP
    assert row["added_text"] == "\n".join(lines)[:ADDED_TEXT_CAP]
    assert row["additions"] == 3000


def test_paths_with_spaces_and_empty_commits(remote, source):
    spaced = remote.commit("Odd names", {"docs/user guide é.md": "Hello\n", "src/tab\there.py": "url = 'https://x.org'\n"})
    empty = remote.commit("Nothing changed")
    remote.push()
    batch = source.refresh(ACME, None, LOG)
    assert sorted(files_of(batch, spaced)["path"]) == ["docs/user guide é.md", "src/tab\there.py"]
    assert files_of(batch, spaced).filter(pl.col("path") == "src/tab\there.py")["added_text"].to_list() == ["url = 'https://x.org'"]
    assert empty in batch.commits["sha"].to_list() and files_of(batch, empty).is_empty()


def test_user_git_configuration_does_not_change_the_parse(remote, source, tmp_path, monkeypatch):
    config = tmp_path / "hostile.gitconfig"
    config.write_text(
        "[color]\n\tui = always\n[diff]\n\tnoprefix = true\n\tsubmodule = log\n\trenames = false\n"
        "[log]\n\tmailmap = true\n\tshowSignature = false\n\tshowRoot = false\n[core]\n\tquotePath = true\n"
    )  # fmt: skip
    first = remote.commit("Code", {"src/a.py": LOSS, ".mailmap": "Countess <c@x> Ada Lovelace <author@example.org>\n"})
    second = remote.rename("src/a.py", "src/b é.py", "Rename", append="b = 'https://arxiv.org/abs/1'\n")
    third = remote.commit_gitlink("vendor/lib", first, "A submodule")
    remote.push()
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    batch = source.refresh(ACME, None, LOG)
    assert batch.commits["author"].unique().to_list() == ["Ada Lovelace"]  # not the mailmap's name
    assert files_of(batch, first)["path"].sort().to_list() == [".mailmap", "src/a.py"]
    assert files_of(batch, second).select("path", "additions", "deletions", "added_text").rows() == [
        ("src/b é.py", 1, 0, "b = 'https://arxiv.org/abs/1'")  # renamed
    ]
    submodule = files_of(batch, third).row(0, named=True)  # as without diff.submodule = log
    assert (files_of(batch, third).height, submodule["path"], submodule["additions"]) == (1, "vendor/lib", 1)
    assert {"Subproject", "commit"} <= set(submodule["added_tokens"])


def test_missing_blob_marks_the_commit_incomplete(remote, source, tmp_path, caplog):
    first = remote.commit("Add code", {"src/a.py": "a = 1\n"}, at="2025-03-01T00:00:00+00:00")
    broken = remote.commit("Add a page", {"docs/page.md": "lost text\n"}, at="2025-03-02T00:00:00+00:00")
    last = remote.commit("More code", {"src/a.py": "a = 1\nb = 2\n"}, at="2025-03-03T00:00:00+00:00")
    remote.push()
    initial = source.refresh(ACME, None, LOG)
    drop_object(source.mirror_path(ACME), remote.blob(broken, "docs/page.md"))

    with caplog.at_level(logging.WARNING, logger=LOG.name):
        batch = source.refresh(ACME, None, LOG)
    assert batch.commits.select("sha", "diff_incomplete").rows() == [(last, False), (broken, True), (first, False)]
    assert files_of(batch, broken).select("path", "additions", "deletions", "added_text").rows() == [
        ("docs/page.md", None, None, "")
    ]
    assert files_of(batch, last).select("path", "additions").rows() == [("src/a.py", 1)]
    assert "diff_incomplete" in caplog.text
    assert initial.files.height == batch.files.height


class Trickle:
    """A pipe that hands out a few bytes per read, to split every field and line."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step = data, step

    def read1(self, _size: int) -> bytes:
        chunk, self.data = self.data[: self.step], self.data[self.step :]
        return chunk


def test_the_stream_parses_alike_in_any_chunking(remote, source):
    build_history(remote)
    remote.commit("Odd names", {"docs/a b.md": "x\n", "c.py": "u = 'https://y.org'\n"})
    remote.push()
    source.refresh(ACME, None, LOG)
    shas = "".join(f"{sha}\n" for sha in remote.history()).encode()
    output = subprocess.run(
        ["git", "--git-dir", str(source.mirror_path(ACME)), *_LOG_ARGS], input=shas, capture_output=True, check=True
    ).stdout

    def parsed(step: int) -> list[tuple]:
        return [
            (c.sha, c.parents, c.message, [(f.path, f.additions, f.deletions, f.added_text, f.added_tokens) for f in c.files])
            for c in read_log_stream(Trickle(output, step))
        ]

    whole = parsed(len(output))
    assert len(whole) == 6 and sum(len(files) for *_, files in whole) == 9
    for step in (1, 2, 3, 7, 64):
        assert parsed(step) == whole, step


def test_progress_is_logged(remote, source, caplog, monkeypatch):
    monkeypatch.setattr("orchestration.clients.git.PROGRESS_EVERY", 2)
    for number in range(5):
        remote.commit(f"c{number}", {"n.txt": f"{number}\n"})
    remote.push()
    with caplog.at_level(logging.INFO, logger=LOG.name):
        source.refresh(ACME, None, LOG)
    assert "2/5 commit(s) read" in caplog.text and "4/5 commit(s) read" in caplog.text
    assert "5 commit(s) parsed" in caplog.text


def test_contribution_docs_at_the_head(remote, source):
    remote.commit(
        "Rules",
        {"CONTRIBUTING.md": "# Contributing\n\nOpen an issue first.\n", ".github/CONTRIBUTING.md": "See ../CONTRIBUTING.md\n",
         "docs/RULES.md": "Be kind.\n", "src/a.py": "a = 1\n", ".github/ISSUE_TEMPLATE/bug.yml": "name: Bug\n",
         ".github/ISSUE_TEMPLATE/forms/idea.yml": "name: Idea\n", ".github/ISSUE_TEMPLATES.md": "not the folder\n"},
    )  # fmt: skip
    remote.push()
    source.refresh(ACME, None, LOG)
    docs = source.contribution_docs(ACME)
    assert docs.schema == pl.Schema(RAW_FRAMEWORK_DOCS.schema)
    # In path order; a configured folder ("/" at the end) gives every file under it.
    assert docs["path"].to_list() == [
        ".github/CONTRIBUTING.md", ".github/ISSUE_TEMPLATE/bug.yml", ".github/ISSUE_TEMPLATE/forms/idea.yml",
        "CONTRIBUTING.md", "docs/RULES.md",
    ]  # fmt: skip
    contributing = docs.row(3, named=True)
    assert contributing["text"] == "# Contributing\n\nOpen an issue first.\n"
    assert contributing["blob_sha"] == remote.blob("HEAD", "CONTRIBUTING.md")
    assert contributing["framework"] == "acme"
    assert contributing["fetched_at"].tzinfo is not None


def test_contribution_docs_clone_a_missing_mirror(remote, source):
    remote.commit("No rules", {"src/a.py": "a = 1\n"})
    remote.push()
    assert source.contribution_docs(ACME).is_empty()
    assert (source.mirror_path(ACME) / "HEAD").is_file()


def test_git_never_prompts(source, monkeypatch):
    monkeypatch.delenv("GIT_TERMINAL_PROMPT")
    assert source._environment()["GIT_TERMINAL_PROMPT"] == "0"


def test_a_remote_that_never_answers_fails_the_clone_at_the_time_limit(tmp_path):
    with socket.socket() as silent:  # the kernel accepts the connection; nobody ever answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        source = GitMirrorCommits(tmp_path / "mirrors", f"git://127.0.0.1:{port}/{{repo}}.git", timeout_s=1)
        with pytest.raises(GitUnavailableError) as raised:
            source.refresh(ACME, None, LOG)
    message = str(raised.value)
    assert message.startswith("git clone did not finish within 1 s and was stopped;")
    assert "git_timeout_s" in message and "--snapshot" in message and "\n" not in message
    assert not (tmp_path / "mirrors" / "acme__rl.git").exists()


def test_a_git_log_that_hangs_is_stopped_at_the_time_limit(remote, tmp_path, monkeypatch):
    build_history(remote)
    real_git = shutil.which("git")
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    # `git log --stdin` (the commit parser) hangs; every other git command runs as usual.
    wrapper.write_text(f'#!/bin/sh\nfor arg; do [ "$arg" = --stdin ] && exec sleep 600; done\nexec {real_git} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    source = GitMirrorCommits(tmp_path / "mirrors", remote.url_template, timeout_s=2)
    with pytest.raises(GitUnavailableError, match=r"^git log did not finish within 2 s in .*acme__rl\.git and was stopped;"):
        source.refresh(ACME, None, LOG)
