"""training_failures: failure reports found in issues and linked to implementations."""

from pathlib import Path

import polars as pl
import pytest

from assets.links.evidence import evidence_of
from assets.links.inclusions import inclusions_of, read_inclusion_overrides
from assets.links.training_failures import failure_kinds, training_failures_of
from tests.link_fixtures import DAPO, DR_GRPO, GSPO, aliases, commits, files, no_comments, papers, threads
from orchestration.tables import CORE_TRAINING_FAILURES


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("training grpo, the loss suddenly becomes nan and the reward becomes 0", ["nan_or_inf"]),
        ("后期出现grad_norm为nan，reward突然变为0", ["nan_or_inf"]),
        ("entropy collapse after 200 steps", ["collapse"]),
        ("loss spikes then the run diverged", ["divergence", "spike"]),
        ("kl_loss explodes at step 30", ["spike", "kl_blowup"]),
        ("the policy learned reward hacking on the format reward", ["reward_hacking"]),
        ("output is !!!!!!!!!!!!!!!!", ["degenerate_output"]),
        ("how is the kl divergence computed for inference?", []),
    ],
)
def test_failure_kinds(text, kinds):
    assert pl.select(failure_kinds(pl.lit(text))).item().to_list() == kinds


COMMITS = commits(
    ("verl", "c1", "2025-04-03", "[algo] feat: add DAPO"),
    ("verl", "c2", "2025-04-20", "[algo] feat: Dr. GRPO loss"),
)
FILES = files(
    ("verl", "c1", "recipe/dapo/dapo_ray_trainer.py", "", ["dapo", "DAPORayTrainer"]),
    ("verl", "c2", "verl/trainer/ppo/core_algos.py", "", ["dr_grpo", "compute_policy_loss"]),
)
THREADS = threads(
    {"number": 1, "title": "DAPO run: reward collapse after 100 steps"},
    {"number": 2, "title": "grad_norm is NaN", "body_tokens": ["loss_agg_mode", "dr_grpo", "actor"]},
    {"number": 3, "title": "crash in dapo_ray_trainer.py: loss is nan"},
    {"number": 4, "title": "Logits have nan values during training"},
    {"number": 5, "title": "[Feature] support GSPO", "body_tokens": ["entropy", "collapse", "GSPO"]},
    {"number": 6, "title": "loss is nan", "kind": "pull_request"},
    {"number": 7, "title": "Feature request: reward-hacking monitoring hooks"},
)


def test_reports_linked_to_the_implementation_they_concern():
    evidence = evidence_of(COMMITS, FILES, THREADS, no_comments(), papers(), aliases())
    inclusions = inclusions_of(evidence, papers(), COMMITS, read_inclusion_overrides(Path("/nonexistent/inclusions.csv")))
    found = training_failures_of(THREADS, evidence, inclusions)
    assert found.schema == pl.Schema(CORE_TRAINING_FAILURES.schema)
    rows = {row["number"]: row for row in found.iter_rows(named=True)}
    # A feature request discussing collapse and a pull request are not reports.
    assert set(rows) == {1, 2, 3, 4}
    assert (rows[1]["arxiv_id"], rows[1]["linked_by"], rows[1]["commit_sha"]) == (DAPO, "named", "c1")
    assert rows[1]["failure_kinds"] == ["collapse"]
    assert (rows[2]["arxiv_id"], rows[2]["linked_by"]) == (DR_GRPO, "named")  # the config value dr_grpo
    assert (rows[3]["arxiv_id"], rows[3]["link_key"]) == (DAPO, "dapo_ray_trainer.py")
    assert rows[3]["linked_by"] == "identifier"
    assert rows[4]["arxiv_id"] is None and rows[4]["linked_by"] is None
    assert GSPO not in found["arxiv_id"].to_list()
