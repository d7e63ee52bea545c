"""Screening rules and feature extractors on tricky cases, and overrides winning over rules."""

import polars as pl
import pytest

from assets.papers.screening import LOSS_CHANGE_KINDS, SCREENING_OVERRIDE_COLUMNS, code_links, loss_change_kinds, only_for_general_methods, paper_screening_of, policy_sizes, read_screening_overrides, screening_rules, screening_verdicts
from tests.helpers import REPO_ROOT, shared_snapshots
from orchestration.tables import CORE_PAPER_SCREENING

NO_OVERRIDES = pl.DataFrame(schema={**SCREENING_OVERRIDE_COLUMNS, "reason": pl.Utf8})


def papers(*rows: tuple[str, str, str] | tuple[str, str, str, str | None]) -> pl.DataFrame:
    filled = [(*row, None) if len(row) == 3 else row for row in rows]
    return pl.DataFrame(
        filled, schema={"arxiv_id": pl.Utf8, "title": pl.Utf8, "abstract": pl.Utf8, "comment": pl.Utf8}, orient="row"
    ).with_columns(cohort=pl.lit("2025-Q2"))


def size_of(abstract: str, title: str = "A Method for RL") -> float | None:
    return policy_sizes(papers(("1", title, abstract)))["policy_params_b"][0]


# -- policy size ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        ("We train Qwen2.5-32B base model with our method.", 32.0),
        ("Experiments on 7B and 32B models show gains.", 32.0),
        ("Results on Qwen2.5-1.5B/3B/7B-Instruct.", 7.0),
        ("We post-train Qwen3-235B-A22B and Qwen3-30B-A3B.", 235.0),
        ("the first globally distributed RL run of a 32 billion parameter language model", 32.0),
        ("It features 1 trillion total parameters and activates approximately 50 billion per token.", 1000.0),
        ("We present Ring-1T, a thinking model.", 1000.0),
        ("scaling across six models (from 1.7B to 32B).", 32.0),
        ("Qwen3-Coder-Next is an 80-billion-parameter model that activates only 3 billion parameters.", 80.0),
        # A size right after another model's name and "and" is a size of its own.
        ("Gains hold across Zeta-9B and Zeta-40B.", 40.0),
        ("We release Orca-Lite-2B and Orca-Pro-36B checkpoints.", 36.0),
        # "Distill" inside a model's name, or the word "distillation", is no teacher.
        ("We train Nova-R1-Distill-Zeta-1.5B with our method.", 1.5),
        ("A recipe of midtraining, RL and expert distillation yields an 8B model.", 8.0),
    ],
)
def test_the_largest_trained_policy_is_found(abstract, expected):
    assert size_of(abstract) == expected


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        # A size inside a dataset's name is not a model.
        ("We fine-tune Qwen2.5-7B on the OpenR1-32B-Traces dataset.", 7.0),
        ("Trained on DeepMath-103K and Big-Math-32B data with a 1.5B model.", 1.5),
        # Compared, teacher and data-collection models are not the policy.
        ("enabling us to match 70B-parameter model performance with 8B language models.", 8.0),
        ("Our 1.7B agent beats the data collection policy Qwen 3 235B.", 1.7),
        ("outperforming much larger models (e.g., INF-ORM-Llama3.1-70B) with our 8B model.", 8.0),
        ("we distill a 670B teacher LRM into a lightweight 30B Mixture-of-Experts model (3B active).", 30.0),
        ("Our method distills a 400B model into an 8B student.", 8.0),
        ("Our 8B policy closes the gap to the much larger Zeta-72B.", 8.0),
        # ... unless the paper trains on it.
        ("our method surpasses full-gradient updates on the Qwen3-32B base model.", 32.0),
        # Token counts and active parameters are not model sizes.
        ("a 16B-parameter MoE model trained with 5.7T tokens.", 16.0),
        ("309B total parameters and 15B active parameters", 309.0),
        # ... nor are counts of labels or preference pairs.
        ("A 7B policy trained this way would need 20B human labels offline.", 7.0),
        ("We fine-tune a 3B model on 40B preference pairs.", 3.0),
    ],
)
def test_sizes_that_are_not_the_trained_policy_are_ignored(abstract, expected):
    assert size_of(abstract) == expected


def test_no_size_is_unknown_not_small():
    result = policy_sizes(papers(("1", "GSM8K and AIME24 with Qwen3", "We use GSM8K, AIME24 and MATH500.")))
    assert result.row(0, named=True) == {
        "arxiv_id": "1",
        "policy_params_b": None,
        "large_policy": None,
        "policy_size_cue": None,
    }


def test_large_policy_is_30b_or_more():
    result = policy_sizes(papers(("1", "x", "We train a 30B model."), ("2", "y", "We train a 14B model.")))
    assert result["large_policy"].to_list() == [True, False]
    assert "30B" in result["policy_size_cue"][0]


# -- loss change kind ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract", "kind"),
    [
        ("Sliding Clip Bounds for Stable RL", "We propose per-token clipping bounds that widen with the token's entropy.", "clip"),
        ("Masking Stale Tokens", "We propose to mask tokens whose ratio drifts; masking keeps the update exact.", "mask"),
        ("Balanced Updates", "We propose to reweight tokens by their probability so rare tokens count more.", "weight"),
        ("Tempered Entropy", "We propose an adaptive coefficient for the entropy bonus that tracks a target entropy.", "coefficient"),
        ("Median Baselines for Group RL", "We propose a median reward baseline for the advantage estimation of group methods.", "advantage"),
        ("Budgeted Rollouts", "We propose to allocate more rollouts to hard prompts under a fixed sampling budget.", "sampling"),
        ("Penalizing Guesswork", "We propose a reward penalty for answers reached by guessing, and a length penalty.", "reward"),
        ("Harmonic Policy Optimization", "We propose a new objective that matches the reward distribution of the group.", "new_objective"),
        ("A Study of Seeds", "We report how random seeds change results.", "other"),
        # Families with no loss term in their words.
        ("Checklist Rewards", "We propose rubric-based rewards scored by a judge for open-ended answers.", "reward"),
        ("Say Less", "We propose to penalize long answers once the problem is solved, as a soft length target.", "reward"),
        ("Quiet Prompts", "We propose a pre-rollout filter that skips uninformative prompts before generation.", "sampling"),
        ("Ladders of Hints", "We propose to inject partial solutions into rollouts with an adaptive guidance strength.", "sampling"),
        ("Few Tokens Matter", "We propose selectively updating the tokens that branch the reasoning.", "mask"),
        ("Breathing KL", "We propose GRPO with a dynamic KL strategy that loosens as training goes.", "coefficient"),
        # Vocabularies of the unseen set's kinds, on invented sentences.
        ("Old Rollouts Again", "We propose a replay buffer that keeps hard rollouts for later updates.", "sampling"),
        ("Paired Prompts", "We propose to sample one easy and one hard prompt at each update.", "sampling"),
        ("Blurred Views", "We train on rollouts from distorted inputs by data augmentation, with the usual objective.", "sampling"),
        ("Two Voices", "Each rollout is co-generated by the policy and a frozen weaker model that take turns.", "sampling"),
        ("Talk to Yourself", "One model writes tasks for itself in self-play and learns from its answers.", "sampling"),
        ("Hot and Cold", "We propose a policy over the sampling temperature at each step.", "sampling"),
        ("Second Chances", "We propose to re-generate rollouts from uncertain tokens of failed answers.", "sampling"),
        ("Entropy Thermostat", "We propose entropy calibration that keeps each position's entropy above a floor.", "coefficient"),
        ("Stable Experts", "We propose to rescale the importance ratios of routed tokens before clipping.", "weight"),
        ("Echo Scores", "We propose a reward mechanism that scores agreement between two roles.", "reward"),
        ("One Stage", "We propose a single loss that mixes supervised and reinforcement signals.", "new_objective"),
        ("Branching Out", "We propose to re-generate at uncertain pivot tokens and train on both branches.", "sampling"),
        ("No Labels Needed", "We propose a fully unsupervised recipe: the policy learns from its own agreement.", "reward"),
        ("Spread the Mass", "We propose a penalty on the policy's distribution over correct answers.", "new_objective"),
        ("Stop Rambling", "We propose a penalty on redundant steps once the answer is found.", "reward"),
        ("Stale Is Fine", "We propose to train GRPO on off-policy samples from a lagged actor.", "sampling"),
        ("Shared Prefix Advantage Splitting", "We propose to split groups at shared prefixes for GRPO.", "advantage"),
        ("Little Helpers", "We propose a hint injection framework that adds key steps while training.", "sampling"),
        ("Grown Trees", "We propose a rollout algorithm that grows tree-structured rollouts from uncertain tokens.", "sampling"),
        ("Sure Mistakes", "We propose Certainty-Weighted Negative Updates for wrong answers.", "weight"),
        ("Judged Steps", "We propose to score each wrong answer with a step-wise judge model.", "reward"),
        ("Graphs of Answers", "We propose reward prediction for unlabelled rollouts from a few labelled ones.", "reward"),
        ("Marked Mistakes", "We propose process-level supervision built by repairing wrong traces.", "reward"),
        ("Only the Good", "We propose a method where learning happens only from positive rollouts.", "mask"),
        ("Rethinking Importance Sampling for Long Outputs", "We propose cumulative per-prefix ratios for long outputs.", "weight"),
        ("Keep What You Know", "We propose a hinge-KL regularizer on solved prompts.", "coefficient"),
        # A loss-term word that qualifies a reward or whole problems retargets the cue.
        ("Sure or Unsure", "We propose a Certainty-Weighted and Clipped Reward for verifiable tasks.", "reward"),
        ("Hard Ones First", "We propose to up-weight unsolved problems by giving them extra rollouts.", "sampling"),
        ("More for the Stuck", "Our method allocates more responses to prompts the policy rarely solves.", "sampling"),
        ("Second Helpings", "We propose adaptive rollout and response reuse for sparse groups.", "sampling"),
        ("Rare Wins", "We propose a data curation step that focuses training on low-likelihood problems.", "sampling"),
        ("Even Scales", "We propose to rescale positive and negative updates by how much each moves the entropy.", "weight"),
        ("Where It Counts", "We propose to focus policy updates on high-entropy tokens near the answer.", "weight"),
        ("Sum or Mean", "We propose a length-aware loss aggregation over tokens that keeps the estimate unbiased.", "coefficient"),
        ("Human Touch", "We propose to augment verifiable rewards with a learned critic of style.", "reward"),
        ("Steady Drip", "We propose a framework that provides continuous reward signals for every step.", "reward"),
        ("Trust the Few", "We propose an algorithm that identifies reliable unlabeled samples from a few labelled ones.", "sampling"),
        ("Lean Groups", "We propose to prune completions whose advantage is near zero before the update.", "mask"),
        ("Quiet Negatives", "We propose negative token filtering so that shared steps of wrong answers are not penalised.", "mask"),
        ("Tighter Each Round", "We propose rounds of RL, each with a smaller token limit on the answer.", "reward"),
        ("Lessons Kept", "We propose a framework that prioritizes valuable experiences from earlier steps.", "sampling"),
        ("Forks in the Road", "We propose to perform targeted rollouts from uncertain positions of a trace.", "sampling"),
        ("Fewer Tokens, Same Gains", "We design methods that operate on a small, random subset of output tokens.", "mask"),
        ("Narrow Focus", "We propose to limit learning to a small subset of uncertain positions in each answer.", "mask"),
        ("Seeing Is Rewarded", "We introduce a description reward scored by a judge for each image caption.", "reward"),
        ("Weighted Drafts", "We propose to assign softmax weights to generated outputs by their advantage and entropy.", "weight"),
        ("Whole-Answer Weights", "We propose sequence weighting by uncertainty inside the group loss.", "weight"),
        ("Best of Several", "We propose a transformation of the group's final rewards so that pass@k is optimised.", "reward"),
        ("Mind the Clash", "We propose to protect shared tokens by skipping negative updates on them.", "mask"),
        ("Nosy Policies", "We propose curiosity signals from the model's own perplexity to drive exploration.", "reward"),
        ("Label What Matters", "We propose a data triage step that picks which unlabeled prompts to train on.", "sampling"),
        ("Entropy-Regularized Policy Optimization for Agents", "We propose to smooth the entropy bonus over turns.", "coefficient"),
        ("Hints for the Stuck", "We propose a second policy that is trained alongside the reasoner.", "sampling"),
        # Weights of several rewards compose the reward; redistributing it is a reward change.
        ("Moving Targets", "We propose to adapt the weights of the rewards for helpfulness and brevity online.", "reward"),
        ("Sliding Scales", "We introduce adaptive reward weighting across three objectives.", "reward"),
        ("Spread the Credit", "We redistribute the final reward over the steps of each trace.", "reward"),
        # Gating gradients or updates leaves them out; update magnitudes are weights.
        ("Know When to Stop", "We propose to gate out the updates of a reused batch once the head's norm spikes.", "mask"),
        ("Guarded Steps", "A monitor intercepts harmful gradients before the optimizer step.", "mask"),
        ("Direction and Size", "We keep the reward for the direction and set token-level update magnitudes from a teacher.", "weight"),
        # Queries are prompts; attempts after feedback are what is rolled out; a reward
        # model of several aspects is a reward change.
        ("Ask Less", "We propose active query selection so that RLVR trains on a third of the data.", "sampling"),
        ("Try Again", "The model is given multiple attempts, with feedback after each wrong one.", "sampling"),
        ("Many Scores", "We propose GRPO with a multi-aspect reward from one regression head.", "reward"),
        ("Pick the Task", "We propose online task selection from a posterior over each task's pass rate.", "sampling"),
        ("Wrong Labels Help", "We show that RL tolerates noisy rewards and propose to reward reasoning steps.", "reward"),
        ("Off the Mean", "We replace group-mean centering with a fixed offset for binary rewards.", "advantage"),
        # A verifier, rewards computed over a group and an adjusted reward are reward
        # changes; rollouts or a named sampling in the title are what is trained on.
        ("Second Opinions", "We add a small checker that recovers answers the rule-based verifier rejects.", "reward"),
        ("Together We Score", "We propose a GRPO extension that computes rewards over the group as a whole.", "reward"),
        ("Fair Shares", "We propose a diversity-aware reward adjustment for each completion.", "reward"),
        ("Calibrated Reward Models for Long Answers", "We propose a simple recipe that trains small reasoners.", "reward"),
        ("Mixing Well", "We propose to learn which data mixtures across domains help RLVR most.", "sampling"),
        ("Branched Rollouts from Expert Anchors", "We propose a simple recipe that trains small reasoners.", "sampling"),
        ("Blending Two Losses with Prefix Sampling", "We propose a simple recipe that trains small reasoners.", "sampling"),
        # The masked model being trained is not a masking method (no cue is left).
        ("Slow Diffusers", "We propose a policy gradient for masked diffusion LMs that estimates likelihoods in one pass.", "other"),
    ],
)
def test_loss_change_kind_and_its_cue(title, abstract, kind):
    row = loss_change_kinds(papers(("1", title, abstract))).row(0, named=True)
    assert row["loss_change_kind"] == kind
    assert (row["loss_change_cue"] is None) == (kind == "other")
    assert kind in LOSS_CHANGE_KINDS
    assert all(reason.split("/")[0] in LOSS_CHANGE_KINDS for reason in row["loss_change_reasons"])


def test_the_model_a_method_trains_is_not_its_change():
    result = loss_change_kinds(
        papers(("1", "Fast Denoisers", "For masked diffusion language models trained with RL, we propose to clip the ratio."))
    )
    assert result["loss_change_kind"][0] == "clip"


def test_the_kind_a_method_names_first_wins_a_tie():
    row = loss_change_kinds(
        papers(("1", "Steady Steps", "We propose to mask outlier tokens and to reweight the rest by their entropy."))
    ).row(0, named=True)
    assert row["loss_change_kind"] == "mask"
    assert {"mask/proposal", "weight/proposal"} <= set(row["loss_change_reasons"])


def test_the_base_algorithm_and_what_a_method_does_without_are_not_its_change():
    row = loss_change_kinds(
        papers(("1", "Winner Updates", "We propose a clipped surrogate objective that updates only on positive-advantage "
                "samples, without any KL regularization."))
    ).row(0, named=True)
    assert row["loss_change_kind"] == "mask"
    assert not any(reason.startswith(("clip/", "coefficient/")) for reason in row["loss_change_reasons"])


def test_a_specific_mechanism_beats_the_generic_objective():
    row = loss_change_kinds(
        papers(("1", "Tilted Signals", "We propose a variant of the RL objective that upweights negative samples."))
    ).row(0, named=True)
    assert row["loss_change_kind"] == "weight"


def test_the_means_after_through_or_via_counts_once_more():
    row = loss_change_kinds(
        papers(("1", "Even Keel", "We propose to keep entropy control steady through advantage reweighting of each token."))
    ).row(0, named=True)
    assert row["loss_change_kind"] == "weight"


def test_experiment_baselines_are_not_advantage_baselines():
    row = loss_change_kinds(
        papers(("1", "Quiet Exploration", "We propose a regularizer that keeps rare tokens alive; it beats strong baselines."))
    ).row(0, named=True)
    assert row["loss_change_kind"] == "new_objective"


def test_a_paper_that_is_not_a_general_method_has_kind_other_in_the_table():
    sample = papers(("1", "An Arena of Invented Games", "We release a new benchmark suite; agents are trained with clipping."))
    row = paper_screening_of(sample, maintainers([]), NO_OVERRIDES).row(0, named=True)
    assert (row["is_general_rl_method"], row["loss_change_kind"]) == (False, "other")
    assert "clip/own" in row["loss_change_reasons"]


# -- code release -------------------------------------------------------------------------


def test_a_code_link_is_released_code():
    row = code_links(papers(("1", "x", "Code is available at https://github.com/sail-sg/understand-r1-zero."))).row(0)
    assert row == ("1", True, "https://github.com/sail-sg/understand-r1-zero")


@pytest.mark.parametrize(
    "text",
    [
        "Our data is at https://github.com/org/OpenMath-dataset.",
        "Data: https://github.com/org/reasoning-data/tree/main",
        "See https://huggingface.co/datasets/org/math.",
        "Project page: https://mikewangwzhl.github.io/PAPO.",
        "Docs: https://verl.readthedocs.io/en/latest/algo/opo.html.",
        "A model at https://huggingface.co/nvidia/Nemotron-Research-Reasoning-Qwen-1.5B",
    ],
)
def test_links_to_data_pages_docs_or_models_are_not_code(text):
    assert code_links(papers(("1", "x", text))).row(0) == ("1", False, None)


def test_the_comment_counts_for_code_too():
    row = code_links(papers(("1", "x", "An abstract.", "We open-source it at https://github.com/MiniMax-AI/MiniMax-M1"))).row(0)
    assert row[1:] == (True, "https://github.com/MiniMax-AI/MiniMax-M1")


# -- screening ----------------------------------------------------------------------------


def test_methods_are_general_and_systems_reports_and_applications_are_not():
    result = screening_verdicts(
        papers(
            ("method", "ASPO: Asymmetric Importance Sampling Policy Optimization",
             "We propose ASPO, which flips the importance sampling ratios of positive-advantage tokens and adds a "
             "soft dual-clipping mechanism, improving RLVR on mathematical reasoning."),
            ("system", "Laminar: A Scalable Asynchronous RL Post-Training Framework",
             "We present Laminar, a system that breaks global weight synchronization to raise GPU utilization "
             "and throughput of RL post-training."),
            ("report", "Skywork Open Reasoner 1 Technical Report",
             "In this technical report we present Skywork-OR1, an open-weight 32B model trained with RL."),
            ("application", "TaoSR1: The Thinking Model for E-commerce Relevance Search",
             "We propose a framework to deploy LLMs for e-commerce search relevance with SFT, DPO and GRPO."),
            ("not rl", "Systematic Outliers in Large Language Models",
             "We analyse outliers in large language models and their causes in attention."),
        )
    )
    verdicts = dict(result.select("arxiv_id", "is_general_rl_method").iter_rows())
    assert verdicts == {"method": True, "system": False, "report": False, "application": False, "not rl": False}
    reasons = dict(result.select("arxiv_id", "screening_reasons").iter_rows())
    assert "title_policy_optimization" in reasons["method"]
    assert "-system_title" in reasons["system"]
    assert "-no_rl_context" in reasons["not rl"]
    scores = dict(result.select("arxiv_id", "screening_score").iter_rows())
    assert scores["method"] > scores["system"]


@pytest.mark.parametrize(
    ("title", "abstract", "reason"),
    [
        ("Brief When Easy: Budgeted Thinking for Reasoning Models",
         "Reasoning models overthink simple questions. We add a length penalty to the RL reward that grows with "
         "the accuracy of the policy, so easy problems get short answers.", "length_reward"),
        ("Graded by Checklists: RL for Open-Ended Writing",
         "We use rubrics written per prompt and scored by an LLM judge as the reward for reinforcement learning "
         "of language models on tasks without verifiable answers.", "reward_source"),
        ("Ask Yourself Harder Questions",
         "We train one language model as a proposer that writes problems and a solver that answers them, by "
         "reinforcement learning in self-play; the proposer is rewarded for problems of moderate difficulty.",
         "difficulty_selection"),
    ],
)
def test_general_methods_that_name_no_loss_term_are_general(title, abstract, reason):
    result = screening_rules(papers(("1", title, abstract)))
    assert result["rules_say_general"][0]
    assert reason in result["screening_reasons"][0]


def test_a_paper_whose_product_is_a_reward_model_gets_no_reward_source_cue():
    result = screening_rules(
        papers(("1", "Judges That Think: Better Generative Reward Models",
                "We train generative reward models (GRMs) with RL and report reward-model accuracy on RewardBench."))
    )
    assert "reward_source" not in result["screening_reasons"][0]


@pytest.mark.parametrize(
    "abstract",
    [
        "We propose a policy optimization algorithm with stepwise rewards for theorem proving in Lean 4.",
        "We propose a new RL algorithm with a clipped objective for text-to-SQL generation.",
        "We propose a policy optimization algorithm with dual rewards for video understanding.",
        "We propose a policy optimization algorithm for function-calling agents in airline support.",
        "We propose a new RL algorithm for customer-service agents that use tool calling.",
        "We propose a policy optimization algorithm with testbench rewards for Verilog generation.",
        "We propose a policy optimization algorithm with calibrated rewards for time-series forecasting.",
        "We propose a policy optimization algorithm with a self-reward for machine translation.",
        "We propose a policy optimization algorithm for radiology report generation.",
    ],
)
def test_formal_proofs_sql_video_and_tool_calling_are_application_domains(abstract):
    result = screening_rules(papers(("1", "Steps That Count", abstract)))
    assert "-application" in result["screening_reasons"][0]


@pytest.mark.parametrize(
    "abstract",
    [
        "In this study, we investigate how the KL term shapes RLVR, and we report what we find.",
        "We systematically examine design choices of RL for reasoning models with verifiable rewards.",
        "We conduct extensive experiments to understand entropy in RLVR and the clipping of the objective.",
    ],
)
def test_empirical_studies_are_studies(abstract):
    result = screening_rules(papers(("1", "What Happens in RL", abstract)))
    assert "-study" in result["screening_reasons"][0]


@pytest.mark.parametrize(
    ("title", "abstract", "rule"),
    [
        ("Guessing Hard Prompts", "We predict each prompt's success online and use prompt selection for RL finetuning.", "difficulty_selection"),
        ("Helping Hands", "We add partial-solution hints to hard questions during RL and withdraw them later.", "difficulty_selection"),
        ("Terse Thinking via RL", "A second RL phase on a few problems can shorten the chain of thought a lot.", "length_reward"),
        ("Think Only When Needed", "RL teaches the model when to think: a long chain for hard problems, none for easy ones.", "length_reward"),
        ("Worth a Second Look", "A bandit keeps a buffer and selects high-value rollouts for each RLVR update.", "rollout_or_prompt_selection"),
        ("Half-Solved Puzzles", "Hard questions get a partial solution prepended: question augmentation for RL.", "rollout_or_prompt_selection"),
        ("Old Answers, New Tricks", "We show that reusing stale rollouts from earlier steps trains the policy as well.", "rollout_or_prompt_selection"),
        ("Worse Mistakes", "We propose Certainty-Weighted Negative Updates that punish confident errors more in RLVR.", "proposes_algorithm"),
        ("Trim the Trace", "We prune the thinking length of a reasoning model over rounds of RL.", "length_reward"),
        ("Just Long Enough", "RL lets the model learn its own optimal reasoning length for each problem.", "length_reward"),
        ("No Judge Needed", "We propose a verifier-free RL method that learns from reference answers alone.", "reward_source"),
        ("Learning at the Edge", "We propose an online data selection rule for RL post-training of LLMs.", "rollout_or_prompt_selection"),
        ("One Loop", "We propose a schedule that interleaves SFT and RL within each training step.", "sft_rl_hybrid"),
        ("Both Teachers", "Our method unifies supervised fine-tuning and reinforcement learning in one objective.", "sft_rl_hybrid"),
        ("Where Rewards Belong: Segment Reward Redistribution", "We train reasoning models with RL.", "title_rl_mechanism"),
        ("Who Did It: Turn-Level Credit for Agents", "We train reasoning models with RL.", "title_rl_mechanism"),
        ("Say It Shorter", "RL teaches the model to generate shorter reasoning under an accuracy constraint.", "length_reward"),
        ("Grading Yourself", "We propose reinforcement learning from self-feedback for open-ended tasks.", "reward_source"),
    ],
)
def test_vocabularies_of_general_methods(title, abstract, rule):
    result = screening_rules(papers(("1", title, abstract)))
    assert rule in result["screening_reasons"][0]


@pytest.mark.parametrize(
    "abstract",
    [
        "We propose a learning rate (LR) scheduler that decays when responses grow, for RLVR.",
        "We propose an actor-critic method with a shared critic for several cooperating language models.",
    ],
)
def test_schedules_and_critics_are_algorithm_cues(abstract):
    result = screening_rules(papers(("1", "Steadier Training", abstract)))
    assert "proposes_algorithm" in result["screening_reasons"][0]


@pytest.mark.parametrize(
    "title",
    [
        "Clipping in RLVR: A Comprehensive Empirical Investigation",
        "Damped Rewards: A Closed-Form Model of Reward Curves",
        "Learning to Reason from First Principles: A Derivation",
        "One Loss to Rule Them: A Theoretical Unification of Preference Optimization",
    ],
)
def test_a_study_or_theory_by_its_title_is_not_a_method(title):
    abstract = "We model how GRPO's reward rises during RLVR and test the predictions on math problems."
    row = verdict_of(title, abstract)
    assert "-study_title" in row["screening_reasons"] and not row["rules_say_general"]
    assert verdict_of("Rewards Over Time", abstract)["screening_score"] > row["screening_score"]


def test_reinforcement_in_a_title_is_not_reinforce():
    result = screening_rules(papers(("1", "History Rhymes: Accelerating LLM Reinforcement Learning with RhymeRL", "")))
    assert "title_policy_optimization" not in result["screening_reasons"][0]


# -- the table and its overrides ----------------------------------------------------------


def maintainers(rows: list[tuple[str, str | None, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema={"arxiv_id": pl.Utf8, "maintainer_company": pl.Utf8, "affiliation_source": pl.Utf8}, orient="row"
    )


def overrides(*rows: dict) -> pl.DataFrame:
    return pl.DataFrame([{**{c: None for c in NO_OVERRIDES.columns}, **row} for row in rows], schema=NO_OVERRIDES.schema)


SAMPLE = papers(
    ("2503.14476", "DAPO: An Open-Source LLM RL System", "We propose the DAPO algorithm with clip-higher, on Qwen2.5-32B."),
    ("2506.10910", "Magistral", "We introduce Magistral, Mistral's first reasoning model, trained with RL."),
)


def test_the_table_has_the_contract_columns_and_rule_verdicts():
    result = paper_screening_of(SAMPLE, maintainers([("2503.14476", "ByteDance", "override")]), NO_OVERRIDES)
    assert result.schema == pl.Schema(CORE_PAPER_SCREENING.schema)
    dapo = result.row(0, named=True)
    assert dapo["verdict_source"] == "rules" and dapo["overridden"] == []
    assert dapo["maintainer_company"] == "ByteDance"
    assert result.row(1, named=True)["maintainer_company"] is None


def test_overrides_win_over_rules_and_say_so():
    result = paper_screening_of(
        SAMPLE,
        maintainers([]),
        overrides(
            {"arxiv_id": "2506.10910", "is_general_rl_method": True, "policy_params_b": 24.0, "reason": "checked the PDF"},
            {"arxiv_id": "2503.14476", "loss_change_kind": "mask", "code_url": "https://github.com/x/y", "reason": "r"},
        ),
    )
    magistral = result.filter(pl.col("arxiv_id") == "2506.10910").row(0, named=True)
    assert magistral["is_general_rl_method"] is True
    assert magistral["verdict_source"] == "override"
    assert (magistral["policy_params_b"], magistral["large_policy"], magistral["policy_size_cue"]) == (24.0, False, "override")
    assert magistral["overridden"] == ["is_general_rl_method", "policy_params_b"]
    assert magistral["override_reason"] == "checked the PDF"
    dapo = result.filter(pl.col("arxiv_id") == "2503.14476").row(0, named=True)
    assert dapo["verdict_source"] == "rules"  # the verdict itself came from the rules
    assert dapo["is_general_rl_method"] is True
    assert (dapo["loss_change_kind"], dapo["code_released"], dapo["code_url"]) == ("mask", True, "https://github.com/x/y")


def test_an_override_can_say_no_code_was_released():
    sample = papers(("1", "X", "We propose a clipping algorithm. Code: https://github.com/org/data-and-code"))
    result = paper_screening_of(sample, maintainers([]), overrides({"arxiv_id": "1", "code_released": False, "reason": "r"}))
    assert result.select("code_released", "code_url").row(0) == (False, None)


def test_the_repository_screening_overrides_are_valid():
    frame = read_screening_overrides(REPO_ROOT / "overrides" / "screening.csv")
    assert frame.height > 0 and frame["reason"].str.len_chars().min() > 10


@pytest.mark.snapshots
def test_the_rules_reach_the_targets_on_the_hand_labelled_snapshot():
    import importlib.util

    snapshot = shared_snapshots()
    spec = importlib.util.spec_from_file_location("screening_eval", REPO_ROOT / "bench" / "screening_eval.py")
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    labels = pl.read_csv(harness.DEFAULT_LABELS, schema=harness.LABEL_SCHEMA)
    assert labels.height >= 60
    figures = harness.evaluate(labels, harness.predictions(harness.snapshot_papers(snapshot)))
    # The model was trained on these labels (its F1 is a fit); the rules alone must hold too.
    assert figures["f1"] >= 0.85 and figures["rules_f1"] >= 0.85
    assert figures["large_policy_accuracy"] >= 0.9


# -- general rules, on invented sentences ---------------------------------------------------


def verdict_of(title: str, abstract: str) -> dict:
    """The rules' verdict, score and reasons (the learned model is tested on its own)."""
    return screening_rules(papers(("1", title, abstract))).row(0, named=True)


def test_a_model_report_that_introduces_a_general_algorithm_is_screened_on_it():
    row = verdict_of(
        "Zorba-K3: Scaling Long Reasoning with Sparse Experts",
        "We introduce Zorba-K3, our open-weight reasoning model with 120 billion total parameters. "
        "In addition, we propose WXPO, a novel RL algorithm that rescales importance weights per sequence.",
    )
    assert row["rules_say_general"] and "named_rl_algorithm" in row["screening_reasons"]
    # Screened on the method: the report rules say nothing.
    assert "-model_report_title" not in row["screening_reasons"] and "-model_report" not in row["screening_reasons"]


def test_an_enumerated_contribution_of_a_report_can_be_the_general_method():
    row = verdict_of(
        "Climbing Higher: Training a Trillion-Parameter Thinker",
        "We present Quill, an open model with 900 billion total parameters. We pioneer three innovations: "
        "(1) Tamp stabilizes RL training via token-level masking of mismatched probabilities; "
        "(2) Sift improves rollout throughput; and (3) Loom, an RL system for large clusters.",
    )
    assert row["rules_say_general"] and "enumerated_rl_contribution" in row["screening_reasons"]


def test_a_model_report_without_a_method_stays_a_report():
    row = verdict_of(
        "Orin-V2.5: An Open Model for Agents",
        "We present Orin-V2.5, our latest open-weight model, trained with large-scale reinforcement learning on agent tasks.",
    )
    assert not row["rules_say_general"]
    assert "-model_report_title" in row["screening_reasons"] and "-model_report" in row["screening_reasons"]


@pytest.mark.parametrize(
    ("title", "abstract", "reason"),
    [
        ("Teaching Small Students with Wordpiece Bridges for Distillation",
         "We align student and teacher distributions with a new loss for distillation across vocabularies.",
         "-supervised_title"),
        ("A Better SFT Loss for Reasoning",
         "We present a simple improvement to supervised fine-tuning that rescales the loss of each token.",
         "-not_rl_training"),
        ("A Survey of Policy Optimization for Reasoning Models",
         "This survey reviews clipping, advantage estimation and reward design in RL for language models.",
         "-survey_or_benchmark_title"),
        ("PuzzleBench: Verifiable Puzzles for RL Training",
         "We release a new benchmark of puzzles with verifiable rewards for policy optimization.",
         "-survey_or_benchmark_title"),
        ("Denoising Rewards for Image Generators",
         "We fine-tune flow-matching image generators with policy gradients on a reward model.",
         "-not_rl_training"),
    ],
)
def test_training_that_is_not_rl_of_language_models_is_not_general(title, abstract, reason):
    row = verdict_of(title, abstract)
    assert not row["rules_say_general"] and reason in row["screening_reasons"]


def test_distillation_with_rl_in_the_title_is_not_ruled_out():
    row = verdict_of(
        "Policy Distillation with Verifiable Rewards",
        "We propose a novel RL algorithm that distills a teacher's token probabilities into the policy gradient objective.",
    )
    assert row["rules_say_general"] and "-supervised_title" not in row["screening_reasons"]


def test_an_rl_method_for_one_application_domain_is_not_general():
    row = verdict_of(
        "Summarizing Clinical Notes with Reinforcement Learning",
        "We train a summarizer of clinical notes with a clipped objective and a reward from physicians' edits.",
    )
    assert not row["rules_say_general"] and "-application" in row["screening_reasons"]


@pytest.mark.parametrize(
    "title",
    [
        "Ratio-Balanced Policy Optimization for Text2SQL Generation",
        "Property-Guided Policy Optimization for Molecule Editing with LLMs",
        "Step-Checked Policy Optimization for Formal Proofs in Lean",
        "StepFind: Sharper Search Ability for LLMs via Ratio-Balanced Policy Optimization",
        "Ratio-Balanced Policy Optimization for Role-Playing Dialogue",
        "Ratio-Balanced Policy Optimization for Speech Understanding",
    ],
)
def test_a_title_that_names_one_domain_makes_an_algorithm_an_application(title):
    abstract = "We train the policy with GRPO and a reward for valid outputs."
    row = verdict_of(title, abstract)
    assert not row["rules_say_general"] and "-task_specific" in row["screening_reasons"]
    assert verdict_of("Ratio-Balanced Policy Optimization", abstract)["rules_say_general"]


def test_grounded_reasoning_and_open_weight_baselines_are_not_an_application_or_a_report():
    row = verdict_of(
        "Anchored Advantages",
        "We propose a novel RL algorithm that keeps the policy grounding its reasoning in the question; "
        "it improves several open-weight LLMs on RLVR benchmarks.",
    )
    assert row["rules_say_general"]
    assert "-application" not in row["screening_reasons"] and "-model_report" not in row["screening_reasons"]


def test_a_domain_word_must_be_a_word_of_the_title():
    row = verdict_of("Guiding Policy Optimization to Imagined Baselines", "We train the policy with GRPO and a reward for valid outputs.")
    assert "-task_specific" not in row["screening_reasons"]


def test_curriculum_scheduling_is_not_a_system():
    row = verdict_of("Paced Curricula", "We propose an RL framework with adaptive curriculum scheduling of problems for LLM reasoning.")
    assert "-system_proposed" not in row["screening_reasons"]
    row = verdict_of("Fast Rollouts", "We propose request scheduling across GPUs for RL training of LLMs.")
    assert "-system_proposed" in row["screening_reasons"]


def test_a_question_for_a_title_counts_against_a_method():
    row = verdict_of("Does RL Forget Less than SFT?", "We compare forgetting under RL and SFT with a KL analysis.")
    assert "-question_title" in row["screening_reasons"]


@pytest.mark.parametrize(
    ("abstract", "is_report"),
    [
        ("We present Orca-9, a 120-billion-parameter open model for agents.", True),
        ("The model, with a total of 300 billion parameters, is trained with RL.", True),
        # Sizes of the models a method trains are not a report's model.
        ("Small models (1.5 billion to 7 billion parameters) trained with our method beat larger ones.", False),
        ("Tiny LLMs with 1 billion parameters or fewer gain most.", False),
    ],
)
def test_a_models_parameter_count_is_a_report_cue_only_for_its_own_model(abstract, is_report):
    result = screening_rules(papers(("1", "A Method", abstract)))
    assert ("-model_report" in result["screening_reasons"][0]) == is_report


def test_rl_outside_language_models_is_not_general():
    row = verdict_of(
        "Clipped Advantage Policy Optimization for Quadruped Locomotion",
        "We propose a novel RL algorithm that clips the advantage for legged robots in simulation and on hardware.",
    )
    assert not row["rules_say_general"] and "-not_language_models" in row["screening_reasons"]


@pytest.mark.parametrize(
    ("title", "abstract", "kind", "cue"),
    [
        # No loss term named, but a screening family that is one.
        ("Think Only When Needed", "RL teaches the model when to think, and for how long.", "reward", "family"),
        # No cue at all: for a general method, a new algorithm as a whole changes the objective.
        ("Learning from Letters", "We propose a new way to train reasoning models from written comments.", "other", None),
    ],
)
def test_a_method_that_names_no_loss_term_takes_its_family_or_the_objective(title, abstract, kind, cue):
    row = loss_change_kinds(papers(("1", title, abstract))).row(0, named=True)
    assert (row["loss_change_kind"], row["loss_change_cue"]) == (kind, cue)
    stored = pl.select(only_for_general_methods(pl.lit(row["loss_change_kind"]), pl.lit(True))).item()
    assert stored == ("new_objective" if kind == "other" else kind)
