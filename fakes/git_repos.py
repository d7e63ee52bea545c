"""Local git repositories for tests: a bare "remote" per repository, served to
GitMirrorCommits as `file://<root>/<owner>/<name>.git`, and a working clone to commit to.

    remote = GitRemote(tmp_path / "remotes", "acme/rl")
    first = remote.commit("Add loss", {"loss.py": "def grpo_loss(): ...\\n"}, at="2025-03-01T10:00:00+08:00")
    remote.push()
    GitMirrorCommits(tmp_path / "mirrors", remote.url_template).refresh(framework, None)

Every git command runs with a fixed identity, fixed dates (given per commit) and no
global or system configuration, so that commit ids are the same on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

DEFAULT_AT = "2025-03-01T10:00:00+08:00"
AUTHOR = "Ada Lovelace"

#: Environment of every git command here: no user configuration, no prompts.
ISOLATED_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


def git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: bytes | None = None) -> str:
    """Runs git; its stdout (stripped). A failure raises with git's stderr."""
    result = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **ISOLATED_GIT_ENV, **(env or {})}, input=input, capture_output=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8", errors="replace").strip()


class GitRemote:
    """A bare repository at `<root>/<repo>.git` and a working clone of it at
    `<root>/work/<repo>` on `branch`."""

    def __init__(self, root: Path, repo: str = "acme/rl", branch: str = "main") -> None:
        self.root = Path(root)
        self.repo = repo
        self.branch = branch
        self.bare = self.root / f"{repo}.git"
        self.work = self.root / "work" / repo
        self.bare.parent.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        git("init", "--quiet", "--bare", "--initial-branch", branch, str(self.bare))
        git("init", "--quiet", "--initial-branch", branch, cwd=self.work)
        git("remote", "add", "origin", str(self.bare), cwd=self.work)

    @property
    def url_template(self) -> str:
        """The `remote_url_template` of GitMirrorCommits that finds this remote."""
        return f"file://{self.root}/{{repo}}.git"

    def git(self, *args: str, at: str = DEFAULT_AT, committed_at: str | None = None, author: str = AUTHOR) -> str:
        """git in the working clone, as `author`, dated `at` (committed `committed_at`, else `at`)."""
        identity = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": "author@example.org",
            "GIT_COMMITTER_NAME": "Committer",
            "GIT_COMMITTER_EMAIL": "committer@example.org",
            "GIT_AUTHOR_DATE": at,
            "GIT_COMMITTER_DATE": committed_at or at,
        }
        return git(*args, cwd=self.work, env=identity)

    def write(self, files: dict[str, str | bytes | None]) -> None:
        """Writes (text or bytes) or, for None, deletes files of the working tree."""
        for path, content in files.items():
            target = self.work / path
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")

    def commit(
        self,
        message: str,
        files: dict[str, str | bytes | None] | None = None,
        *,
        at: str = DEFAULT_AT,
        committed_at: str | None = None,
        author: str = AUTHOR,
    ) -> str:
        """Commits `files` (all changes of the working tree); the new commit's sha."""
        self.write(files or {})
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "--no-verify", "-m", message, at=at, committed_at=committed_at, author=author)
        return self.head()

    def commit_raw(self, message: str, files: dict[str, str | bytes | None] | None = None, *, committer_date: str) -> str:
        """Commits `files` with a hand-written committer date (`<epoch> <+hhmm>`), which
        `git commit` would refuse: what a hostile or broken tool can push (git accepts a
        time zone such as +9999 that no calendar has). The new commit's sha."""
        self.write(files or {})
        self.git("add", "--all")
        tree = self.git("write-tree")
        header = f"tree {tree}\nparent {self.head()}\n" if self.history_exists() else f"tree {tree}\n"
        content = (
            f"{header}author {AUTHOR} <author@example.org> 1740794400 +0000\n"
            f"committer Committer <committer@example.org> {committer_date}\n\n{message}\n"
        )
        sha = git("hash-object", "-t", "commit", "-w", "--literally", "--stdin", cwd=self.work, input=content.encode())
        self.git("update-ref", f"refs/heads/{self.branch}", sha)
        return sha

    def history_exists(self) -> bool:
        return subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=self.work, env={**os.environ, **ISOLATED_GIT_ENV}, capture_output=True
        ).returncode == 0

    def commit_gitlink(self, path: str, commit_sha: str, message: str, *, at: str = DEFAULT_AT) -> str:
        """Commits a submodule entry at `path` pointing at `commit_sha` (no .gitmodules, no
        checkout: a later `commit` of the working tree would delete it again)."""
        self.git("update-index", "--add", "--cacheinfo", f"160000,{commit_sha},{path}")
        self.git("commit", "--quiet", "--no-verify", "-m", message, at=at)
        return self.head()

    def rename(self, old: str, new: str, message: str, *, append: str = "", at: str = DEFAULT_AT) -> str:
        """Moves `old` to `new`, appending `append` to its text; the new commit's sha."""
        self.git("mv", old, new)
        if append:
            with (self.work / new).open("a", encoding="utf-8") as handle:
                handle.write(append)
        return self.commit(message, at=at)

    def checkout(self, branch: str, *, create: bool = False) -> None:
        self.git("checkout", "--quiet", *(["-b"] if create else []), branch)

    def merge(self, branch: str, message: str, *, at: str = DEFAULT_AT) -> str:
        """A merge commit of `branch` into the current branch (never a fast-forward)."""
        self.git("merge", "--quiet", "--no-ff", "--no-edit", "-m", message, branch, at=at)
        return self.head()

    def reset_hard(self, revision: str) -> None:
        self.git("reset", "--quiet", "--hard", revision)

    def push(self, *, force: bool = False) -> None:
        self.git("push", "--quiet", *(["--force"] if force else []), "origin", f"{self.branch}:{self.branch}")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def blob(self, revision: str, path: str) -> str:
        """The blob id of `path` at `revision`."""
        return self.git("rev-parse", f"{revision}:{path}")

    def history(self) -> list[str]:
        """The shas reachable from the branch head, newest first."""
        return self.git("rev-list", self.branch).split()


def drop_object(git_dir: Path, sha: str) -> None:
    """Removes object `sha` from a repository (unpacking its packs first): a mirror with a
    missing blob, as a damaged disk or an interrupted fetch leaves it."""
    git_dir = Path(git_dir)
    for pack in sorted((git_dir / "objects" / "pack").glob("*.pack")):
        moved = git_dir / pack.name
        shutil.move(pack, moved)
        pack.with_suffix(".idx").unlink()
        for stale in pack.parent.glob(f"{pack.stem}.*"):
            stale.unlink()
        git("--git-dir", str(git_dir), "unpack-objects", "-q", input=moved.read_bytes())
        moved.unlink()
    (git_dir / "objects" / sha[:2] / sha[2:]).unlink()


def import_history(bare: Path, branch: str, commits: Iterable[dict], *, append: bool = False) -> str:
    """A bare repository at `bare` whose `branch` holds `commits` (records of the snapshot
    format, oldest first) as one linear history, written by `git fast-import` in one go:
    each commit sets every file it lists to that file's recorded added text (or its
    identifier tokens), so that the history has the recorded size, messages and dates.
    With `append`, the commits go on top of the branch of an existing `bare` (a day's new
    commits: the new pack holds only their objects, as a push would).
    Returns the head's sha."""
    parent = git("--git-dir", str(bare), "rev-parse", f"refs/heads/{branch}") if append else None
    if parent is None:
        git("init", "--quiet", "--bare", "--initial-branch", branch, str(bare))
    stream = bytearray()

    def data(text: str) -> None:
        encoded = text.encode("utf-8", errors="replace")
        stream.extend(b"data %d\n" % len(encoded) + encoded + b"\n")

    for mark, record in enumerate(commits, start=1):
        stream.extend(f"commit refs/heads/{branch}\nmark :{mark}\n".encode())
        name = " ".join((record["author"] or "").replace("<", "").replace(">", "").split()) or AUTHOR
        for role, at in (("author", record["authored_at"]), ("committer", record["committed_at"])):
            moment = datetime.fromisoformat(at)
            stream.extend(f"{role} {name} <author@example.org> {int(moment.timestamp())} +0000\n".encode())
        data(record["message"] or "(no message)")
        if mark > 1:
            stream.extend(f"from :{mark - 1}\n".encode())
        elif parent:
            stream.extend(f"from {parent}\n".encode())
        for changed in record["files"]:
            path = changed["path"]
            if not path or any(character in path for character in '\t\n"') or path.startswith("/"):
                continue  # a path fast-import would need quoted: a few, not worth the escaping
            stream.extend(f"M 100644 inline {path}\n".encode())
            data(f"# {record['sha']}\n{changed['added_text'] or ' '.join(changed['added_tokens'])}\n")
    git("--git-dir", str(bare), "fast-import", "--quiet", input=bytes(stream))
    return git("--git-dir", str(bare), "rev-parse", f"refs/heads/{branch}")
