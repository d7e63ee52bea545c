"""Method names from titles and abstracts, their spellings, ambiguity, case rules and overrides."""

import polars as pl
import pytest

from assets.papers.aliases import ALIAS_OVERRIDE_COLUMNS, ESTABLISHED_NAMES, normalized_name, paper_aliases_of, read_alias_overrides
from tests.helpers import REPO_ROOT
from orchestration.tables import CORE_PAPER_ALIASES

NO_OVERRIDES = pl.DataFrame(schema={**ALIAS_OVERRIDE_COLUMNS, "reason": pl.Utf8})


def papers(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"arxiv_id": pl.Utf8, "title": pl.Utf8, "abstract": pl.Utf8}, orient="row")


def overrides(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame([(*row, "a reason") for row in rows], schema=NO_OVERRIDES.schema, orient="row")


def names(frame: pl.DataFrame, arxiv_id: str, *, variants: bool = False) -> dict[str, str]:
    """The rules' names of one paper (and their spellings with `variants`): these tests
    are of the rules; the names the learned model adds are tested in test_name_model.py."""
    rows = frame.filter(pl.col("arxiv_id") == arxiv_id)
    learned = rows.filter(pl.col("source") == "learned").select("normalized")
    rows = rows.join(learned, on="normalized", how="anti")
    if not variants:
        rows = rows.filter(pl.col("source") != "variant")
    return dict(rows.select("alias", "source").iter_rows())


def test_the_table_has_exactly_the_contract_columns():
    result = paper_aliases_of(papers(("2503.1", "DAPO: An Open-Source System", "")), NO_OVERRIDES)
    assert result.schema == pl.Schema(CORE_PAPER_ALIASES.schema)
    assert result.columns == ["arxiv_id", "alias", "normalized", "source", "ambiguous", "case_sensitive"]


def test_title_prefix_title_acronym_proposal_and_naming_rules():
    result = paper_aliases_of(
        papers(
            ("1", "DAPO: An Open-Source LLM Reinforcement Learning System at Scale", "We release it."),
            ("2", "Group Sequence Policy Optimization", "This paper introduces Group Sequence Policy Optimization (GSPO), our algorithm."),
            ("3", "A Simple Approach", "To solve this, we introduce REINFORCE++, a critic-free framework."),
            ("4", "The Entropy Mechanism", "Specifically, we propose two simple yet effective techniques, namely Clip-Cov and KL-Cov."),
            ("5", "GTPO and GRPO-S: Token and Sequence-Level Reward Shaping", ""),
            ("6", "Learning to Reason without Rewards", "We propose Intuitor, an RLIF method that uses self-certainty."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"DAPO": "title_prefix"}
    assert names(result, "2") == {"GSPO": "acronym", "Group Sequence Policy Optimization": "long_form"}
    assert names(result, "3") == {"REINFORCE++": "we_propose"}
    assert names(result, "4") == {"Clip-Cov": "named", "KL-Cov": "named"}
    assert names(result, "5") == {"GTPO": "title_prefix", "GRPO-S": "title_prefix"}
    assert names(result, "6") == {"Intuitor": "we_propose"}


def test_phrases_are_not_names():
    result = paper_aliases_of(
        papers(
            ("1", "Understanding R1-Zero-Like Training: A Critical Perspective", ""),
            ("2", "Part II: ROLL Flash -- Accelerating RLVR", ""),
            ("3", "Clipping Bottleneck: Stabilizing RLVR", ""),
            ("4", "Orchestrating Tokens and Sequences: Dynamic Hybrid Policy Optimization", ""),
            # The start of a long form is not a name: "Group-in-Group" runs on into "Policy".
            ("5", "Training LLM Agents", "In this work, we propose Group-in-Group Policy Optimization (GiGPO), a novel RL algorithm."),
            # A parenthesised acronym outside a sentence that proposes something is a citation.
            ("6", "A Study of Things", "Some popular examples include Simple Preference Optimization (SimPO) and TOPLOC (TPL)."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {}
    assert names(result, "2") == {}
    assert names(result, "3") == {}
    assert names(result, "4") == {}
    assert names(result, "5") == {"GiGPO": "acronym", "Group-in-Group Policy Optimization": "long_form"}
    assert names(result, "6") == {}


def test_field_terms_model_names_and_run_on_words_are_not_a_papers_names():
    result = paper_aliases_of(
        papers(
            # "On-Policy" runs on into the all-capital "RL": the start of the long form.
            ("1", "On-Policy RL with Optimal Reward Baseline", "In this work, we propose On-Policy RL with Optimal reward baseline (OPO), a novel algorithm."),
            # A term the sentence defines for someone else's method, after an acronym's "(RL)." ending.
            ("2", "KDRL: Unified Distillation and RL", "We present KDRL, a framework that joins KD and RL (RL). Specifically, KDRL minimizes the reverse KL divergence (RKL)."),
            # A model the paper releases names the artifact, not a method.
            ("3", "Muon is Scalable for LLM Training", "Based on these improvements, we introduce Moonlight, a 3B/16B-parameter Mixture-of-Expert (MoE) model trained with Muon."),
            # Acronyms of a sentence about other work, not the authors' own.
            ("4", "Uniform Diffusion Models Revisited", "In Masked Diffusion Models (MDM) these choices coincide, whereas in Uniform Diffusion Models (UDM) they do not, as presented before."),
            # A system's own novel paradigm still counts.
            ("5", "MiMo Technical Report", "To scale post-training, MiMo introduces a novel Multi-Teacher On-Policy Distillation (MOPD) paradigm."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"OPO": "acronym"}
    assert names(result, "2") == {"KDRL": "title_prefix"}
    assert names(result, "3") == {}
    assert names(result, "4") == {}
    assert names(result, "5") == {"MOPD": "acronym", "Multi-Teacher On-Policy Distillation": "long_form"}


def test_a_novel_algorithm_named_in_a_sentence_without_a_proposal_verb_counts():
    result = paper_aliases_of(
        papers(
            ("1", "Let It Flow", "Our approach includes a novel policy optimization algorithm, Interaction-based Policy Alignment (IPA), which assigns credit over chunks."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"IPA": "acronym", "Interaction-based Policy Alignment": "long_form"}


def test_established_names_are_never_aliases_unless_an_override_adds_them():
    rows = papers(
        ("1", "GRPO: revisited", "We propose GRPO (GRPO) and we introduce PPO, a method; (RLHF) is named RL."),
        ("2", "SEED-GRPO: Semantic Entropy Enhanced GRPO", "We propose SEED-GRPO (Semantic Entropy EnhanceD GRPO)."),
    )
    assert names(paper_aliases_of(rows, NO_OVERRIDES), "1") == {}
    # Containing an established name is not being one.
    assert names(paper_aliases_of(rows, NO_OVERRIDES), "2") == {
        "SEED-GRPO": "title_prefix", "Semantic Entropy EnhanceD GRPO": "long_form"
    }
    added = paper_aliases_of(rows, overrides(("1", "GRPO", "add")))
    assert names(added, "1") == {"GRPO": "override"}
    assert {"PPO", "GRPO", "DPO", "RLOO", "ReMax", "REINFORCE", "KL", "RL", "LLM", "SFT", "RLHF"} <= ESTABLISHED_NAMES


def test_acronyms_inside_words_are_not_taken_and_plural_acronyms_lose_their_s():
    result = paper_aliases_of(
        papers(
            ("1", "Reward Modeling as Reasoning", "We introduce a new class, Reasoning Reward Models (ReasRMs), trained with RL."),
            ("2", "A Study of Things", "We present RLSPlike results and propose (PPOs) to be (LLMs)."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"ReasRM": "acronym", "Reasoning Reward Models": "long_form"}
    # "RLSPlike" is one word, so no name "RLSP" comes out of it; plural established names stay out.
    assert "RLSP" not in names(result, "2")
    assert "PPO" not in names(result, "2") and "LLM" not in names(result, "2")


@pytest.mark.parametrize("spelling", ["Dr. GRPO", "Dr.GRPO", "dr_grpo", "drgrpo", "Dr GRPO", "dr-grpo"])
def test_dr_grpo_spellings_share_one_normalized_name(spelling):
    result = paper_aliases_of(
        papers(("2503.20783", "Understanding R1-Zero-Like Training: A Critical Perspective",
                "To address this, we introduce Dr. GRPO, an unbiased optimization method.")),
        NO_OVERRIDES,
    )
    assert set(result["alias"]) == {"Dr. GRPO", "dr_grpo", "drgrpo"}
    assert set(result["normalized"]) == {"drgrpo"}
    assert pl.select(normalized_name(pl.lit(spelling))).item() == "drgrpo"


def test_reinforce_plus_plus_has_a_snake_case_variant_and_keeps_its_pluses():
    result = paper_aliases_of(papers(("2501.03262", "REINFORCE++: A Simple and Efficient Approach", "")), NO_OVERRIDES)
    rows = {alias: (normalized, source) for alias, normalized, source in result.select("alias", "normalized", "source").iter_rows()}
    assert rows == {
        "REINFORCE++": ("reinforce++", "title_prefix"),
        "reinforce_plus_plus": ("reinforceplusplus", "variant"),
    }


def test_a_name_claimed_by_two_papers_is_ambiguous_for_both():
    result = paper_aliases_of(
        papers(
            ("1", "Perception-Aware Policy Optimization", "We propose Perception-Aware Policy Optimization (PAPO), an extension of GRPO."),
            ("2", "Entropy Polarity in Fine-Tuning", "We introduce Polarity-Aware Policy Optimization (PAPO) for entropy control."),
            ("3", "VAPO: Efficient RL", ""),
        ),
        NO_OVERRIDES,
    )
    acronyms = result.filter(pl.col("source").is_in(["acronym", "title_prefix"]))
    ambiguous = dict(acronyms.select("arxiv_id", "ambiguous").iter_rows())
    assert ambiguous == {"1": True, "2": True, "3": False}


def test_short_all_capital_acronyms_are_case_sensitive():
    result = paper_aliases_of(
        papers(
            ("1", "PRIME: x", ""),
            ("2", "DeepEyes: x", ""),
            ("3", "INTELLECT-2: x", ""),
            ("4", "Dr. GRPO: x", ""),
            ("5", "CE-GPPO: x", ""),
        ),
        NO_OVERRIDES,
    )
    flags = dict(result.filter(pl.col("source") != "variant").select("alias", "case_sensitive").iter_rows())
    assert flags == {"PRIME": True, "DeepEyes": False, "INTELLECT-2": False, "Dr. GRPO": False, "CE-GPPO": True}
    # A lower-case copy of an acronym would be an English word ("prime"): not a variant.
    assert "prime" not in result["alias"].to_list()


def test_override_removal_drops_the_name_and_its_variants():
    rows = papers(("2506.06122", "Reinforcement Learning Optimization", "We introduce ROLL, an efficient library."),
                  ("9", "SEED-GRPO: x", ""))
    assert "ROLL" in names(paper_aliases_of(rows, NO_OVERRIDES), "2506.06122")
    result = paper_aliases_of(rows, overrides(("2506.06122", "roll", "remove"), ("9", "seed_grpo", "remove")))
    assert result.filter(pl.col("arxiv_id") == "2506.06122").height == 0
    assert result.filter(pl.col("arxiv_id") == "9").height == 0


def test_a_one_word_title_is_a_name():
    result = paper_aliases_of(papers(("2506.10910", "Magistral", "We introduce Magistral, a reasoning model.")), NO_OVERRIDES)
    assert names(result, "2506.10910") == {"Magistral": "title_prefix"}


def test_one_row_per_paper_and_alias():
    result = paper_aliases_of(
        papers(("1", "DAPO: x", "We propose the Decoupled Clip and Dynamic sAmpling Policy Optimization (DAPO) algorithm.")),
        overrides(("1", "DAPO", "add")),
    )
    assert result.filter(pl.col("normalized") == "dapo").rows() == [("1", "DAPO", "dapo", "override", False, True)]
    assert result.select("arxiv_id", "alias").is_unique().all()


def test_the_repository_alias_overrides_are_valid():
    frame = read_alias_overrides(REPO_ROOT / "overrides" / "aliases.csv")
    assert frame.height > 0
    assert frame["reason"].str.len_chars().min() > 10


# -- names wherever a paper introduces them, on invented sentences ----------------------


def test_long_forms_and_parenthesised_names():
    result = paper_aliases_of(
        papers(
            ("1", "Steady Climbing", "We propose Bounded Ratio Policy Optimization (BRPO), a new algorithm."),
            # The run is cut after "and" where it does not start with the acronym's letter.
            ("2", "Quiet Tokens", "We propose two methods: Signal Damping and Rare-Token Shielding (Rats), for RL."),
            # The long form inside the parenthesis, after the name.
            ("3", "Fewer Rollouts", "We introduce KOPS (Keep Only Promising Samples), a sampling rule."),
            # Two names in one parenthesis.
            ("4", "Signals Apart", "We propose to split the signal into Up and Down Reinforcement (UPR and DNR)."),
            # Examples are citations, and the long form of an established acronym is jargon.
            ("5", "A Note", "We propose a tweak to methods (e.g., FOOPO) built on Group Relative Policy Optimization (GRPO)."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"BRPO": "acronym", "Bounded Ratio Policy Optimization": "long_form"}
    assert names(result, "2") == {"Rats": "acronym", "Rare-Token Shielding": "long_form"}
    assert names(result, "3") == {"KOPS": "we_propose", "Keep Only Promising Samples": "long_form"}
    assert names(result, "4") == {"UPR": "acronym", "DNR": "acronym"}
    assert names(result, "5") == {}


def test_names_after_a_method_noun_of_several_words_and_in_enumerations():
    result = paper_aliases_of(
        papers(
            ("1", "Picking Prompts", "We also propose a novel prompt-ranking method, Pre-Rank, to keep diversity."),
            ("2", "Faster Loops", "We present Zeta Flash, a system that overlaps rollouts with training."),
            ("3", "A Fresh Paradigm", "We propose a new paradigm called Quiet Storm, in which a model teaches itself."),
            ("4", "A Trillion Steps", "To address these, we pioneer three innovations: (1) TamPo stabilizes RL training via masking; "
             "(2) K9PO++ improves rollout use; and (3) BSystem, a framework for large clusters."),
            ("5", "Synthetic Tasks", "Our system, OmegaForge, is an engine that writes tasks. It helps."),
            ("6", "This motivates us", "This motivates us to propose a new method, SWERVE, which reweights tokens."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"Pre-Rank": "we_propose"}
    assert names(result, "2") == {"Zeta Flash": "long_form"}
    assert names(result, "3") == {"Quiet Storm": "long_form"}
    assert names(result, "4") == {"TamPo": "enumerated", "K9PO++": "enumerated", "BSystem": "enumerated"}
    assert names(result, "5") == {"OmegaForge": "named"}
    assert names(result, "6") == {"SWERVE": "we_propose"}


def test_a_short_acronym_with_a_digit_is_a_case_sensitive_name():
    result = paper_aliases_of(
        papers(("1", "Replaying Routes", "We propose Route Echo Replay (Q7), which replays the routes of the rollout.")), NO_OVERRIDES
    )
    rows = result.filter(pl.col("alias") == "Q7")
    assert rows.select("source", "case_sensitive").row(0) == ("acronym", True)


def test_the_last_of_several_named_names_and_no_names_from_a_citing_sentence():
    result = paper_aliases_of(
        papers(
            ("1", "Two Knobs", "We propose two techniques, namely Tilt-Up and Tilt-Down, which steer entropy."),
            ("2", "A Report", "We propose Route Echo Replay (REX) (Smith et al., 2025) for our model."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"Tilt-Up": "named", "Tilt-Down": "named"}
    assert names(result, "2") == {}


def test_a_titles_long_form_after_the_name_and_capitals_inside_words():
    result = paper_aliases_of(
        papers(
            ("1", "QRPO: Quantile-Ranked Policy Optimization for Long Reasoning", ""),
            # A title's phrase after the name is not its long form.
            ("2", "AsyncZed: A Large-Scale Asynchronous RL System for Agents", ""),
            # A capital inside a word marks the acronym's letter.
            ("3", "Mixing Sources", "We propose Mixed sOurce Policy Optimization (MOPO), a new algorithm."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"QRPO": "title_prefix", "Quantile-Ranked Policy Optimization": "long_form"}
    assert names(result, "2") == {"AsyncZed": "title_prefix"}
    assert names(result, "3") == {"MOPO": "acronym", "Mixed sOurce Policy Optimization": "long_form"}


def test_a_long_form_in_apposition_and_names_hidden_in_latex():
    result = paper_aliases_of(
        papers(
            ("1", "Seeing Zones", "We propose V-Zed, a Visual Zone Estimation Dance methodology for multimodal RL."),
            ("2", "Variance Brakes", "We introduce ${\\bf K}^3{\\bf RPO}$ (Kappa-Cubed Ratio Policy Optimization), a new method."),
            ("3", "Quantile Baselines", "We propose {Quantile Ratio Estimation} (QRE), replacing the mean with a quantile."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"V-Zed": "we_propose", "Visual Zone Estimation Dance": "long_form"}
    assert names(result, "2") == {"K3RPO": "we_propose", "Kappa-Cubed Ratio Policy Optimization": "long_form"}
    assert names(result, "3") == {"QRE": "acronym", "Quantile Ratio Estimation": "long_form"}


def test_a_long_form_in_lower_case_whose_initials_spell_the_acronym():
    result = paper_aliases_of(
        papers(
            ("1", "Gradients Revisited", "We propose tempered policy gradient (TPG), a framework for KL-regularized RL."),
            ("2", "Echoes in Code", "We propose simple self-echoing (SSE) for code models, and we test it (TIT)."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"TPG": "acronym", "tempered policy gradient": "long_form"}
    assert names(result, "2") == {"SSE": "acronym", "simple self-echoing": "long_form", "TIT": "acronym"}


def test_released_sizes_of_a_papers_own_name_are_its_names_too():
    result = paper_aliases_of(
        papers(
            ("1", "Zephyrix: Reasoning From Scratch",
             "We train Zephyrix-7B and Zephyrix-7B-RL; the final Zephyrix-Coder-14B beats Qwen2.5-32B."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {
        "Zephyrix": "title_prefix",
        "Zephyrix-7B": "named",
        "Zephyrix-7B-RL": "named",
        "Zephyrix-Coder-14B": "named",
    }


def test_long_forms_with_small_words_in_titles_set_off_by_commas_and_at_the_core_of_a_method():
    result = paper_aliases_of(
        papers(
            ("1", "RLXR: Reinforcement Learning from eXtra Rewards", ""),
            ("2", "Zig Zag", "We propose DiZZPO, Diffusion Zig Zag Policy Optimization, a framework for dLLMs."),
            ("3", "Split Decisions",
             "At the core of our method is a Split Group Relative Policy Optimization (SpGRPO) algorithm."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"RLXR": "title_prefix", "Reinforcement Learning from eXtra Rewards": "long_form"}
    assert names(result, "2") == {"DiZZPO": "we_propose", "Diffusion Zig Zag Policy Optimization": "long_form"}
    assert names(result, "3")["SpGRPO"] == "acronym"
    assert names(result, "3")["Split Group Relative Policy Optimization"] == "long_form"


def test_the_long_form_of_a_plural_field_acronym_is_not_a_name():
    result = paper_aliases_of(
        papers(("1", "Seeing More", "We propose a recipe for multimodal large language models (MLLMs) and language models (LMs).")),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {}


def test_a_variant_of_an_own_name_joined_by_a_hyphen_and_a_name_before_a_dash():
    result = paper_aliases_of(
        papers(
            ("1", "Hints at Work",
             "We derive Nudge – a new class of online algorithms. Nudge-GRPO and Nudge-tree beat GRPO; "
             "Nudge-based training and Nudge-style hints are no names."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"Nudge": "we_propose", "Nudge-GRPO": "named", "Nudge-tree": "named"}


def test_a_long_form_after_a_colon_can_end_the_sentence():
    result = paper_aliases_of(
        papers(("1", "Fixing Broken Steps", "To fix this, we propose PURR: Process sUpervised Reward Relabelling. It works.")),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"PURR": "we_propose", "Process sUpervised Reward Relabelling": "long_form"}


def test_a_whole_long_form_in_parentheses_after_its_name_with_small_and_lower_case_words():
    result = paper_aliases_of(
        papers(
            ("1", "Calm Updates", "We introduce TIDE (Token-level Importance with Dampened Entropy), a simple fix."),
            # Not split at its "and" into two names.
            ("2", "Tools for Agents", "We introduce MAST (Multi-step Acting and Search Tuning for Agents), a framework."),
            ("3", "Less Noise", "We propose vQX (Quiet eXploration with a control variate), which cuts variance."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1")["Token-level Importance with Dampened Entropy"] == "long_form"
    assert names(result, "2") == {"MAST": "we_propose", "Multi-step Acting and Search Tuning for Agents": "long_form"}
    assert names(result, "3")["Quiet eXploration with a control variate"] == "long_form"


def test_a_long_form_spelled_by_capitals_inside_words_and_a_two_letter_acronym_spelled_out():
    result = paper_aliases_of(
        papers(
            ("1", "Short Context", "We propose COmpression guided Rollout Editing (CORE), an RL algorithm."),
            ("2", "Seeded Groups", "We propose Anchor Seeding (AS), which replays prefixes. We tune the Learning Rate (LR)."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1")["COmpression guided Rollout Editing"] == "long_form"
    assert names(result, "2") == {"AS": "acronym", "Anchor Seeding": "long_form"}


def test_a_long_form_before_namely_a_name_and_split_capitals_rejoined():
    result = paper_aliases_of(
        papers(
            ("1", "Fine Shaping",
             "We propose a Balanced and Bounded token-level Credit method for Policy Optimization, namely B2CPO, for RLVR."),
            ("2", "Better Plans", "This paper proposes a novel Guided Rollout EXpansion framework, denoted as GREX-Agent, for search."),
            ("3", "Small Steps", "We propose S tepwise G ain E stimation (SGE), which rewards progress."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1")["Balanced and Bounded token-level Credit method for Policy Optimization"] == "long_form"
    assert names(result, "2")["Guided Rollout EXpansion"] == "long_form"
    assert names(result, "3") == {"SGE": "acronym", "Stepwise Gain Estimation": "long_form"}


def test_names_set_in_bold_and_things_the_authors_build():
    result = paper_aliases_of(
        papers(
            ("1", "Two Critics", "We propose two variants, \\textbf{DuoAC-S} with a shared critic and \\textbf{DuoAC-P} with private ones."),
            ("2", "A Trainer", "We build Stratus, a training framework for diffusion models."),
        ),
        NO_OVERRIDES,
    )
    assert {"DuoAC-S", "DuoAC-P"} <= set(names(result, "1"))
    assert names(result, "2") == {"Stratus": "we_propose"}


def test_lower_case_prefixed_names_our_model_and_trained_names():
    result = paper_aliases_of(
        papers(
            ("1", "Fewer Samples", "We propose kQL (Keyed Quantile Learning), which cuts variance."),
            ("2", "qMaze-Agent: A Report on Agents", "We release the weights."),
            ("3", "Cheap Gains", "With verifiable pairs, our model Orca-VP matches RL; our derived Orca-Coder-4B wins."),
            ("4", "Tools and Tables", "With GymX, we train Tern-R1 to call tools; Tern-R1-8B leads. Our Tern-trained model and our TernBench stay out."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {"kQL": "we_propose", "Keyed Quantile Learning": "long_form"}
    assert names(result, "2") == {"qMaze-Agent": "title_prefix"}
    assert {"Orca-VP", "Orca-Coder-4B"} <= set(names(result, "3"))
    assert {"Tern-R1", "Tern-R1-8B"} <= set(names(result, "4"))
    assert not {"Tern-trained", "TernBench"} & set(names(result, "4"))


def test_enumerated_algorithms_compound_names_and_repeated_capitals():
    result = paper_aliases_of(
        papers(
            ("1", "Three Ideas",
             "This works through three innovations: (i) a fast sandbox; (ii) KPO-Re, an agentic RL algorithm with a Retry-on-Failure rollout strategy."),
            ("2", "P2PO-B: Paired Pair Policy Optimization with Budget Bounds", ""),
            # A reward model the paper introduces is a component, not a released artifact.
            ("3", "Steps for SQL", "We further introduce StepJudge, a stepwise reward model for queries."),
        ),
        NO_OVERRIDES,
    )
    assert {"KPO-Re", "Retry-on-Failure"} <= set(names(result, "1"))
    assert names(result, "2")["Paired Pair Policy Optimization with Budget Bounds"] == "long_form"
    assert "StepJudge" in names(result, "3")


def test_listed_sizes_two_names_joined_by_and_and_model_families():
    result = paper_aliases_of(
        papers(
            ("1", "Better Coders", "Our derived Zeno-Coder-7B and 14B models beat Qwen2.5-Math-7B."),
            ("2", "Long Trips", "We build Zeno-Travel and Zeno-Research, two suites. We propose Rock and Roll (RnR)."),
            ("3", "Long Lists", "Our recipe is designed in three steps: (1) mid-training; (2) Rollout DPO leveraging pairs; (3) RL."),
        ),
        NO_OVERRIDES,
    )
    assert set(names(result, "1")) == {"Zeno-Coder-7B", "Zeno-Coder-14B"}
    assert {"Zeno-Travel", "Zeno-Research", "Rock and Roll"} <= set(names(result, "2"))
    assert "Rollout DPO" in names(result, "3")


def test_names_the_authors_investigate_or_formulate_and_parts_a_named_method_introduces():
    result = paper_aliases_of(
        papers(
            ("1", "Small Models Learn", "To help small models, we investigate Hinted GRPO, which injects partial steps."),
            ("2", "Seeing Matters", "We formulate Pixel Reliance Score, quantifying how much a token needs the image."),
            ("3", "Zeno-2: Agents at Scale", "Zeno-2 introduces Hive Mind, a parallel agent framework for long tasks."),
        ),
        NO_OVERRIDES,
    )
    assert "Hinted GRPO" in names(result, "1")
    assert "Pixel Reliance Score" in names(result, "2")
    assert "Hive Mind" in names(result, "3")


def test_dashed_long_forms_component_lists_our_long_forms_and_greek_letters():
    result = paper_aliases_of(
        papers(
            ("1", "Replays", "We present RLSR—Reinforcement Learning with Stored Rollouts—a two-phase framework."),
            ("2", "Three Parts", "Our framework introduces three key components: (1) Graph Guided Reward Shaping, integrating "
             "scores; (2) Step-aware Advantage Estimation, which splits outputs; and (3) Online Difficulty Scheduler, ordering prompts."),
            ("3", "Clinics", "First, our Evidence-Oriented Sampling Plan (EOSP) mixes curated data with synthesis."),
            ("4", "Credit Traces", "In this work, we present KPO-$\\lambda$, a novel extension of KPO with eligibility traces."),
        ),
        NO_OVERRIDES,
    )
    assert "Reinforcement Learning with Stored Rollouts" in names(result, "1")
    assert {"Graph Guided Reward Shaping", "Step-aware Advantage Estimation", "Online Difficulty Scheduler"} <= set(names(result, "2"))
    assert {"EOSP", "Evidence-Oriented Sampling Plan"} <= set(names(result, "3"))
    assert "KPO-λ" in names(result, "4")


def test_an_acronym_the_abstract_defines_after_its_proposal_without_a_proposing_verb():
    result = paper_aliases_of(
        papers(
            ("1", "Steady Steps",
             "Updates are noisy. We propose a framework for steadier updates. The resulting algorithm, "
             "Wobble-Free Policy Optimization (WFPO), drops unstable samples. It then applies Quiet Reward "
             "Shaping (QRS) to long answers."),
            # Before the proposal, and where the sentence speaks of others' work: the field's terms.
            ("2", "Better Baselines",
             "Recent work shows that Zigzag Advantage Estimation (ZAE) helps. We propose a new estimator. "
             "It fixes the bias inherent in Tidal Policy Optimization (TPO)."),
            # A coined term for a kind of model or agent, not a training mechanism.
            ("3", "Agents That Listen",
             "We propose a recipe. It trains Listening Audio Agents (LAA) on speech."),
        ),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {
        "WFPO": "acronym", "Wobble-Free Policy Optimization": "long_form",
        "QRS": "acronym", "Quiet Reward Shaping": "long_form",
    }
    assert names(result, "2") == {}
    assert names(result, "3") == {}


def test_parts_of_a_method_named_by_a_capitalised_run_before_or_as_a_method_noun():
    result = paper_aliases_of(
        papers(
            ("1", "Careful Credit",
             "We propose a framework that introduces a Stepwise Surprise Gain (SSG) mechanism. We implement a "
             "Split Masking Strategy and incorporate a Twin-Gated SFT objective."),
            # The capitalised run of an established method is not a new part.
            ("2", "Plain Updates", "We propose to train with the Group Relative Policy Optimization objective."),
        ),
        NO_OVERRIDES,
    )
    found = names(result, "1")
    assert {"Stepwise Surprise Gain", "Split Masking Strategy", "Twin-Gated SFT"} <= set(found)
    assert names(result, "2") == {}



@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        ("We find that scaling the teacher's reward helps, which we term LouderKD, across sizes.", {"LouderKD"}),
        ("We propose a small modification to the update (κ-PO) that balances steps.", {"κ-PO"}),
        ("We propose a simple yet effective solution SteadyPO-μ, a variant that watches accuracy.", {"SteadyPO-μ"}),
        ("We define the Group Shortest Answer (GSA) as the shortest correct response of a group.", {"Group Shortest Answer", "GSA"}),
        ("This paper describes RLBC (Reinforcement Learning with Brier Credits), a recipe.", {"Reinforcement Learning with Brier Credits"}),
        ("The proposed BRPO introduces a Soft Ratio Squasher (SRS) to bound the update.", {"Soft Ratio Squasher", "SRS"}),
        ("We propose three variants: (1) TW-A minimizes the entropy of outputs; (2) TW-B: a reward.", {"TW-A", "TW-B"}),
        ("We introduce Q-GRPO, a quantile variant of GRPO, and T-PMX, a prefix matching scheme.", {"Q-GRPO", "T-PMX"}),
        ("We introduce OFA, short for Offline Frozen Anchoring, which moves the estimate out of the loop.", {"OFA", "Offline Frozen Anchoring"}),
        ("We develop Quiet Rollout Tuning, or QRT, a new class of methods for budgets.", {"QRT", "Quiet Rollout Tuning"}),
        ("We centre each batch's advantages. The resulting method, CenPO, is cheap to run.", {"CenPO"}),
        # A second verb of the authors proposes too.
        ("We trace the drift to stale batches and propose SBX (Stale Batch eXclusion), a filter.", {"SBX"}),
        # A lower-case word before a hyphen and an acronym.
        ("We introduce a critic-free algorithm called blend-PPO. It mixes two ratios.", {"blend-PPO"}),
        # A name and its long form in any sentence of the authors', not only a proposing one.
        ("We close this gap with HOPS (Hop-Ordered Prefix Sampling), which reuses prefixes.", {"HOPS", "Hop-Ordered Prefix Sampling"}),
        # A lower-case name after a proposing verb, set off by a comma.
        ("We address this by introducing adaptive penalty scheduling, which moves the weight online.", {"adaptive penalty scheduling"}),
        # A lower-case name with a digit, set apart in parentheses where the authors extend a method.
        ("We further extend it to a stepwise variant (zq3++), which halves the variance.", {"zq3++"}),
        # An enumerated long form after an article; capitalised components after a colon.
        ("ZQ introduces two innovations: (1) A Sliding Reward Window that keeps recent samples.", {"Sliding Reward Window"}),
        ("In particular, we introduce three technical innovations: Soft Ratio Caps, Stale Group Replay and Hard Prompt Boosting.", {"Soft Ratio Caps", "Stale Group Replay", "Hard Prompt Boosting"}),
        # A name ending with its base algorithm spells its long form without it.
        ("We propose $\\textbf{FTP-GRPO}$ (Feedback and Tips through Prompts), a rubric-driven framework.", {"FTP-GRPO", "Feedback and Tips through Prompts"}),
        # A hyphenated word may give one letter of the acronym; a passive "is introduced"
        # speaks for the authors; an advantage or reward function is a mechanism.
        ("We propose group-anchored reward estimation (GRE) to steady multi-agent training.", {"group-anchored reward estimation", "GRE"}),
        ("For hard prompts, Ratio-Tempered Update Scaling (RTUS) is introduced to bound each step.", {"Ratio-Tempered Update Scaling", "RTUS"}),
        ("We propose a hindsight advantage function, which credits each subgoal.", {"hindsight advantage function"}),
        # A name and its long form in one parenthesis.
        ("We introduce a novel RL algorithm (QUOR, for Quantile-Ordered Reward Optimization) for LLMs.", {"QUOR", "Quantile-Ordered Reward Optimization"}),
        # A hyphen typed for a dash does not join the article to the name.
        ("To address this, we propose ZEBRA-a replay strategy with adaptive weights.", {"ZEBRA"}),
        # A new algorithm named in apposition, in a sentence without "we".
        ("Both parts are merged into a new off-policy RL algorithm, HX-PO, which extends PPO.", {"HX-PO"}),
        # Enumerated parts of the method defined by their acronyms, named for anything.
        ("We propose Tandem Drill (TD), a recipe. TD joins two modules: (1) Sparse Hint Patching (SHP), "
         "which mends broken rollouts; and (2) Staged Lesson Ordering (SLO), a schedule.",
         {"Sparse Hint Patching", "SHP", "Staged Lesson Ordering", "SLO"}),
        # A name in quotation marks; a Greek letter in LaTeX's variant form.
        ("This work proposes ‘QUILL’, a new pessimistic fine-tuning method for reward models.", {"QUILL"}),
        ("We propose $\\varepsilon$-Quiet Ratio Optimization ($\\varepsilon$-QRO), which tunes the penalty.", {"ε-QRO"}),
    ],
)
def test_more_ways_an_abstract_introduces_a_name(abstract, expected):
    result = paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES)
    assert expected <= set(names(result, "1"))


def test_an_enumerated_acronym_in_a_sentence_about_others_work_is_not_a_name():
    result = paper_aliases_of(
        papers(("1", "An Invented Title", "Earlier studies list (1) Wide Value Priors (WVP) and (2) Slow Token Banks (STB) as causes.")),
        NO_OVERRIDES,
    )
    assert names(result, "1") == {}


def test_a_lower_case_name_with_a_digit_before_the_title_colon():
    result = paper_aliases_of(papers(("1", "q4: Training Small Reasoners with Little Data", "We train on few samples.")), NO_OVERRIDES)
    assert "q4" in names(result, "1")


def test_a_greek_letter_before_capitals_in_the_title_prefix():
    result = paper_aliases_of(papers(("1", "$\\kappa$-RPO: Ranking Tokens by Their Preferences", "We rank tokens.")), NO_OVERRIDES)
    assert "κ-RPO" in names(result, "1")


def test_a_lower_case_phrase_after_a_proposing_verb_needs_a_mechanism_head():
    abstract = "We propose a simple change, which helps. We introduce careful data cleaning, which removes noise."
    assert names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1") == {}


def test_a_sentence_whose_subject_is_a_coined_name_proposes_and_lists_its_components():
    abstract = (
        "We propose Zeno-Kit, a framework for agents. "
        "Zeno-Kit employs a two-stage pipeline: (i) a warm-up stage; (ii) an RL stage introducing the tempered baseline estimator (TmBE), a bounded advantage. "
        "QRPO comprises two key components: stale group replay and tempered ratio clipping."
    )
    found = set(names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1"))
    assert {"TmBE", "tempered baseline estimator", "stale group replay", "tempered ratio clipping"} <= found


def test_an_established_subject_does_not_speak_for_the_authors():
    abstract = "GRPO introduces the group mean baseline (GMB) for each prompt. We study its variance."
    assert "GMB" not in names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1")


def test_the_long_form_of_a_title_acronym_anywhere_after_the_colon():
    title = "QERL: Improving Summaries by Query-Expanded Reinforcement Learning"
    assert "Query-Expanded Reinforcement Learning" in names(paper_aliases_of(papers(("1", title, "We train summarizers.")), NO_OVERRIDES), "1")


def test_a_title_long_form_of_a_name_ending_with_its_base_algorithm():
    title = "WoBA-RL: Worth-Oriented Budget Allocation for Reinforcement Learning in LLMs"
    found = set(names(paper_aliases_of(papers(("1", title, "We allocate rollouts.")), NO_OVERRIDES), "1"))
    assert "Worth-Oriented Budget Allocation" in found


def test_a_numbered_stage_is_not_a_name():
    abstract = "We propose a two-stage recipe: (Stage II) refines the policy with rewards."
    assert "Stage II" not in names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1")


def test_named_parts_a_coined_method_introduces_but_not_an_established_one():
    abstract = (
        "We propose QRPO for sparse rewards. First, QRPO introduces Advantage Tempering. "
        "Second, QRPO employs Soft Ratio Bounds, which relax the update. GRPO introduces Group Normalization."
    )
    found = set(names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1"))
    assert {"Advantage Tempering", "Soft Ratio Bounds"} <= found
    assert "Group Normalization" not in found


def test_a_long_form_and_acronym_as_the_subject_of_a_sentence_name_a_part_once_the_authors_speak():
    abstract = (
        # Before the authors speak, a sentence-initial long form is the field's term.
        "Lantern Feedback Learning (LFL) offers a route to alignment. "
        "We tackle two of its gaps with two components. "
        "Zigzag Reward Tempering (ZRT) rescales rewards by difficulty. "
        "Second, Quiet Token Masking (QTM) simply drops tokens that follow a repeated span. "
        # A citing sentence stays others' work.
        "Orbit Baseline Correction (OBC) reduces variance (Smith et al., 2024)."
    )
    found = set(names(paper_aliases_of(papers(("1", "An Invented Title", abstract)), NO_OVERRIDES), "1"))
    assert {"ZRT", "Zigzag Reward Tempering", "QTM", "Quiet Token Masking"} <= found
    assert not {"LFL", "Lantern Feedback Learning", "OBC", "Orbit Baseline Correction"} & found
