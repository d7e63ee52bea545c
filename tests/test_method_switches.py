"""core.method_switches on invented diffs in the configuration styles of the frameworks:
Hydra overrides and YAML keys (verl), dataclass config fields (TRL), argparse flags
(slime, OpenRLHF), and identifiers of config modules."""

import polars as pl

from assets.tracker.method_switches import best_switches, method_switches
from orchestration.tables import CORE_METHOD_SWITCHES

ALIASES = pl.DataFrame(
    {
        "arxiv_id": ["2503.20783", "2503.20783", "2511.20347", "2506.13585"],
        "alias": ["Dr. GRPO", "dr_grpo", "SAPO", "PO"],  # "PO" is too short to count
        "ambiguous": [False, False, False, False],
    }
)


def diff(framework: str, sha: str, path: str, text: str = "", tokens: list[str] | None = None) -> dict[str, object]:
    return {"framework": framework, "sha": sha, "path": path, "added_text": text, "added_tokens": tokens or []}


def switches_of(files: list[dict[str, object]], inclusions: list[tuple[str, str, str]]) -> pl.DataFrame:
    frame = pl.DataFrame(files, schema={"framework": pl.Utf8, "sha": pl.Utf8, "path": pl.Utf8, "added_text": pl.Utf8, "added_tokens": pl.List(pl.Utf8)})
    included = pl.DataFrame(inclusions, schema=["arxiv_id", "framework", "commit_sha"], orient="row")
    return method_switches(included, frame, ALIASES)


def keys(frame: pl.DataFrame) -> set[tuple[str, str | None]]:
    return set(frame.select("key", "value").iter_rows())


def test_hydra_overrides_and_yaml_keys():
    found = switches_of(
        [
            diff("verl", "s1", "docs/algo/drgrpo.md",
                 "python3 -m verl.trainer.main_ppo \\\n    algorithm.adv_estimator=grpo \\\n"
                 "    actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm \\\n"
                 "    trainer.output_dir=/tmp/drgrpo \\\n"
                 "```yaml\nactor:\n  loss_type: dr_grpo  # Dr. GRPO\n```\nNote: Dr. GRPO needs no std.\n"),
        ],
        [("2503.20783", "verl", "s1")],
    )
    # The path names the method (a recipe's docs): its keys count, rank 3; the value naming
    # it ranks first; output paths and prose do not count.
    assert keys(found) == {
        ("loss_type", "dr_grpo"),
        ("algorithm.adv_estimator", "grpo"),
        ("actor_rollout_ref.actor.loss_agg_mode", "seq-mean-token-sum-norm"),
    }
    assert best_switches(found).row(0) == ("2503.20783", "verl", "loss_type", "dr_grpo")
    assert found.schema == pl.Schema(CORE_METHOD_SWITCHES.schema)


def test_dataclass_config_fields():
    found = switches_of(
        [
            diff("trl", "s2", "docs/source/grpo_trainer.md",
                 '    loss_type: str = field(default="sapo", metadata={"help": "..."})\n'
                 "    sapo_temperature_pos: float = 1.0\n    beta: float = 0.04\n"),
            diff("trl", "s2", "trl/trainer/grpo_config.py", tokens=["sapo_temperature_neg", "field", "test_sapo_loss"]),
        ],
        [("2511.20347", "trl", "s2")],
    )
    assert keys(found) == {("loss_type", "sapo"), ("sapo_temperature_pos", "1.0"), ("sapo_temperature_neg", None)}
    assert best_switches(found)["key"].to_list() == ["loss_type"]


def test_argparse_flags():
    found = switches_of(
        [
            diff("slime", "s3", "docs/en/advanced/sapo.md",
                 "python train.py --advantage-estimator sapo --use-sapo-gate \\\n  --port 8000 --save /ckpt\n"),
            diff("slime", "s3", "slime/utils/arguments.py", tokens=["sapo_gate_tau", "add_argument"]),
            diff("slime", "s3", "scripts/run_sapo.sh", tokens=["run_sapo_qwen"]),  # a script's own names
        ],
        [("2511.20347", "slime", "s3")],
    )
    assert keys(found) == {("--advantage-estimator", "sapo"), ("--use-sapo-gate", None), ("sapo_gate_tau", None)}


def test_only_the_inclusion_commit_and_unambiguous_long_names_count():
    found = switches_of(
        [
            diff("verl", "other", "docs/a.md", "loss_type: dr_grpo\n"),
            diff("verl", "s4", "docs/b.md", "policy_loss.mode: po\n"),
        ],
        [("2503.20783", "verl", "s4"), ("2506.13585", "verl", "s4")],
    )
    assert found.is_empty()
