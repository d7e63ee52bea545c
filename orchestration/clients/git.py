"""Commits and contribution documents of the frameworks: bare git mirrors, or a snapshot.

`CommitSource` is what the assets call. `GitMirrorCommits` keeps one bare mirror per
framework (`<mirror_dir>/<owner>__<name>.git`, cloned once, fetched after) and parses
the commits that are new since the last refresh's head with one streamed `git log`.
`SnapshotCommits` reads the recorded `github/<owner>__<name>.jsonl.gz` histories and
`docs/<owner>__<name>.docs.jsonl` documents of a snapshot folder instead.
"""

from __future__ import annotations

import abc
import hashlib
import io
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import polars as pl

from orchestration.clients.commit_records import AddedLines, commit_files_frame, commit_html_url, commits_frame, empty_commit_files, empty_commits, empty_docs, snapshot_commit_frames, snapshot_docs_frame
from orchestration.clients.snapshot_files import SnapshotFileError, fail_at_first_bad_line, gunzipped, json_lines
from orchestration.settings import Framework
from orchestration.tables import RAW_FRAMEWORK_DOCS, RAW_GIT_COMMITS, RAW_GIT_COMMIT_FILES

_log = logging.getLogger(__name__)

Logger = logging.Logger | logging.LoggerAdapter  # Dagster's context.log quacks alike

DEFAULT_REMOTE_URL_TEMPLATE = "https://github.com/{repo}.git"
#: Contribution documents looked for in every framework, besides its configured ones.
STANDARD_CONTRIBUTION_DOCS = ("CONTRIBUTING.md", "CONTRIBUTING.rst", "CONTRIBUTING", ".github/CONTRIBUTING.md")
#: A progress line every this many parsed commits.
PROGRESS_EVERY = 500

_SNAPSHOT_HINT = "or read recorded histories with TRACKER_SNAPSHOT_DIR / --snapshot"

#: One commit header of the log stream: a record separator, then NUL-terminated fields.
_HEADER_FIELDS = ("%H", "%P", "%an", "%aI", "%cI", "%B")
_LOG_FORMAT = "%x1e" + "".join(f"{placeholder}%x00" for placeholder in _HEADER_FIELDS)
_RECORD_START = b"\x1e"
#: Added lines handed to AddedLines at once (one tokenizer pass per block).
_FEED_LINES = 4096
#: What `git log` prints for each commit given on stdin, in that order: the header,
#: then (`-z --numstat`) NUL-terminated line counts with verbatim paths, then the patch
#: with no context lines, merges against their first parent, renames detected. The
#: `--no-*` options and `--submodule=short` keep user configuration (signatures,
#: mailmap, external diff drivers, submodule logs) from changing what is printed.
_LOG_ARGS = (
    "log",
    "--no-walk=unsorted",
    "--stdin",
    f"--format={_LOG_FORMAT}",
    "-z",
    "--numstat",
    "--patch",
    "--unified=0",
    "--find-renames",
    "--diff-merges=first-parent",
    "--root",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--no-mailmap",
    "--no-show-signature",
    "--submodule=short",
    "--encoding=UTF-8",
)
#: A stalled transfer (under 1 KB/s for a minute) fails instead of hanging the run.
_TRANSFER_CONFIG = ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60")
#: Longest any one git command may take (a clone or a full `git log` of a framework is
#: far shorter); a stalled remote, ssh prompt or lock then fails the refresh.
DEFAULT_GIT_TIMEOUT_S = 600.0
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")


class GitError(RuntimeError):
    """A git command failed; the message names the command or mirror and git's own error."""


class GitUnavailableError(GitError):
    """git, the remote or the recorded history cannot be reached. The message says which,
    and how to read recorded histories instead."""


@dataclass
class CommitBatch:
    """What one refresh of one framework's commits returned."""

    commits: pl.DataFrame  # RAW_GIT_COMMITS.schema
    files: pl.DataFrame  # RAW_GIT_COMMIT_FILES.schema
    #: The default branch's head after the refresh: the next refresh's watermark.
    head: str | None
    #: True when the frames are the framework's whole history (replace its rows), False
    #: for the commits since the watermark (upsert by sha).
    full_rescan: bool
    commits_scanned: int
    #: What the next refresh is to be given: the head, or for a snapshot the head and the
    #: digest of the file read (default: the head).
    watermark: str | None = None

    def __post_init__(self) -> None:
        if self.watermark is None:
            self.watermark = self.head


class CommitSource(abc.ABC):
    @abc.abstractmethod
    def refresh(self, framework: Framework, watermark: str | None, log: Logger | None = None) -> CommitBatch:
        """Commits of the default branch not reachable from `watermark` (the previous
        head), or all of them where it is None or no longer in the history."""

    @abc.abstractmethod
    def contribution_docs(self, framework: Framework) -> pl.DataFrame:
        """Rows of RAW_FRAMEWORK_DOCS.schema: the framework's contribution documents at the head."""


def _empty_batch(head: str | None, watermark: str | None = None) -> CommitBatch:
    return CommitBatch(empty_commits(), empty_commit_files(), head, full_rescan=False, commits_scanned=0, watermark=watermark)


def _redact(text: str) -> str:
    """`text` without the credentials of any URL in it (`https://user:token@host`)."""
    return _URL_CREDENTIALS.sub("***@", text)


def _last_error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return _redact((fatal or lines or ["no detail"])[-1])


def contribution_doc_entries(framework: Framework) -> list[str]:
    """The contribution documents looked for: the standard ones and the configured ones.
    An entry that ends in "/" is a folder: every file under it is a document."""
    return list(dict.fromkeys([*STANDARD_CONTRIBUTION_DOCS, *framework.contribution_docs]))


def is_contribution_doc(entries: Sequence[str]) -> pl.Expr:
    """Whether `path` is one of the entries, or under one that is a folder."""
    listed = pl.col("path").is_in([entry for entry in entries if not entry.endswith("/")])
    for folder in (entry for entry in entries if entry.endswith("/")):
        listed = listed | pl.col("path").str.starts_with(folder)
    return listed


# -- the log stream ---------------------------------------------------------------------


@dataclass
class _ChangedFile:
    """A files row of one commit, before the frame."""

    path: str
    additions: int | None
    deletions: int | None
    added_text: str = ""
    added_text_truncated: bool = False
    added_tokens: list[str] = field(default_factory=list)


@dataclass
class _ParsedCommit:
    """A commits row (times still ISO-8601 text) and its files rows, before the frames."""

    sha: str
    parents: list[str]
    author: str
    authored_at: str
    committed_at: str
    message: str
    diff_incomplete: bool = False
    files: list[_ChangedFile] = field(default_factory=list)


class _ByteStream:
    """A binary pipe read in chunks and split on any delimiter: `git log -z` mixes
    NUL-terminated fields with newline-terminated patch lines."""

    def __init__(self, raw: IO[bytes], chunk_size: int = 1 << 16) -> None:
        self._raw = raw
        self._chunk_size = chunk_size
        self._buffer = bytearray()
        self._position = 0
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._raw.read1(self._chunk_size)
        if not chunk:
            self._eof = True
            return False
        if self._position > len(self._buffer) // 2:
            del self._buffer[: self._position]
            self._position = 0
        self._buffer += chunk
        return True

    def line_blocks(self) -> Iterator[list[bytes]]:
        """The newline-terminated lines up to the next commit record (a line that starts
        with the record separator) or the end, a buffered block of lines at a time."""
        while True:
            if self._position >= len(self._buffer) and not self._fill():
                return
            if self._buffer[self._position] == _RECORD_START[0]:
                return
            record = self._buffer.find(b"\n" + _RECORD_START, self._position)
            if record >= 0:
                block, self._position = bytes(self._buffer[self._position : record]), record + 1
                yield block.split(b"\n")
                return
            last_newline = self._buffer.rfind(b"\n", self._position)
            if last_newline >= 0:
                block, self._position = bytes(self._buffer[self._position : last_newline]), last_newline + 1
                yield block.split(b"\n")
            if not self._fill():
                if self._position < len(self._buffer):  # a last line without its newline
                    block, self._position = bytes(self._buffer[self._position :]), len(self._buffer)
                    yield [block]
                return

    def peek(self) -> bytes:
        """The next byte, without consuming it; b"" at the end."""
        while self._position >= len(self._buffer):
            if not self._fill():
                return b""
        return bytes(self._buffer[self._position : self._position + 1])

    def skip(self) -> None:
        self._position += 1

    def read_until(self, delimiter: bytes) -> bytes | None:
        """The bytes up to `delimiter` (consumed, not returned); the rest at the end of the
        stream; None when nothing is left."""
        searched = 0  # bytes after the position known not to start the delimiter
        while True:
            found = self._buffer.find(delimiter, self._position + searched)
            if found >= 0:
                piece = bytes(self._buffer[self._position : found])
                self._position = found + len(delimiter)
                return piece
            # _fill may move the unread bytes to the front: keep the offset relative.
            searched = max(0, len(self._buffer) - self._position - len(delimiter) + 1)
            if not self._fill():
                if self._position >= len(self._buffer):
                    return None
                piece = bytes(self._buffer[self._position :])
                self._position = len(self._buffer)
                return piece


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _count(value: str) -> int | None:
    return None if value == "-" else int(value)  # "-": a binary file


def _read_numstat(stream: _ByteStream) -> list[tuple[str, int | None, int | None]]:
    """(path, additions, deletions) of each changed file: `-z --numstat` records, which end
    with an empty one. A rename is `adds\\tdels\\t` then the old and the new path."""
    changes = []
    while (record := stream.read_until(b"\0")) is not None and record:
        additions, deletions, path = _text(record).split("\t", 2)
        if not path:
            stream.read_until(b"\0")  # the old path
            path = _text(stream.read_until(b"\0") or b"")
        changes.append((path, _count(additions), _count(deletions)))
    return changes


def _read_patch(stream: _ByteStream, files: list[AddedLines]) -> None:
    """Feeds the added lines of each file's patch (the n-th `diff --git` section is the
    n-th numstat record) to its AddedLines, up to the next commit or the end.

    With `--unified=0` a hunk holds only `-` and `+` lines (and `\\ No newline`); the
    `+++ b/path` header comes before a section's first `@@`, so it is never taken for
    an added line.
    """
    added: list[bytes] = []  # added lines of the current file not yet fed
    current: AddedLines | None = None
    in_hunk = False
    section = -1

    def feed() -> None:
        if current is not None and added:
            current.add_block(_text(b"\n".join(added)))
        added.clear()

    for lines in stream.line_blocks():
        for line in lines:
            if in_hunk and line[:1] == b"+":
                added.append(line[1:].removesuffix(b"\r"))
            elif line.startswith(b"diff --git "):
                feed()
                section += 1
                current = files[section] if section < len(files) else None
                in_hunk = False
            elif line[:2] == b"@@":
                in_hunk = True
        if len(added) >= _FEED_LINES:
            feed()
    feed()


def _read_header(stream: _ByteStream) -> _ParsedCommit | None:
    if stream.peek() != _RECORD_START:
        return None
    stream.skip()
    fields = [stream.read_until(b"\0") for _ in _HEADER_FIELDS]
    if any(value is None for value in fields):
        return None  # cut off: the process died while printing it
    sha, parents, author, authored_at, committed_at, message = (_text(value) for value in fields)
    return _ParsedCommit(sha, parents.split(), author, authored_at, committed_at, message.rstrip("\n"))


def read_log_stream(raw: IO[bytes]) -> Iterator[_ParsedCommit]:
    """The commits of a `git log` stream printed with _LOG_ARGS, each once its diff has
    been read whole (the last one at the end of the stream, possibly cut off)."""
    stream = _ByteStream(raw)
    while (commit := _read_header(stream)) is not None:
        while stream.peek() in (b"\0", b"\n"):  # -z record terminator, header/diff separator
            stream.skip()
        if stream.peek() not in (_RECORD_START, b""):
            changes = _read_numstat(stream)
            added = [AddedLines(path) for path, _, _ in changes]
            _read_patch(stream, added)
            # Reduced now, so that a long history keeps no token sets of finished files.
            commit.files = [
                _ChangedFile(path, additions, deletions, lines.text, lines.truncated, lines.tokens)
                for (path, additions, deletions), lines in zip(changes, added, strict=True)
            ]
        yield commit


# -- the mirror source ------------------------------------------------------------------


class GitMirrorCommits(CommitSource):
    """Commits from a bare mirror of each framework's repository, refreshed incrementally.

    The first refresh clones `<mirror_dir>/<owner>__<name>.git`; later ones fetch the
    default branch (force-updated, pruned) and parse `watermark..head` only. A watermark
    that is no longer an ancestor of the head (a force-push) rescans the whole branch.
    Blobs missing from the mirror mark their commits `diff_incomplete` instead of
    failing the refresh. Every git command is killed after `timeout_s` and fails the
    refresh with a GitUnavailableError naming it.
    """

    def __init__(
        self,
        mirror_dir: str | os.PathLike[str],
        remote_url_template: str = DEFAULT_REMOTE_URL_TEMPLATE,
        timeout_s: float = DEFAULT_GIT_TIMEOUT_S,
    ) -> None:
        self.mirror_dir = Path(mirror_dir)
        self.remote_url_template = remote_url_template
        self.timeout_s = timeout_s

    def mirror_path(self, framework: Framework) -> Path:
        return self.mirror_dir / f"{framework.snapshot_stem}.git"

    def remote_url(self, framework: Framework) -> str:
        return self.remote_url_template.format(repo=framework.repo, owner=framework.owner, name=framework.name)

    # -- running git -------------------------------------------------------------------

    @staticmethod
    def _git_binary() -> str:
        git = shutil.which("git")
        if git is None:
            raise GitUnavailableError("git not found on PATH; install git or set TRACKER_SNAPSHOT_DIR to read recorded histories")
        return git

    @staticmethod
    def _environment() -> dict[str, str]:
        # A remote that wants credentials fails at once instead of waiting for a prompt.
        return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never", "LC_ALL": "C"}

    def _run(
        self, args: Sequence[str], *, mirror: Path | None = None, check: bool = True, stdin: IO[bytes] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        command = [self._git_binary(), *(["--git-dir", str(mirror)] if mirror else []), *args]
        try:
            result = subprocess.run(command, stdin=stdin, capture_output=True, env=self._environment(), timeout=self.timeout_s)
        except FileNotFoundError:
            raise GitUnavailableError("git not found on PATH; install git or set TRACKER_SNAPSHOT_DIR to read recorded histories") from None
        except subprocess.TimeoutExpired:
            raise self._timed_out(args, mirror) from None
        if check and result.returncode != 0:
            where = f" in {mirror}" if mirror else ""
            raise GitError(f"git {' '.join(args[:2])} failed{where}: {_last_error_line(_text(result.stderr))}")
        return result

    def _timed_out(self, args: Sequence[str], mirror: Path | None) -> GitUnavailableError:
        subcommand = next((arg for before, arg in zip(["", *args], args) if before != "-c" and arg != "-c"), "")
        where = f" in {mirror}" if mirror else ""
        return GitUnavailableError(
            f"git {subcommand} did not finish within {self.timeout_s:g} s{where} and was stopped; "
            f"check the network and the remote, or raise git_timeout_s of the framework_sources resource, {_SNAPSHOT_HINT}"
        )

    # -- the mirror --------------------------------------------------------------------

    def _sync_mirror(self, framework: Framework, log: Logger) -> Path:
        """Clones the mirror the first time, else fetches the default branch into it."""
        mirror, url = self.mirror_path(framework), self.remote_url(framework)
        branch = framework.default_branch
        if (mirror / "HEAD").is_file():
            log.info(f"git {framework.repo}: fetching {branch} from {_redact(url)}")
            result = self._run(
                [*_TRANSFER_CONFIG, "fetch", "--prune", "--no-tags", "--quiet", url, f"+refs/heads/{branch}:refs/heads/{branch}"],
                mirror=mirror,
                check=False,
            )
            if result.returncode != 0:
                raise GitUnavailableError(
                    f"cannot fetch {_redact(url)} into {mirror}: {_last_error_line(_text(result.stderr))}; "
                    f"check the network and the repository in orchestration/config/frameworks.toml, {_SNAPSHOT_HINT}"
                )
            return mirror
        # Clone beside the mirror and move it in place: a killed clone leaves no half mirror.
        self.mirror_dir.mkdir(parents=True, exist_ok=True)
        partial = mirror.with_name(mirror.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        log.info(f"git {framework.repo}: cloning {_redact(url)} into {mirror}")
        result = self._run(
            [*_TRANSFER_CONFIG, "clone", "--bare", "--quiet", "--no-tags", "--single-branch", "--branch", branch, "--", url, str(partial)],
            check=False,
        )
        if result.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            raise GitUnavailableError(
                f"cannot clone {_redact(url)} into {mirror}: {_last_error_line(_text(result.stderr))}; "
                f"check the network and the repository in orchestration/config/frameworks.toml, {_SNAPSHOT_HINT}"
            )
        shutil.rmtree(mirror, ignore_errors=True)  # a directory without HEAD is no mirror
        partial.rename(mirror)
        return mirror

    def _head(self, mirror: Path, framework: Framework) -> str:
        ref = f"refs/heads/{framework.default_branch}"
        result = self._run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], mirror=mirror, check=False)
        if result.returncode != 0:
            raise GitError(
                f"{mirror} has no branch {framework.default_branch!r}; check default_branch of {framework.slug} "
                "in orchestration/config/frameworks.toml"
            )
        return _text(result.stdout).strip()

    def _is_ancestor(self, mirror: Path, watermark: str, head: str) -> bool:
        # 0: an ancestor; 1: not one (history rewritten); 128: unknown object (gone).
        return self._run(["merge-base", "--is-ancestor", watermark, head], mirror=mirror, check=False).returncode == 0

    # -- parsing -----------------------------------------------------------------------

    def _log(
        self, mirror: Path, shas: Sequence[str], progress: Callable[[], None] = lambda: None
    ) -> tuple[list[_ParsedCommit], str | None]:
        """The commits `shas`, in order, from one streamed `git log` (`progress` is called
        after each), and git's error where it failed: then the last commit may be cut off
        and the later ones are missing."""
        commits = []
        with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
            stdin.write("".join(f"{sha}\n" for sha in shas).encode("ascii"))
            stdin.seek(0)
            command = [self._git_binary(), "--git-dir", str(mirror), *_LOG_ARGS]
            with subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, env=self._environment()) as process:
                # The stream is read as it comes, so the time limit is a timer that kills git.
                timed_out = threading.Event()
                watchdog = threading.Timer(self.timeout_s, lambda: (timed_out.set(), process.kill()))
                watchdog.start()
                try:
                    assert process.stdout is not None
                    for commit in read_log_stream(process.stdout):
                        commits.append(commit)
                        progress()
                    process.wait()
                except Exception:
                    if not timed_out.is_set():  # else a stream cut by the kill: reported below
                        raise
                finally:
                    watchdog.cancel()
                if timed_out.is_set():
                    raise self._timed_out(_LOG_ARGS, mirror)
                returncode = process.returncode
            stderr.seek(0)
            error = _last_error_line(_text(stderr.read())) if returncode != 0 else None
        if [commit.sha for commit in commits] != list(shas[: len(commits)]):
            raise GitError(f"git log in {mirror} printed other commits than the ones asked for")
        return commits, error

    def _without_diff(self, mirror: Path, sha: str) -> _ParsedCommit:
        """A commit whose diff cannot be read (missing blobs): its header, and the paths it
        changed where its trees can still be compared, without counts or text."""
        result = self._run(
            ["log", "--no-walk", f"--format={_LOG_FORMAT}", "-z", "--no-mailmap", "--encoding=UTF-8", sha], mirror=mirror
        )
        commit = _read_header(_ByteStream(io.BytesIO(result.stdout)))
        if commit is None:
            raise GitError(f"cannot read commit {sha} in {mirror}")
        commit.diff_incomplete = True
        base = commit.parents[:1] or ["--root"]
        names = self._run(["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--name-only", *base, sha], mirror=mirror, check=False)
        if names.returncode == 0:
            paths = [_text(path) for path in names.stdout.split(b"\0") if path]
            commit.files = [_ChangedFile(path, None, None) for path in paths]
        return commit

    def _parse(self, mirror: Path, shas: list[str], repo: str, log: Logger) -> list[_ParsedCommit]:
        """Every commit of `shas`: streamed, and commit by commit only around a failure."""
        parsed: list[_ParsedCommit] = []
        streamed = 0

        def progress() -> None:
            nonlocal streamed
            streamed += 1
            if streamed % PROGRESS_EVERY == 0:
                log.info(f"git {repo}: {streamed}/{len(shas)} commit(s) read")

        pending = shas
        while pending:
            commits, error = self._log(mirror, pending, progress)
            if error is None:
                parsed += commits
                break
            # The failing commit is the last one printed, or the one after it.
            complete = commits[:-1]
            parsed += complete
            suspect = pending[len(complete)]
            single, single_error = self._log(mirror, [suspect])
            if single_error is None and single:
                parsed += single
            else:
                log.warning(f"git {repo}: diff of {suspect} unreadable ({single_error or error}); recorded as diff_incomplete")
                parsed.append(self._without_diff(mirror, suspect))
            pending = pending[len(complete) + 1 :]
        log.info(f"git {repo}: {len(parsed)} commit(s) parsed")
        return parsed

    # -- CommitSource ------------------------------------------------------------------

    def refresh(self, framework: Framework, watermark: str | None, log: Logger | None = None) -> CommitBatch:
        log = log or _log
        self._git_binary()
        mirror = self._sync_mirror(framework, log)
        head = self._head(mirror, framework)
        if watermark == head:
            log.info(f"git {framework.repo}: {framework.default_branch} still at {head[:12]}; no new commits")
            return _empty_batch(head)
        incremental = watermark is not None and self._is_ancestor(mirror, watermark, head)
        if watermark is not None and not incremental:
            log.warning(
                f"git {framework.repo}: the previous head {watermark[:12]} is no longer in the history of "
                f"{framework.default_branch} (force-push?); rescanning the whole branch"
            )
        revisions = [head, f"^{watermark}"] if incremental else [head]
        shas = _text(self._run(["rev-list", *revisions], mirror=mirror).stdout).split()
        log.info(f"git {framework.repo}: parsing {len(shas)} commit(s) {'since ' + watermark[:12] if incremental else 'in all'}")
        commits = self._parse(mirror, shas, framework.repo, log)
        return CommitBatch(
            *_frames(commits, framework), head=head, full_rescan=not incremental, commits_scanned=len(commits)
        )

    def contribution_docs(self, framework: Framework) -> pl.DataFrame:
        """The documents of contribution_doc_entries that exist at the mirror's head
        (cloned first if there is no mirror yet), in path order."""
        mirror = self.mirror_path(framework)
        if not (mirror / "HEAD").is_file():
            mirror = self._sync_mirror(framework, _log)
        head = self._head(mirror, framework)
        entries = contribution_doc_entries(framework)
        listing = self._run(["ls-tree", "-r", "-z", "--full-tree", head, "--", *entries], mirror=mirror).stdout
        blobs = {}  # path -> blob sha, of the files at the head that are (or are under) an entry
        for entry in listing.split(b"\0"):
            if entry:
                meta, path = _text(entry).split("\t", 1)
                _mode, kind, sha = meta.split()
                if kind == "blob":
                    blobs[path] = sha
        found = sorted(blobs)
        if not found:
            return empty_docs()
        batch = "".join(f"{blobs[path]}\n" for path in found).encode("ascii")
        with tempfile.TemporaryFile() as stdin:
            stdin.write(batch)
            stdin.seek(0)
            output = self._run(["cat-file", "--batch"], mirror=mirror, stdin=stdin).stdout
        texts = {}  # path -> text; a blob missing from the mirror is skipped
        offset = 0
        for path in found:  # "<sha> blob <size>\n<content>\n", or "<sha> missing\n"
            header_end = output.index(b"\n", offset)
            header = output[offset:header_end].split()
            offset = header_end + 1
            if len(header) == 3:
                size = int(header[2])
                texts[path] = _text(output[offset : offset + size])
                offset += size + 1
        found = [path for path in found if path in texts]
        fetched_at = datetime.now(UTC)
        return pl.DataFrame(
            {
                "framework": [framework.slug] * len(found),
                "path": found,
                "blob_sha": [blobs[path] for path in found],
                "fetched_at": [fetched_at] * len(found),
                "text": [texts[path] for path in found],
            },
            schema=RAW_FRAMEWORK_DOCS.schema,
        )


def _frames(commits: list[_ParsedCommit], framework: Framework) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(commits, files) frames of parsed commits."""
    slug, repo = framework.slug, framework.repo
    commit_rows = commits_frame(
        {
            "framework": [slug] * len(commits),
            "sha": [c.sha for c in commits],
            "parents": [c.parents for c in commits],
            "author": [c.author for c in commits],
            "authored_at": [c.authored_at for c in commits],
            "committed_at": [c.committed_at for c in commits],
            "message": [c.message for c in commits],
            "html_url": [commit_html_url(repo, c.sha) for c in commits],
            "diff_incomplete": [c.diff_incomplete for c in commits],
        }
    )
    changed = [(c.sha, f) for c in commits for f in c.files]
    file_rows = commit_files_frame(
        {
            "framework": [slug] * len(changed),
            "sha": [sha for sha, _ in changed],
            "path": [f.path for _, f in changed],
            "additions": [f.additions for _, f in changed],
            "deletions": [f.deletions for _, f in changed],
            "added_text": [f.added_text for _, f in changed],
            "added_text_truncated": [f.added_text_truncated for _, f in changed],
            "added_tokens": [f.added_tokens for _, f in changed],
        }
    )
    return commit_rows, file_rows


# -- the snapshot source ----------------------------------------------------------------


class SnapshotCommits(CommitSource):
    """Commits recorded in `<snapshot_dir>/github/<owner>__<name>.jsonl.gz` (newest first),
    and the contribution documents recorded at their head in `<snapshot_dir>/docs/`.

    A snapshot is a fixed history. Its watermark is the recorded head and the SHA-256 of
    the file it was read from: given that watermark, a file with the same digest returns
    nothing (hashing costs about 1% of a load). Any other file is read whole (the gzip
    stream through its CRC, every line) and returned as a full rescan, so a truncated or
    corrupt file fails, naming it, whether or not the warehouse already holds commits.
    """

    def __init__(self, snapshot_dir: str | os.PathLike[str]) -> None:
        self.snapshot_dir = Path(snapshot_dir)

    def path(self, framework: Framework) -> Path:
        return self.snapshot_dir / "github" / f"{framework.snapshot_stem}.jsonl.gz"

    def _existing_path(self, framework: Framework) -> Path:
        path = self.path(framework)
        if not path.is_file():
            raise GitUnavailableError(
                f"snapshot {path} not found: no recorded history of {framework.repo} "
                "(check TRACKER_SNAPSHOT_DIR / --snapshot)"
            )
        return path

    def refresh(self, framework: Framework, watermark: str | None, log: Logger | None = None) -> CommitBatch:
        log = log or _log
        path = self._existing_path(framework)
        content = path.read_bytes()
        digest = f"sha256:{hashlib.sha256(content).hexdigest()}"
        loaded_head, _, loaded_digest = (watermark or "").partition(" ")
        if loaded_digest == digest:
            # The very bytes that were read whole and loaded before: nothing to check again.
            log.info(f"snapshot {path.name}: unchanged since it was loaded (head {loaded_head[:12]}); no new commits")
            return _empty_batch(loaded_head or None, watermark)
        commits, files = _recorded_commits(path, content, framework.slug)
        head = commits["sha"][0] if commits.height else None
        log.info(f"snapshot {path.name}: {commits.height} commit(s), {files.height} file row(s)")
        return CommitBatch(
            commits, files, head, full_rescan=True, commits_scanned=commits.height, watermark=f"{head or ''} {digest}"
        )

    def docs_path(self, framework: Framework) -> Path:
        return self.snapshot_dir / "docs" / f"{framework.snapshot_stem}.docs.jsonl"

    def contribution_docs(self, framework: Framework) -> pl.DataFrame:
        """The documents of contribution_doc_entries recorded at the head of the history
        (`<snapshot_dir>/docs/<owner>__<name>.docs.jsonl`), as the mirror would give them.
        Each text must hash to its recorded blob sha, so a cut or edited one fails."""
        path = self.docs_path(framework)
        if not path.is_file():
            _log.info(f"snapshot {path} not found: no contribution documents recorded for {framework.repo}")
            return empty_docs()
        records = json_lines(path, path.read_bytes(), required=("path", "blob_sha", "text", "head_committed_at"))
        for record in records:
            if _blob_sha(record["text"]) != record["blob_sha"]:
                raise SnapshotFileError(
                    f"{path}: the text of {record['path']} does not hash to its blob_sha {str(record['blob_sha'])[:12]} "
                    "(cut or edited); restore it from the recorded snapshot"
                )
        recorded = snapshot_docs_frame(records, framework.slug)
        listed = recorded.filter(is_contribution_doc(contribution_doc_entries(framework)))
        if listed.height < recorded.height:
            unlisted = sorted(set(recorded["path"]) - set(listed["path"]))
            _log.info(
                f"snapshot {path.name}: {', '.join(unlisted)} not in contribution_docs of {framework.slug} "
                "(orchestration/config/frameworks.toml); left out"
            )
        return listed


def _blob_sha(text: str) -> str:
    """git's object id of a file with this text (UTF-8)."""
    content = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _recorded_commits(path: Path, content: bytes, slug: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(commits, files) of a recorded history file's `content`, read whole; a truncated or
    corrupt file fails with its path (and the first bad line)."""
    data = gunzipped(path, content)
    try:
        commits, files = snapshot_commit_frames(data, slug)
    except pl.exceptions.PolarsError as error:
        problem = str(error).strip().splitlines()[0]
        fail_at_first_bad_line(path, data, f"not commit lines of the snapshot format ({problem})", ("sha",))
    if commits["sha"].has_nulls():
        fail_at_first_bad_line(path, data, "a commit without a sha", ("sha",))
    return commits, files
