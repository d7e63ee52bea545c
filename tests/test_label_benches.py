"""The screening and alias benches read the held-out paper set's batch files; the trainers know
which batch awaits its first reading."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from bench import alias_eval, label_agreement, screening_eval, training
from orchestration.tables import CORE_PAPERS

INVENTED_BATCH = Path(__file__).parent / "fixtures" / "unseen" / "invented_batch.jsonl"


def test_an_unseen_batch_becomes_papers_and_labels():
    batch = screening_eval.unseen_batch(INVENTED_BATCH)

    assert batch.name == "invented_batch"
    assert batch.papers.columns == list(CORE_PAPERS.schema)
    first = batch.papers.row(0, named=True)
    assert (first["arxiv_id"], first["cohort"], first["comment"]) == ("2599.00001", "2026-Q1", "9 pages")
    assert batch.papers.filter(pl.col("arxiv_id") == "2599.00002")["comment"].to_list() == [None]
    assert batch.labels.schema == pl.Schema(screening_eval.LABEL_SCHEMA)
    assert batch.labels.select("arxiv_id", "large_policy", "loss_change_kind", "method_names").rows() == [
        ("2599.00001", False, "clip", "WXPO;Widened-Exponent Policy Optimization"),
        ("2599.00002", None, "other", ""),
    ]


def test_the_benches_score_an_unseen_batch():
    batch = screening_eval.unseen_batch(INVENTED_BATCH)

    figures = screening_eval.evaluate(batch.labels, screening_eval.predictions(batch.papers))
    assert (figures["labels"], figures["general_methods"]) == (2, 1)
    assert figures["f1"] == 1.0 and figures["loss_change_kind_accuracy"] == 1.0

    names, missed, extra = alias_eval.evaluate(batch.papers, batch.labels)
    assert names["labelled_names"] == 2
    assert 0.0 <= names["name_recall"] <= 1.0 and set(missed["arxiv_id"]) <= {"2599.00001"}
    assert extra.columns == ["arxiv_id", "alias"]


def test_a_broken_batch_line_names_the_file_and_line(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"arxiv_id": "2599.00003"\n', encoding="utf-8")
    try:
        screening_eval.unseen_batch(broken)
    except SystemExit as error:
        assert "broken.jsonl:1" in str(error)
    else:
        raise AssertionError("a broken line must stop the bench")


def test_the_second_reader_is_scored_like_the_rules():
    first = screening_eval.unseen_batch(INVENTED_BATCH).labels
    second = pl.DataFrame(
        [
            # Agrees the first paper is a general method but reads another kind and one name.
            ("2599.00001", True, "weight", "WXPO", "a weighting"),
            ("2599.00002", True, "sampling", "", "calls it a method"),
        ],
        schema=label_agreement.SECOND_READER_SCHEMA,
        orient="row",
    )
    figures = label_agreement.agreement(first, second)
    assert figures["papers"] == 2 and figures["general_f1"] == 2 / 3 and figures["general_agreement"] == 0.5
    assert (figures["kind_papers"], figures["kind_accuracy"]) == (1, 0.0)
    assert (figures["name_recall"], figures["name_precision"]) == (0.5, 1.0)


def test_the_committed_second_reader_labels_cover_labelled_unseen_papers():
    second = label_agreement.second_reader_labels()
    first = screening_eval.whole_set(screening_eval.unseen_batches()).labels
    assert second.height == 100 and second.join(first, on="arxiv_id", how="anti").is_empty()


def test_labelled_names_printed_with_latex_are_the_plain_names():
    labels = pl.DataFrame(
        {"arxiv_id": ["1"], "is_general_rl_method": [True], "method_names": ["$\\mathbf{T^3}$;GRPO-\\lambda;R$^3$L;SRMs"]}
    )
    assert alias_eval.labelled_names(labels)["name"].to_list() == ["T3", "GRPO-λ", "R3L", "SRMs"]
    assert alias_eval.labelled_names(labels)["normalized"].to_list() == ["t3", "grpoλ", "r3l", "srm"]


def test_a_batch_labelled_since_the_model_was_trained_awaits_its_first_reading():
    batches = [screening_eval.Batch(name, pl.DataFrame(), pl.DataFrame()) for name in ("snapshot", "old", "held", "new")]
    meta = {"trained_on": {"snapshot": 172, "old": 60}, "left_out": ["held"]}
    assert training.awaiting_first_reading(batches, meta) == ["new"]
    assert training.awaiting_first_reading(batches[:3], meta) == []
