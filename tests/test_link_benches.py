"""The link-sample benches on invented frames: the rule-free candidate search, the
seeded draw of a batch to label, and the recall estimate with sampled rejections."""

import polars as pl

from bench.draw_link_sample import drawn_batch, recall_pool, rules_pool
from bench.link_recall import candidate_hits, candidate_pairs, recall_estimate
from tests.link_fixtures import DAPO, DR_GRPO, GSPO, REINFORCE_PP, aliases, commits, files, papers


def test_the_plain_search_finds_ids_titles_and_every_alias_spelling_as_whole_words():
    history = commits(
        ("verl", "c1", "2025-04-01", "docs: see arXiv:2503.14476v2"),
        ("verl", "c2", "2025-04-02", "feat: loss"),
        ("trl", "c3", "2025-04-03", "Group Sequence Policy Optimization support"),
        ("trl", "c4", "2025-04-04", "adapo is not dapo's neighbour"),
    )
    changed = files(
        ("verl", "c2", "pkg/dr_grpo/loss.py", "", ["DrGRPO"]),
        ("trl", "c4", "pkg/x.py", "", ["adapo"]),
    )
    hits = candidate_hits(history, changed, papers(), aliases())
    found = set(hits.select("framework", "sha", "arxiv_id", "kind", "where").iter_rows())
    assert ("verl", "c1", DAPO, "arxiv_id", "message") in found
    assert {("verl", "c2", DR_GRPO, "alias", "path"), ("verl", "c2", DR_GRPO, "alias", "added_tokens")} <= found
    assert ("trl", "c3", GSPO, "title", "message") in found
    # Case does not matter to the plain search (`dapo` is DAPO), whole words do (`adapo` is not).
    assert hits.filter(pl.col("sha") == "c4").select("where", "arxiv_id").rows() == [("message", DAPO)]

    pairs = candidate_pairs(hits, history)
    assert pairs.select("arxiv_id", "framework", "stratum", "commits").rows() == [
        (DAPO, "trl", "alias", 1),
        (DAPO, "verl", "id_or_title", 1),
        (DR_GRPO, "verl", "alias", 1),
        (GSPO, "trl", "id_or_title", 1),
    ]


def pool() -> pl.DataFrame:
    ids = [f"2601.{n:05d}" for n in range(20)]
    return pl.DataFrame(
        {"arxiv_id": ids, "framework": ["verl"] * 20, "stratum": ["a"] * 10 + ["b"] * 10, "hint": [None] * 20},
        schema_overrides={"hint": pl.Utf8},
    )


def test_a_batch_is_drawn_per_stratum_reproducibly_without_labelled_pairs():
    labelled = pl.DataFrame({"arxiv_id": ["2601.00000", "2601.00001"], "framework": ["verl", "verl"]})
    batch = drawn_batch(pool(), labelled, {"a": 3, "b": 20}, seed=7, batch="recall_9")
    assert batch.columns[:6] == ["arxiv_id", "framework", "included", "commit_sha", "note", "batch"]
    assert batch.group_by("stratum").len().sort("stratum").rows() == [("a", 3), ("b", 10)]
    assert not set(batch["arxiv_id"]) & {"2601.00000", "2601.00001"}
    # The same seed on the same pool, in any row order, draws the same pairs.
    again = drawn_batch(pool().reverse(), labelled, {"a": 3, "b": 20}, seed=7, batch="recall_9")
    assert again.equals(batch)
    assert batch["included"].null_count() == batch.height and set(batch["batch"]) == {"recall_9"}


def test_the_pools_are_the_rules_output_and_the_rejected_candidates():
    inclusions = pl.DataFrame({"arxiv_id": [DAPO], "framework": ["verl"], "commit_sha": ["c1"]})
    evidence = pl.DataFrame({"arxiv_id": [DAPO, GSPO], "framework": ["verl", "verl"]})
    assert sorted(rules_pool(evidence, inclusions).select("arxiv_id", "stratum").rows()) == [
        (DAPO, "inclusion"),
        (GSPO, "citation_only"),
    ]
    candidates = pl.DataFrame(
        {
            "arxiv_id": [DAPO, GSPO],
            "framework": ["verl", "verl"],
            "stratum": ["id_or_title", "alias"],
            "first_commit": ["c1", "c2"],
            "terms": ["dapo", "gspo"],
        }
    )
    assert recall_pool(candidates, inclusions).select("arxiv_id", "stratum").rows() == [(GSPO, "alias")]


def test_recall_weighs_each_sampled_rejection_by_its_strata_sampling_rate():
    # Rules include 2 pairs, both labelled included. 10 rejected candidates of stratum a:
    # 4 drawn in a recall batch (1 included), 6 unlabelled; 1 rejected pair of stratum b
    # labelled in an earlier batch as a miss.
    ids = [f"2601.{n:05d}" for n in range(13)]
    candidates = pl.DataFrame(
        {"arxiv_id": ids, "framework": ["verl"] * 13, "stratum": ["a"] * 2 + ["a"] * 10 + ["b"]}
    )
    inclusions = pl.DataFrame({"arxiv_id": ids[:2], "framework": ["verl"] * 2})
    sample = pl.DataFrame(
        {
            "arxiv_id": [*ids[:2], *ids[2:6], ids[12]],
            "framework": ["verl"] * 7,
            "included": [True, True, True, False, False, False, True],
            "batch": ["held_out"] * 2 + ["recall_1"] * 4 + ["held_out"],
        }
    )
    figures = recall_estimate(candidates, inclusions, sample)
    assert figures["found"] == 2 and figures["labelled_misses"] == 2
    assert figures["estimated_unlabelled_misses"] == 6 * 1 / 4
    assert figures["recall"] == 2 / (2 + 2 + 1.5)
