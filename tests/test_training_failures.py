"""training_failures: failure reports found in issues and linked to implementations."""

from pathlib import Path

import polars as pl
import pytest

from assets.links.evidence import evidence_of
from assets.links.inclusions import inclusions_of, read_inclusion_overrides
from assets.links.training_failures import failure_kinds, failure_reports, named_implementation, training_failures_of
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



@pytest.mark.parametrize(
    "title, kind",
    [
        # Invented titles, one per kind, in the phrasings users write.
        ("value head returns inf after the 3rd epoch", "nan_or_inf"),
        ("policy diverges once the learning rate warms up", "divergence"),
        ("success rate oscillates wildly with the new sampler", "divergence"),
        ("answers shrink to empty strings and the policy collapses", "collapse"),
        ("grad_norm spikes to 1e4 every few hundred steps", "spike"),
        ("the agent games the judge: reward hacking after step 800", "reward_hacking"),
        ("cuda out of memory in the backward pass of step 12", "oom"),
        ("rollout workers hang forever after the first weight sync", "hang"),
        ("mean score does not increase over 2k steps", "no_improvement"),
        ("format reward is always -1 for the whole run", "no_improvement"),
        ("score=0 and loss=0 with the new template", "no_improvement"),
        ("accuracy rises on one launcher but not with the other backend", "no_improvement"),
        ("reward plateaus at step 50", "no_improvement"),
        ("sampler logprobs diverge from the trainer's after refit", "logprob_mismatch"),
        ("very high old_prob_error with fp8 rollouts", "logprob_mismatch"),
        ("training vs inference mismatch grows with longer answers", "logprob_mismatch"),
        ("kl keeps growing although the reward is flat", "kl_blowup"),
        ("sudden drop in entropy after switching the clip range", "entropy"),
        ("training crashed after 300 steps on two nodes", "crash"),
        ("wrong gradients with sequence packing enabled", "wrong_gradient"),
        # Chinese: the same kinds without spaces between words.
        ("训练到一半出现梯度爆炸", "spike"),
        ("多机训练时模型崩溃，输出乱码", "collapse"),
        ("训练到第五百步显存不足", "oom"),
        ("生成阶段卡住不动", "hang"),
        ("训推不一致导致奖励下降", "logprob_mismatch"),
        ("数学任务训练无收益", "no_improvement"),
        ("奖励变成0之后一直不动", "no_improvement"),
        ("长序列训练后期熵坍塌", "entropy"),
        ("训练一段时间后失败", "crash"),
        ("损失函数发散", "divergence"),
        # English words inside Chinese prose, where Unicode word edges find none.
        ("第二轮rollout时hang住了", "hang"),
        ("跑到一半kl变为nan", "nan_or_inf"),
        ("内存超出，进程被杀", "oom"),
        ("OutOfMemoryError in the critic update", "oom"),
        ("worker stuck in compute_values for an hour", "hang"),
        ("actor/rewards/mean 训练后为0", "no_improvement"),
    ],
)
def test_title_kinds(title, kind):
    assert kind in pl.select(failure_kinds(pl.lit(title.lower()), title=True)).item().to_list()


@pytest.mark.parametrize(
    "title",
    [
        "how is the kl divergence computed for inference?",
        "docs: explain the reward function arguments",
        "support a new rollout backend",
        "reward of 1.5 for correct answers?",  # a value, not a reward stuck at zero
    ],
)
def test_titles_that_report_nothing(title):
    assert pl.select(failure_kinds(pl.lit(title.lower()), title=True)).item().to_list() == []


def test_requests_questions_and_announcements_are_not_reports():
    found = failure_reports(threads(
        {"number": 1, "title": "Feature request: stop the run when entropy collapses"},
        {"number": 2, "title": "Consider a safer default clip to avoid loss spikes"},
        {"number": 3, "title": "Is there a way to skip batches where kl explodes?"},
        {"number": 4, "title": "有没有办法支持自动跳过nan的步骤"},
        # A feature-request template whose motivation cites a paper about collapse.
        {"number": 5, "title": "[algo] token-level masking",
         "body_tokens": ["Feature", "Motivation", "Collapse", "mismatch", "paper"]},
        {"number": 6, "title": "Release notes for the spring version", "body_tokens": ["fix", "hang", "in", "sync"]},
        # The body alone reports, under a plain title and outside a template.
        {"number": 7, "title": "PPO run on my dataset", "body_tokens": ["reward", "unstable", "decreasing"]},
        {"number": 8, "title": "Actor grad norm is NaN"},
    ))
    assert found["number"].to_list() == [7, 8]



@pytest.mark.parametrize(
    "title, name",
    [
        ("loss is nan with clip_mode=dual on 8 GPUs", "clip_mode"),
        ("reward collapse when running RLOOTrainer on Llama-3-8B", "RLOOTrainer"),
        ("crash in recipe/foo/foo_trainer.py: grad norm nan", "foo_trainer.py"),
        ("train/score_mean stays 0 with ABC-Loss enabled", "ABC-Loss"),  # a metric path is not it
        ("Qwen2.5-7B diverges on H100 with sglang", None),  # models, hardware, lower-case words
        ("[BUG] NaN in grad_norm after 30 steps", None),  # a logged quantity is what failed
        ("entropy collapse with verl on 4 nodes", None),  # a framework's own name
    ],
)
def test_named_implementation(title, name):
    assert pl.select(named_implementation(pl.lit(title))).item() == name


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
    {"number": 8, "title": "reward is always 0 with fused_adv_whiten on"},
)


def test_reports_linked_to_the_implementation_they_concern():
    evidence = evidence_of(COMMITS, FILES, THREADS, no_comments(), papers(), aliases())
    inclusions = inclusions_of(evidence, papers(), COMMITS, read_inclusion_overrides(Path("/nonexistent/inclusions.csv")))
    found = training_failures_of(THREADS, evidence, inclusions)
    assert found.schema == pl.Schema(CORE_TRAINING_FAILURES.schema)
    rows = {row["number"]: row for row in found.iter_rows(named=True)}
    # A feature request discussing collapse and a pull request are not reports.
    assert set(rows) == {1, 2, 3, 4, 8}
    assert (rows[1]["arxiv_id"], rows[1]["linked_by"], rows[1]["commit_sha"]) == (DAPO, "named", "c1")
    assert rows[1]["failure_kinds"] == ["collapse"]
    assert (rows[2]["arxiv_id"], rows[2]["linked_by"]) == (DR_GRPO, "named")  # the config value dr_grpo
    assert (rows[3]["arxiv_id"], rows[3]["link_key"]) == (DAPO, "dapo_ray_trainer.py")
    assert rows[3]["linked_by"] == "identifier"
    assert rows[4]["arxiv_id"] is None and rows[4]["linked_by"] is None
    assert GSPO not in found["arxiv_id"].to_list()
    # Named in the title, tied to no paper by the evidence: the name, with a null paper.
    assert (rows[8]["arxiv_id"], rows[8]["linked_by"], rows[8]["link_key"]) == (None, "identifier", "fused_adv_whiten")
