"""inclusions: the first implementing commit per (paper, framework), and the overrides."""

from pathlib import Path

import polars as pl
import pytest

from assets.links.evidence import evidence_of
from assets.links.inclusions import inclusions_of, read_inclusion_overrides, stale_inclusion_overrides
from orchestration.curation import OverrideError, waiting_for_papers
from tests.link_fixtures import DAPO, GSPO, aliases, at, commits, files, no_comments, no_threads, papers
from orchestration.tables import CORE_INCLUSIONS

COMMITS = commits(
    ("verl", "readme1", "2025-03-10", "docs: news"),
    ("verl", "impl1", "2025-04-03", "[recipe] feat: DAPO recipe"),
    ("verl", "impl2", "2025-05-01", "fix dapo"),
    ("trl", "blog1", "2025-08-01", "release notes"),
)
FILES = files(
    # A README news item before the code: a citation, never the inclusion.
    ("verl", "readme1", "README.md", "- [2025/03] DAPO: https://arxiv.org/abs/2503.14476", []),
    ("verl", "impl1", "recipe/dapo/main_dapo.py", "", ["dapo", "main"]),
    ("verl", "impl1", "recipe/dapo/README.md", "# DAPO", []),
    ("verl", "impl2", "recipe/dapo/main_dapo.py", "", ["dapo"]),
    ("trl", "blog1", "docs/blog/v1.md", "GSPO arXiv:2507.18071", []),
)


def evidence() -> pl.DataFrame:
    return evidence_of(COMMITS, FILES, no_threads(), no_comments(), papers(), aliases())


def no_overrides() -> pl.DataFrame:
    return read_inclusion_overrides(Path("/nonexistent/inclusions.csv"))


def test_first_implementation_evidence_on_the_default_branch_is_the_inclusion():
    found = inclusions_of(evidence(), papers(), COMMITS, no_overrides())
    assert found.schema == pl.Schema(CORE_INCLUSIONS.schema)
    assert found.height == 1  # the GSPO release blog is a citation: no inclusion in trl
    row = found.row(0, named=True)
    assert (row["arxiv_id"], row["framework"], row["commit_sha"], row["source"]) == (DAPO, "verl", "impl1", "rules")
    assert row["included_at"] == at("2025-04-03")
    assert row["path"] == "recipe/dapo/main_dapo.py"  # code beats its README in the same commit
    assert row["commit_url"] == "https://github.com/o/verl/commit/impl1"
    assert row["lag_days"] == pytest.approx(16.0)
    assert row["matched_by"] == "alias"


def test_negative_lag_when_code_lands_before_the_paper():
    early = commits(("verl", "early", "2025-03-10", "feat: add dapo"))
    found = inclusions_of(
        evidence_of(early, files(("verl", "early", "verl/dapo.py", "", ["dapo"])), no_threads(), no_comments(), papers(), aliases()),
        papers(),
        early,
        no_overrides(),
    )
    assert found["lag_days"].to_list() == [-8.0]


def write_overrides(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "inclusions.csv"
    path.write_text("arxiv_id,framework,action,commit_sha,included_at,path,reason\n" + "".join(r + "\n" for r in rows))
    return path


def test_overrides_add_remove_and_redate(tmp_path):
    path = write_overrides(
        tmp_path,
        f"{DAPO},verl,redate,impl2,,,the recipe of impl1 was reverted before release",
        f"{GSPO},trl,add,,2025-08-02T10:00:00Z,trl/gspo.py,implemented in a commit the snapshot lacks",
        "# a comment line",
    )
    found = inclusions_of(evidence(), papers(), COMMITS, read_inclusion_overrides(path)).sort("framework")
    rows = {row["framework"]: row for row in found.iter_rows(named=True)}
    assert rows["verl"]["commit_sha"] == "impl2" and rows["verl"]["included_at"] == at("2025-05-01")
    assert rows["verl"]["source"] == "override" and rows["verl"]["reason"].startswith("the recipe")
    assert rows["trl"]["included_at"] == at("2025-08-02T10:00:00") and rows["trl"]["commit_sha"] is None
    assert rows["trl"]["lag_days"] == pytest.approx(9.42, abs=0.01)

    removed = inclusions_of(
        evidence(), papers(), COMMITS, read_inclusion_overrides(write_overrides(tmp_path, f"{DAPO},verl,remove,,,,a false match"))
    )
    assert removed.is_empty()


def test_redate_by_date_alone_keeps_the_commit(tmp_path):
    path = write_overrides(tmp_path, f"{DAPO},verl,redate,,2025-04-10,,merged to main a week later")
    row = inclusions_of(evidence(), papers(), COMMITS, read_inclusion_overrides(path)).row(0, named=True)
    assert (row["commit_sha"], row["included_at"], row["path"]) == ("impl1", at("2025-04-10"), "recipe/dapo/main_dapo.py")


@pytest.mark.parametrize(
    "row, message",
    [
        (f"{DAPO},verl,add,,,,", "reason '': empty: every correction says why"),
        (f"{DAPO},verl,move,,,,why", "action 'move': unknown; expected one of ['add', 'redate', 'remove']"),
        (f"{DAPO},verll,add,c1,,,typo in the framework", "framework 'verll': unknown; expected one of ["),
        (f"{DAPO}v2,verl,add,c1,,,a version", "arxiv_id '2503.14476v2': not an arXiv id without version"),
        ("DAPO,verl,add,c1,,,a name", "arxiv_id 'DAPO': not an arXiv id without version"),
        (f"{DAPO},verl,add,,,,no commit and no date", "commit_sha '': an add needs a commit_sha or an included_at"),
        (f"{DAPO},verl,add,,yesterday,,bad date", "included_at 'yesterday': must be an ISO-8601 date or time"),
        (f"{DAPO},verl,add,,2025-13-01,,bad month", "included_at '2025-13-01': must be an ISO-8601 date or time"),
    ],
)
def test_bad_override_rows_fail_naming_the_file_line_column_and_value(tmp_path, row, message):
    path = write_overrides(tmp_path, "# a comment first, so the bad row is on line 3", row)
    with pytest.raises(OverrideError) as raised:
        read_inclusion_overrides(path)
    assert str(raised.value).startswith(f"{path}:3: ")
    assert message in str(raised.value)


def test_an_override_naming_an_unknown_commit_fails_with_its_line(tmp_path):
    path = write_overrides(tmp_path, f"{DAPO},verl,redate,nosuchsha,,,typo")
    with pytest.raises(OverrideError, match=r"inclusions.csv:2: commit_sha 'nosuchsha': not a commit of verl"):
        inclusions_of(evidence(), papers(), COMMITS, read_inclusion_overrides(path))


def test_an_override_of_a_paper_not_harvested_waits_for_it(tmp_path):
    path = write_overrides(
        tmp_path,
        "2601.00001,verl,add,,2026-01-05,,a paper outside this window",
        "2601.00002,verl,remove,,,,another one",
    )
    overrides = read_inclusion_overrides(path)
    found = inclusions_of(evidence(), papers(), COMMITS, overrides)
    assert found["arxiv_id"].to_list() == [DAPO]  # the rules' inclusion only: nothing about unknown papers
    assert waiting_for_papers(overrides, papers()).select("line", "arxiv_id").rows() == [
        (2, "2601.00001"),
        (3, "2601.00002"),
    ]
    with_paper = pl.concat([papers(), papers().head(1).with_columns(arxiv_id=pl.lit("2601.00001"))])
    arrived = inclusions_of(evidence(), with_paper, COMMITS, overrides)
    assert sorted(arrived["arxiv_id"].to_list()) == [DAPO, "2601.00001"]  # applied once the paper arrives


def test_the_repository_overrides_file_is_valid():
    read_inclusion_overrides()


def test_an_override_of_a_framework_not_loaded_yet_waits(tmp_path):
    path = write_overrides(tmp_path, f"{DAPO},slime,add,deadbeef,,,slime's history is not loaded in this warehouse")
    found = inclusions_of(evidence(), papers(), COMMITS, read_inclusion_overrides(path))
    assert found.select("framework").to_series().to_list() == ["verl"]



def test_overrides_that_correct_nothing_are_reported_as_stale(tmp_path):
    path = write_overrides(
        tmp_path,
        f"{DAPO},verl,remove,,,,the rules include DAPO in verl: a live correction",
        f"{GSPO},trl,remove,,,,the rules do not include GSPO in trl (a release blog): stale",
        f"{DAPO},trl,redate,,2025-09-01,,nothing to redate: stale",
    )
    stale = stale_inclusion_overrides(evidence(), read_inclusion_overrides(path))
    assert sorted(stale.select("arxiv_id", "framework", "action").rows()) == [(DAPO, "trl", "redate"), (GSPO, "trl", "remove")]
    added = write_overrides(tmp_path, f"{DAPO},verl,add,impl2,,,the rules already include it: stale")
    assert stale_inclusion_overrides(evidence(), read_inclusion_overrides(added))["action"].to_list() == ["add"]
