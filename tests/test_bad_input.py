"""Bad input, property-based (hypothesis): malformed and hostile arXiv feeds, GitHub JSON,
commit records and curation CSVs go through the parsers without a crash; every record
that cannot be read is quarantined with a reason; received = kept + quarantined.

Example counts come from the hypothesis profile in conftest.py (few, fixed seeds;
TRACKER_FUZZ_EXAMPLES=N for more).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import duckdb
import polars as pl
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from assets.links.inclusions import read_inclusion_overrides
from assets.papers.affiliations import read_affiliation_overrides
from assets.papers.aliases import read_alias_overrides
from assets.papers.screening import read_screening_overrides
from assets.sources.frameworks import quarantine_write
from fakes.arxiv_server import arxiv_entry, atom_feed
from fakes.git_repos import ISOLATED_GIT_ENV, GitRemote
from fakes.github_server import comment_item, issue_item
from orchestration.clients.arxiv_feed import ArxivFeedError, parse_feed
from orchestration.clients.commit_records import COMMITS_SOURCE
from orchestration.clients.git import _LOG_ARGS, GitMirrorCommits, SnapshotCommits, read_log_stream
from orchestration.clients.snapshot_files import SnapshotFileError
from orchestration.clients.thread_records import (
    COMMENTS_SOURCE,
    THREADS_SOURCE,
    comment_records,
    thread_records,
)
from orchestration.curation import OverrideError
from orchestration.settings import Framework
from orchestration.tables import RAW_GIT_COMMITS, RAW_GITHUB_COMMENTS, RAW_GITHUB_THREADS, RAW_QUARANTINE
from orchestration.warehouse import SliceWrite, ensure_schemas, write_slices
from tests.helpers import REPO_ROOT

REPO = "acme/rl"
ACME = Framework("acme", REPO, "main", (), ("CONTRIBUTING.md",))

#: Text an attacker controls: markup, entities, quotes, control and non-BMP characters,
#: lone surrogates (JSON can carry them), very long words.
HOSTILE_WORDS = [
    "<script>alert(1)</script>", "]]>", "&amp;", "&lol9;", "<!DOCTYPE x>", "[x](javascript:alert(1))",
    "![i](http://x/i.png)", "\u202e", "\x00", "\x1b[31m", "\ud800", "😀", "=cmd|'/C calc'!A0", "a" * 300, "",
]  # fmt: skip
hostile_text = st.one_of(st.text(max_size=40), st.sampled_from(HOSTILE_WORDS), st.lists(st.sampled_from(HOSTILE_WORDS), max_size=4).map(" ".join))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | hostile_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC))


def one_line(message: str) -> bool:
    return "\n" not in message.strip() and "\r" not in message.strip()


def memory_warehouse() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect(":memory:")
    ensure_schemas(conn)
    return conn


# -- arXiv Atom feeds ------------------------------------------------------------------


def _xml_safe(text: str) -> str:
    # What an attacker can put into a well-formed feed (XML 1.0 has no NUL or most C0 controls).
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", "", text)


@st.composite
def feed_entries(draw) -> tuple[str, bool]:
    """(entry XML, whether it is readable): a good entry with hostile text, or one with a
    field that cannot be read."""
    number = draw(st.integers(1, 99_999))
    entry = arxiv_entry(
        f"2501.{number:05d}",
        draw(moments),
        version=draw(st.integers(1, 9)),
        title=_xml_safe(draw(hostile_text)).strip() or "A title",
        summary=_xml_safe(draw(hostile_text)),
        authors=tuple(draw(st.lists(hostile_text.map(_xml_safe).filter(str.strip), max_size=3))),
        comment=_xml_safe(draw(hostile_text)) or None,
    )
    damage = draw(st.sampled_from(["none", "none", "id", "bad id", "title", "published", "updated"]))
    junk = escape(_xml_safe(draw(hostile_text)))
    replaced = {"id": "", "bad id": f"http://arxiv.org/abs/x{junk}", "title": " ", "published": f"{junk}x", "updated": f"{junk}x"}
    if damage != "none":
        tag = damage.removeprefix("bad ")
        text = f"<{tag}>{replaced[damage]}</{tag}>" if damage != "id" else ""
        entry = re.sub(rf"<{tag}>[^<]*</{tag}>", lambda _: text, entry)
    return entry, damage == "none"


@given(st.lists(feed_entries(), max_size=6))
def test_every_entry_of_a_hostile_feed_is_stored_or_quarantined_with_a_reason(entries):
    content = atom_feed("cat:cs.LG", [entry for entry, _ in entries], len(entries), 0).encode()
    page = parse_feed(content, "http://fake/api/query?start=0")

    assert page.entry_count == len(entries) == page.entries.height + page.quarantine.height
    assert page.entries.height == sum(readable for _, readable in entries)
    assert page.entries["title"].str.strip_chars().str.len_chars().min() or page.entries.is_empty()
    assert page.entries["published_at"].null_count() == 0
    for row in page.quarantine.iter_rows(named=True):
        assert row["source"] == "arxiv" and row["reason"] and row["source_ref"] == "http://fake/api/query?start=0"
        assert ElementTree.fromstring(row["raw_text"]).tag.endswith("entry")  # the entry as received


def _damaged(cut: int, noise: bytes, at: int) -> bytes:
    """A three-entry feed cut at `cut`, with `noise` inserted at `at`."""
    entries = [arxiv_entry(f"2501.{n:05d}", datetime(2025, 1, 2, tzinfo=UTC)) for n in range(1, 4)]
    content = atom_feed("cat:cs.LG", entries, 3, 0).encode()
    cut = min(cut, len(content))
    return content[: min(at, cut)] + noise + content[min(at, cut) : cut]


@given(st.integers(0, 5000), st.binary(max_size=40), st.integers(0, 5000))
@example(5000, b"A", 30)  # encoding="AUTF-8": an encoding nobody has
@example(5000, b'<!DOCTYPE feed [<!ENTITY a "aaaa">]>', 39)
def test_a_damaged_feed_is_a_page_that_fails_in_one_line_or_a_page_that_adds_up(cut, noise, at):
    damaged = _damaged(cut, noise, at)
    try:
        page = parse_feed(damaged, "http://fake/api/query")
    except ArxivFeedError as error:  # retried, then fails the run naming the request
        assert one_line(str(error)) and str(error).startswith(("http://fake/api/query", "arXiv rejected"))
    else:
        assert page.entry_count == page.entries.height + page.quarantine.height
        assert page.quarantine["reason"].null_count() == 0


# -- GitHub JSON -----------------------------------------------------------------------

THREAD_FIELDS = ["number", "title", "body", "state", "user", "labels", "created_at", "updated_at", "closed_at",
                 "pull_request", "comments", "author_association", "html_url"]  # fmt: skip
COMMENT_FIELDS = ["id", "issue_url", "user", "created_at", "updated_at", "body", "author_association", "html_url"]


def good_issues():
    return st.builds(
        lambda number, updated, title, body, labels, pull, merged: issue_item(
            REPO, number, updated_at=updated, title=title, body=body, labels=labels, pull_request=pull,
            merged_at=updated if pull and merged else None,
        ),
        st.integers(1, 50), moments, hostile_text.filter(lambda t: "\ud800" not in t), st.none() | st.text(max_size=30),
        st.lists(st.text(max_size=8), max_size=3), st.booleans(), st.booleans(),
    )  # fmt: skip


def good_comments():
    return st.builds(
        lambda comment_id, number, updated, body: comment_item(REPO, comment_id, number, updated_at=updated, body=body),
        st.integers(1, 50), st.integers(1, 50), moments, st.none() | st.text(max_size=30),
    )  # fmt: skip


def api_items(good, fields: list[str]):
    """(item, whether it was built readable): a good item, one with a field replaced by any
    JSON value or dropped (readable or not: the parser decides), or any JSON value."""
    changed = st.tuples(good, st.sampled_from(fields), json_values).map(lambda t: ({**t[0], t[1]: t[2]}, False))
    dropped = st.tuples(good, st.sampled_from(fields)).map(lambda t: ({k: v for k, v in t[0].items() if k != t[1]}, False))
    return st.one_of(good.map(lambda item: (item, True)), changed, dropped, json_values.map(lambda v: (v, False)))


def _check_api_records(records, labelled, key: str, source: str, schema, table: str) -> None:
    assert records.rows.height + records.superseded + records.quarantine.height == records.received == len(labelled)
    assert records.rows.schema == pl.Schema(schema)
    assert records.rows[key].is_unique().all() and records.rows["updated_at"].null_count() == 0
    good_keys = {item["number" if key == "number" else "id"] for item, readable in labelled if readable}
    assert good_keys <= set(records.rows[key])  # a readable item is never quarantined
    assert (records.quarantine["source"] == source).all() and (records.quarantine["framework"] == "acme").all()
    assert records.quarantine["reason"].str.len_chars().min() or records.quarantine.is_empty()
    for raw in records.quarantine["raw_text"]:
        json.loads(raw)  # the item as received, as JSON
    # ... and both land in the warehouse as they are
    with memory_warehouse() as conn:
        write_slices(
            conn,
            [
                SliceWrite(table, records.rows, "framework = ?", ["acme"]),
                quarantine_write("acme", [source], records.quarantine, None),
            ],
        )
        stored = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        quarantined = conn.execute("SELECT count(*) FROM raw.quarantine WHERE reason <> ''").fetchone()[0]
    assert (stored, quarantined) == (records.rows.height, records.quarantine.height)


@given(st.lists(api_items(good_issues(), THREAD_FIELDS), max_size=8))
def test_every_github_issue_item_is_a_row_or_quarantined_and_the_counts_add_up(labelled):
    records = thread_records([item for item, _ in labelled], "acme", REPO)
    _check_api_records(records, labelled, "number", THREADS_SOURCE, RAW_GITHUB_THREADS.schema, RAW_GITHUB_THREADS.name)


@given(st.lists(api_items(good_comments(), COMMENT_FIELDS), max_size=8))
def test_every_github_comment_item_is_a_row_or_quarantined_and_the_counts_add_up(labelled):
    records = comment_records([item for item, _ in labelled], "acme", REPO)
    _check_api_records(records, labelled, "comment_id", COMMENTS_SOURCE, RAW_GITHUB_COMMENTS.schema, RAW_GITHUB_COMMENTS.name)


# -- commit records --------------------------------------------------------------------

LINE_FIELDS = ["sha", "parents", "authored_at", "committed_at", "author", "message", "html_url", "diff_incomplete", "files"]


@st.composite
def snapshot_lines(draw) -> list[dict]:
    lines = []
    for index in range(draw(st.integers(0, 5))):
        sha = f"{index:040x}"
        line = {
            "repo": REPO, "sha": sha, "parents": [], "author": draw(hostile_text),
            "authored_at": draw(moments).isoformat(), "committed_at": draw(moments).isoformat(),
            "message": draw(hostile_text), "html_url": f"https://github.com/{REPO}/commit/{sha}", "diff_incomplete": False,
            "files": [{"path": draw(hostile_text) or "a.py", "additions": 1, "deletions": 0, "added_text": draw(hostile_text), "added_tokens": []}],
        }  # fmt: skip
        damage = draw(st.sampled_from(["none", "none", "time", "field"]))
        if damage == "time":
            line[draw(st.sampled_from(["authored_at", "committed_at"]))] = draw(st.none() | hostile_text)
        elif damage == "field":
            line[draw(st.sampled_from(LINE_FIELDS))] = draw(json_values)
        lines.append(line)
    return lines


def _write_history(folder: Path, lines: list[dict]) -> Path:
    path = folder / "github" / "acme__rl.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, ensure_ascii=True) + "\n" for line in lines)
    path.write_bytes(gzip.compress(text.encode()))
    return path


@given(snapshot_lines())
def test_a_recorded_history_is_read_whole_with_undated_commits_quarantined_or_fails_naming_the_file(lines):
    with tempfile.TemporaryDirectory() as folder:
        path = _write_history(Path(folder), lines)
        try:
            batch = SnapshotCommits(folder).refresh(ACME, None)
        except SnapshotFileError as error:  # a line that is no commit line: restore the file
            assert one_line(str(error)) and str(error).startswith(str(path))
            return
    assert batch.commits.height + batch.quarantine.height == len(lines)
    assert batch.commits.schema == pl.Schema(RAW_GIT_COMMITS.schema)
    assert batch.commits["committed_at"].null_count() == batch.commits["authored_at"].null_count() == 0
    assert set(batch.files["sha"]) <= set(batch.commits["sha"])  # a quarantined commit's files go with it
    assert (batch.quarantine["source"] == COMMITS_SOURCE).all() and batch.quarantine["reason"].null_count() == 0
    kept = {line["sha"] for line in lines if _dated(line)}
    assert set(batch.commits["sha"]) == kept


_ISO_WITH_OFFSET = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)")


def _dated(line: dict) -> bool:
    """Whether both times are ISO-8601 with a UTC offset, as git prints them."""
    times = [line.get(name) for name in ("authored_at", "committed_at")]
    try:
        return all(isinstance(t, str) and _ISO_WITH_OFFSET.fullmatch(t) and datetime.fromisoformat(t) for t in times)
    except ValueError:
        return False


@pytest.fixture(scope="module")
def log_stream(tmp_path_factory) -> tuple[bytes, list[str]]:
    """The `git log` stream the mirror parses, of a small history with hostile content."""
    root = tmp_path_factory.mktemp("log")
    remote = GitRemote(root, REPO)
    remote.commit("Add <script>\x1e alert(1)\n\nbody", {"a.py": "x = 1\n\x1e\x00y = 2\n", "docs/n\tame.md": "[l](javascript:x)\n"})
    remote.commit("Binary", {"b.bin": b"\x00\xff\x1e" * 50, "a.py": "x = 2\n"})
    remote.commit("Rename", {"a.py": None, "c.py": "x = 2\n"})
    shas = remote.history()
    stream = subprocess.run(
        ["git", "--git-dir", str(remote.work / ".git"), *_LOG_ARGS],
        input="".join(f"{sha}\n" for sha in shas).encode(), capture_output=True, check=True,
        env={**os.environ, **ISOLATED_GIT_ENV},
    ).stdout  # fmt: skip
    assert [commit.sha for commit in read_log_stream(io.BytesIO(stream))] == shas
    return stream, shas


@given(st.data())
def test_a_git_log_stream_cut_anywhere_parses_to_a_prefix_of_its_commits(log_stream, data):
    stream, shas = log_stream
    cut = data.draw(st.integers(0, len(stream)))
    parsed = [commit.sha for commit in read_log_stream(io.BytesIO(stream[:cut]))]
    assert all(len(sha) == 40 for sha in parsed[:-1])
    assert parsed[:-1] == shas[: max(len(parsed) - 1, 0)]


def test_a_commit_with_an_impossible_time_zone_is_quarantined_from_the_mirror(tmp_path, monkeypatch):
    for name, value in ISOLATED_GIT_ENV.items():
        monkeypatch.setenv(name, value)
    remote = GitRemote(tmp_path / "remotes", REPO)
    good = remote.commit("Add GRPO", {"a.py": "def grpo(): ...\n"}, at="2025-03-01T10:00:00+00:00")
    bogus = remote.commit_raw("Add DAPO (arXiv:2503.14476)", {"b.py": "def dapo(): ...\n"}, committer_date="1740794400 +9999")
    remote.push()
    batch = GitMirrorCommits(tmp_path / "mirrors", remote.url_template).refresh(ACME, None)
    assert batch.commits["sha"].to_list() == [good] and batch.head == bogus
    (row,) = batch.quarantine.iter_rows(named=True)
    assert row["source"] == COMMITS_SOURCE and row["source_ref"] == f"https://github.com/{REPO}/commit/{bogus}"
    assert row["reason"].startswith("bad committed_at '2025-03-0") and "+99:99'" in row["reason"]
    assert json.loads(row["raw_text"])["paths"] == ["b.py"] and set(batch.files["sha"]) == {good}


# -- curation CSVs ---------------------------------------------------------------------

READERS = {
    "screening.csv": read_screening_overrides,
    "aliases.csv": read_alias_overrides,
    "affiliations.csv": read_affiliation_overrides,
    "inclusions.csv": read_inclusion_overrides,
}
HOSTILE_CELLS = ["", " ", "#", '"', 'a,"b', "x\ny", "2503.14476v2", "verll", "nan", "-1", "1e400", "2025-13-45",
                 "true", "=HYPERLINK(\"http://x\")", "\u202e", "a" * 2000]  # fmt: skip


@st.composite
def curation_files(draw) -> tuple[str, bytes]:
    """A curation file: its real header and rows, with cells replaced, rows added or cut,
    the header changed, or bytes that are not UTF-8."""
    name = draw(st.sampled_from(sorted(READERS)))
    rows = [row for row in (REPO_ROOT / "overrides" / name).read_text(encoding="utf-8").splitlines(keepends=True)]
    header, body = rows[0], [row for row in rows[1:] if not row.startswith("#")][:3]
    buffer = io.StringIO()
    columns = header.strip().split(",")
    for row in body:
        buffer.write(row if row.endswith("\n") else row + "\n")
    for _ in range(draw(st.integers(0, 3))):
        cells = [draw(st.sampled_from(HOSTILE_CELLS) | st.text(max_size=12)) for _ in columns]
        cells = [cell.replace("\ud800", "") for cell in cells]
        buffer.write(",".join('"' + cell.replace('"', '""') + '"' if draw(st.booleans()) else cell for cell in cells) + "\n")
    header = draw(st.sampled_from([header, header, header.replace(",", ";"), "\ufeff" + header, ",".join(reversed(columns)) + "\n"]))
    content = (header + buffer.getvalue()).encode("utf-8")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(content)))
        content = content[:at] + draw(st.sampled_from([b"\xff\xfe", b"\x00", b"\r", b'"'])) + content[at:]
    return name, content


@given(curation_files())
@example(("affiliations.csv", b"\xff\xfearxiv_id,author,affiliation,reason\n"))  # UTF-16, as some editors save
@example(("aliases.csv", b"arxiv_id,alias,action,reason\n2503.14476,DA\x00PO,add,x\n"))
@example(("inclusions.csv", b'arxiv_id,framework,action,commit_sha,included_at,path,reason\n2503.14476,verl,add,"a"b,,,x\n'))
@example(("screening.csv", "\ufeffarxiv_id,is_general_rl_method,policy_params_b,loss_change_kind,code_released,code_url,reason\n".encode()))
def test_a_curation_file_is_read_or_fails_in_one_line_naming_file_and_line(curation_file):
    name, content = curation_file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        try:
            frame = READERS[name](path)
        except OverrideError as error:
            message = str(error)
            assert one_line(message) and re.match(rf"{re.escape(str(path))}(:\d+)?: ", message), message
        else:
            assert frame["reason"].null_count() == 0 and frame["line"].is_unique().all()


def test_quarantine_write_replaces_only_the_framework_records_it_read_again():
    """An incremental refresh settles the keys it read: a fixed item leaves the quarantine,
    others stay."""
    quarantined = pl.DataFrame(
        {"source": [THREADS_SOURCE] * 2, "source_ref": [f"{REPO}#1", f"{REPO}#2"], "reason": ["x", "y"], "framework": ["acme"] * 2},
        schema_overrides={},
    ).pipe(lambda frame: pl.concat([RAW_QUARANTINE.empty(), frame], how="diagonal_relaxed"))
    with memory_warehouse() as conn:
        write_slices(conn, [quarantine_write("acme", [THREADS_SOURCE], quarantined, None)])
        write_slices(conn, [quarantine_write("other", [THREADS_SOURCE], quarantined.with_columns(framework=pl.lit("other")), None)])
        write_slices(conn, [quarantine_write("acme", [THREADS_SOURCE], RAW_QUARANTINE.empty(), [f"{REPO}#1"])])
        left = conn.execute("SELECT framework, source_ref FROM raw.quarantine ORDER BY ALL").fetchall()
    assert left == [("acme", f"{REPO}#2"), ("other", f"{REPO}#1"), ("other", f"{REPO}#2")]
