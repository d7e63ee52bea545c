"""evidence: every recognised id form, titles, aliases in prose and code, and each
classification rule on a real-looking example."""

import polars as pl
import pytest

from assets.links.evidence import RULES, aliases_in_code_before_papers, evidence_of, prose_patterns
from assets.links.inclusions import rule_inclusions
from tests.link_fixtures import (
    DAPO,
    DR_GRPO,
    GSPO,
    REINFORCE_PP,
    aliases,
    at,
    comments,
    commits,
    files,
    no_comments,
    no_threads,
    papers,
    threads,
)
from orchestration.tables import CORE_EVIDENCE


def commit_evidence(message: str, *file_rows: tuple[str, str, list[str]], alias_rows=None) -> pl.DataFrame:
    """Evidence of one verl commit with `message` and files (path, added_text, tokens)."""
    return evidence_of(
        commits(("verl", "c1", "2025-04-01", message)),
        files(*[("verl", "c1", path, text, tokens) for path, text, tokens in file_rows]),
        no_threads(),
        no_comments(),
        papers(),
        alias_rows if alias_rows is not None else aliases(),
    )


@pytest.mark.parametrize(
    "text",
    [
        "see https://arxiv.org/abs/2503.14476v2 for details",
        "paper: https://arxiv.org/pdf/2503.14476",
        "https://arxiv.org/html/2503.14476v1#S3",
        "as in arXiv:2503.14476, the clip is decoupled",
        "https://huggingface.co/papers/2503.14476",
        "https://www.alphaxiv.org/abs/2503.14476",
        "journal={arXiv preprint arXiv:2503.14476}, eprint={2503.14476}",
        "(Yu et al., 2503.14476)",
    ],
)
def test_every_arxiv_id_form_is_recognised(text):
    found = commit_evidence("docs", ("docs/notes.md", text, []), alias_rows=aliases().clear())
    assert found.select("arxiv_id", "matched_by").rows() == [(DAPO, "arxiv_id")]


def test_ids_of_other_papers_and_longer_numbers_are_not_matches():
    found = commit_evidence(
        "docs", ("docs/notes.md", "version 12503.144760 and 2503.1447 and 2601.00001", []), alias_rows=aliases().clear()
    )
    assert found.is_empty()


def test_a_normalized_title_is_recognised():
    found = commit_evidence(
        "docs", ("docs/related.md", "We follow *Group-Sequence policy optimization* for the ratio.", []),
        alias_rows=aliases().clear(),
    )
    assert found.select("arxiv_id", "matched_by").rows() == [(GSPO, "title")]


def test_aliases_in_prose_any_spelling_and_acronyms_in_their_own_case():
    found = commit_evidence(
        "docs",
        ("docs/a.md", "We add Dr GRPO and dr_grpo.", []),
        ("docs/b.md", "the dapo recipe, adapo, DAPOX", []),
        ("docs/c.md", "REINFORCE++-baseline beats REINFORCE", []),
    )
    assert sorted(found.select("path", "arxiv_id").rows()) == [("docs/a.md", DR_GRPO), ("docs/c.md", REINFORCE_PP)]


def test_code_tokens_match_whole_identifiers_by_normalized_key():
    found = commit_evidence(
        "[algo] feat: new losses",
        ("verl/trainer/ppo/core_algos.py", "", ["compute_policy_loss", "dr_grpo", "loss_agg_mode"]),
        ("verl/other.py", "", ["DrGRPO"]),
        ("verl/unrelated.py", "", ["adapo", "dapo_math_17k_like", "grpo"]),
    )
    assert sorted(found.select("path", "arxiv_id", "matched_by").rows()) == [
        ("verl/other.py", DR_GRPO, "alias"),
        ("verl/trainer/ppo/core_algos.py", DR_GRPO, "alias"),
    ]
    assert found["in_code"].all()


def test_ambiguous_aliases_are_ignored():
    found = commit_evidence(
        "docs", ("docs/a.md", "the PRIME recipe", []),
        alias_rows=aliases(("2502.01456", "PRIME", True, True)),
    )
    assert found.is_empty()


def test_a_pattern_two_papers_share_is_dropped():
    patterns = prose_patterns(papers(), aliases(("2599.00001", "GSPO", False, True)))
    assert patterns.filter(pl.col("pattern") == " gspo ").is_empty()


def test_threads_and_comments_are_places_too():
    found = evidence_of(
        commits(),
        files(),
        threads(
            {"number": 742, "title": "[Feature Request] Support Dr. GRPO", "body_tokens": ["Dr", "GRPO"]},
            {"number": 800, "title": "tokens only", "body_tokens": ["see", "2507.18071v2", "GSPO"]},
            {"number": 801, "title": "lower-case acronym in prose", "body_tokens": ["gspo"]},
        ),
        comments({"thread_number": 742, "body_tokens": ["DAPO", "works"]}),
        papers(),
        aliases(),
    )
    rows = sorted(found.select("source_type", "source_ref", "arxiv_id", "matched_by", "rule").rows())
    assert rows == [
        ("comment", "742", DAPO, "alias", "comment_mention"),
        ("thread", "742", DR_GRPO, "alias", "thread_mention"),
        ("thread", "800", GSPO, "arxiv_id", "thread_mention"),
    ]
    assert set(found["evidence_class"]) == {"citation"}


# Each rule, with what the real histories look like.
RULE_EXAMPLES = [
    # (message, files, paper, expected rule on the file (or the message when no file))
    ("docs: update README", [("README.md", "- [2025/03] DAPO (https://arxiv.org/abs/2503.14476) is supported!", [])], DAPO, "readme_news"),
    ("docs: awesome work", [("docs/awesome_work.md", "- [GSPO](https://arxiv.org/abs/2507.18071)", [])], GSPO, "awesome_list"),
    ("docs: paper index", [("docs/source/paper_index.md", "## GSPO\n https://huggingface.co/papers/2507.18071", [])], GSPO, "awesome_list"),
    ("release v0.7", [("docs/blog/v0.7.md", "we now support GSPO (arXiv:2507.18071)", [])], GSPO, "release_notes"),
    ("chore: changelog", [("CHANGELOG.md", "- add Dr. GRPO loss", [])], DR_GRPO, "release_notes"),
    ("docs: tp accuracy", [("docs/guides/dtensor-tp-accuracy.md", "mismatch, see arXiv:2503.14476", [])], DAPO, "doc_citation"),
    ("docs: DAPO algorithm page", [("docs/algo/dapo.md", "# DAPO\n Paper: https://arxiv.org/abs/2503.14476", [])], DAPO, "algorithm_doc"),
    ("docs: algorithms", [("docs/algorithms/grpo_series.md", "Dr. GRPO removes the length normalization", [])], DR_GRPO, "algorithm_doc"),
    ("docs: dapo page cites gspo", [("docs/algo/dapo.md", "compare Group Sequence Policy Optimization", [])], GSPO, "doc_citation"),
    (
        "[recipe] feat: DAPO recipe",
        [("recipe/dapo/README.md", "# DAPO\n https://arxiv.org/abs/2503.14476", []), ("recipe/dapo/main_dapo.py", "", ["main", "run"])],
        DAPO,
        "recipe_with_code",
    ),
    (
        "feat: audio recipe",
        [
            ("examples/audio_qa/README.md", "To reproduce the scores of [the paper](https://arxiv.org/abs/2503.14476), run", []),
            ("examples/audio_qa/train.yaml", "", ["lr"]),
        ],
        DAPO,
        "doc_reproduces_paper",
    ),
    ("docs: link to external recipe", [("recipe/retool/README.md", "DAPO-based, see https://arxiv.org/abs/2503.14476", [])], DAPO, "recipe_readme_only"),
    ("[algo] feat: add GSPO", [("verl/trainer/ppo/core_algos.py", "", ["register_policy_loss", "gspo"])], GSPO, "code_identifier"),
    ("config", [("verl/trainer/config/actor.yaml", "", ["loss_agg_mode", "dr_grpo"])], DR_GRPO, "config_identifier"),
    ("test: GSPO loss", [("tests/trainer/test_core_algos.py", "", ["test_gspo_loss", "GSPO"])], GSPO, "test"),
    ("feat: overlong", [("openrlhf/utils.py", "# https://arxiv.org/abs/2503.14476 soft overlong punishment", ["overlong"])], DAPO, "code_reference"),
    ("[algo] feat: add GSPO loss", [("verl/trainer/ppo/core_algos.py", "", ["compute_policy_loss"])], GSPO, "message_with_code"),
    ("docs: mention GSPO", [("docs/faq.rst", "nothing here", [])], GSPO, "message_only"),
    (
        "feat: a new policy loss\n\nPaper: https://arxiv.org/abs/2507.18071",
        [("verl/trainer/ppo/core_algos.py", "", ["gspo_token_loss", "compute_policy_loss"])],
        GSPO,
        "message_cites_named_code",
    ),
    ("website", [("docs_roll/src/pages/careers/index.js", "https://arxiv.org/abs/2503.14476", [])], DAPO, "web_page"),
    ("notebook", [("examples/tutorial/agent_loop.ipynb", "https://arxiv.org/abs/2503.14476", [])], DAPO, "web_page"),
    ("data", [("data/aime24/test.jsonl", "", ["dr_grpo", "question"])], DR_GRPO, "data_file"),
    (
        "feat: audio-visual GRPO recipe",
        [("nemo_rl/data/datasets/response_datasets/intent.py", "", ["load_dataset", "DrGRPO"])],
        DR_GRPO,
        "data_loader",
    ),
    ("run script with the DAPO data set", [("scripts/run-qwen3-4B.sh", "", ["dapo", "math", "prompt_data"])], DAPO, "script_mention"),
    ("example script", [("examples/dapo_trainer/run_dapo_qwen2.sh", "", ["dapo", "python3"])], DAPO, "example_script"),
    ("k8s", [("infra/cli.py", "", ["gspo", "kubectl"])], GSPO, "unconfirmed_acronym"),
    ("reward", [("verl/reward/prime.py", "# from https://github.com/sail-sg/Dr-GRPO", ["reward"])], DR_GRPO, "url_mention"),
]


@pytest.mark.parametrize("message, file_rows, paper, rule", RULE_EXAMPLES, ids=[row[3] for row in RULE_EXAMPLES])
def test_each_classification_rule(message, file_rows, paper, rule):
    found = commit_evidence(message, *file_rows).filter(pl.col("arxiv_id") == paper)
    message_rules = {"message_with_code", "message_only", "message_cites_named_code"}
    decided = found.filter(pl.col("path").is_not_null()) if rule not in message_rules else (
        found.filter(pl.col("path").is_null())
    )
    assert decided["rule"].to_list()[:1] == [rule], found.select("path", "rule").rows()
    assert decided["evidence_class"][0] == RULES[rule]


def test_every_rule_has_an_example_and_a_class():
    assert {row[3] for row in RULE_EXAMPLES} | {"thread_mention", "comment_mention", "own_system_paper"} == set(RULES)
    assert set(RULES.values()) == {"implementation", "citation"}


def test_evidence_has_the_table_contract():
    found = commit_evidence("[algo] feat: add GSPO", ("verl/core_algos.py", "", ["gspo"]))
    assert found.schema == pl.Schema(CORE_EVIDENCE.schema)
    row = found.row(0, named=True)
    assert row["source_ref"] == "c1" and row["url"].endswith("/commit/c1") and row["occurred_at"] is not None


def test_no_input_gives_no_evidence():
    empty = evidence_of(commits(), files(), no_threads(), no_comments(), papers(), aliases())
    assert empty.is_empty() and empty.schema == pl.Schema(CORE_EVIDENCE.schema)


def test_an_acronym_in_code_is_confirmed_by_the_message_in_any_case():
    found = commit_evidence("(fix): gspo loss.", ("roll/pipeline/rlvr/rlvr_config.py", "", ["gspo", "loss"]))
    assert found.select("path", "rule").rows() == [("roll/pipeline/rlvr/rlvr_config.py", "code_identifier")]


def test_a_recipe_readme_cites_related_work_unless_the_recipe_is_named_for_it():
    found = commit_evidence(
        "[trainer, recipe] feat: fully async training recipe",
        ("recipe/fully_async_policy/README.md", "related: GSPO https://arxiv.org/abs/2507.18071", []),
        ("recipe/fully_async_policy/trainer.py", "", ["trainer"]),
    )
    assert found.filter(pl.col("path").is_not_null())["rule"].to_list() == ["recipe_readme_only"]


@pytest.mark.parametrize(
    "text",
    [
        "This guide trains a small model following the approach described in the [paper](https://arxiv.org/abs/2503.14476).",
        "The configs here replicate the setting of arXiv:2503.14476 on one node.",
        "Reward curves as proposed in\nhttps://arxiv.org/abs/2503.14476 are below.",
    ],
)
def test_a_guide_added_with_code_that_reproduces_its_one_paper_is_implementation(text):
    found = commit_evidence(
        "feat: speech recipe", ("docs/guides/speech.md", text, []), ("pkg/data/speech.py", "", ["load"])
    ).filter(pl.col("path") == "docs/guides/speech.md")
    assert found.select("arxiv_id", "rule").rows() == [(DAPO, "doc_reproduces_paper")]


@pytest.mark.parametrize(
    "text, code",
    [
        # Related work, however it is linked.
        ("Prior art: the overlap is inspired by https://arxiv.org/abs/2503.14476.", True),
        ("> reference: [an async system](https://arxiv.org/abs/2503.14476)", True),
        # Said not to be a reproduction.
        ("Our goal is not to replicate [that work](https://arxiv.org/abs/2503.14476) but to demo SFT.", True),
        # Two papers cited: which one is followed is not clear.
        ("We reproduce arXiv:2503.14476 and compare with arXiv:2507.18071.", True),
        # Reproduced elsewhere: no code in the commit.
        ("To reproduce https://arxiv.org/abs/2503.14476 see the authors' repository.", False),
        # The cue is about something else, far from the citation.
        ("Results are reproducible with seed 1.\n\nBackground: https://arxiv.org/abs/2503.14476", True),
    ],
    ids=["inspired_by", "reference", "not_replicate", "two_papers", "no_code", "other_sentence"],
)
def test_a_guide_citing_related_work_stays_a_citation(text, code):
    code_files = [("pkg/data/speech.py", "", ["load"])] if code else []
    found = commit_evidence("feat: speech recipe", ("docs/guides/speech.md", text, []), *code_files).filter(
        pl.col("path") == "docs/guides/speech.md"
    )
    assert found["evidence_class"].unique().to_list() == ["citation"], found.select("arxiv_id", "rule").rows()


def test_a_docs_subject_naming_a_method_is_no_implementation():
    found = commit_evidence("[doc] update GSPO doc", ("verl/utils/x.py", "", ["x"]))
    assert found["rule"].to_list() == ["message_only"]


def test_a_capitalised_word_or_another_file_with_the_word_does_not_confirm_an_acronym():
    found = commit_evidence(
        "misc: prompts",
        ("trl/trainer/a.py", "", ["Gspo", "prompt"]),
        ("trl/trainer/b.py", "", ["gspo"]),
        ("trl/trainer/c.py", "", ["GSPO"]),
    )
    assert set(found["rule"]) == {"unconfirmed_acronym"}


def test_a_name_in_use_half_a_year_before_its_paper_is_no_evidence():
    """GSPO's v1 is 2025-07-24: `gspo` in 2024 code is something else; its arXiv id, and
    the name a few weeks before v1 (authors upstream first), still count."""

    def found_at(day: str, text: str, tokens: list[str]) -> list[tuple[str, str]]:
        evidence = evidence_of(
            commits(("verl", "c1", day, "feat: add GSPO loss")),
            files(("verl", "c1", "verl/core_algos.py", text, tokens)),
            no_threads(),
            no_comments(),
            papers(),
            aliases(),
        )
        in_file = evidence.filter((pl.col("arxiv_id") == GSPO) & pl.col("path").is_not_null())
        return in_file.select("matched_by", "rule").rows()

    assert found_at("2024-09-01", "", ["gspo"]) == []
    assert found_at("2025-07-01", "", ["gspo"]) == [("alias", "code_identifier")]
    assert found_at("2024-09-01", "# https://arxiv.org/abs/2507.18071", ["loss"]) == [("arxiv_id", "code_reference")]


def _code_word_history(frameworks: list[str], per_framework: int) -> tuple[list[tuple], list[tuple]]:
    """Commits of 2024, long before GSPO's v1 (2025-07-24), whose code uses `base` as an
    ordinary word (`base_url`), `per_framework` in each of `frameworks`."""
    early = [(fw, f"{fw}{n}", "2024-10-01", "chore: settings") for fw in frameworks for n in range(per_framework)]
    return early, [(fw, sha, "app/settings.py", "", ["base_url", "load"]) for fw, sha, _, _ in early]


@pytest.mark.parametrize(
    ("frameworks", "per_framework", "named"),
    [
        (["verl", "trl"], 3, False),  # six commits in two frameworks: a word of code
        (["verl"], 6, True),  # one framework's: perhaps an older method of that name
        (["verl", "trl"], 2, True),  # four commits: too few to say
    ],
)
def test_an_alias_that_was_a_word_of_code_long_before_its_paper_names_nothing(frameworks, per_framework, named):
    early_commits, early_files = _code_word_history(frameworks, per_framework)
    with_base = aliases((GSPO, "BASE", False, True))
    changed = files(*early_files, ("verl", "late", "verl/utils/paths.py", "", ["base"]))

    def late_matches(message: str) -> list[str]:
        history = commits(*early_commits, ("verl", "late", "2025-09-01", message))
        found = evidence_of(history, changed, no_threads(), no_comments(), papers(), with_base)
        return sorted(found.filter((pl.col("source_ref") == "late") & (pl.col("arxiv_id") == GSPO))["matched_text"])

    assert late_matches("refactor: move BASE helpers") == (["BASE", "base"] if named else [])
    # The paper's other names still count in the same commit; the word of code does not.
    assert late_matches("refactor: move GSPO helpers") == (["GSPO", "base"] if named else ["GSPO"])
    history = commits(*early_commits)
    assert aliases_in_code_before_papers(history, changed, papers(), with_base).rows() == ([] if named else [(GSPO, "base")])


@pytest.mark.parametrize(
    "text",
    [
        "| PRIME | Dr-GRPO/Eurus-2-7B-SFT | 36.1 |",  # a model id's organisation
        "verifiers from https://github.com/Dr-GRPO/verifiers/blob/main/math.py",  # a URL directory
    ],
)
def test_organisations_and_url_directories_are_not_mentions(text):
    found = commit_evidence("docs: baselines", ("docs/algo/baseline.md", text, []))
    assert found.filter(pl.col("arxiv_id") == DR_GRPO).is_empty()


def test_a_url_keeps_its_last_segment_and_prose_keeps_slashed_lists():
    found = commit_evidence(
        "docs", ("docs/notes.md", "see https://huggingface.co/papers/2503.14476 and Dr. GRPO/GSPO losses", [])
    )
    assert sorted(found.select("arxiv_id", "matched_by").rows()) == [(DAPO, "arxiv_id"), (DR_GRPO, "alias"), (GSPO, "alias")]


def test_a_frameworks_own_system_paper_is_only_cited_in_it():
    """A paper named like the framework (its system paper) is the framework's code from
    the start: an algorithm page of verl citing "verl's" paper is no inclusion there."""
    own = aliases((DAPO, "verl", False, False))
    found = commit_evidence(
        "[algo] feat: GRPO page", ("docs/algo/grpo.md", "see https://arxiv.org/abs/2503.14476", []), alias_rows=own
    )
    assert found.select("path", "rule", "evidence_class").rows() == [("docs/algo/grpo.md", "own_system_paper", "citation")]
    # In another framework the same page is an algorithm page.
    other = evidence_of(
        commits(("trl", "c2", "2025-04-01", "docs")),
        files(("trl", "c2", "docs/algo/grpo.md", "see https://arxiv.org/abs/2503.14476", [])),
        no_threads(),
        no_comments(),
        papers(),
        own,
    )
    assert other.filter(pl.col("path").is_not_null())["rule"].to_list() == ["algorithm_doc"]


# A commit citing one paper by id or title whose code names the method descriptively.
# The paper, its abstract and the commits are invented.
HWPO = "2509.99901"
LANTERN = "2509.99902"


def invented_papers() -> pl.DataFrame:
    return pl.concat(
        [
            papers(),
            pl.DataFrame(
                {
                    "arxiv_id": [HWPO, LANTERN],
                    "title": ["Harmonic Window Policy Optimization for Long Reasoning", "Counting Lanterns with Policies"],
                    "published_at": [at("2025-09-01"), at("2025-09-02")],
                },
                schema=papers().schema,
            ),
        ]
    ).with_columns(
        abstract=pl.when(pl.col("arxiv_id") == HWPO)
        .then(pl.lit("We propose Harmonic Window Policy Optimization (HWPO), bounding each ratio in a zephyr window."))
        .otherwise(pl.lit(""))
    )


def cited_commit(message: str, *file_rows: tuple[str, list[str]], history: int = 0) -> pl.DataFrame:
    """Evidence of one invented verl commit citing papers in `message`, changing files
    (path, added tokens); `history` more commits whose code uses the word `zephyr`."""
    filler = [("verl", f"h{n}", "2025-09-05", "chore: tidy") for n in range(history)]
    return evidence_of(
        commits(("verl", "c1", "2025-10-01", message), *filler),
        files(
            *[("verl", "c1", path, "", tokens) for path, tokens in file_rows],
            *[("verl", sha, "pkg/util.py", "", ["zephyr_mode"]) for _, sha, _, _ in filler],
        ),
        no_threads(),
        no_comments(),
        invented_papers(),
        aliases((HWPO, "HWPO", False, True)),
    ).filter((pl.col("source_ref") == "c1") & pl.col("path").is_null())


@pytest.mark.parametrize(
    "tokens",
    [
        ["harmonic_window_policy_optimization", "compute_loss"],  # the long name in snake case
        ["HarmonicWindowPolicyOptimizationTrainer"],  # inside a class name
        ["hwpo_loss"],  # the acronym as a part of an identifier
        ["zephyr_window_size"],  # a distinctive word of the abstract
    ],
)
def test_a_message_citing_one_paper_with_code_naming_its_method_is_implementation(tokens):
    found = cited_commit("[algo] feat: bounded ratio loss\n\nReference: https://arxiv.org/abs/2509.99901", ("pkg/core_algos.py", tokens))
    assert found.select("arxiv_id", "rule", "evidence_class").rows() == [(HWPO, "message_cites_named_code", "implementation")]


def test_a_title_cites_the_paper_as_well_as_its_id():
    found = cited_commit(
        "feat: bounded ratio\n\nSee Harmonic Window Policy Optimization for Long Reasoning.", ("pkg/conf.yaml", ["zephyr_width"])
    )
    assert found["rule"].to_list() == ["message_cites_named_code"]


@pytest.mark.parametrize(
    "message, file_rows, history",
    [
        # Two papers cited: related work, neither is the one implemented.
        (
            "feat: bounded ratio\n\nRelated: arXiv:2509.99901, arXiv:2509.99902",
            [("pkg/core_algos.py", ["hwpo_loss"])],
            0,
        ),
        # Cited for a hyper-parameter value: the code names nothing of the method.
        ("config: lower the default clip to 0.1\n\nas in arXiv:2509.99901", [("pkg/config.yaml", ["clip_eps"])], 0),
        # The method's names only in documentation, tests or data.
        (
            "feat: notes\n\nhttps://arxiv.org/abs/2509.99901",
            [("docs/algo/notes.md", ["hwpo_loss"]), ("tests/test_x.py", ["hwpo_loss"]), ("data/x.jsonl", ["hwpo"])],
            0,
        ),
        # A documentation subject, even with code.
        ("docs: cite arXiv:2509.99901", [("pkg/core_algos.py", ["hwpo_loss"])], 0),
        # A word of the abstract that much of the code uses is no name of the method.
        ("feat: zephyr mode\n\nsee arXiv:2509.99901", [("pkg/core_algos.py", ["zephyr_mode"])], 40),
    ],
    ids=["two_papers", "hyper_parameter", "docs_tests_data_only", "docs_subject", "common_word"],
)
def test_a_citation_without_the_methods_name_in_code_stays_a_citation(message, file_rows, history):
    found = cited_commit(message, *file_rows, history=history).filter(pl.col("arxiv_id") == HWPO)
    assert found["rule"].to_list() == ["message_only"]


def test_of_two_cited_papers_the_one_whose_long_name_the_code_spells_out_is_implemented():
    found = cited_commit(
        "[algo] feat: support window replay\n\nInspired by arXiv:2509.99901 and arXiv:2509.99902",
        ("pkg/config/rollout.py", ["enable_harmonic_window_policy_optimization", "replay_mode"]),
    )
    assert sorted(found.select("arxiv_id", "rule").rows()) == [(HWPO, "message_cites_named_code"), (LANTERN, "message_only")]


def test_an_alias_of_several_words_is_a_long_name_too():
    found = evidence_of(
        commits(("verl", "c1", "2025-10-01", "[algo] feat: beams\n\nsee arXiv:2509.99901, arXiv:2509.99902")),
        files(("verl", "c1", "pkg/rollout.py", "", ["use_lantern_beam_search"])),
        no_threads(),
        no_comments(),
        invented_papers(),
        aliases((HWPO, "HWPO", False, True), (LANTERN, "Lantern Beam Search", False, False)),
    ).filter((pl.col("source_ref") == "c1") & pl.col("path").is_null())
    assert sorted(found.select("arxiv_id", "rule").rows()) == [(HWPO, "message_only"), (LANTERN, "message_cites_named_code")]


def test_two_cited_papers_both_spelled_out_single_out_neither():
    found = evidence_of(
        commits(("verl", "c1", "2025-10-01", "[algo] feat: beams\n\nsee arXiv:2509.99901, arXiv:2509.99902")),
        files(("verl", "c1", "pkg/rollout.py", "", ["use_lantern_beam_search", "harmonic_window_policy_optimization"])),
        no_threads(),
        no_comments(),
        invented_papers(),
        aliases((HWPO, "HWPO", False, True), (LANTERN, "Lantern Beam Search", False, False)),
    ).filter((pl.col("source_ref") == "c1") & pl.col("path").is_null())
    assert set(found["rule"]) == {"message_only"}


def test_the_cited_commit_is_the_inclusion():
    found = evidence_of(
        commits(("verl", "c1", "2025-10-01", "[algo] feat: bounded loss\n\nhttps://arxiv.org/abs/2509.99901")),
        files(("verl", "c1", "pkg/core_algos.py", "", ["hwpo_loss"])),
        no_threads(),
        no_comments(),
        invented_papers(),
        aliases((HWPO, "HWPO", False, True)),
    )
    included = rule_inclusions(found, invented_papers())
    assert included.select("arxiv_id", "commit_sha", "rule").rows() == [(HWPO, "c1", "message_cites_named_code")]
