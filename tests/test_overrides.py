"""Curation CSVs: typed rows with a reason, or an error naming the file, line and reason."""

from pathlib import Path

import polars as pl
import pytest

from orchestration.curation import OverrideError, about_known_papers, read_override_csv, waiting_for_papers

COLUMNS = {"arxiv_id": pl.Utf8, "is_general": pl.Boolean, "params_b": pl.Float64, "kind": pl.Utf8}
KINDS = ("clip", "mask")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "screening.csv"
    path.write_text(text, encoding="utf-8")
    return path


def read(path: Path) -> pl.DataFrame:
    return read_override_csv(path, COLUMNS, required=["arxiv_id"], allowed={"kind": KINDS}, unique=["arxiv_id"])


def test_rows_are_typed_and_blank_optional_cells_are_null(tmp_path):
    path = write(
        tmp_path,
        "arxiv_id,is_general,params_b,kind,reason\n"
        "# a comment line\n"
        "2501.00001,true,32,clip,the abstract says so\n"
        "2501.00002,No,,,\"a reason, with a comma\"\n",
    )
    frame = read(path)
    assert frame.schema == pl.Schema({**COLUMNS, "reason": pl.Utf8, "line": pl.Int64})
    assert frame.rows() == [
        ("2501.00001", True, 32.0, "clip", "the abstract says so", 3),
        ("2501.00002", False, None, None, "a reason, with a comma", 4),
    ]


def test_absent_and_header_only_files_give_an_empty_frame_with_the_schema(tmp_path):
    for frame in (read(tmp_path / "absent.csv"), read(write(tmp_path, "arxiv_id,is_general,params_b,kind,reason\n"))):
        assert frame.height == 0
        assert frame.columns == ["arxiv_id", "is_general", "params_b", "kind", "reason", "line"]


HEADER = "arxiv_id,is_general,params_b,kind,reason\n"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("arxiv_id,is_general,params_b,reason\n", 1, "missing column(s) ['kind']"),
        ("arxiv_id,is_general,params_b,kind,reason,extra\n", 1, "unknown column(s) ['extra']"),
        (HEADER + "2501.00001,true,1,clip,ok\n2501.00002,true,1,clip\n", 3, "4 fields"),
        (HEADER + "2501.00001,true,1,clip,ok\n2501.00002,true,1,clip,  \n", 3, "reason '': empty: every correction says why"),
        (HEADER + "2501.00001,maybe,1,clip,ok\n", 2, "is_general 'maybe': must be true or false"),
        (HEADER + "2501.00001,true,32B,clip,ok\n", 2, "params_b '32B': must be a number"),
        (HEADER + "2501.00001,true,1,weight,ok\n", 2, "kind 'weight': unknown; expected one of ['clip', 'mask']"),
        (HEADER + ",true,1,clip,ok\n", 2, "arxiv_id '': empty: this column is required"),
        (HEADER + "2501.1,true,1,clip,ok\n", 2, "arxiv_id '2501.1': not an arXiv id without version"),
        (HEADER + "2501.00001v3,true,1,clip,ok\n", 2, "arxiv_id '2501.00001v3': not an arXiv id without version"),
        (
            HEADER + "2501.00001,true,1,clip,ok\n2501.00002,true,1,clip,ok\n2501.00001,false,1,clip,no\n",
            4,
            "duplicate ['arxiv_id'] (first on line 2)",
        ),
    ],
)
def test_a_malformed_row_names_the_file_the_line_and_the_reason(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(OverrideError) as raised:
        read(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:{line}: ")
    assert words in message


def test_reason_is_required_even_when_the_caller_relaxes_every_other_column(tmp_path):
    path = write(tmp_path, "arxiv_id,is_general,params_b,kind,reason\n2501.00001,,,,\n")
    with pytest.raises(OverrideError, match=r"screening.csv:2: reason '': empty"):
        read_override_csv(path, COLUMNS, required=[])


def test_old_style_arxiv_ids_are_accepted(tmp_path):
    path = write(tmp_path, HEADER + "hep-th/0101001,true,1,clip,an old-style id\n")
    assert read(path)["arxiv_id"].to_list() == ["hep-th/0101001"]


def test_waiting_rows_are_the_ones_about_papers_not_harvested(tmp_path):
    path = write(tmp_path, HEADER + "2501.00001,true,1,clip,known\n2601.00009,false,,,not harvested yet\n")
    overrides = read(path)
    papers = pl.DataFrame({"arxiv_id": ["2501.00001", "2501.00002"]})
    assert waiting_for_papers(overrides, papers).select("line", "arxiv_id").rows() == [(3, "2601.00009")]
    assert about_known_papers(overrides, papers)["arxiv_id"].to_list() == ["2501.00001"]
