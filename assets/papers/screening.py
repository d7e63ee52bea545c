"""Screening rules and the features the study compares, read from title, abstract and comment.

Every rule is a named regular expression with a weight, so a verdict can always say why
(`screening_reasons`) and people can argue with a rule rather than with a number.

- `screening_verdicts`: does the paper propose a general RL training method for language
  models (a loss, advantage estimator, clipping/masking/weighting scheme, sampling or
  regularization), as opposed to an application, benchmark, survey, system or model report?
  The rules that fire are features of a learned model beside the abstract's words
  (assets/papers/screening_model.py): its probability decides, veto rules still rule a
  paper out, and `screening_rules` keeps the hand-set weights' own verdict.
- `policy_sizes`: the largest policy the paper trained, in billions of parameters, from
  model names and sizes (`Qwen2.5-32B`, `7B and 32B`, `235B-A22B` → 235, `1T` → 1000),
  ignoring sizes of compared, teacher or data-collection models, active parameters and
  token counts.
- `loss_change_kinds`: what the main method changes: a loss tweak (coefficient, clip, mask,
  weight), new_objective, advantage, sampling, reward, or other, with the cue that decided
  and every cue found (`loss_change_reasons`).
- `code_links`: a code repository linked from the abstract or comment (not a dataset,
  model card, project page or documentation).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from assets.papers.kind_model import KindModel, committed_kind_model, kind_probabilities
from assets.papers.screening_model import ScreeningModel, committed_screening_model, general_method_probabilities
from orchestration.curation import read_override_csv
from orchestration.tables import CORE_PAPER_SCREENING

LARGE_POLICY_B = 30.0

#: Screening threshold: a paper with this score or more proposes a general RL method.
GENERAL_METHOD_THRESHOLD = 3

# -- text fields ------------------------------------------------------------------------

#: A sentence ends at . ! ? after a lower-case word or digit ("Dr. GRPO" stays whole).
_SENTENCE_END = r"([a-z0-9)%\]}]{2}[.!?])\s+([A-Z])"
_PROPOSAL = r"(?i)\b(?:we|us|this (?:paper|work|note)|our)\b[^.]{0,80}\b(?:propos|introduc|present|develop|design|deriv|devis)"
#: A sentence about what others do or where they fail, not about the paper's method.
_PRIOR_WORK = r"(?i)\b(?:existing|prior|previous|standard|conventional|current (?:methods|approaches|algorithms|RL\w*)|typically|commonly|widely|however|suffers?|dominant|popular|such as|e\.g\.|recent (?:methods|works?|approaches)|some (?:recent )?(?:methods|works))\b"
#: ... unless it sets the paper's method against it ("Unlike X, our method clips ...").
_CONTRAST = r"(?i)\b(?:unlike|instead of|rather than|in contrast|replac\w*)\b"


def _with_text(papers: pl.DataFrame) -> pl.DataFrame:
    """`title`, `body` (abstract and comment), `proposal` (the sentences of the abstract
    that propose something) and `own` (the sentences not about prior work), as plain text."""
    body = pl.concat_str([pl.col("abstract").fill_null(""), pl.col("comment").fill_null("")], separator=" || ")
    sentences = pl.col("abstract").fill_null("").str.replace_all(_SENTENCE_END, "$1\n$2").str.split("\n")
    return papers.select(
        "arxiv_id",
        title=pl.col("title").fill_null(""),
        body=body,
        proposal=sentences.list.eval(pl.element().filter(pl.element().str.contains(_PROPOSAL))).list.join(" "),
        own=sentences.list.eval(
            pl.element().filter(~pl.element().str.contains(_PRIOR_WORK) | pl.element().str.contains(_CONTRAST))
        ).list.join(" "),
    )


# -- is it a general RL training method? -------------------------------------------------

_SYSTEM = r"(?i)\b(?:system|infrastructure|throughput|GPU (?:utili[sz]ation|bubbles|clusters?)|disaggregat\w*|asynchronous (?:RL|training|system)|pipelin\w* (?:parallel|schedul)|(?:request|task|job|rollout|GPU|resource|cluster|workload|stage) scheduling|scheduling (?:of|across) (?:GPUs|workers|nodes|requests|stages)|speedup|parallelism|library|weight synchroni[sz]ation|communication|accelerator|hardware efficiency|utili[sz]ation)\b"

#: (reason code, weight, field, pattern). Fields: title, body (abstract and comment),
#: proposal (the sentences that propose something), text (title and body). A leading "!"
#: negates a pattern; "A&!B" fires when A matches and B does not. Every alternative is a
#: general phrase (tests/test_screening.py has an invented sentence for each rule); a
#: verdict for one known paper goes to overrides/screening.csv.
SCREENING_RULES: tuple[tuple[str, int, str, str], ...] = (
    # What makes it RL for language models at all.
    ("rl_context", 1, "text", r"(?i)reinforcement learning|\bRL(?:VR|HF)?\b|polic(?:y|ies)|\bGRPO\b|\bPPO\b|REINFORCE"),
    ("no_rl_context", -4, "text", r"!(?i)reinforcement|\bRL|polic(?:y|ies)|GRPO|PPO|REINFORCE|reward"),
    # RL, but not of language models (robots, games, control): nothing in the text is about
    # text. Out by definition, however strong the method cues (VETO_RULES).
    ("not_language_models", -10, "text", r"!(?i)language model|\bLLMs?\b|\bLMs?\b|\bLRMs?\b|reasoning|\btext|\btokens?\b|chain-of-thought|\bGRPO\b|RLHF|RLVR|instruction|prompt|agentic|post-train"),
    # Method cues.
    ("title_policy_optimization", 3, "title", r"(?i:policy optimi[sz]ation|policy gradient|trust region)|\b[A-Z][\w-]*PO\b|-GRPO\b|\bGRPO-|\bREINFORCE\b|\bReinforce\b"),
    ("title_rl_mechanism", 2, "title", r"(?i)clip|credit|attribution|entropy|advantage|baseline|exploration|off-policy|on-policy|KL\b|token|reward (?:shap|estimat|redistribut|weight)|rollouts|sampling|regulari[sz]|loss"),
    ("names_an_algorithm", 3, "proposal", r"(?i)\b(?:algorithms?\b|policy optimi[sz]ation \()"),
    ("proposes_algorithm", 2, "proposal", r"(?i)\b(?:algorithm|optimization method|method for (?:training|fine-tuning|optimi[sz]ing)|objective|estimator|regulari[sz]\w*|policy optimi[sz]ation|policy gradient|advantage|clip\w*|weigh(?:t)?ing|re-?weigh\w*|\w+-weighted|unbiased gradients?|baseline|loss|surrogate|trust region|mask\w*|normali[sz]ation|importance (?:sampling|ratio|weight)|actor-critic|critics?\b|value (?:model|function)|\bLR schedul\w*|learning[- ]rate (?:\(LR\) )?(?:schedul\w*|decay|warm-?up))"),
    # A general RL algorithm introduced anywhere, a model report included ("we propose
    # XPO, a novel RL algorithm"; "(1) XPO stabilizes RL training via ...").
    ("named_rl_algorithm", 5, "body", r"(?i)\b(?:novel|new)\s+(?:[\w-]+\s+){0,2}?(?:RL|reinforcement learning|policy[- ]optimi[sz]ation|policy[- ]gradient)\s+(?:algorithm|method|objective)"),
    ("enumerated_rl_contribution", 5, "body", r"\(\s*(?:1|i|a)\s*\)\s*[A-Z][\w+.-]*\s+(?:stabiliz|improv|reduc|mitigat|prevent|balanc|correct|control)\w*\s+(?:the\s+)?(?:RL|reinforcement learning|polic|training|optimization|gradient)"),
    ("rl_mechanism", 1, "body", r"(?i)\badvantages?\b|\bclip(?:ping|ped)?\b|importance (?:sampling|ratio|weight)|trust region|entropy|\bbaselines?\b|credit assignment|assigns? (?:fine-grained )?credit|\bKL\b|Kullback"),
    ("gradient_or_objective", 1, "body", r"(?i)policy gradient|gradient (?:estimat|update|signal)|\bobjective\b|surrogate|loss function"),
    ("sampling_or_reward", 1, "proposal", r"(?i)\bsampl\w*|rollouts?\b|exploration|experience replay|reward (?:signals?|shaping|estimation|normali[sz]ation)"),
    # Families of general methods that name no loss term: a length penalty or reward for
    # concise reasoning, a reward that comes from rubrics, a judge or the policy itself (but
    # not a paper whose product is the reward model), and prompts or problems chosen by
    # their difficulty (curricula, self-play proposers).
    ("length_reward", 2, "text", r"(?i)length penalt|(?:reduc|shorten|prun)\w* (?:the )?(?:[\w']+ ){0,2}(?:chains? of thought|reasoning length|response length|thinking length)|(?:optimal|appropriate|adaptive) (?:CoT|reasoning|response|thinking|inference) lengths?|penali[sz]\w* (?:long|lengthy|verbose)|penalty for (?:output|response|reasoning) length|overthinking|shorter (?:reasoning|responses?|outputs?|chains?|answers?)|(?:CoT|chain[- ]of[- ]thought) compression|concise (?:responses|reasoning|outputs)|when to think|adaptive (?:thinking|reasoning)|(?:thinking|think) (?:and|or|vs\.?|versus) (?:no-?thinking|non-thinking)"),
    ("reward_source", 2, "body", r"(?i)rubric|self-rewards?\b|self-feedback|self-judg\w*|(?:model-based|generative|soft) rewards?|reward specification|without (?:ground[- ]truth|reference) (?:answers|solutions)|verifier-free|without (?:an? |any )?(?:external )?verifiers?\b|no need for (?:an? )?(?:external )?verifiers?&!(?i)RewardBench|RM-?Bench|\bGRMs?\b|reward[- ]model(?:ing)? (?:benchmarks|accuracy|framework)"),
    ("difficulty_selection", 2, "body", r"(?i)self-play|\bproposer\b|curriculum|difficulty (?:distribution|filter\w*)|of (?:appropriate|intermediate|moderate) difficulty|intermediate accuracy|zero-variance prompts|prompt (?:selection|difficulty)|select\w* (?:the )?(?:most )?(?:informative|challenging|useful) prompts|\bhints?\b"),
    # Which rollouts or prompts are trained on, chosen, reused or augmented by the method.
    ("rollout_or_prompt_selection", 2, "body", r"(?i)\b(?:select|allocat|reus|prioriti[sz]|augment)\w* (?:[\w-]+ ){0,2}(?:rollouts|prompts|questions|problems|training samples)\b|\b(?:rollout|prompt|question|problem) (?:selection|allocation|augmentation|reuse)\b|online data selection"),
    # One training that unifies, interleaves or balances supervised fine-tuning and RL.
    ("sft_rl_hybrid", 2, "body", r"(?i)\b(?:unif\w*|hybrid|interleav\w*|mix\w*|combin\w*|integrat\w*|harmoni[sz]\w*|bridg\w*|balanc\w*) (?:[\w-]+ ){0,3}?(?:SFT|supervised fine-tuning|supervised learning|imitation learning)\s*(?:and|with|-)\s*(?:RL|reinforcement learning|RFT)\b"),
    ("general_rl_setting", 1, "body", r"(?i)RLVR|verifiable rewards?|RLHF|mathematical reasoning|reasoning (?:tasks|benchmarks|capabilit)"),
    # Not a training method: systems, model reports, applications, studies, other fields.
    ("system_proposed", -3, "proposal", _SYSTEM),
    ("system_mentioned", -1, "body", _SYSTEM),
    ("system_title", -3, "title", r"(?i)\b(?:system|framework|infrastructure|library|asynchron\w*|scalable|scaling library|efficient (?:RL|large-scale))\b|Flash\b|Stream"),
    ("model_report", -4, "body", r"(?i)(?:this|our) (?:technical )?report|(?:our|release\w*|an) open-weight|mixture-of-experts \(MoE\) (?:model|architecture)|total parameters|\b(?:an?|of)\s+(?:[\w-]+\s+)?\d+(?:\.\d+)?[ -](?:billion|trillion)[ -]parameters?\b|our (?:latest|first)[\w\s-]{0,30}model|we (?:introduce|present) [\w.-]+, (?:a|an|the|our)\b[^.]{0,60}\bmodel\b"),
    # A technical report, a one-word title, or a title led by a versioned model name
    # ("Xyz-M2: …", "Abc k2.5: …", "Qrs-V4.1: …").
    ("model_report_title", -4, "title", r"(?i:technical report)|^[\w.-]+$|^[A-Z]\w*(?:[- ][A-Za-z]{0,2}\d+(?:\.\d+)*[A-Za-z]*)+(?:-[A-Za-z]+)*:"),
    # One application domain (a vocabulary of domains, not one paper's phrase).
    ("application", -3, "body", r"(?i)e-commerce|recommend\w*|search relevance|livestream\w*|\bGUI\b|audio|image-to-video|video generation|text-to-image|auto-?bidding|advertis\w*|medical|clinical|legal|financial|speech (?:recognition|synthesis)|travel|spatio-temporal|user simulation|web (?:navigation|agents)|computer-use|(?:visual|GUI|spatial|screen|UI) grounding|grounding (?:tasks|benchmarks)|theorem prov\w*|\bLean ?4?\b|text-to-SQL|Verilog|hardware description|time[- ]series|forecasting|role-?play\w*|radiology|autonomous driving|emotion recognition|machine translation|chart (?:reasoning|understanding|question)|shopping|deep research|video (?:understanding|reasoning|QA)|tool[- ]calling|function[- ]calling|customer[- ]service"),
    ("multimodal", -1, "body", r"(?i)vision-language|\bVLMs?\b|multimodal|omni-modal|visual"),
    ("benchmark_or_data", -2, "body", r"(?i)\b(?:benchmark suite|new benchmark|we (?:create|release|curate|construct) [\w\s,-]{0,40}dataset|dataset comprising|collection of [\w\s-]{0,30}(?:games|environments)|task synthesis|synthesi[sz]\w* (?:tasks|data|dialogues)|data (?:pipeline|construction|curation))"),
    ("study", -2, "body", r"(?i)\b(?:we (?:conduct|present) (?:a|the first) [\w\s-]{0,30}(?:study|analysis|exploration)|systematic(?:ally)? (?:review|study|investigat\w*)|case study|pitfalls|this note|we point out|empirical study|scaling (?:trends|law)|this survey|we survey|comprehensive (?:survey|review|overview)|empirical investigation|in this study, we (?:investigate|examine|analy[sz]e)|we systematically (?:examine|investigate|study|analy[sz]e)|we (?:conduct|perform|run) (?:extensive |comprehensive |systematic |controlled )?(?:experiments|analys[ie]s) to (?:investigate|understand|study|examine))"),
    ("not_rl_training", -4, "body", r"(?i)\b(?:diffusion models|flow[- ]matching|denoising|optimizer based on|continual learning|improv\w* (?:to|of|on|upon) (?:the |standard )?(?:supervised fine-tuning|SFT)\b)"),
    # A study or a theory by its title ("An Empirical Investigation", "A Closed-Form Model of …").
    ("study_title", -3, "title", r"(?i)\bempirical (?:study|investigation|analysis)\b|\bclosed-form\b|\bfirst-principles?\b|\bderivation\b|\btheoretical (?:unification|analysis|study|perspective|framework)\b|\bmechanistic study\b|\ba deep dive\b"),
    # A title that asks a question is most often answered by a study.
    ("question_title", -1, "title", r"\?"),
    # A survey, tutorial, position paper, benchmark or data set by its title.
    ("survey_or_benchmark_title", -4, "title", r"(?i)\bsurvey\w*\b|\btutorial\b|\bposition paper\b|\bbenchmark\w*\b|[a-z]-?Bench\b|\bdataset\b"),
    # Distillation or supervised fine-tuning with no RL in the title.
    ("supervised_title", -4, "title", r"(?i)distill|\bSFT\b|supervised fine-tuning&!(?i)reinforc|\bRL|polic|reward|GRPO|PPO"),
    ("task_specific", -2, "title", r"(?i)\b(?:e-commerce|recommend|audio|video|image|GUI\b|search agents?|agentic search|search abilit\w*|speech|time series|forecasting|role-?play\w*|chart|radiology|shopping|driving|translation|agents? for|tool use|tool-integrated|multimodal|omni|relevance|molecul\w*|chemi\w*|protein|clinical|medical|legal|financial|theorem prov\w*|formal proofs?|software (?:engineering|agents)|de-?bias\w*|deep research|search-augmented|retrieval-augmented)|SQL"),
)

#: Rules that say "model or technical report", and rules that say the paper introduces a
#: general RL method all the same: the second silence the first.
REPORT_RULES = ("model_report", "model_report_title")
#: Rules that rule a paper out whatever else fires.
VETO_RULES = ("not_language_models",)
METHOD_IN_REPORT_RULES = ("named_rl_algorithm", "enumerated_rl_contribution")

_FIELD = {
    "title": pl.col("title"),
    "body": pl.col("body"),
    "proposal": pl.col("proposal"),
    "text": pl.concat_str([pl.col("title"), pl.col("body")], separator=" . "),
}


def _fires(field: pl.Expr, pattern: str) -> pl.Expr:
    """`pattern` matches `field`; "!A" negates, "A&!B" also requires that B does not match."""
    if pattern.startswith("!"):
        return ~field.str.contains(pattern[1:])
    wanted, _, unwanted = pattern.partition("&!")
    return field.str.contains(wanted) & ~field.str.contains(unwanted) if unwanted else field.str.contains(wanted)


def screening_rules(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `screening_score` (sum of the weights of the rules that fire),
    `screening_reasons` (their codes, `-` before a negative one), `vetoed` (a rule that
    rules the paper out fired) and `rules_say_general` (the hand-set weights' verdict:
    the score reaches GENERAL_METHOD_THRESHOLD and nothing vetoes)."""
    text = _with_text(papers)
    fired = {name: _fires(_FIELD[field], pattern) for name, _, field, pattern in SCREENING_RULES}
    # A report that introduces a general method is screened on the method, not as a report.
    introduces_method = pl.any_horizontal([fired[name] for name in METHOD_IN_REPORT_RULES])
    for name in REPORT_RULES:
        fired[name] = fired[name] & ~introduces_method
    score = pl.sum_horizontal([pl.when(fired[name]).then(weight).otherwise(0) for name, weight, _, _ in SCREENING_RULES])
    reasons = pl.concat_list(
        [pl.when(fired[name]).then(pl.lit(name if weight > 0 else f"-{name}")) for name, weight, _, _ in SCREENING_RULES]
    ).list.drop_nulls()
    vetoed = pl.any_horizontal([fired[name] for name in VETO_RULES])
    return text.select(
        "arxiv_id",
        screening_score=score.cast(pl.Int32),
        screening_reasons=reasons,
        vetoed=vetoed,
        rules_say_general=(score >= GENERAL_METHOD_THRESHOLD) & ~vetoed,
    )


def screening_verdicts(papers: pl.DataFrame, model: ScreeningModel | None = None) -> pl.DataFrame:
    """`arxiv_id`, `is_general_rl_method`, `screening_probability` (the learned model's,
    assets/papers/screening_model.py), `screening_terms` (what weighed most in it) and the
    rules' `screening_score` and `screening_reasons`. A paper is a general method where the
    model's probability reaches its threshold and no veto rule fires; `rules_say_general`
    is the hand-set weights' verdict, kept for comparison. `model` defaults to the
    committed one."""
    model = committed_screening_model() if model is None else model
    rules = screening_rules(papers)
    return rules.join(general_method_probabilities(papers, rules, model), on="arxiv_id", how="left").select(
        "arxiv_id",
        is_general_rl_method=(pl.col("screening_probability") >= model.threshold) & ~pl.col("vetoed"),
        screening_probability="screening_probability",
        screening_terms="screening_terms",
        screening_score="screening_score",
        screening_reasons="screening_reasons",
        rules_say_general="rules_say_general",
    )


# -- policy size --------------------------------------------------------------------------

#: A parameter count: `32B`, `1.5B`, `235B-A22B` (total-active), `1T`, `32 billion`,
#: `80-billion`. The number may not continue another number or word (GSM8K, Qwen3 stay out).
_SIZE_TOKEN = (
    r"(?:(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>[BT])(?:-A\d+(?:\.\d+)?B)?\b"
    r"|(?P<wnum>\d+(?:\.\d+)?)[\s-]*(?P<wunit>billion|trillion)\b)"
)
#: What comes before a size (same clause, after the previous size) and the two words after
#: it; those words have no digits, so they never take in the next size ("Qwen3-8B and
#: Qwen3-32B" are two sizes).
_SIZE_MENTION = r"(?P<before>[^,;:]{0,60}?)(?:^|[^\w.])" + _SIZE_TOKEN + r"(?P<after>[\w\-]*(?:[\s)]+[A-Za-z](?:[A-Za-z]|-[A-Za-z])*){0,2})"
#: Sizes that are not a policy the paper trained: a compared, teacher or data-collection
#: model, the active parameters of a mixture of experts. "Distill" ends a word to be a
#: teacher cue: inside a name ("R1-Distill-Qwen-1.5B") or "distillation" it is not.
_NOT_TRAINED_BEFORE = (
    r"(?i)(?:outperform\w*|surpass\w*|compared|\bthan\b|\bmatch(?:es|ing)?\b|rival\w*|comparable|\bupon\b|\beg\b|"
    r"such as|versus|\bvs\b|\bbeat\w*|exceed\w*|collection policy|activat\w*|teacher|distill(?:s|ing|ed)?(?:[^\w-]|$)|\b(?:much|far|significantly|substantially|considerably) larger\b|previously reported)"
)
#: ... unless the model is what the paper trains on ("surpassing X on the Qwen3-32B").
_TRAINED_ON = r"(?i)\b(?:on|with|using|train\w*|fine-tun\w*|our)\b"
#: Sizes that count tokens, data or labels, or name a dataset (`OpenR1-32B-Traces dataset`).
_NOT_A_MODEL_AFTER = (
    r"(?i)\b(?:tokens?|activ\w*|teacher|distilled|data(?:set)?s?|traces|corpus|benchmarks?|prompts|problems|samples|"
    r"examples|questions|trajector\w*|labels|annotations|(?:preference )?pairs|comparisons)\b|^-?(?:traces|data|set|mix|prompts)"
)


def policy_sizes(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `policy_params_b` (largest policy trained, billions; null when the text
    names none), `large_policy` (≥ 30B; null when unknown) and `policy_size_cue` (the
    words that gave the size)."""
    text = pl.concat_str(
        [pl.col("title").fill_null(""), pl.col("abstract").fill_null(""), pl.col("comment").fill_null("")],
        separator=" . ",
    ).str.replace_all(r"\b(?:e\.g|i\.e)\.,?", "eg")
    mentions = (
        papers.select("arxiv_id", mention=text.str.extract_all(_SIZE_MENTION))
        .explode("mention")
        .drop_nulls("mention")
        .with_columns(groups=pl.col("mention").str.extract_groups(_SIZE_MENTION))
        .unnest("groups")
        .with_columns(
            value=pl.coalesce(pl.col("num"), pl.col("wnum")).cast(pl.Float64),
            trillions=pl.col("unit").eq("T") | pl.col("wunit").str.to_lowercase().eq("trillion"),
        )
        .with_columns(params_b=pl.when(pl.col("trillions")).then(pl.col("value") * 1000).otherwise(pl.col("value")))
        .with_columns(
            # The words between the last "not trained" cue and the size, if there is a cue.
            since_cue=pl.col("before").fill_null("").str.extract("^.*" + _NOT_TRAINED_BEFORE.replace("(?i)", "(?i:") + ")(.*)$", 1)
        )
        .filter(
            (pl.col("since_cue").is_null() | pl.col("since_cue").str.contains(_TRAINED_ON))
            & ~pl.col("after").fill_null("").str.contains(_NOT_A_MODEL_AFTER)
        )
    )
    largest = (
        mentions.sort("params_b", descending=True)
        .group_by("arxiv_id", maintain_order=True)
        .first()
        .select(
            "arxiv_id",
            policy_params_b="params_b",
            policy_size_cue=pl.col("mention").str.slice(-45).str.strip_chars(),
        )
    )
    return (
        papers.select("arxiv_id")
        .join(largest, on="arxiv_id", how="left")
        .with_columns(large_policy=pl.col("policy_params_b") >= LARGE_POLICY_B)
        .select("arxiv_id", "policy_params_b", "large_policy", "policy_size_cue")
    )


# -- loss change kind ---------------------------------------------------------------------

#: (kind, pattern) in order of precedence when a paper's cues tie. The four loss tweaks
#: (coefficient, clip, mask, weight) change a term of an existing loss; the others
#: replace the objective or change what feeds it.
LOSS_CHANGE_RULES: tuple[tuple[str, str], ...] = (
    ("mask", r"(?i)\bmask(?:ing|ed|s)?\b|gat(?:e|es|ed|ing) (?:out )?(?:the )?(?:[\w-]+ ){0,2}(?:gradients?|updates?)\b|(?:gradient|update) gating|intercept\w* (?:[\w-]+ )?gradients?|skip\w* (?:[\w-]+ ){0,2}updates\b|(?:operat|updat|train|comput|optimi[sz])\w* (?:[\w-]+ ){0,3}(?:on|over) (?:a|the) (?:[\w,-]+ ){0,3}subsets? of (?:[\w-]+ ){0,2}tokens\b|(?:confin|restrict|limit)\w* (?:[\w-]+ ){0,2}to (?:a|the) (?:[\w-]+ ){0,3}subset|prun\w* (?:[\w-]+ ){0,2}(?:completions|tokens|responses|samples|rollouts)\b|tokens? filtering|filter\w* (?:out )?(?:[\w-]+ ){0,3}tokens\b|updates? only on|updat\w* only (?:the|on)|selectively updat\w*|restrict\w* (?:the )?updates? to|constrain\w* the (?:RL |policy )?(?:objective|loss|updates?) to|only (?:on|update)\w* (?:positive|high)|restrict\w* (?:policy )?gradient updates? to|exclud\w* (?:entire )?(?:tokens|sequences|samples)\b[^.]{0,30}\b(?:from|in) (?:the )?(?:gradient|loss|update)|(?:suppress|discard|drop)\w* (?:only )?(?:extreme|outlier)|training (?:exclusively|only) on|(?:exclusively|only) (?:via|on|from|with) (?:the )?(?:[\w-]+ )?(?:positive|correct) (?:rollouts|samples|responses)"),
    ("clip", r"(?i)\bclip(?:ping|ped|s)?\b|clip-higher|trust[- ]regions?|ratio bounds?"),
    ("weight", r"(?i)re-?weight\w*|update magnitudes?|(?:up|down)-?weight\w*|weight(?:ing|ed|s)? (?:ratios?|tokens?|sequences?|samples?|attempts?|strategy|scheme|mechanism|each)|token(?:-level)? weight\w*|(?:sequence|sample|response)[- ]weighting|assign\w* (?:[\w-]+ ){0,2}weights to|importance (?:sampling )?(?:ratios?|weights?)|importance-weighted|\bIS ratios?|modulat\w* the (?:magnitude|strength)|magnitude of (?:policy |parameter )?updates|entropy-weighted|weigh(?:t)?ing strateg|rescal\w* (?:the )?(?:[\w-]+ )?(?:importance )?ratios|rescal\w* (?:[\w-]+ ){0,3}(?:updates|gradients)\b|focus\w* (?:[\w-]+ ){0,2}updates on (?:[\w-]+ ){0,2}tokens|\b[\w]+-weighted\b"),
    ("coefficient", r"(?i)coefficient|loss aggregation|length[- ]normali[sz]\w*|normali[sz]ation (?:terms?|constants?)|entropy (?:bonus|regulari[sz]ation|control)|KL (?:penalty|control|divergence control|regulari[sz]ation|regulari[sz]er|term)|hinge-KL|length[- ](?:unbiased|bias)|(?:dynamic|adaptive|scheduled) (?:Kullback-Leibler|KL|entropy)\b|entropy[- ](?:calibration|management)"),
    ("advantage", r"(?i)\b(?:group-)?mean[- ]centering\b|\bcenter(?:ing|ed) (?:the )?(?:[\w-]+ )?(?:rewards|advantages)\b|advantage (?:estimat\w*|normali[sz]\w*|functions?|shaping|computation|design|baselines?|reference|attribution|values?)|(?:reward|value|optimal|mean|quantile|shrinkage|learned|average|advantage|group|per-prompt|prompt-level)[- ](?:based )?baselines?|baseline (?:design|selection|estimat\w*)|credit assignment|assigns? (?:fine-grained )?credit|\bGAE\b|generali[sz]ed advantage|value (?:model|function|estimat\w*)|critics?\b|reward normali[sz]ation|normali[sz]\w* (?:the )?rewards|group normali[sz]ation|standardi[sz]\w* rewards"),
    ("sampling", r"(?i)\bsampling (?:strateg\w*|budget|effort|framework|scheme)|\b(?:quer(?:y|ies)|task) selection|select\w* (?:the )?(?:[\w-]+ ){0,2}quer(?:y|ies)\b|multi-attempt (?:setting|task|RL|reinforcement|rollouts?|episodes?)|(?:given|with|make|makes) multiple attempts|\b(?:down|up|over|re)-?sampl\w*|rollout (?:budget|allocation|mechanism|selection)|(?:exploration|inference|computational) budgets?|budget allocation|allocat\w* (?:more )?(?:rollouts|samples|responses|compute|training resources|sampling|inference)|curriculum|(?:experience )?replay|data (?:selection|filtering)|(?:prompt|sample|response|data) (?:selection|filtering)|filter\w* (?:out )?(?:[\w-]+ ){0,4}(?:prompts|samples|responses)|filters? for|(?:discard|drop|remov)\w* (?:[\w-]+ ){0,2}(?:prompts|groups)|dynamic sampling|tree search|branch\w* from|guided (?:refinements|rollouts|responses)|(?:number|size) of (?:rollouts|samples|responses)|group sizes?|(?:larger|smaller|more|fewer) (?:groups|rollouts)|off-policy (?:traces|data|demonstrations|guidance|samples|setting)|\bproposer\b|skip\w* (?:[\w-]+ ){0,2}prompts|selective rollouts?|pre-rollout|inject\w* (?:[\w-]+ ){0,3}into (?:the )?roll-?outs?|guidance strength|difficulty (?:distribution|filter\w*|levels?)|of (?:appropriate|intermediate|moderate) difficulty|zero-variance prompts|(?:partial|stepwise|multi-level) (?:[\w-]+ )?hints?|hints? (?:to|into|in) (?:the )?(?:model['’]s )?(?:context|rollouts|prompts)|(?:replay |experience |rollout )?buffers?\b|\bsample (?:[\w-]+ ){0,5}prompts?\b|sampling temperature|temperature (?:schedul\w*|control|polic\w*)|\bre-?generat\w* (?:(?:at|from|the) )?(?:[\w-]+ ){0,2}(?:rollouts|trajectories|responses|tokens)|hint[- ]injection|inject\w* (?:[\w-]+ ){0,3}hints?|rollout (?:algorithm|trees?)|tree-structured (?:rollouts?|sampling|search\w*)|self-play|data augmentation|\b(?:select|reus|prioriti[sz]|augment|identif)\w* (?:[\w-]+ ){0,2}(?:rollouts|responses|trajectories|prompts|questions|problems|samples|experiences)\b|targeted rollouts|generat\w* (?:[\w-]+ ){0,2}hints\b|\b(?:rollout|response|trajectory|prompt|question|problem) (?:augmentation|reuse)\b|adaptive rollouts?\b|data curation|(?:data|dataset|domain) mixtures?|\btriag\w*|focus\w* (?:[\w-]+ ){0,3}on (?:[\w-]+ ){0,2}(?:problems|prompts|questions)\b|co-generat\w*"),
    ("reward", r"(?i)reward redistribut\w*|noisy rewards?|reward noise|multi-(?:aspect|label|objective|dimensional) rewards?|reward regression|into a single reward|redistribut\w* (?:of )?(?:the )?(?:[\w-]+ )?rewards?|reward (?:shaping|penalt\w*|bonus\w*|design|estimation|prediction|propagation|system|learning|estimates?|adjust\w*)|\bverifiers?\b|(?:comput|assign)\w* (?:the )?rewards?|process[- ]level (?:supervision|rewards?|signals?)|(?:accuracy|length|format|correctness)[\w-]* rewards?|process[- ](?:rewards?|supervision)|(?:introduc|propos|design)\w* (?:a|an|the) (?:[\w-]+ ){0,3}rewards?(?:\s|[.,;]|$)|transform\w* (?:on |of )?(?:the )?(?:[\w'’-]+ ){0,2}rewards|\bcuriosity\b|(?:exploration|outcome-based) (?:bonus\w*|rewards?)|length penalt\w*|intrinsic (?:rewards?|signals?)|majority vot\w*|as (?:the|its) (?:sole )?reward|generative (?:process )?rewards?|penalt(?:y|ies) (?:for|mechanism)|penalt(?:y|ies) on (?:long|lengthy|verbose|overlong|incorrect|wrong|redundant|repeated|excessive|unnecessary)|rubric\w*|self-rewards?\b|self-judg\w*|(?:model-based|hybrid|soft) (?:[\w-]+ )?rewards?|reward (?:specification|signals? (?:from|based on))|penali[sz]\w* (?:long|lengthy|verbose)|length (?:targets?|constraints?|control)|token limits?|(?:dense|fine-grained|step-level) (?:and dense )?rewards?|(?:continuous|dense|fine-grained|step-level|richer|learned|auxiliary|additional) (?:[\w-]+ )?reward signals?|augment\w* (?:the )?(?:[\w-]+ )?rewards? with|\b[\w]+-specific rewards|reward mechanism|(?:fully )?unsupervised|self-supervised|label-free|without (?:any )?(?:external |supervised )?(?:rewards?|supervision|labels|ground[- ]truth)|judge models?|LLM[- ]as[- ]a[- ]judge"),
    ("new_objective", r"(?i)\b(?:new|novel|unified|joint|single|discriminative|explicit) (?:[\w-]+ ){0,2}(?:objectives?|loss)\b|jointly optimi[sz]\w*|loss functions?|surrogate (?:loss|objective)|regulari[sz]er|regulari[sz]ation term|contrastive|distribution[- ]matching|match\w* the (?:full )?(?:reward )?distribution|(?:maximi[sz]|optimi[sz])\w* the (?:[\w-]+ ){0,2}mean\b|regression loss|(?:auxiliary|additional) (?:[\w-]+ ){0,6}loss|preference (?:optimi[sz]ation|objective|loss)|direct alignment|regulari[sz]ed (?:policy|objective)|self-distill\w*|distills? (?:its|the|their)|regulari[sz]es the policy|regulari[sz]ation target|reshap\w* the (?:[\w-]+ ){0,2}distribution|divergence minimi[sz]ation|reformulat\w*|loss estimat\w*|\b(?:supervised|SFT)\b[^.]{0,40}\b(?:and|with) (?:reinforcement|RL)\b|penalty (?:term )?on the (?:policy|model)'s (?:distribution|probabilit\w*)"),
)
LOSS_CHANGE_KINDS = (*(kind for kind, _ in LOSS_CHANGE_RULES), "other")
#: Cues that count for a kind but claim nothing on a tie: "objective" names any method's
#: goal, so a specific mechanism named beside it wins.
_GENERIC_CUES = {"new_objective": r"(?i)\bobjectives?\b"}
#: A loss term's bare name in the title is what the method is named for ("Tree-Structured
#: Advantage Redistribution", "Rethinking Importance Sampling …"), whatever verb goes with
#: it in the abstract (in the abstract, importance sampling is often only the mechanism
#: an off-policy method builds on). Hints, rollouts or a named sampling ("Prefix Sampling")
#: in a title are what is trained on; a reward model in a title is what gives the reward.
_TITLE_CUES = {"reward": r"(?i)\breward models?\b", "advantage": r"(?i)\badvantages?\b", "weight": r"(?i)\bimportance sampling\b", "sampling": r"(?i)\bhints?\b|\brollouts\b|\b(?:prefix|rollout|tree|group|adaptive|dynamic|selective|active|data|curriculum) sampling\b"}
#: How the base algorithm a method builds on is described ("a clipped surrogate
#: objective", "PPO-style clipping"), what the method does without, or the kind of model
#: it trains ("masked diffusion language models"): not its change.
_BASE_MECHANISM = (
    r"(?i)\bclipped (?:policy[- ]gradient |surrogate )?(?:objectives?|surrogates?)|\b(?:PPO|GRPO)[- ]style (?:clipping|constraints?)|clipping-based"
    r"|without (?:the use of |using |requiring |any )?(?:an? )?(?:[\w-]+ ){0,2}(?:regulari[sz]ation|clipping|critics?|baselines?|penalty|masking)"
    r"|\bmasked (?:[\w-]+ )?(?:diffusion|dLLMs?|DLMs?)\b|\bmasked language models?"
    r"|\b(?:before|prior to|after) (?:the )?clipping"
)
#: A loss-term word that qualifies something else changes that thing: a weighted or clipped
#: reward is a reward change ("confidence-weighted reward"), re-weighting whole
#: problems or prompts changes what is trained on, and an entropy-regularized objective
#: adds a coefficient's term. Rewritten to a cue of that kind before the cues
#: are counted.
_RETARGETED = (
    (
        r"(?i)\b[\w-]*(?:weight|clip|mask)\w*(?: and [\w-]+)? (?:the )?(?:[\w-]+ )?rewards?\b",
        "reward shaping",
    ),
    # Weights of several rewards or objectives are how the reward is composed.
    (r"(?i)\breward (?:re-?)?weight\w*|\bweights? (?:of|for|on) (?:the )?(?:[\w-]+ )?(?:rewards|objectives)\b", "reward shaping"),
    (r"(?i)\b(?:re|up|down)-?weight\w* (?:the )?(?:[\w-]+ ){0,2}(?:problems|prompts|questions)\b", "prompt selection"),
    # An entropy-regularized objective is the existing one with a coefficient's term.
    (r"(?i)\bentropy[- ]regulari[sz]ed\b", "entropy regularization"),
)
_MEANS = r"(?i)\b(?:through|via|by)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}"
#: Where a cue weighs most: the title names the method, a proposing sentence says what
#: it is, the rest of the abstract only mentions it.
_LOSS_CUE_WEIGHTS = {"title": 3, "proposal": 2, "own": 1}


#: Screening families of general methods that name no loss term, and their kind.
_FAMILY_KINDS = {
    "sampling": ("difficulty_selection", "rollout_or_prompt_selection"),
    "reward": ("length_reward", "reward_source"),
}


def _cue_text(field: pl.Expr) -> pl.Expr:
    """A text field with the base algorithm's mechanisms left out and retargeted cues rewritten."""
    field = field.str.replace_all(_BASE_MECHANISM, "")
    for pattern, replacement in _RETARGETED:
        field = field.str.replace_all(pattern, replacement)
    return field


def loss_change_kinds(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `loss_change_kind`, `loss_change_cue` (the words that decided) and
    `loss_change_reasons` (every `kind/field` cue found: `clip/title`, `mask/proposal`,
    `weight/own` for the abstract's sentences that are not about prior work).

    Cues are read after the base algorithm's mechanisms are left out and a loss-term word
    that qualifies a reward, whole problems, the weights of several rewards or an
    entropy-regularized objective is retargeted (`_RETARGETED`). The kind whose cues
    weigh most wins: every occurrence counts, by where it is (title 3, a proposing
    sentence 2, another sentence of the paper's own 1), and once more after "through",
    "via" or "by". A tie goes to the kind claimed first in the proposing sentences, then
    in the paper's own (a method is named for its main part, or claims it first), then to
    the precedence of LOSS_CHANGE_RULES. A paper with no cue is `other`; so is every paper
    that is not a general method (`paper_screening_of` sees to that, after overrides).
    """
    text = _with_text(papers).with_columns([_cue_text(pl.col(field)) for field in _LOSS_CUE_WEIGHTS])
    kinds = [kind for kind, _ in LOSS_CHANGE_RULES]
    found = {
        (kind, field): pl.col(field).str.contains(pattern) for kind, pattern in LOSS_CHANGE_RULES for field in _LOSS_CUE_WEIGHTS
    }
    # How often a kind's cues occur, weighted by where: a method's mechanism is named again and again.
    # A cue after "through", "via" or "by" names the means, which counts once more.
    scores = [
        pl.sum_horizontal(
            [
                pl.col(field).str.count_matches(cue).cast(pl.Int32) * weight
                for field, weight in _LOSS_CUE_WEIGHTS.items()
                for cue in (pattern, *([_GENERIC_CUES[kind]] if kind in _GENERIC_CUES else []))
            ]
            + [pl.col("own").str.count_matches(_MEANS + "(?:" + pattern.removeprefix("(?i)") + ")").cast(pl.Int32)]
            + [
                pl.col("title").str.count_matches(cue).cast(pl.Int32) * _LOSS_CUE_WEIGHTS["title"]
                for cue in ([_TITLE_CUES[kind]] if kind in _TITLE_CUES else [])
            ]
        ).alias(kind)
        for kind, pattern in LOSS_CHANGE_RULES
    ]
    # Where the kind is first claimed: in the proposing sentences, else in the paper's
    # own sentences (10^4 later), else never (10^6).
    first_at = [
        pl.coalesce(pl.col("proposal").str.find(pattern), pl.col("own").str.find(pattern) + 10**4, pl.lit(10**6)).alias(
            f"{kind}_at"
        )
        for kind, pattern in LOSS_CHANGE_RULES
    ]
    cues = [
        pl.coalesce(
            [pl.col(field).str.extract(f"({pattern})", 1) for field in _LOSS_CUE_WEIGHTS]
            + ([pl.col("title").str.extract(f"({_TITLE_CUES[kind]})", 1)] if kind in _TITLE_CUES else [])
        ).alias(f"{kind}_cue")
        for kind, pattern in LOSS_CHANGE_RULES
    ]
    reasons = pl.concat_list(
        [pl.when(found[kind, field]).then(pl.lit(f"{kind}/{field}")) for kind, field in found]
    ).list.drop_nulls()
    # A method that names no loss term is still of a family the screening knows by its
    # words (a curriculum, a length penalty, a rubric reward): its kind.
    rules = {name: (field, pattern) for name, _, field, pattern in SCREENING_RULES}
    family = pl.coalesce(
        [
            pl.when(pl.any_horizontal([_fires(_FIELD[rules[name][0]], rules[name][1]) for name in names])).then(pl.lit(kind))
            for kind, names in _FAMILY_KINDS.items()
        ]
    )
    scored = text.select("arxiv_id", *scores, *first_at, *cues, loss_change_reasons=reasons, family=family)
    best = pl.max_horizontal(kinds)
    is_best = {kind: pl.col(kind) == best for kind in kinds}
    earliest = pl.min_horizontal([pl.when(is_best[kind]).then(pl.col(f"{kind}_at")) for kind in kinds])
    chosen = {kind: is_best[kind] & (pl.col(f"{kind}_at") == earliest) for kind in kinds}
    winner = pl.coalesce([pl.when(chosen[kind]).then(pl.lit(kind)) for kind in kinds])
    winner_cue = pl.coalesce([pl.when(chosen[kind]).then(pl.col(f"{kind}_cue")) for kind in kinds])
    decided = best >= 1
    return scored.select(
        "arxiv_id",
        loss_change_kind=pl.when(decided).then(winner).otherwise(pl.coalesce("family", pl.lit("other"))),
        loss_change_cue=pl.when(decided).then(winner_cue).when(pl.col("family").is_not_null()).then(pl.lit("family")),
        loss_change_reasons="loss_change_reasons",
    )


def decided_loss_change_kinds(papers: pl.DataFrame, model: KindModel | None = None) -> pl.DataFrame:
    """`arxiv_id`, `loss_change_kind`, `loss_change_cue`, `loss_change_reasons` as the
    table keeps them: the learned model's kind (kind_model.py) where its probability
    reaches its threshold (cue `learned <probability>: <words>`, reason `<kind>/learned`),
    else the rules' (`loss_change_kinds`); with the rules' kind (`rules_loss_change_kind`),
    the model's likeliest kind (`learned_kind`) and its probability beside them. `model`
    defaults to the committed one."""
    model = committed_kind_model() if model is None else model
    learned = kind_probabilities(papers, model)
    sure = pl.col("learned_kind_probability") >= model.threshold
    return loss_change_kinds(papers).join(learned, on="arxiv_id", how="left").select(
        "arxiv_id",
        loss_change_kind=pl.when(sure).then(pl.col("learned_kind")).otherwise(pl.col("loss_change_kind")),
        loss_change_cue=pl.when(sure)
        .then(pl.format("learned {}: {}", pl.col("learned_kind_probability").round(2), pl.col("learned_kind_terms").list.join(" ")))
        .otherwise(pl.col("loss_change_cue")),
        loss_change_reasons=pl.when(sure)
        .then(pl.col("loss_change_reasons").list.concat(pl.concat_list(pl.format("{}/learned", pl.col("learned_kind")))))
        .otherwise(pl.col("loss_change_reasons")),
        rules_loss_change_kind="loss_change_kind",
        learned_kind="learned_kind",
        learned_kind_probability="learned_kind_probability",
    )


def only_for_general_methods(kind: pl.Expr, is_general_rl_method: pl.Expr) -> pl.Expr:
    """The loss-change kind of a general method; `other` for every other paper. A general
    method whose abstract names no part it changes is a new algorithm as a whole: its kind
    is `new_objective` (the labels give that kind to most such methods)."""
    return (
        pl.when(is_general_rl_method)
        .then(pl.when(kind == "other").then(pl.lit("new_objective")).otherwise(kind))
        .otherwise(pl.lit("other"))
    )


# -- code release -------------------------------------------------------------------------

_URL = r"https?://[^\s,;)\]}>\"']+"
#: Hosts of code. A GitHub link counts unless it points at data, and github.io is a page.
_CODE_HOST = r"(?i)^https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|gitee\.com)/[^/]+/[^/]+"
_NOT_CODE = r"(?i)(?:dataset|[-_/]data(?:[-_/]|$)|benchmark|leaderboard|/releases/download/|\.(?:json|jsonl|csv|parquet|zip|tar|gz|pdf)$)"


def code_links(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id`, `code_released` (a code repository is linked from the abstract or the
    comment) and `code_url` (the first such link)."""
    text = pl.concat_str([pl.col("abstract").fill_null(""), pl.col("comment").fill_null("")], separator=" ")
    links = (
        papers.select("arxiv_id", url=text.str.extract_all(_URL))
        .explode("url")
        .drop_nulls("url")
        .with_columns(url=pl.col("url").str.strip_chars_end(".:"))
        .filter(pl.col("url").str.contains(_CODE_HOST) & ~pl.col("url").str.contains(_NOT_CODE))
        .group_by("arxiv_id", maintain_order=True)
        .first()
    )
    return (
        papers.select("arxiv_id")
        .join(links, on="arxiv_id", how="left")
        .select("arxiv_id", code_released=pl.col("url").is_not_null(), code_url="url")
    )


# -- the screening table ------------------------------------------------------------------

SCREENING_OVERRIDE_COLUMNS = {
    "arxiv_id": pl.Utf8,
    "is_general_rl_method": pl.Boolean,
    "policy_params_b": pl.Float64,
    "loss_change_kind": pl.Utf8,
    "code_released": pl.Boolean,
    "code_url": pl.Utf8,
}
#: Override columns that may replace a rule's value (blank: keep the rule's).
OVERRIDABLE = ("is_general_rl_method", "policy_params_b", "loss_change_kind", "code_released", "code_url")



def read_screening_overrides(path: Path) -> pl.DataFrame:
    """overrides/screening.csv: `arxiv_id`, then any of the overridable columns (blank
    keeps the rule's value), and `reason`."""
    return read_override_csv(
        path,
        SCREENING_OVERRIDE_COLUMNS,
        required=["arxiv_id"],
        allowed={"loss_change_kind": LOSS_CHANGE_KINDS},
        formats={"code_url": (r"^https?://\S+$", "not an http(s) URL")},
        unique=["arxiv_id"],
    )


def paper_screening_of(papers: pl.DataFrame, maintainers: pl.DataFrame, overrides: pl.DataFrame) -> pl.DataFrame:
    """One row per paper: the screening verdict with its score and reasons, the four
    features with their cues, and where the verdict came from (`verdict_source`: rules
    or override; `overridden`: the columns an override replaced, with its reason).

    `maintainers` is `maintainer_companies_of` (arxiv_id, maintainer_company,
    affiliation_source); `overrides` is `read_screening_overrides`.
    """
    rules = (
        papers.select("arxiv_id", "cohort")
        .join(screening_verdicts(papers), on="arxiv_id", how="left")
        .join(policy_sizes(papers), on="arxiv_id", how="left")
        .join(decided_loss_change_kinds(papers), on="arxiv_id", how="left")
        .join(code_links(papers), on="arxiv_id", how="left")
        .join(maintainers.select("arxiv_id", "maintainer_company", "affiliation_source"), on="arxiv_id", how="left")
    )
    corrections = overrides.select(
        "arxiv_id", *[pl.col(column).alias(f"{column}_override") for column in OVERRIDABLE], override_reason="reason"
    )
    merged = rules.join(corrections, on="arxiv_id", how="left")
    set_by_override = {column: pl.col(f"{column}_override").is_not_null() for column in OVERRIDABLE}
    # A curated code URL implies code was released, unless the override says otherwise.
    code_released_override = pl.coalesce(
        pl.col("code_released_override"), pl.when(pl.col("code_url_override").is_not_null()).then(True)
    )
    return (
        merged.with_columns(
            overridden=pl.concat_list(
                [pl.when(flag).then(pl.lit(column)) for column, flag in set_by_override.items()]
            ).list.drop_nulls(),
            verdict_source=pl.when(set_by_override["is_general_rl_method"]).then(pl.lit("override")).otherwise(pl.lit("rules")),
            is_general_rl_method=pl.coalesce("is_general_rl_method_override", "is_general_rl_method"),
            policy_params_b=pl.coalesce("policy_params_b_override", "policy_params_b"),
            policy_size_cue=pl.when(set_by_override["policy_params_b"]).then(pl.lit("override")).otherwise(pl.col("policy_size_cue")),
            loss_change_kind=pl.coalesce(
                "loss_change_kind_override",
                only_for_general_methods(
                    pl.col("loss_change_kind"), pl.coalesce("is_general_rl_method_override", "is_general_rl_method")
                ),
            ),
            loss_change_cue=pl.when(set_by_override["loss_change_kind"]).then(pl.lit("override")).otherwise(pl.col("loss_change_cue")),
            code_released=pl.coalesce(code_released_override, pl.col("code_released")),
            code_url=pl.when(code_released_override.eq(False)).then(None)
            .otherwise(pl.coalesce("code_url_override", "code_url")),
        )
        .with_columns(large_policy=pl.col("policy_params_b") >= LARGE_POLICY_B)
        .select(list(CORE_PAPER_SCREENING.schema))
        .cast(CORE_PAPER_SCREENING.schema)
        .sort("arxiv_id")
    )
