"""Training failures: issues that report one (NaN or inf, divergence, loss, reward or
entropy collapse, a reward that never improves, loss or gradient spikes, KL blow-up,
train/inference log-prob mismatch, out of memory, hangs, runs dying part way, wrong
gradients, reward hacking), in English or Chinese, each linked to the implementation it
concerns: the paper whose evidence its method, loss, config key or file names, or else
the name its title gives (with a null paper)."""

import polars as pl

from assets.links.evidence import FRAMEWORK_NAMES, UTC_TIME, alias_key
from orchestration.tables import CORE_TRAINING_FAILURES

#: Kinds of failure and the words that report them, matched on the lower-cased title,
#: body and recorded tokens as whole words (the recorded threads carry tokens only).
#: Chinese terms need no word edges: the language has no spaces.
FAILURE_PATTERNS: dict[str, str] = {
    "nan_or_inf": r"\b(nan|nans|inf|infs|infinity|infinite)\b",
    # Not "divergence" alone: "KL divergence" names a quantity, not a failure.
    "divergence": r"\b(diverge|diverged|diverges|diverging|instabilit\w*|unstable|destabiliz\w*|oscillat\w*)\b"
    r"|发散|不稳定|震荡",
    "collapse": r"\b(collaps\w*)\b|崩溃|崩掉|崩了|坍塌|塌缩",
    "spike": r"\b(spik\w*|explod\w*|explosion|blow[\s_-]?ups?|blew|blows)\b|爆炸",
    "reward_hacking": r"\b(reward[\s_-]?hack\w*|hacking)\b|奖励黑客",
    # Output degenerating into one repeated character (`!!!!!!!!`), reported with NaNs.
    "degenerate_output": r"!{8,}|\b(gibberish|garbled)\b|乱码|感叹号",
    "oom": r"\b(oom|ooms|out[\s_-]?of[\s_-]?memory\w*)\b|(显存|内存)(不足|溢出|爆|超出|不够)|爆显存|超出内存",
    "hang": r"\b(hangs?|hanging|hung|freez\w*|froze|deadlock\w*)\b|卡住|卡死|卡在|无响应|挂起",
}
#: Phrases, matched on the title only: in recorded bodies the words come as a sorted set,
#: where a phrase could be assembled from words of different sentences.
TITLE_PATTERNS: dict[str, str] = {
    # A reward or score that does not rise, sits at zero or a negative constant, drops
    # under a threshold, or rises in one set-up and not in another.
    "no_improvement": r"(reward|score|acc|accuracy)s?\b[^.?!]{0,40}?\b(not|never|n't|no longer|fails? to)\s+"
    r"(increas\w*|improv\w*|ris\w*|grow\w*|converg\w*|learn\w*|go up)"
    r"|(reward|score|acc|accuracy)s?\b[^.?!]{0,40}?(\b(is|are|was|were|becomes?|became|stays?|remains?)\s+|=\s*)"
    r"(always\s+|stuck at\s+)?(0(\.0+)?|zero|-\d+(\.\d+)?)([^\d.]|$)"
    r"|\b0\s+(reward|score|acc\w*)|(reward|score|acc\w*)\S*\s*(<|below\b)|(reward|score|acc\w*)s?\s+abnormal"
    r"|\b(stagnant|stagnat\w*|plateau\w*|no (gain|improvement|progress))\b"
    r"|(reward|acc\w*)\b[^?]{0,60}\b(increas\w*|improv\w*|ris\w*)\b[^?]{0,100}\bbut not\b"
    r"|无收益|没有收益|不涨|不上升|没有提升|无提升|不收敛|(奖励|reward)[^，。？?!！]{0,20}(变为|变成|一直为|一直是|为|是)\s*0",
    # Probabilities of the trainer and the inference engine drifting apart.
    "logprob_mismatch": r"(log[\s_-]?probs?|logp\w*|\w*prob_error|\w*kl_error)[^.?!]{0,40}"
    r"\b(high\w*|increas\w*|diff\w*|diverg\w*|mismatch\w*|discrepan\w*|inconsisten\w*|error)\b"
    r"|\b(high\w*|incorrect|wrong|not computing correct)\b[^.?!]{0,40}(log[\s_-]?probs?|logp\w*|\w*prob_error|\w*kl_error)"
    r"|\b(train\w*|rollout)[\s/-]+(vs\.?\s+)?(inference|generation|rollout)\b[^.?!]{0,20}\b(mismatch|diverg\w*|discrepan\w*)"
    r"|训推不一致|(训练|推理|logprob|概率)\S{0,10}不一致",
    # KL (or the importance ratio) growing without bound.
    "kl_blowup": r"\b(kl|kl_loss)\b[^.?!]{0,30}\b(bigger|grow\w*|increas\w*|ris(es|ing)|surg\w*)\b",
    "entropy": r"entropy[^.?!]{0,30}\b(collaps\w*|increas\w*|explod\w*|drop\w*|spik\w*|ris(es|ing)|surg\w*|blow\w*)"
    r"|\b(collapse|increase|explosion|drop|spike|surge) (in|of) entropy|熵\S{0,4}(坍塌|崩|爆|下降|上升|增加)",
    # A run that dies part way, as opposed to an error at start-up.
    "crash": r"\btrain\w*[^.?!]{0,30}\b(crash\w*|fails?|failed|failing|dies|died|aborts?|aborted)\b[^.?!]{0,30}"
    r"\b(after|when long|long[\s-]term|mid|at step|halfway)|\b(crash\w*|fails?|failed)\s+after\s+(\w+\s+){0,2}steps?"
    r"|训练\S{0,10}(失败|中断)",
    # "stuck in <a step>" or "stuck for <a time>": a hang; "stuck at 0" is a reward.
    "hang": r"\bstuck\s+(in|on|during|for|after|while|when)\b",
    "wrong_gradient": r"\b(wrong|incorrect|zero|none)\s+grad\w*|\bgrad\w*\s+(is|are)\s+(wrong|incorrect|zero|none|0)\b"
    r"|梯度(错误|为0|为零)",
}
#: KL named together with a blow-up or NaN word: the KL term is what failed.
_KL = r"\b(kl|kl_loss|kl_divergence|low_var_kl)\b"
_BLOWUP = r"\b(nan|inf|explod\w*|spik\w*|blow[\s_-]?ups?|huge|diverged|diverges|diverging)\b|爆炸"
#: Word edges that hold in Chinese prose too: with Unicode edges "hang住" or "kl变为nan"
#: have none, as a Chinese character counts as a word character.
_ASCII_EDGE = "(?-u:\\b)"
FAILURE_PATTERNS = {kind: pattern.replace(r"\b", _ASCII_EDGE) for kind, pattern in FAILURE_PATTERNS.items()}
TITLE_PATTERNS = {kind: pattern.replace(r"\b", _ASCII_EDGE) for kind, pattern in TITLE_PATTERNS.items()}
_KL, _BLOWUP = _KL.replace(r"\b", _ASCII_EDGE), _BLOWUP.replace(r"\b", _ASCII_EDGE)
#: What a title is read for: the words of every kind, and the phrases.
_IN_TITLES = {
    kind: "|".join(pattern for pattern in (FAILURE_PATTERNS.get(kind), TITLE_PATTERNS.get(kind)) if pattern)
    for kind in {**FAILURE_PATTERNS, **TITLE_PATTERNS}
}
#: A title that is a request or a proposal, even one naming a failure ("Feature request:
#: reward-hacking monitoring"): a wish, not a report.
_REQUEST_TITLE = (
    r"(?i)feature[\s_-]*request|\[feature|\[rfc\b|\bproposal\b|roadmap|\[question\]|^\s*consider\b|\bshould we\b"
    r"|\bquestions? about\b|\bis there a way\b|\bhow (to|do|can)\b|有没有办法|能否支持|是否支持|请问"
)
#: A title asking for a feature, or announcing a release: its body may discuss collapse
#: or NaNs as motivation, or list fixed hangs.
_FEATURE_TITLE = (
    r"(?i)feature|support|\badd|integrat|implement|request|proposal|\brfc\b|roadmap|\[new|支持"
    r"|\brelease|updates? summary|changelog|\bnews\b"
)
#: The words of a feature-request template ("Feature request", "Motivation", "Proposed
#: solution", "Alternatives"): a body written in one asks for something, even where its
#: motivation cites a paper about collapse.
_FEATURE_TEMPLATE = (r"\bfeature\b", r"\b(motivation|alternatives|proposed|solution)\b")


def failure_kinds(text: pl.Expr, *, title: bool = False) -> pl.Expr:
    """The failure kinds a (lower-cased) text reports, as a list (empty: none); a title
    is also read for the phrases of TITLE_PATTERNS."""
    patterns = _IN_TITLES if title else FAILURE_PATTERNS
    kinds = [pl.when(text.str.contains(pattern)).then(pl.lit(kind)) for kind, pattern in patterns.items()]
    kinds.append(pl.when(text.str.contains(_KL) & text.str.contains(_BLOWUP)).then(pl.lit("kl_blowup")))
    return pl.concat_list(kinds).list.drop_nulls().list.unique(maintain_order=True)


def failure_reports(threads: pl.DataFrame) -> pl.DataFrame:
    """Issues (not pull requests: a fix is not a report) whose title, body or recorded
    tokens report a training failure, with the kinds found. The body alone counts only
    under a title that asks for nothing and outside a feature-request template."""
    title = pl.col("title").fill_null("")
    body = pl.concat_str(
        pl.col("body").fill_null(""), pl.col("body_tokens").fill_null([]).list.join(" "), separator=" \n "
    ).str.to_lowercase()
    in_title = failure_kinds(title.str.to_lowercase(), title=True)
    in_body = failure_kinds(body)
    feature_template = body.str.contains(_FEATURE_TEMPLATE[0]) & body.str.contains(_FEATURE_TEMPLATE[1])
    return (
        threads.filter(pl.col("kind") == "issue")
        .with_columns(
            failure_kinds=pl.when(title.str.contains(_REQUEST_TITLE))
            .then(pl.lit([], pl.List(pl.Utf8)))
            .when(in_title.list.len() > 0)
            .then(pl.concat_list(in_title, in_body).list.unique(maintain_order=True))
            .when(~title.str.contains(_FEATURE_TITLE) & ~feature_template)
            .then(in_body)
            .otherwise(pl.lit([], pl.List(pl.Utf8)))
        )
        .filter(pl.col("failure_kinds").list.len() > 0)
    )


#: Words shaped like names that name no implementation: the failure itself, the field,
#: hardware, and issue-template markers.
_NOT_IMPLEMENTATIONS = (
    "bug", "nan", "nans", "inf", "oom", "rlhf", "rlvr", "llm", "llms", "vlm", "moe", "gpu", "gpus", "cuda", "api",
    "faq", "todo", "wip", "help",
)
#: An identifier naming a logged quantity (`grad_norm`, `gen_kl_error`, `reward_mean`):
#: what failed, not the implementation that failed.
_MEASURED = r"(?:^|_)(error|norm|ratio|loss|reward|score|mean|std|acc|avg|max|min)s?$"
_FILE = r"\.(py|yaml|yml|sh|json)$"


def named_implementation(title: pl.Expr) -> pl.Expr:
    """The first word of a title that names an implementation: a config key or identifier
    (`low_var_kl`), a file (`dapo_trainer.py`), or a name written in capitals (`GRPO`,
    `PPOTrainer`, `vLLM`, `Megatron-Bridge`); null when there is none. Model names carry
    digits (`Qwen3-8B`) and metric paths slashes (`train/reward`): neither counts."""
    word = pl.element().str.strip_chars_end(".-/")
    word = pl.when(word.str.contains(_FILE)).then(word.str.replace(r"^.*/", "")).otherwise(word)
    shaped = (
        word.str.contains(r"_|\+\+") | word.str.contains(_FILE) | (word.str.count_matches(r"[A-Z]") >= 2)
    )
    usable = (
        shaped
        & ~word.str.contains("/")
        & (~word.str.contains(r"\d") | word.str.contains("_"))
        & (alias_key(word).str.len_chars() >= 3)
        & ~alias_key(word).is_in([*_NOT_IMPLEMENTATIONS, *FRAMEWORK_NAMES])
        & ~word.str.to_lowercase().str.replace(_FILE, "").str.contains(_MEASURED)
    )
    return (
        title.fill_null("")
        .str.extract_all(r"[A-Za-z0-9_+./-]+")
        .list.eval(pl.when(usable).then(word))
        .list.drop_nulls()
        .list.first()
    )


def implementation_keys(evidence: pl.DataFrame) -> pl.DataFrame:
    """(framework, key, arxiv_id): the identifiers and file stems that implementation
    evidence ties to exactly one paper in a framework (a file implementing several
    papers, like a shared core_algos.py, names none of them)."""
    implementing = evidence.filter(
        (pl.col("source_type") == "commit") & (pl.col("evidence_class") == "implementation")
    )
    named = implementing.filter(pl.col("matched_by") == "alias").with_columns(
        _alias=alias_key(pl.col("matched_text"))
    )
    identifiers = named.filter(pl.col("in_code")).select("framework", "arxiv_id", key="_alias")
    # A file named for the method (dapo_ray_trainer.py, gspo_loss.py); a generic one
    # (core_algos.py, grpo.md) ties to no paper.
    files = (
        named.filter(pl.col("path").is_not_null())
        .with_columns(key=alias_key(pl.col("path").str.replace(r"^.*/", "").str.replace(r"\.[^.]*$", "")))
        .filter(pl.col("key").str.contains(pl.col("_alias"), literal=True))
        .select("framework", "arxiv_id", "key")
    )
    keys = pl.concat([identifiers, files]).filter(pl.col("key").str.len_chars() >= 3).unique()
    single = keys.group_by("framework", "key").agg(pl.col("arxiv_id").n_unique().alias("papers"))
    return keys.join(single.filter(pl.col("papers") == 1), on=["framework", "key"], how="semi")


def training_failures_of(
    threads: pl.DataFrame, evidence: pl.DataFrame, inclusions: pl.DataFrame
) -> pl.DataFrame:
    """One row per failure report and implementation it concerns (one row with a null
    paper where it concerns none that the evidence knows)."""
    reports = failure_reports(threads)
    included = inclusions.select("arxiv_id", "framework", "commit_sha", "included_at")
    # The key shown is the first naming of the paper: the thread's own text, then its
    # comments in the order they were written.
    named = (
        evidence.filter(pl.col("source_type").is_in(["thread", "comment"]))
        .sort(
            "source_type", "occurred_at", "comment_id", "matched_text",
            descending=[True, False, False, False], nulls_last=True,
        )
        .select("framework", number=pl.col("source_ref").cast(pl.Int64), arxiv_id="arxiv_id", link_key="matched_text")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
        .join(included, on=["arxiv_id", "framework"])
        .with_columns(linked_by=pl.lit("named"))
    )
    words = pl.concat_str(pl.col("title").fill_null(""), pl.col("body").fill_null(""), separator=" ").str.extract_all(
        r"[A-Za-z_][A-Za-z0-9_.+-]*"
    )
    tokens = (
        reports.select("framework", "number", token=pl.concat_list(pl.col("body_tokens").fill_null([]), words))
        .explode("token")
        .drop_nulls("token")
        .with_columns(
            key=alias_key(pl.col("token").str.replace(r"\.py$", "")),
            _position=pl.int_range(pl.len()).over("framework", "number"),
        )
    )
    # The key shown is the first word that names the implementation.
    by_identifier = (
        tokens.join(implementation_keys(evidence), on=["framework", "key"])
        .sort("_position")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
        .select("framework", "number", "arxiv_id", link_key="token")
        .join(included, on=["arxiv_id", "framework"])
        .with_columns(linked_by=pl.lit("identifier"))
    )
    links = (
        pl.concat([named, by_identifier.select(named.columns)], how="vertical")
        .join(reports.select("framework", "number"), on=["framework", "number"], how="semi")
        .unique(["framework", "number", "arxiv_id"], keep="first", maintain_order=True)
    )
    # A report linked to no paper still says which implementation it concerns where its
    # title names one: that name, with a null paper (no evidence ties it to one).
    named_only = pl.col("arxiv_id").is_null() & pl.col("_named").is_not_null()
    return (
        reports.join(links, on=["framework", "number"], how="left")
        .with_columns(_named=named_implementation(pl.col("title")))
        .with_columns(
            link_key=pl.when(named_only).then(pl.col("_named")).otherwise(pl.col("link_key")),
            linked_by=pl.when(named_only).then(pl.lit("identifier")).otherwise(pl.col("linked_by")),
        )
        .select(
            "framework",
            "number",
            "title",
            "state",
            "author",
            url="html_url",
            created_at="created_at",
            failure_kinds="failure_kinds",
            arxiv_id="arxiv_id",
            linked_by="linked_by",
            link_key="link_key",
            commit_sha="commit_sha",
            included_at="included_at",
        )
        .cast(CORE_TRAINING_FAILURES.schema)
        .sort("framework", "number", "arxiv_id", nulls_last=True)
    )
