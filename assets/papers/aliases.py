"""The names a paper's method goes by: what code, docs and threads call it.

Rules read the title and abstract (`title_prefix`: "DAPO: …"; `acronym`: "Group Sequence
Policy Optimization (GSPO)" in the title or in a sentence that proposes something, and
"(PSR and NSR)"; `long_form`: the long name before or inside such a parenthesis, or
several capitalised words after "we present" or "called"; `we_propose`: "we introduce
REINFORCE++", "we propose a novel X method, Y"; `named`: "called/dubbed X", "our system,
X,"; `enumerated`: "(1) X stabilizes …; (2) Y++ improves …"). A learned model
(name_model.py) adds the candidate spans it finds likely beside the rules' names
(`learned`). Spelling `variant`s are derived from every name (`dr_grpo`, `drgrpo`,
`reinforce_plus_plus`), and `overrides/aliases.csv` adds or removes names (`override`).
Names of methods that predate the window (PPO, GRPO, …) are never a paper's alias unless
an override says so: a 2025 paper that mentions GRPO does not own it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from orchestration.curation import OVERRIDES_DIR, about_known_papers, read_override_csv
from orchestration.tables import CORE_PAPER_ALIASES

if TYPE_CHECKING:
    from assets.papers.name_model import NameModel

ALIASES_OVERRIDES = OVERRIDES_DIR / "aliases.csv"


ALIAS_OVERRIDE_COLUMNS = {"arxiv_id": pl.Utf8, "alias": pl.Utf8, "action": pl.Utf8}
ALIAS_OVERRIDE_ACTIONS = ("add", "remove")

#: Which source a name keeps when several rules find it (first wins).
SOURCES = ("override", "title_prefix", "acronym", "we_propose", "named", "enumerated", "long_form", "learned", "report", "variant")

#: Names established before the window (methods, model families, field jargon,
#: benchmarks): matched as normalized names, never a 2025–2026 paper's alias.
ESTABLISHED_NAMES = frozenset(
    {
        # methods and estimators
        "PPO", "GRPO", "DPO", "RLOO", "ReMax", "REINFORCE", "TRPO", "A2C", "A3C", "GAE", "SAC",
        "SimPO", "KTO", "ORPO", "IPO", "CPO", "RAFT", "ReST", "STaR", "VinePPO", "Online DPO",
        "iterative DPO", "Best-of-N", "BoN", "MCTS", "DQN", "TD", "KL", "NLL", "EMA", "Muon", "Adam",
        "AdamW", "LoRA", "QLoRA", "DPO-Positive",
        # field jargon
        "RL", "RLHF", "RLAIF", "RLVR", "RFT", "ReFT", "SFT", "LLM", "LLMs", "LM", "LRM", "VLM", "MLLM",
        "MoE", "CoT", "Long-CoT", "PRM", "ORM", "RM", "PG", "MDP", "POMDP", "OOD", "SOTA", "AI", "AGI",
        "GPU", "TPU", "FP16", "BF16", "FP8", "FP32", "IS", "TIS", "KV", "API", "QA", "NLP", "GUI",
        "R1", "o1", "o3", "R1-Zero", "Zero-RL", "RL-Zero",
        # model families and benchmarks the abstracts cite
        "Qwen", "Qwen2.5", "Qwen3", "Llama", "Llama3", "Mistral", "Gemma", "GPT-4", "GPT-4o", "DeepSeek",
        "DeepSeek-V3", "AIME", "AMC", "MATH", "MATH500", "GSM8K", "HumanEval", "MBPP", "LiveCodeBench",
        "Codeforces", "MMLU", "GPQA", "ALFWorld", "WebShop", "SWE-bench",
        "IOI", "IMO", "ICPC", "MCP", "GenRM", "IRL", "DAAs", "DAA",
        # two-letter field jargon a paper may spell out ("Monte Carlo (MC)")
        "MC", "LR", "ID", "RS", "SL", "IL", "CE", "ES", "VQA", "dLLM", "dLLMs",
    }
)

_SEPARATORS = r"[\s\-_.]+"
#: A method name: a capitalised token, optionally with -, . or digits inside and ++ after
#: (REINFORCE++, SEED-GRPO, Kimi k1.5 is two tokens), "Dr. GRPO"-style honorific names,
#: a lower-case prefix before capitals ("vOPD", "rStar2-Agent"), a Greek letter before
#: one ("λ-PO"), or a lower-case word before a hyphen and an acronym ("blend-PPO").
_NAME = r"(?:[A-Z][a-z]{1,2}\.\s?[A-Z]{2,}[A-Za-z0-9]*|[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9α-ω]+)*(?:@[A-Za-z0-9]+)?(?:\+\+)?|[a-z]{1,2}[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*|[α-ω]-[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*|[a-z]{3,}-[A-Z]{2,}[A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*)"
_LATEX_WRAP = r"(?:\\(?:textbf|emph|textit|textsc|texttt)\{)?"
_PROPOSING = (
    # ... or a second verb of the authors ("we identify the cause and propose …").
    r"(?i:(?:\b(?:we|us to|this (?:paper|work))\s+|\bwe\s[^.;]{0,120}?\band\s+)(?:(?:also|further|therefore|then|first|additionally|thus)\s+)?"
    r"(?:propose[sd]?|introduce[sd]?|present[sd]?|develop[sd]?|design[sd]?|derive[sd]?|build|builds|built|train|formulate[sd]?|investigate[sd]?)\s+)"
)
_WE_PROPOSE = (
    _PROPOSING
    + r"(?i:(?:a|an|the|our|novel|new|simple|yet|effective|general|two|method|algorithm|framework|approach|solution|,)\s+)*"
    + _LATEX_WRAP
    + "(" + _NAME + r")(\s+[A-Z][A-Za-z])?(\}?\s*(?:[,(:]|[–—]|\s-\s))?"
)
_NAMED = (
    r"(?i:\b(?:named|namely|called|dubbed|termed|coined|we (?:term|call|name))\s+(?:as\s+)?)"
    + _LATEX_WRAP
    + r"[\"'“]?("
    + _NAME
    + r")(\s+[A-Z][A-Za-z])?"
)
_ACRONYM = r"\(\s*(" + _NAME + r")\s*\)"
#: The last of several names after "namely" ("namely Clip-Cov and KL-Cov").
_NAMED_LAST = r"(?i:\b(?:named|namely|called|dubbed|termed)\s+)" + _NAME + r"(?:\s*,\s*" + _NAME + r")*,?\s+and\s+(" + _NAME + ")"
#: A sentence that cites others ("we adopt X (Smith et al., 2025)"): its names are theirs.
_CITATION = r"\bet al\b|\[\d+(?:[,\s-]+\d+)*\]"
_PROPOSAL_SENTENCE = (
    r"(?i)\b(?:propos|introduc|present|develop|design|deriv|extend|pioneer|term|call|name|refer|dub|coin|novel|instantiat|formulat|build|investigat|describ|defin|at the (?:core|heart) of|(?:core|key) components?)"
    # "First, our Reasoning-Oriented Data Strategy (RODS) combines …"
    + r"|\b[Oo]ur\s+[A-Z][^()]{3,80}\(\s*[A-Z]"
)
#: Whose proposal: the authors' own ("we", "our", "this paper"). A sentence about what
#: others use ("KDRL minimizes the reverse KL (RKL)", "in Uniform Diffusion Models (UDM)")
#: defines field terms, not the paper's name.
_AUTHORS_OWN = r"(?i)\b(?:we|us|our|this (?:paper|work|study)|novel|the proposed|(?:is|are) (?:introduced|proposed))\b"
#: "we introduce Moonlight, a 16B MoE model": the name of a model, data set or benchmark
#: the paper releases, which threads and configs use for the artifact, not a method.
_ARTIFACT_APPOSITION = r"(\s*(?:a|an|the)\s[^.;,]{0,60}?\b(?:models?|datasets?|benchmarks?|corpus|corpora)\b)?"
#: ... unless the apposition names a method first ("Intuitor, an RLIF method that uses a model's …").
_METHOD_NOUN = r"(?i)\b(?:method|algorithm|approach|framework|objective|loss|technique|paradigm|recipe|estimator|reward models?|verifiers?|critics?)\b"
#: Words that open a title prefix which is a phrase, not a name ("Understanding R1-Zero-Like Training:").
_PHRASE_OPENERS = r"(?i)^(?:part|on|towards?|beyond|understanding|rethinking|revisiting|learning|from|back|when|why|how|what|is|are|do|does|can|the|a|an)\b"
_ROMAN = r"^[IVX]+$"
#: A sentence ends at . ! ? after a lower-case word, a digit or an acronym's parenthesis
#: ("… (RL). Specifically"), so "Dr. GRPO" stays whole.
_SENTENCE_END = r"((?:[a-z0-9)%]{2}|[A-Z]\))[.!?])\s+([A-Z])"

#: A name counts when one of its words looks like one: two capitals (DAPO, DeepEyes), a
#: digit beside letters (INTELLECT-2), ++, or a single capitalised word of a title prefix.
_NAME_LIKE = r"(?:[A-Z]\S*[A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]|\+\+)"


#: Small words inside a long name ("Clipped Policy Gradient Optimization with Policy Drift").
_CONNECTOR = r"(?:of|with|for|via|through|to|in|on|from|under|by|and|as|the|a|an)"
#: A long name: capitalised words (digits, hyphens and ++ inside), small words between.
#: ... the words after the first may start in lower case where a capital inside marks the
#: acronym's letter ("Dynamic sAmpling", "reward-Decoupled").
#: Words may join with an en dash too ("Perception–Reasoning").
_INNER_WORD = r"[a-z\d–-]*[A-Z][\w*^+@–-]*"
_LONG_NAME = r"[A-Z][\w*^+@–-]*(?:\s+(?:" + _INNER_WORD + "|" + _CONNECTOR + r"))*?\s+" + _INNER_WORD
#: "we propose a novel prompt-selection method, Pre-PPO": a method noun, then its name.
_METHOD_THEN_NAME = (
    _PROPOSING
    + r"(?:a|an|the|our)\s+(?:[\w-]+\s+){0,4}?(?:method|algorithm|framework|approach|technique|objective|estimator|paradigm|recipe|mechanism|strategy|regularizer|version|variant|metric),?\s+"
    + r"(?i:(?:called|named|termed|dubbed)\s+)?"
    + _LATEX_WRAP
    + "("
    + _NAME
    + r")(\s+[A-Z][A-Za-z])?"
)
#: "… are combined into a new off-policy algorithm, Zeno-PO, which …": a new method
#: named in apposition, in any sentence ("new" says whose it is).
_NEW_METHOD_THEN_NAME = (
    r"\b(?i:a|an)\s+(?i:new|novel)\s+(?:[\w-]+\s+){0,4}?(?:method|algorithm|framework|approach|technique|objective|estimator),\s+"
    + _LATEX_WRAP
    + "("
    + _NAME
    + r")\}?\s*[,.;]"
)
#: "we propose Complementary RL to ...", "we present ROLL Flash, a system": a name of
#: several capitalised words, then a comma, a parenthesis or the sentence going on.
_WE_PROPOSE_LONG = _PROPOSING + r"(?i:(?:the|a|an)\s+)?" + _LATEX_WRAP + "(" + _LONG_NAME + r")\}?\s*(?:[,(]|\b(?:to|that|which|for|as)\b)"
_NAMED_LONG = r"(?i:\b(?:named|called|dubbed|termed|coined)\s+(?:as\s+)?)[\"'“]?(" + _LONG_NAME + r")[\"'”]?\s*(?:[,.(]|\b(?:in|to|that|which)\b)"
#: Enumerated contributions: "(1) XPO stabilizes ...; (2) Y++ improves ...; (3) Zed, a ...".
_ENUMERATED = (
    r"\(\s*(?:\d|[ivx]{1,4}|[a-e])\s*\)\s*("
    + _NAME
    # ... of one word, or two where the second looks like a name ("Rollout DPO").
    + r"(?:\s+[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*)?)(?:\s*[,:]|\s+(?:stabiliz|improv|reduc|mitigat|prevent|balanc|correct|control|enabl|assign|estimat|provid|leverag|extend|perform|replac|combin|adapt|decoupl|introduc|minimi[sz]|maximi[sz]|optimi[sz]|appl|us)\w*)"
)
#: "(2) Reasoning-aware Advantage Estimation, which …": an enumerated long name.
_ENUMERATED_LONG = r"\(\s*(?:\d|[ivx]{1,4}|[a-e])\s*\)\s*(?:(?:A|An|The)\s+)?(" + _LONG_NAME + r")\s*(?:,|\s+(?:which|that|to)\b)"
#: "our model Zeno-VP achieves", "our derived Zeno-Coder-4B": the authors' own model or
#: method named right after "our", where the name has two capitals or a digit.
_OUR_NAMED = r"\b[Oo]ur\s+(?:(?:final|derived|resulting|trained|proposed)\s+)?(?:(?:model|method|algorithm|approach|agent|policy),?\s+)?(" + _NAME + r")\b"
#: A benchmark's name ("CodeBench", "Math-bench"): the paper's artifact, not its method.
_BENCHMARK_NAME = r"(?i)bench$"
#: "(ii) XPO-Ro, an agentic RL algorithm with …": an enumerated item that names an
#: algorithm or method, in any sentence (a list of innovations need not say "we").
_ENUMERATED_METHOD = (
    r"\(\s*(?:\d|[ivx]{1,4}|[a-e])\s*\)\s*(" + _NAME + r"),\s+(?:an?|the)\s+[^,;()]{0,40}?\b(?:algorithm|method|objective|estimator|technique|loss)\b"
)
#: "with a Resample-on-Correct rollout strategy": a hyphenated capitalised compound
#: before a method noun.
_COMPOUND_BEFORE_NOUN = (
    r"\b(?:a|an|the|our)\s+([A-Z][a-z]+(?:-[a-z]+)*-[A-Z][a-z]+)\s+(?:[\w-]+\s+)?(?:strategy|mechanism|method|scheme|algorithm|technique|objective|loss|estimator)\b"
)
#: "Zeno-2 introduces Hive Mind, a parallel agent framework": a named method or model
#: that introduces a named part of its own.
_NAME_INTRODUCES = (
    r"\b(?:[A-Z][\w.-]*\d[\w.-]*|[A-Z][\w-]*[A-Z][\w-]*) (?:further |also )?(?:introduces|proposes|presents) ("
    + _LONG_NAME
    + "|"
    + _NAME
    + r"),\s+(?:a|an)\s"
)
#: A coined name: a word with two capitals or a capital and a digit ("Zeno-PO", "Zeno2").
_COINED_NAME = r"(?:[A-Z][\w-]*[A-Z]|[A-Z][\w-]*\d)[\w-]*"
#: Words that open a sentence describing the next part of a method ("First, …").
_PART_LEAD = r"First|Second|Third|Finally|Then|Next|Moreover|Additionally|Furthermore"
#: "First, Zeno-PO introduces Advantage Tempering.", "Zeno-PO employs Soft Clipping, which
#: …": a coined method that introduces or employs a named part of its own.
_COINED_PART = (
    r"^(?:(?:" + _PART_LEAD + r"),\s+)?"
    r"(" + _COINED_NAME + r")\s+(?:also\s+|further\s+)?(?:introduces|employs|incorporates|applies|adopts|adds)\s+("
    + _LONG_NAME
    + r")\s*(?:[,.;]|\s+(?:to|that|which|for)\b)"
)
#: "we introduce X-PO, a …, and Y-PO, a …": a second name introduced the same way.
_AND_NAME_APPOSITION = r",?\s+and\s+(" + _NAME + r"),\s+(?:a|an)\s"
#: "we train Zeno-R1 to use tools": the authors' own model, by a name-like word.
_WE_TRAIN = r"\b[Ww]e (?:then |further |also )?train (" + _NAME + r")\b"
#: A numbered part of a procedure ("Stage II", "Phase 2", "Step-3"): where it is, not a name.
_NUMBERED_STEP = r"(?i)^(?:stage|phase|step|part|round|level|iteration)[\s-]+(?:[IVX]+|\d+)$"
#: Released sizes of the established model families are the checkpoints a paper starts
#: from ("Qwen2.5-Math-7B"), never its name.
_MODEL_FAMILY = r"(?i)^(?:Qwen|Llama|Mistral|Mixtral|Gemma|GPT|DeepSeek|Phi|OLMo|Claude|Gemini|InternLM|GLM)[\d.-].*-\d+(?:\.\d+)?[BM]\b"
#: "Our system, EigenData, is ...": the authors' own thing, named in apposition.
_OUR_THING_NAMED = r"(?i:\b(?:our|the proposed|the resulting)\s+(?:[\w-]+\s+)?(?:system|method|framework|approach|algorithm|technique|engine|library),\s+)(" + _NAME + r"),"
#: A parenthesis that holds names: one name ("(GSPO)"), two ("(PSR and NSR)") or a long
#: form after its acronym ("PODS (Policy Optimization with Down-Sampling)"); not a list
#: of examples ("(e.g., GRPO)").
_PAREN = r"\(\s*([^()]{2,100}?)\s*\)"
_EXAMPLES = r"(?i)^(?:e\.g|i\.e|such as|see|like|including|cf|vs)\b"
#: The long form before an acronym: the run of capitalised and small words that ends
#: right before "(ACRONYM)".
_LONG_FORM_BEFORE = r"((?:[A-Z][\w*^+@–-]*)(?:\s+(?:" + _INNER_WORD + "|" + _CONNECTOR + r"))*)\s*\(\s*(" + _NAME + r")\s*\)"
#: "PVPO: Pre-Estimated Value-Based Policy Optimization for …": the title's words after
#: the colon, up to a preposition or a dash, are the long form of the name before it when
#: the name's capitals occur in order among theirs.
_TITLE_LONG_FORM = r"^(" + _NAME + r"):\s+(.+?)(?:\s+(?:for|with|in|via|on|to|from|through|under|as|by)\s|\s+[-–—]+\s|:|$)"


def normalized_name(name: pl.Expr) -> pl.Expr:
    """Lower case without spaces, hyphens, underscores or dots: `Dr. GRPO`, `dr_grpo` → `drgrpo`."""
    return name.str.to_lowercase().str.replace_all(_SEPARATORS, "")


#: ESTABLISHED_NAMES as normalized names, the form they are matched in.
ESTABLISHED_NORMALIZED = pl.select(normalized_name(pl.Series(sorted(ESTABLISHED_NAMES)))).to_series().to_list()


def long_enough(normalized: pl.Expr) -> pl.Expr:
    """A normalized name long enough to be one: three characters at least, or two with a
    digit ("r3", "t2")."""
    return (normalized.str.len_chars() >= 3) | normalized.str.contains(r"^(?:[a-z]\d|\d[a-z])$")


def _clean(name: pl.Expr) -> pl.Expr:
    """Trim punctuation around a found name and the plural `s` of an acronym (PRMs → PRM)."""
    trimmed = name.str.strip_chars().str.strip_chars(",;:'\"“”()")
    trimmed = pl.when(trimmed.str.ends_with(".") & ~trimmed.str.contains(r"\.\s?[A-Z]")).then(
        trimmed.str.strip_chars_end(".")
    ).otherwise(trimmed)
    return pl.when(trimmed.str.contains(r"[A-Z]{2,}s$")).then(trimmed.str.strip_chars_end("s")).otherwise(trimmed)


def _found(
    frame: pl.DataFrame,
    text: str,
    pattern: str,
    source: str,
    *,
    runs_on_group: bool = False,
    delimited: bool = False,
    loose: bool = False,
    artifacts: bool = False,
) -> pl.DataFrame:
    """Group 1 of every match of `pattern`; a match whose group 2 is set (the name runs on
    into a capitalised word: "we propose Group-in-Group Policy …") is the start of a long
    form, not a name, and is dropped."""
    matches = (
        frame.select("arxiv_id", match=pl.col(text).str.extract_all(pattern))
        .explode("match")
        .drop_nulls("match")
    )
    if runs_on_group:
        matches = matches.filter(pl.col("match").str.extract(pattern, 2).is_null())
    # A single capitalised word counts as a name where the text sets it apart: in
    # parentheses (Lopti) or right after "we propose" before a comma (Intuitor, …).
    set_apart = pl.lit(True) if loose else pl.col("match").str.extract(pattern, 3).is_not_null() if delimited else pl.lit(False)
    return matches.select(
        "arxiv_id",
        alias=pl.col("match").str.extract(pattern, 1),
        source=pl.lit(source),
        set_apart=set_apart,
        # With `artifacts`, group 4 is an apposition that sets the name apart as a model
        # or data set (_ARTIFACT_APPOSITION).
        artifact=pl.col("match").str.extract(pattern, 4).str.contains(_METHOD_NOUN).not_().fill_null(False)
        if artifacts
        else pl.lit(False),
    )


def _title_prefixes(papers: pl.DataFrame) -> pl.DataFrame:
    """Names before the title's colon ("DAPO: …", "GTPO and GRPO-S: …"), or a one-word title."""
    prefix = pl.col("title").str.extract(r"^([^:]{2,60}):\s").str.strip_chars()
    one_word = pl.when(pl.col("title").str.contains(r"^\S+$")).then(pl.col("title"))
    return (
        papers.select("arxiv_id", prefix=pl.coalesce(prefix, one_word))
        .drop_nulls("prefix")
        .filter(~pl.col("prefix").str.contains(_PHRASE_OPENERS))
        # "GTPO and GRPO-S: …" names two methods; "Orchestrating Tokens and Sequences: …" none.
        .with_columns(parts=pl.col("prefix").str.split(" and "))
        .with_columns(
            alias=pl.when(pl.col("parts").list.eval(pl.element().str.contains(_NAME_LIKE)).list.all())
            .then(pl.col("parts"))
            .otherwise(pl.concat_list(pl.col("prefix")))
        )
        .explode("alias")
        .with_columns(alias=pl.col("alias").str.strip_chars(), words=pl.col("alias").str.count_matches(r"\S+"))
        .filter(
            # One word: capitalised, a Greek letter before capitals ("λ-PO"), or lower case
            # with a digit ("d1", "s3").
            ((pl.col("words") == 1) & pl.col("alias").str.contains(r"^(?:[A-Z]|[a-z]{1,2}[A-Z]|[α-ω]-[A-Z]|[a-z]+\d[\w+-]*$)"))
            | ((pl.col("words") == 2) & pl.col("alias").str.contains(_NAME_LIKE))
        )
        .filter(~pl.col("alias").str.contains(_ROMAN))
        .select("arxiv_id", "alias", source=pl.lit("title_prefix"), set_apart=pl.lit(True), artifact=pl.lit(False))
    )


def _matches(sentences: pl.DataFrame, pattern: str, groups: list[str]) -> pl.DataFrame:
    """`arxiv_id` and the groups of every match of `pattern` in each sentence, named `groups`."""
    return (
        sentences.select("arxiv_id", match=pl.col("sentence").str.extract_all(pattern))
        .explode("match")
        .drop_nulls("match")
        .with_columns(pl.col("match").str.extract_groups(pattern).struct.rename_fields(groups))
        .unnest("match")
    )


def _sentences(papers: pl.DataFrame) -> pl.DataFrame:
    """`arxiv_id` and each sentence of its abstract, in order."""
    return papers.select(
        "arxiv_id",
        sentence=pl.col("abstract").fill_null("").str.replace_all(_SENTENCE_END, "$1\n$2").str.split("\n"),
    ).explode("sentence")


#: "Zeno-PO comprises two components: …", "Zeno employs a two-stage pipeline: …": a
#: sentence whose subject is a coined name (two capitals or a digit) and whose verb says
#: what the method is made of speaks for the authors, "we" or not.
_COINED_SUBJECT = (
    r"^\s*(" + _COINED_NAME + r")\s+(?:comprises|consists of|is composed of|employs|incorporates|integrates|introduces|features|combines|contains)\b"
)


def _proposes() -> pl.Expr:
    """A sentence in which the authors propose something of their own: a proposing word,
    said by "we" (or of a coined name as the subject), citing nobody."""
    subject = pl.col("sentence").str.extract(_COINED_SUBJECT, 1)
    coined_subject = subject.is_not_null() & ~normalized_name(subject).is_in(ESTABLISHED_NORMALIZED)
    return (
        pl.col("sentence").str.contains(_PROPOSAL_SENTENCE)
        & (pl.col("sentence").str.contains(_AUTHORS_OWN) | coined_subject)
        & ~pl.col("sentence").str.contains(_CITATION)
    )


def _proposal_sentences(sentences: pl.DataFrame) -> pl.DataFrame:
    return sentences.filter(_proposes())


#: "we address this by introducing dynamic reward weighting, which …": a lower-case name of
#: two to four words right after a proposing verb, set off by a comma and a relative or
#: an apposition, and named for a training mechanism.
_LOWER_CASE_NAME = (
    r"\b(?:propos|introduc)\w*\s+(?:an?\s+)?(?:novel\s+|new\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){1,3}),\s+(?:which|that|an?)\s"
)


#: "Zeno-PO comprises two key components: stale group replay and tempered ratio clipping.",
#: "we introduce three innovations: Soft Caps, Stale Replay and …": the parts a method is
#: said to be made of, listed after a colon.
_COMPONENT_LIST = (
    r"\b(?:comprises|consists of|is composed of|includes|features|introduc\w*|propos\w*|has)\s+(?:two|three|four)\s+"
    r"(?:key\s+|core\s+|main\s+|novel\s+|technical\s+)?(?:components|modules|techniques|innovations|mechanisms|parts|strategies)\s*:\s*([^.;()]+)"
)


def _listed_components(sentences: pl.DataFrame) -> pl.DataFrame:
    """Each item of a component list that is two to five capitalised words, or two to four
    lower-case words named for a training mechanism."""
    return (
        _matches(sentences, _COMPONENT_LIST, ["items"])
        .with_columns(alias=pl.col("items").str.replace_all(r",?\s+and\s+", ", ").str.split(", "))
        .explode("alias")
        .with_columns(alias=pl.col("alias").str.strip_chars())
        .filter(
            (pl.col("alias").str.contains(r"^[a-z][\w-]*(?:\s+[a-z][\w-]*){1,3}$") & pl.col("alias").str.contains(_MECHANISM_HEAD))
            | pl.col("alias").str.contains(r"^[A-Z][\w-]*(?:\s+[A-Z][\w-]*){1,4}$")
        )
        .select("arxiv_id", "alias", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False))
    )


def _coined_parts(sentences: pl.DataFrame) -> pl.DataFrame:
    """Named parts a coined method introduces (_COINED_PART); not those of an established one."""
    return (
        _matches(sentences, _COINED_PART, ["subject", "alias"])
        .filter(~normalized_name(pl.col("subject")).is_in(ESTABLISHED_NORMALIZED))
        .select("arxiv_id", "alias", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False))
    )


def _lower_case_names(sentences: pl.DataFrame) -> pl.DataFrame:
    return _found(sentences, "sentence", _LOWER_CASE_NAME, "long_form", loose=True).filter(
        pl.col("alias").str.contains(_MECHANISM_HEAD) & ~pl.col("alias").str.contains(r"^(?:a|an|the|our|this|these)\b")
    )


#: A sentence about what others do ("existing methods such as ..."): its acronyms are theirs.
_OTHERS_WORK = (
    r"(?i)\b(?:existing|prior|previous|standard|conventional|vanilla|typically|commonly|widely|popular|"
    r"such as|e\.g\.|recent (?:methods|works?|approaches|advances)|"
    r"adopt\w*|employ\w*|build(?:s|ing)? (?:up)?on|built (?:up)?on|based on|following|extend\w*|"
    r"variants? of|instead of|in contrast|compared (?:to|with)|outperform\w*|surpass\w*|inherent|rectif\w*)\b"
)


def _own_sentences(sentences: pl.DataFrame) -> pl.DataFrame:
    """Sentences in which the authors speak ("we", "our") of neither others' work nor a citation."""
    return sentences.filter(
        pl.col("sentence").str.contains(_AUTHORS_OWN)
        & ~pl.col("sentence").str.contains(_CITATION)
        & ~pl.col("sentence").str.contains(_OTHERS_WORK)
    )


#: What a coined method is named for: a training mechanism ("… Policy Optimization",
#: "… Advantage Shaping", "… Gradient Regulation"), not a kind of model, agent or task.
_MECHANISM_HEAD = (
    r"(?i)\b(?:optimi[sz]ation|shaping|regulation|estimation|estimator|sampling|regulari[sz]ation|"
    r"normali[sz]ation|clipping|masking|weighting|reweighting|redistribution|exploration|selection|"
    r"allocation|curriculum|penalty|filtering|decoupling|correction|calibration|scheduling|gradient|"
    r"objective|loss|update|rollouts?|replay|reinforce(?:ment)?|alignment|credit assignment|"
    r"search|refinement|guidance|tuning|training|function)$"
)


def _defining_sentences(sentences: pl.DataFrame) -> pl.DataFrame:
    """Sentences that define a term without a proposing verb ("The resulting algorithm,
    Xyz Policy Optimization (XPO), masks …"; "It then applies Abc Advantage Shaping (AAS)"):
    the sentences after the abstract's first proposal ("we propose …"), where it describes
    its own method, that neither cite nor speak of others' work. Before it, an abstract
    describes the field."""
    return _sentences_after(sentences, _proposes()).filter(~pl.col("sentence").str.contains(_OTHERS_WORK))


def _sentences_after(sentences: pl.DataFrame, first: pl.Expr) -> pl.DataFrame:
    """`arxiv_id`, `sentence`: each abstract's sentences after the first one that `first`
    holds for, citing nobody."""
    return (
        sentences.with_columns(position=pl.int_range(pl.len()).over("arxiv_id"))
        .with_columns(first=pl.col("position").filter(first).min().over("arxiv_id"))
        .filter((pl.col("position") > pl.col("first")) & ~pl.col("sentence").str.contains(_CITATION))
        .select("arxiv_id", "sentence")
    )


#: "(1) Guided Entropy-Assisted Repair (GEAR), an …": an item of an enumerated list of the
#: method's parts, defined by its acronym.
_ENUMERATED_ACRONYM = r"\(\s*(?:\d|[ivx]{1,4}|[a-e])\s*\)\s*(?:(?:A|An|The)\s+)?" + _LONG_FORM_BEFORE
#: "Zigzag Reward Tempering (ZRT) rescales …", "Second, Quiet Token Masking (QTM) drops …":
#: a sentence whose subject is a long form with its acronym and whose verb says what it
#: does describes a part of the method, once the authors have spoken of their own work.
_SUBJECT_ACRONYM = (
    r"^\s*(?:(?:" + _PART_LEAD + r"|Fourth|Lastly|Specifically|Concretely|Meanwhile|In addition),\s+)?"
    r"(?:(?:A|An|The|Our)\s+)?" + _LONG_FORM_BEFORE + r"\s*,?\s+(?:[a-z]+ly\s+)?[a-z]+s\b"
)


def _defined_acronyms(sentences: pl.DataFrame, pattern: str = _LONG_FORM_BEFORE, *, named_for_mechanism: bool = True) -> pl.DataFrame:
    """"Xyz Policy Optimization (XPO)" anywhere the paper speaks for itself: the acronym and
    its long form, where the acronym's capitals spell the long form's capitalised words
    (a name coined for the paper; field terms are ESTABLISHED_NAMES) and the long form is
    named for a training mechanism (_MECHANISM_HEAD). An enumerated part of the method
    (`_ENUMERATED_ACRONYM`, `named_for_mechanism=False`) may be named for anything: the
    list says it is the paper's."""
    pairs = (
        _matches(sentences, pattern, ["run", "acronym"])
        .with_columns(run=pl.col("run").str.replace(r"^(?i:the|a|an)\s+", ""), acronym=_clean(pl.col("acronym")))
        .filter(
            pl.col("run").str.contains(r"\s")
            & pl.col("acronym").str.contains(r"[A-Z].*[A-Z]")
            & ~normalized_name(pl.col("acronym")).is_in(ESTABLISHED_NORMALIZED)
            & abbreviates(pl.col("acronym"), pl.col("run"))
            & (pl.col("run").str.contains(_MECHANISM_HEAD) | pl.lit(not named_for_mechanism))
        )
    )
    return pl.concat(
        [
            pairs.select("arxiv_id", alias="run", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False)),
            pairs.select("arxiv_id", alias="acronym", source=pl.lit("acronym"), set_apart=pl.lit(True), artifact=pl.lit(False)),
        ]
    )


#: "we implement a Decoupled Masking Strategy", "we incorporate a Dual-Gated SFT objective",
#: "introduces a Step-wise Marginal Information Gain (MIG) mechanism": a run of capitalised
#: words after an article, named as a part of the method by the noun after it or by its
#: own last word.
_PART_NOUN = r"(?:mechanism|strategy|objective|module|scheme|technique|loss|regulari[sz]er|estimator|reward)"
_PART_HEAD = (
    r"(?:Strategy|Mechanism|Reward|Loss|Objective|Optimization|Estimation|Shaping|Sampling|Regularization|"
    r"Normalization|Clipping|Masking|Weighting|Exploration|Assignment|Amplification)"
)
_ARTICLE = r"\b(?:a|an|the|our)\s+(?:[a-z][\w-]*\s+){0,2}"
_NAMED_PARTS = (
    _ARTICLE + r"((?:[A-Z][\w-]*\s+){1,5}?[A-Z][\w-]*)(?:\s*\([^()]*\))?\s+" + _PART_NOUN + r"\b",
    # ... where the run ends at its head ("a Visual Zone Estimation Dance method" is one name).
    _ARTICLE + r"((?:[A-Z][\w-]*\s+){1,5}" + _PART_HEAD + r")(?:[,.;:)]|\s+[a-z(]|$)",
)


def _named_parts(sentences: pl.DataFrame) -> pl.DataFrame:
    """Parts of a method named by a capitalised run (_NAMED_PARTS), unless the run's
    initials are an established name ("the Group Relative Policy Optimization objective")."""
    runs = pl.concat([_found(sentences, "sentence", pattern, "long_form", loose=True) for pattern in _NAMED_PARTS])
    initials = pl.col("alias").str.extract_all(r"(?:^|[\s-])([A-Z])").list.eval(pl.element().str.slice(-1)).list.join("")
    return runs.filter(~normalized_name(initials).is_in(ESTABLISHED_NORMALIZED))


def artifact_names(names: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """The `names` (`arxiv_id`, `alias`) that the paper's abstract sets apart as a model,
    data set or benchmark it releases ("X, a corpus of …"), unless that apposition names
    a method ("X, a framework and benchmark …"): the artifacts the rules leave out
    (_ARTIFACT_APPOSITION), for names found another way."""
    apposition = pl.concat_str(pl.col("alias").str.escape_regex(), pl.lit(r"\s*," + _ARTIFACT_APPOSITION.removesuffix("?")))
    return (
        names.join(papers.select("arxiv_id", text=without_latex(pl.col("abstract").fill_null(""))), on="arxiv_id")
        .filter(pl.col("text").str.extract(apposition, 1).str.contains(_METHOD_NOUN).not_().fill_null(False))
        .select(names.columns)
    )


def abbreviates(name: pl.Expr, long_form: pl.Expr, *, word_for_each_capital: bool = True) -> pl.Expr:
    """`name` abbreviates `long_form`: its capitals occur in order among the long form's,
    the first one first ("PVPO" in "Pre-Estimated Value-Based Policy Optimization"), and the long form has at
    most one capitalised word more than the name has capitals (a title's phrase, "A
    Large-Scale Asynchronous RL System", is not the long form of "AReaL"); the second
    test is left out where the sentence itself says which is the long form. A name that
    ends with its base algorithm ("XYZ-RL") may abbreviate with or without it."""

    long_capitals = long_form.str.replace_all(r"[^A-Z]", "")
    words = long_form.str.count_matches(r"(?:^|\s)[a-z\d]*[A-Z]")

    def fits(name: pl.Expr) -> pl.Expr:
        # "G2RPO" is "GGRPO", "A3PO" is "AAAPO".
        capitals = (
            name.str.replace_all(r"([A-Z])3", "${1}${1}${1}").str.replace_all(r"([A-Z])2", "${1}${1}").str.replace_all(r"[^A-Z]", "")
        )
        in_order = long_capitals.str.contains(pl.lit("^") + capitals.str.replace_all(r"([A-Z])", "${1}.*")) & (
            capitals.str.len_chars() >= 2
        )
        return in_order & (words <= capitals.str.len_chars() + 1) if word_for_each_capital else in_order

    return fits(name) | fits(name.str.replace(_BASE_SUFFIX, ""))


#: "We propose V-Zed, a Visual Zone Estimation Dance methodology": the long form in
#: apposition, before a method noun.
_LONG_FORM_APPOSITION = (
    r"(" + _NAME + r"),\s+(?:(?:a|an|the)\s+)?(" + _LONG_NAME + r")\s+(?:framework|method|methodology|algorithm|approach|paradigm|technique)\b"
)
#: "We propose DiZZPO, Diffusion Zig Zag Policy Optimization, a …", "XPO: Xenial Policy
#: Optimization – a …" or "XPO—Xenial Policy Optimization—a …": the long form set off by
#: commas, a colon or dashes, or ending the sentence.
_LONG_FORM_SET_OFF = r"(" + _NAME + r")(?:(?:,|:)\s+|\s*[—–]\s*)(" + _LONG_NAME + r")\s*(?:,|[-–—]\s|[—–]|\.?$)"
#: LaTeX that hides a name: "{\bf R}^2{\bf VPO}", "$A$*-PO", "\textbf{KDRL}", "{Quantile Advantage Estimation}".
_LATEX_MARKUP = r"\\(?:textbf|emph|textit|textsc|texttt|mathbf|mathrm|bf|it)\b\s*|[{}$^]"
#: LaTeX Greek letters in names ("GRPO-$\\lambda$"), written as the letters.
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "iota": "ι", "upsilon": "υ"}
#: The variant forms LaTeX also prints ("$\\varepsilon$-DPO" is "ε-DPO").
_GREEK |= {"var" + name: _GREEK[name] for name in ("epsilon", "theta", "phi", "rho", "sigma", "pi")}


def with_greek_letters(text: pl.Expr) -> pl.Expr:
    """`text` with LaTeX Greek letters written as the letters ("GRPO-\\lambda" is "GRPO-λ")."""
    for name, letter in _GREEK.items():
        text = text.str.replace_all(r"\\" + name + r"\b", letter)
    return text


def without_latex(text: pl.Expr) -> pl.Expr:
    """`text` as the rules read a name: Greek letters as letters, the markup that hides a
    name dropped ("GRPO-\\lambda" is "GRPO-λ", "$\\mathbf{T^3}$" is "T3")."""
    return with_greek_letters(text).str.replace_all(_LATEX_MARKUP, "")


def _apposition_long_forms(sentences: pl.DataFrame) -> pl.DataFrame:
    pairs = pl.concat(
        [
            _matches(sentences, pattern, ["name", "long"])
            for pattern in (_LONG_FORM_APPOSITION, _LONG_FORM_SET_OFF)
        ]
    )
    return pairs.filter(abbreviates(pl.col("name"), pl.col("long"), word_for_each_capital=False)).select(
        "arxiv_id", alias="long", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False)
    )


#: ... or, where those words are not its long form, all of them, small words included
#: ("RLXR: Reinforcement Learning from eXtra Rewards").
_TITLE_WHOLE_LONG_FORM = r"^(" + _NAME + r"):\s+(.+?)(?:\s+[-–—]+\s|:|$)"


def _title_long_forms(papers: pl.DataFrame) -> pl.DataFrame:
    found = []
    for pattern in (_TITLE_LONG_FORM, _TITLE_WHOLE_LONG_FORM):
        parts = papers.select("arxiv_id", part=pl.col("title").str.extract_groups(pattern)).unnest("part")
        name, long_form = pl.col(parts.columns[1]), pl.col(parts.columns[2])
        found.append(
            parts.filter(long_form.str.contains("^" + _LONG_NAME + "$") & abbreviates(name, long_form)).select(
                "arxiv_id", alias=long_form, source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False)
            )
        )
    # The whole run only where the run cut at the first small word is not the long form.
    cut, whole = found
    return pl.concat([cut, whole.join(cut, on="arxiv_id", how="anti")])


def _initials(words: pl.Expr) -> pl.Expr:
    """The first letter of each word, after spaces and hyphens ("Post-Editing Guided" is "PEG")."""
    return words.str.extract_all(r"(?:^|[\s-])([A-Za-z])").list.eval(pl.element().str.slice(-1)).list.join("")


#: A run of capitalised words of a title (hyphenated parts too).
_TITLE_RUN = r"[A-Z]\w*(?:-\w+)*(?:\s+[A-Z]\w*(?:-\w+)*)+"


def _title_acronym_runs(papers: pl.DataFrame) -> pl.DataFrame:
    """"PEGRL: Improving Translation by Post-Editing Guided Reinforcement Learning": the
    last words of a capitalised run anywhere after the colon whose initials (after spaces
    and hyphens) are exactly the capitals of the all-capital name before it."""
    runs = (
        papers.select(
            "arxiv_id",
            name=pl.col("title").str.extract(r"^([A-Z][A-Z\d-]{2,}):\s"),
            run=pl.col("title").str.replace(r"^[^:]*:\s", "").str.extract_all(_TITLE_RUN),
        )
        .drop_nulls("name")
        .explode("run")
        .drop_nulls("run")
        .with_columns(words=pl.col("run").str.split(" "), capitals=pl.col("name").str.replace_all(r"[^A-Z]", ""))
    )
    tails = [pl.col("words").list.tail(n).list.join(" ") for n in range(_MAX_LOWER_WORDS, 1, -1)]
    spelled = pl.coalesce([pl.when(_initials(tail).str.to_uppercase() == pl.col("capitals")).then(tail) for tail in tails])
    return (
        runs.select("arxiv_id", alias=spelled)
        .drop_nulls("alias")
        .with_columns(source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False))
    )


#: The established algorithm a coined name ends with ("-GRPO", "-RL").
_BASE_SUFFIX = r"[- ](?:GRPO|PPO|DPO|RL|RLVR|PO)$"


def _spelled_by(name: pl.Expr, long_form: pl.Expr) -> pl.Expr:
    """`name`'s letters occur in order in `long_form`, the first one first, ignoring case
    ("PRCO" in "Perception–Reasoning Coevolution", "vOPD" in "On-Policy Distillation …"
    after its lower-case prefix)."""
    # A method named for its base algorithm ("XYZ-GRPO", "Zed-RL") spells only its own part.
    letters = name.str.replace(r"^[a-z]+", "").str.replace(_BASE_SUFFIX, "").str.replace_all(r"[^A-Za-z]", "").str.to_lowercase()
    return long_form.str.to_lowercase().str.contains(pl.lit("^") + letters.str.replace_all(r"([a-z])", "${1}.*")) & (
        letters.str.len_chars() >= 2
    )


#: "CURE (Critical-token-gUided Re concatenation for Entropy-collapse prevention)": a
#: name, then its long form of several words in parentheses, small words and lower case
#: allowed.
_NAME_THEN_LONG_FORM = r"(" + _NAME + r")\s*\(\s*([A-Z][^()]{4,120}?)\s*\)"
#: "XYZ, short for Extra Yield Zone, which …".
_NAME_SHORT_FOR = r"(" + _NAME + r"),?\s+short for\s+([A-Z][^,.;()]{4,120}?)\s*(?:[,.;]|\s+(?:which|that|to)\b)"
#: "(XPO, for Xenial Policy Optimization)": a name and its long form inside one parenthesis.
_NAME_FOR_LONG_FORM = r"\(\s*(" + _NAME + r"),\s+(?:short\s+)?for\s+([A-Z][^()]{4,120}?)\s*\)"


def _long_forms_after_names(sentences: pl.DataFrame) -> pl.DataFrame:
    """The whole parenthesis after a name, or what it is "short for", where the name's
    letters spell it in order."""
    pairs = pl.concat(
        [_matches(sentences, pattern, ["name", "long"]) for pattern in (_NAME_THEN_LONG_FORM, _NAME_SHORT_FOR, _NAME_FOR_LONG_FORM)]
    )
    pairs = pairs.filter(
        pl.col("long").str.contains(r"\s")
        & ~pl.col("long").str.contains(_EXAMPLES)
        & ~normalized_name(_clean(pl.col("name"))).is_in(ESTABLISHED_NORMALIZED)
        & _spelled_by(pl.col("name"), pl.col("long"))
    )
    # The name a long form spells out is a name too, wherever the sentence found it.
    return _long_forms_and_names(pairs, _clean(pl.col("name")))


def _long_forms_and_names(pairs: pl.DataFrame, name: pl.Expr) -> pl.DataFrame:
    """Both parts of each (`long`, name) pair as found names: the long form and the name."""
    return pl.concat(
        [
            pairs.select("arxiv_id", alias="long", source=pl.lit("long_form")),
            pairs.select("arxiv_id", alias=name, source=pl.lit("named")),
        ]
    ).with_columns(set_apart=pl.lit(True), artifact=pl.lit(False))


#: "we propose an Adaptive and Asymmetric token-level Advantage shaping method for Policy
#: Optimization, namely A3PO": a long form, lower-case words allowed, then its name.
_LONG_THEN_NAME = (
    _PROPOSING
    + r"(?i:(?:a|an|the|novel|new)\s+)*([A-Z][^,.;:()]{5,120}?)\s*,?\s+(?i:namely|denoted as|called|termed|dubbed|named|or)\s+("
    + _NAME
    + ")"
)
#: A method noun that ends such a run is not part of the name ("… EXploration framework").
_TRAILING_METHOD_NOUN = r"\s+(?:framework|method|algorithm|approach|technique|strategy|paradigm)$"


def _long_forms_before_names(sentences: pl.DataFrame) -> pl.DataFrame:
    pairs = (
        _matches(sentences, _LONG_THEN_NAME, ["long", "name"])
        .with_columns(long=pl.col("long").str.replace(_TRAILING_METHOD_NOUN, ""))
    )
    # The name's own part, before a variant's hyphen ("APEX-Searcher"), abbreviates the run.
    stem = pl.col("name").str.extract(r"^([^-]+)", 1)
    spelled = pairs.filter(
        pl.col("long").str.contains(r"\s") & abbreviates(stem, pl.col("long"), word_for_each_capital=False)
    )
    # Both are the method's names; the name also comes from "namely"/"called" rules, but
    # nothing else finds it after "…, or QRT".
    return _long_forms_and_names(spelled, pl.col("name"))


#: A lower-case name with a digit, set apart in parentheses ("(zx2++)", "(d3)").
_LOWER_CASE_DIGIT_NAME = r"[a-z]+\d[a-z\d]*(?:-[A-Za-z\d]+)*(?:\+\+)?"


def _parenthesised(frame: pl.DataFrame, text: str) -> pl.DataFrame:
    """Names in parentheses: each part of "(A and B)" that is one name is an `acronym`
    (set apart, so even a single capitalised word counts); a part of several capitalised
    words is the `long_form` of the name before it."""
    parts = (
        frame.select("arxiv_id", inside=pl.col(text).str.extract_all(_PAREN))
        .explode("inside")
        .drop_nulls("inside")
        .with_columns(inside=pl.col("inside").str.extract(_PAREN, 1))
        .filter(~pl.col("inside").str.contains(_EXAMPLES))
        .with_columns(part=pl.col("inside").str.split(" and "))
        .explode("part")
        .with_columns(part=pl.col("part").str.strip_chars())
    )
    single = parts.filter(
        pl.col("part").str.contains("^" + _LATEX_WRAP + _NAME + r"\}?$") | pl.col("part").str.contains("^" + _LOWER_CASE_DIGIT_NAME + "$")
    ).select(
        "arxiv_id", alias="part", source=pl.lit("acronym"), set_apart=pl.lit(True), artifact=pl.lit(False)
    )
    long = parts.filter(pl.col("part").str.contains("^" + _LONG_NAME + "$")).select(
        "arxiv_id", alias="part", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False)
    )
    return pl.concat([single, long])


def _long_forms_before_acronyms(sentences: pl.DataFrame) -> pl.DataFrame:
    """"Group Sequence Policy Optimization (GSPO)" gives the long form. The run is cut
    after its last "and" when it does not start with the acronym's first letter
    ("Advantage Reweighting and Low-Probability Token Isolation (Lopti)"); a long form
    of an established acronym (GRPO, RLVR) is field jargon and goes with it."""
    pairs = (
        _matches(sentences, _LONG_FORM_BEFORE, ["run", "acronym"])
        .with_columns(run=pl.col("run").str.replace(r"^(?i:the|a|an)\s+", ""))
    )
    first = pl.col("acronym").str.slice(0, 1).str.to_lowercase()
    after_and = pl.col("run").str.extract(r"\sand\s+(.+)$", 1)
    fitting = (
        pl.when(pl.col("run").str.slice(0, 1).str.to_lowercase() == first)
        .then(pl.col("run"))
        .when(after_and.str.slice(0, 1).str.to_lowercase() == first)
        .then(after_and)
    )
    return (
        pairs.with_columns(alias=fitting)
        .filter(
            pl.col("alias").str.contains(r"\s")
            & ~normalized_name(_clean(pl.col("acronym"))).is_in(ESTABLISHED_NORMALIZED)
        )
        .select("arxiv_id", "alias", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False))
    )


#: The words before an acronym's parenthesis, and the acronym.
_WORDS_BEFORE_ACRONYM = r"([^()]{0,120}?)\s*\(\s*(" + _NAME + r")\s*\)"
#: The most words a long form written in lower case may have.
_MAX_LOWER_WORDS = 6


def _lower_case_long_forms(sentences: pl.DataFrame) -> pl.DataFrame:
    """"regularized policy gradient (RPG)", "simple self-distillation (SSD)": the fewest
    last words before the parenthesis whose initials (after spaces and hyphens, or after
    spaces alone) spell the acronym's capitals."""
    pairs = (
        _matches(sentences, _WORDS_BEFORE_ACRONYM, ["before", "acronym"])
        .filter(~normalized_name(_clean(pl.col("acronym"))).is_in(ESTABLISHED_NORMALIZED))
        .with_columns(
            words=pl.col("before").str.strip_chars().str.split(" "),
            capitals=pl.col("acronym").str.replace_all(r"[^A-Z]", "").str.to_lowercase(),
        )
    )
    candidates = [
        pl.col("words").list.tail(n).list.join(" ").alias(f"last_{n}") for n in range(1, _MAX_LOWER_WORDS + 1)
    ]
    # Spelled by the words' initials ("tempered policy gradient"), or, from a capitalised
    # first word, by the capitals inside the words ("SUmmarization augmented Policy Optimization").
    spelled = [
        pl.when(
            (_initials(pl.col(f"last_{n}")).str.to_lowercase() == pl.col("capitals"))
            # ... or by whole words, a hyphenated word giving one letter ("role-conditioned advantage estimation").
            | (_initials(pl.col(f"last_{n}").str.replace_all("-", "")).str.to_lowercase() == pl.col("capitals"))
            | (
                pl.col(f"last_{n}").str.contains(r"^[A-Z]")
                & (pl.col(f"last_{n}").str.replace_all(r"[^A-Z]", "").str.to_lowercase() == pl.col("capitals"))
            )
        ).then(pl.col(f"last_{n}"))
        for n in range(1, _MAX_LOWER_WORDS + 1)
    ]
    long_forms = (
        pairs.with_columns(candidates)
        .with_columns(alias=pl.coalesce(spelled))
        .filter(pl.col("alias").str.contains(r"[\s-]") & (pl.col("capitals").str.len_chars() >= 2))
    )
    return pl.concat(
        [
            long_forms.select("arxiv_id", "alias", source=pl.lit("long_form"), set_apart=pl.lit(True), artifact=pl.lit(False)),
            # An acronym spelled out before it is a name even with two letters ("Prefix Sampling (PS)").
            long_forms.select(
                "arxiv_id", alias="acronym", source=pl.lit("acronym"), set_apart=pl.lit(True), artifact=pl.lit(False), spelled_out=pl.lit(True)
            ),
        ],
        how="diagonal",
    )


#: A released size or variant of a name: "-7B", "-7B-RL", "-R1-CoT-165k", "-14B-DS",
#: "-GRPO", "-tree", "-Gym"; not a compound adjective ("-based", "-style").
_VARIANT_SUFFIX = r"(?:-[A-Za-z0-9][\w.]*[A-Za-z0-9])+\b"
_ADJECTIVE_SUFFIX = r"(?i)-(?:based|style|like|level|specific|free|aware|guided|driven|only|wise|type|related|trained|tuned|enhanced)\b"


#: Sizes listed after a sized name: "Zeno-7B and 14B", "Zeno-1.5B, 7B and 32B".
_SIZE = r"\d+(?:\.\d+)?[BM]\b"
_MORE_SIZES = r"(?:(?:,\s*|\s+and\s+|\s*/\s*)" + _SIZE + r")+"


def _listed_sizes(papers: pl.DataFrame, stems: pl.DataFrame) -> pl.DataFrame:
    """"Zeno-Coder-7B and 14B models": Zeno-Coder-14B is a released size too."""
    return (
        papers.select("arxiv_id", "abstract")
        .join(stems, on="arxiv_id")
        .select(
            "arxiv_id",
            "stem",
            listing=pl.col("abstract").str.extract_all(
                pl.col("stem").str.escape_regex() + pl.lit("-" + _SIZE + _MORE_SIZES)
            ),
        )
        .explode("listing")
        .drop_nulls("listing")
        .select("arxiv_id", "stem", size=pl.col("listing").str.extract_all(_SIZE))
        .explode("size")
        .select(
            "arxiv_id",
            alias=pl.col("stem") + "-" + pl.col("size"),
            source=pl.lit("named"),
            set_apart=pl.lit(True),
            artifact=pl.lit(False),
        )
    )


def _hyphenated_variants(papers: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    """"MiMo-7B", "MiMo-7B-RL", "Light-R1-32B-DS", "Guide-GRPO": a name the paper
    introduces with a size or a variant's word joined by a hyphen, as the abstract writes it,
    and the other sizes listed after a sized one."""
    stems = names.filter(pl.col("alias").str.contains(_NAME_LIKE) | pl.col("set_apart")).select(
        "arxiv_id", stem=pl.col("alias")
    ).unique()
    # "Zeno-Coder-7B" names the stem "Zeno-Coder" for the sizes listed after it.
    sized_stems = (
        names.select("arxiv_id", stem=pl.col("alias").str.extract("^(.+)-" + _SIZE + "$", 1)).drop_nulls("stem").unique()
    )
    hyphenated = (
        papers.select("arxiv_id", "abstract")
        .join(stems, on="arxiv_id")
        .select(
            "arxiv_id",
            alias=pl.col("abstract").str.extract_all(
                pl.lit(r"(?:^|[^\w-])") + pl.col("stem").str.escape_regex() + pl.lit(_VARIANT_SUFFIX)
            ),
        )
        .explode("alias")
        .drop_nulls("alias")
        .filter(~pl.col("alias").str.contains(_ADJECTIVE_SUFFIX))
        .select(
            "arxiv_id",
            alias=pl.col("alias").str.replace(r"^[^\w]", ""),
            source=pl.lit("named"),
            set_apart=pl.lit(True),
            artifact=pl.lit(False),
        )
    )
    return pl.concat([hyphenated, _listed_sizes(papers, pl.concat([stems, sized_stems]).unique())])


#: Text extracted from PDFs or HTML splits a capital from its word ("P rocess R eward
#: L earning (PRL)"): runs of two to four such words are joined again.
_SPLIT_CAPITAL_WORD = r"\b([A-Z]) ([a-z][\w-]+)"


#: "we propose XPO-a replay strategy …": a hyphen typed for a dash, before an article.
_HYPHEN_AS_DASH = r"\b([A-Z][A-Za-z\d]*[A-Z\d])-(an?|the)\s"


def _rejoined_capitals(text: pl.Expr) -> pl.Expr:
    for run in (4, 3, 2):
        pattern = r"(\s+)".join([_SPLIT_CAPITAL_WORD] * run)
        # Groups per word: capital, rest, then the space before the next word.
        replacement = "".join(f"${{{3 * i + 1}}}${{{3 * i + 2}}}" + (f"${{{3 * i + 3}}}" if i < run - 1 else "") for i in range(run))
        text = text.str.replace_all(pattern, replacement)
    return text


#: "\textbf{CoLLM-CC}": a name-like word the authors set in bold or italics.
_EMPHASISED_NAME = r"\\(?:textbf|emph|textit|textsc)\{(" + _NAME + r")\}"


def _emphasised_names(papers: pl.DataFrame) -> pl.DataFrame:
    sentences = (
        papers.select("arxiv_id", sentence=pl.col("abstract").fill_null("").str.replace_all(_SENTENCE_END, "$1\n$2").str.split("\n"))
        .explode("sentence")
        .filter(~pl.col("sentence").str.contains(_CITATION))
    )
    return _found(sentences, "sentence", _EMPHASISED_NAME, "named", loose=True).filter(
        pl.col("alias").str.contains(_NAME_LIKE)
    )


def _without_parts_of_whole_long_forms(parts: pl.DataFrame, wholes: pl.DataFrame) -> pl.DataFrame:
    """A parenthesis that is one long form ("Agentic Reasoning and Tool Integration in …")
    is not two names split at its "and"."""
    inside = (
        parts.join(wholes.select("arxiv_id", whole="alias"), on="arxiv_id", how="inner")
        .filter(pl.col("whole").str.contains(pl.col("alias"), literal=True) & (pl.col("whole") != pl.col("alias")))
        .select("arxiv_id", "alias")
        .unique()
    )
    return parts.join(inside, on=["arxiv_id", "alias"], how="anti")


#: A name in quotation marks ("we propose ‘Zeno’, a …") is read as the name.
_QUOTED_NAME = r"[‘“\"'](" + _NAME + r")[’”\"']"


def rule_aliases(papers: pl.DataFrame) -> pl.DataFrame:
    """Names the rules find in titles and abstracts: `arxiv_id`, `alias`, `source`, before
    the established names are dropped and variants added."""
    papers = papers.with_columns(
        title=with_greek_letters(pl.col("title").fill_null("")).str.replace_all(r"[$^{}]", ""),
        abstract=with_greek_letters(_rejoined_capitals(pl.col("abstract").fill_null("")))
        .str.replace_all(_HYPHEN_AS_DASH, "$1 - $2")
        .str.replace_all(_QUOTED_NAME, "$1"),
    )
    emphasised = _emphasised_names(papers)
    papers = papers.with_columns(abstract=pl.col("abstract").str.replace_all(_LATEX_MARKUP, ""))
    # Every sentence of each abstract, split once for the rules that read sentences.
    every_sentence = _sentences(papers)
    sentences = _proposal_sentences(every_sentence)
    defining = _defining_sentences(every_sentence)
    own = _own_sentences(every_sentence)
    proposing_or_defining = pl.concat([sentences.select("arxiv_id", "sentence"), defining]).unique()
    whole_long_forms = _long_forms_after_names(pl.concat([sentences.select("arxiv_id", "sentence"), own]).unique(maintain_order=True))
    found = pl.concat(
        [
            _title_prefixes(papers),
            _title_long_forms(papers),
            _title_acronym_runs(papers),
            _apposition_long_forms(sentences),
            _found(papers, "title", _ACRONYM, "acronym"),
            whole_long_forms,
            _long_forms_before_names(sentences),
            _without_parts_of_whole_long_forms(_parenthesised(sentences, "sentence"), whole_long_forms),
            emphasised,
            _long_forms_before_acronyms(sentences),
            _defined_acronyms(defining),
            _defined_acronyms(proposing_or_defining, _ENUMERATED_ACRONYM, named_for_mechanism=False),
            # Before the authors first speak of their own work, an abstract's acronyms are the field's.
            _defined_acronyms(
                _sentences_after(every_sentence, pl.col("sentence").str.contains(_AUTHORS_OWN)), _SUBJECT_ACRONYM, named_for_mechanism=False
            ),
            _named_parts(proposing_or_defining),
            _lower_case_long_forms(sentences),
            _lower_case_names(own),
            _listed_components(sentences),
            _coined_parts(every_sentence),
            _found(sentences, "sentence", _WE_PROPOSE_LONG, "long_form", loose=True),
            _found(sentences, "sentence", _NAMED_LONG, "long_form", loose=True),
            _found(sentences, "sentence", _METHOD_THEN_NAME, "we_propose", runs_on_group=True, loose=True),
            _found(papers, "abstract", _NEW_METHOD_THEN_NAME, "we_propose", loose=True),
            _found(sentences, "sentence", _ENUMERATED, "enumerated"),
            _found(sentences, "sentence", _ENUMERATED_LONG, "long_form", loose=True),
            _found(papers, "abstract", _OUR_THING_NAMED, "named", loose=True),
            _found(papers, "abstract", _OUR_NAMED, "named").filter(
                pl.col("alias").str.contains(_NAME_LIKE)
                & ~pl.col("alias").str.contains(_ADJECTIVE_SUFFIX)
                & ~pl.col("alias").str.contains(_BENCHMARK_NAME)
            ),
            _found(papers, "abstract", _ENUMERATED_METHOD, "enumerated"),
            _found(papers, "abstract", _NAME_INTRODUCES, "named", loose=True),
            _found(papers, "abstract", _WE_TRAIN, "named").filter(pl.col("alias").str.contains(_NAME_LIKE)),
            _found(papers, "abstract", _COMPOUND_BEFORE_NOUN, "named"),
            _found(
                sentences,
                "sentence",
                _WE_PROPOSE + _ARTIFACT_APPOSITION,
                "we_propose",
                runs_on_group=True,
                delimited=True,
                artifacts=True,
            ).filter(~pl.col("artifact")),
            _found(sentences, "sentence", _NAMED, "named", runs_on_group=True),
            _found(sentences, "sentence", _NAMED_LAST, "named"),
            _found(sentences, "sentence", _AND_NAME_APPOSITION, "we_propose").filter(pl.col("alias").str.contains(_NAME_LIKE)),
        ],
        how="diagonal",
    ).with_columns(spelled_out=pl.col("spelled_out").fill_null(False))
    found = pl.concat([found, _hyphenated_variants(papers, found)], how="diagonal")
    return (
        found.with_columns(
            # "Zeno-Travel and Zeno-Research" are two names.
            alias=pl.when(
                pl.col("alias").str.contains(r"^\S+ and \S+$")
                & pl.col("alias").str.split(" and ").list.eval(pl.element().str.contains(_NAME_LIKE)).list.all()
            )
            .then(pl.col("alias").str.split(" and "))
            .otherwise(pl.concat_list(pl.col("alias")))
        )
        .explode("alias")
        .with_columns(alias=_clean(pl.col("alias")), spelled_out=pl.col("spelled_out").fill_null(False))
        .filter(pl.col("alias").str.contains(_NAME_LIKE) | pl.col("set_apart"))
        # Three characters at least, or two with a digit ("R3", "T2"), or two capitals
        # the paper spells out ("Prefix Sampling (PS)").
        .filter(
            long_enough(normalized_name(pl.col("alias")))
            | (pl.col("spelled_out") & pl.col("alias").str.contains(r"^[A-Z]{2}$"))
        )
        .filter(
            ~normalized_name(pl.col("alias")).is_in(ESTABLISHED_NORMALIZED)
            & ~pl.col("alias").str.contains(_MODEL_FAMILY)
            & ~pl.col("alias").str.contains(_NUMBERED_STEP)
        )
        .pipe(_without_truncated_long_forms)
        .select("arxiv_id", "alias", "source")
    )


def _without_truncated_long_forms(found: pl.DataFrame) -> pl.DataFrame:
    """A long form's tail is not a second name ("Dynamic sAmpling Policy Optimization"
    inside "Decoupled Clip and Dynamic sAmpling Policy Optimization")."""
    long_forms = found.filter(pl.col("source") == "long_form").select("arxiv_id", "alias").unique()
    tails = (
        long_forms.join(long_forms.rename({"alias": "longer"}), on="arxiv_id")
        .filter(pl.col("longer").str.ends_with(pl.col("alias")) & (pl.col("longer") != pl.col("alias")))
        .select("arxiv_id", "alias")
        .unique()
    )
    return found.join(tails.with_columns(source=pl.lit("long_form")), on=["arxiv_id", "alias", "source"], how="anti")


def spelling_variants(names: pl.DataFrame) -> pl.DataFrame:
    """Spellings code uses for each name: snake case (`dr_grpo`, `reinforce_plus_plus`)
    and compact lower case (`drgrpo`)."""
    lower = pl.col("alias").str.to_lowercase()
    snake = (
        lower.str.replace_all(r"\+\+", "_plus_plus")
        .str.replace_all(_SEPARATORS, "_")
        .str.replace_all(r"_+", "_")
        .str.strip_chars("_")
    )
    compact = lower.str.replace_all(_SEPARATORS, "")
    return (
        names.select("arxiv_id", "alias", snake=snake, compact=compact)
        .unpivot(index=["arxiv_id", "alias"], value_name="variant")
        # Lower case alone adds nothing the normalized form does not, and would turn
        # an acronym (PRIME) into an English word (prime).
        .filter(pl.col("variant") != pl.col("alias").str.to_lowercase())
        .select("arxiv_id", alias=pl.col("variant"), source=pl.lit("variant"))
    )


def read_alias_overrides(path: Path = ALIASES_OVERRIDES) -> pl.DataFrame:
    """overrides/aliases.csv: `arxiv_id`, `alias`, `action` (add or remove), `reason`."""
    return read_override_csv(
        path, ALIAS_OVERRIDE_COLUMNS, allowed={"action": ALIAS_OVERRIDE_ACTIONS}, unique=["arxiv_id", "alias"]
    )


def report_aliases(passages: pl.DataFrame, papers: pl.DataFrame) -> pl.DataFrame:
    """Names a paper introduces in the text of its technical report (a model report often
    names its RL method only in the body): the same rules, read on each passage of
    `passages` (`report_id`, `text`) whose report is one of `papers`; `source` is report."""
    texts = passages.join(papers.select("arxiv_id"), left_on="report_id", right_on="arxiv_id", how="semi")
    if texts.is_empty():
        return pl.DataFrame(schema={"arxiv_id": pl.Utf8, "alias": pl.Utf8, "source": pl.Utf8})
    as_papers = texts.select(arxiv_id="report_id", title=pl.lit(""), abstract="text", comment=pl.lit(""))
    return rule_aliases(as_papers).select("arxiv_id", "alias", source=pl.lit("report")).unique(maintain_order=True)


def paper_aliases_of(
    papers: pl.DataFrame,
    overrides: pl.DataFrame,
    report_passages: pl.DataFrame | None = None,
    model: NameModel | None = None,
) -> pl.DataFrame:
    """One row per (arxiv_id, alias): the name as written, its `normalized` form, the
    `source` that found it, `ambiguous` (two or more papers claim the normalized name) and
    `case_sensitive` (a short all-capital acronym: case-sensitive in prose, a whole
    identifier token in code).

    `overrides` has `arxiv_id`, `alias`, `action` (add: keep even an established name;
    remove: drop the name and its variants); `reason` is not used here.
    `report_passages` (`report_id`, `text`): the technical reports' text, read for names too.
    The names of titles and abstracts are the rules' and those the learned name model adds
    (name_model.py); `model` defaults to the committed one.
    """
    # Imported here: the name model is built on the rules of this module.
    from assets.papers.name_model import committed_name_model, learned_names

    model = committed_name_model() if model is None else model
    removed = overrides.filter(pl.col("action") == "remove").select(
        "arxiv_id", normalized=normalized_name(pl.col("alias"))
    )
    # An alias of a paper that is not harvested waits for it: it must not link evidence to an unknown id.
    added = (
        about_known_papers(overrides, papers)
        .filter(pl.col("action") == "add")
        .select("arxiv_id", "alias", source=pl.lit("override"))
    )
    from_reports = [] if report_passages is None else [report_aliases(report_passages, papers)]
    names = (
        pl.concat([learned_names(papers, rule_aliases(papers).select("arxiv_id", "alias", "source"), model), *from_reports])
        .with_columns(normalized=normalized_name(pl.col("alias")))
        .join(removed, on=["arxiv_id", "normalized"], how="anti")
        .drop("normalized")
    )
    names = pl.concat([added, names])
    order = pl.col("source").replace_strict(SOURCES, list(range(len(SOURCES))), return_dtype=pl.Int32)
    found = (
        pl.concat([names, spelling_variants(names)])
        .with_columns(normalized=normalized_name(pl.col("alias")), priority=order)
        .sort("arxiv_id", "priority", "alias")
        .unique(["arxiv_id", "alias"], keep="first", maintain_order=True)
    )
    letters = pl.col("alias").str.replace_all(r"[^A-Za-z]", "")
    return (
        found.with_columns(
            ambiguous=pl.col("arxiv_id").n_unique().over("normalized") > 1,
            # "R3" too: one letter and a digit is a short acronym, never the word "r3".
            case_sensitive=~pl.col("alias").str.contains(r"[a-z]")
            & ((letters.str.len_chars() >= 2) | pl.col("alias").str.contains(r"\d"))
            & (letters.str.len_chars() <= 8),
        )
        .select(list(CORE_PAPER_ALIASES.schema))
        .cast(CORE_PAPER_ALIASES.schema)
        .sort("arxiv_id", "alias")
    )
