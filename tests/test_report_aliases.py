"""Names a paper introduces only in the body of its technical report."""

import polars as pl

from assets.papers.aliases import paper_aliases_of, report_aliases

OVERRIDES = pl.DataFrame(schema={"arxiv_id": pl.Utf8, "alias": pl.Utf8, "action": pl.Utf8, "reason": pl.Utf8})


def papers(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        [(arxiv_id, title, abstract, "") for arxiv_id, title, abstract in rows],
        schema={"arxiv_id": pl.Utf8, "title": pl.Utf8, "abstract": pl.Utf8, "comment": pl.Utf8},
        orient="row",
    )


REPORT = papers(("2601.00001", "Quokka-2 Technical Report", "We present Quokka-2, an open-weight model family."))
PASSAGES = pl.DataFrame(
    {
        "report_id": ["2601.00001", "2601.00001", "2601.09999"],
        "section": ["4 Reinforcement Learning", "4.2 Stability", "3 RL"],
        "text": [
            "To keep long rollouts stable we propose Damped Ratio Policy Optimization (DRPO), a new RL algorithm "
            "that damps the importance ratio of stale tokens.",
            "We use the standard PPO value head as in prior work.",
            "We propose Walrus Sampling (WS), which samples harder prompts.",
        ],
    }
)


def test_a_report_passage_names_the_reports_method():
    names = report_aliases(PASSAGES, REPORT)
    assert {"DRPO", "Damped Ratio Policy Optimization"} <= set(names["alias"])
    assert set(names["source"]) == {"report"}
    # A report that is not among the papers gives nothing.
    assert "WS" not in set(names["alias"])


def test_report_names_join_the_papers_aliases_with_their_spellings():
    table = paper_aliases_of(REPORT, OVERRIDES, PASSAGES)
    rows = {alias: source for alias, source in table.select("alias", "source").iter_rows()}
    assert rows["DRPO"] == "report"
    assert rows["damped_ratio_policy_optimization"] == "variant"
    assert "PPO" not in rows  # an established name stays out, wherever it is written
    assert paper_aliases_of(REPORT, OVERRIDES).filter(pl.col("source") == "report").is_empty()
