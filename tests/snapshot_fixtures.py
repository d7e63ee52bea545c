"""Small invented snapshot folders in the recorded format (../shared/snapshots/*/README.md):
commit histories, thread samples, contribution documents and affiliations."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

from orchestration.settings import Framework


def write_gzip_lines(path: Path, lines: list[dict | str]) -> Path:
    """`lines` (records, or raw text for broken lines) as a gzipped JSON-lines file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(f"{line if isinstance(line, str) else json.dumps(line)}\n" for line in lines)
    return path


def commit_record(framework: Framework, number: int) -> dict:
    """Commit `number` (1 is the root) of an invented history, changing one code file."""
    sha = f"{number:x}" * 40
    return {
        "repo": framework.repo, "sha": sha[:40], "parents": [(f"{number - 1:x}" * 40)[:40]] if number > 1 else [],
        "authored_at": f"2025-04-{number:02d}T10:00:00+08:00", "committed_at": f"2025-04-{number:02d}T10:00:00+08:00",
        "author": "Ada", "message": f"Commit {number}", "html_url": f"https://github.com/{framework.repo}/commit/{sha[:40]}",
        "diff_incomplete": False,
        "files": [{"path": "src/loss.py", "additions": 1, "deletions": 0, "added_text": "", "added_tokens": ["dapo"]}],
    }  # fmt: skip


def thread_record(framework: Framework, number: int) -> dict:
    return {
        "repo": framework.repo, "number": number, "kind": "issue", "state": "open", "labels": [],
        "title": f"Support method {number}", "author": "a", "created_at": "2025-04-01",
        "html_url": f"https://github.com/{framework.repo}/issues/{number}", "body_tokens": ["DAPO"],
        "body_complete": True, "comments": [],
    }  # fmt: skip


def write_history(folder: Path, framework: Framework, commits: int = 3, threads: int = 3) -> tuple[Path, Path]:
    """github/<stem>.jsonl.gz (newest first) and github/<stem>.threads.jsonl.gz."""
    github = folder / "github"
    history = write_gzip_lines(
        github / f"{framework.snapshot_stem}.jsonl.gz",
        [commit_record(framework, number) for number in range(commits, 0, -1)],
    )
    sample = write_gzip_lines(
        github / f"{framework.snapshot_stem}.threads.jsonl.gz",
        [thread_record(framework, number) for number in range(1, threads + 1)],
    )
    return history, sample


def blob_sha(text: str) -> str:
    """git's object id of a file with this text."""
    content = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def doc_record(framework: Framework, path: str, text: str) -> dict:
    return {
        "repo": framework.repo, "head_sha": "b" * 40, "head_committed_at": "2025-04-01T20:30:00+08:00",
        "path": path, "blob_sha": blob_sha(text), "text": text,
    }  # fmt: skip


def write_docs(folder: Path, framework: Framework, lines: list[dict | str]) -> Path:
    """docs/<stem>.docs.jsonl (not gzipped, as recorded)."""
    path = folder / "docs" / f"{framework.snapshot_stem}.docs.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line if isinstance(line, str) else json.dumps(line)}\n" for line in lines))
    return path


def affiliation_record(
    arxiv_id: str, institutions: list[str], authors: dict[str, list[str]] | None = None, email_domains: list[str] = ()
) -> dict:
    return {
        "arxiv_id": arxiv_id,
        "source_url": f"https://arxiv.org/html/{arxiv_id}v1",
        "authors": [{"name": name, "affiliations": names} for name, names in (authors or {}).items()],
        "institutions": institutions,
        "email_domains": list(email_domains),
    }


def write_affiliations(folder: Path, lines: list[dict | str]) -> Path:
    """affiliations/affiliations.jsonl."""
    path = folder / "affiliations" / "affiliations.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line if isinstance(line, str) else json.dumps(line)}\n" for line in lines))
    return path
