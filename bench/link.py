"""Speed of linking: the evidence of all seven recorded framework histories and the
recorded threads against the aliases of at least 10,000 papers.

    .venv/bin/python bench/link.py [--snapshot ../shared/snapshots] [--papers 10000] [--naive-sample 40]

The 172 recorded papers (with their aliases from paper_aliases_of) are padded with
generated papers (ids, titles and acronym aliases that name nothing real) up to
--papers. It prints the time of `evidence_of` over everything and the process's peak
memory (targets: <= 10 s, <= 2 GB), then times a naive linker, one regular expression
per paper over every text and token list, on --naive-sample papers in the same run,
and the speed-up of the multi-pattern pass over that loop extrapolated to all papers
(target >= 20x). Both find the same (place, paper) pairs on the sample, or it says so.
"""

import argparse
import json
import random
import re
import resource
import string
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assets.papers.aliases import paper_aliases_of, read_alias_overrides  # noqa: E402
from assets.links.evidence import alias_key, evidence_of, evidence_places, paper_mentions  # noqa: E402
from bench.link_quality import DEFAULT_SNAPSHOT, load_snapshots  # noqa: E402

_WORDS = (
    "policy optimization reinforcement learning reasoning reward model language large scalable efficient "
    "adaptive robust sequence token group advantage entropy value critic rollout sampling curriculum "
    "verifiable feedback alignment preference contrastive hierarchical agentic multi turn tool search "
    "distillation stable variance reduced baseline clipping trust region importance weighted"
).split()


def generated_papers(
    count: int, seed: int = 7, title_words: Sequence[int] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`count` made-up papers (ids 2590.00000 on: no real month) and one acronym each;
    a title has 4 to 9 words after its acronym, or a length drawn from `title_words`."""
    rng = random.Random(seed)
    ids, titles, acronyms = [], [], []
    seen = set()
    for index in range(count):
        length = rng.choice(title_words) if title_words else rng.randint(4, 9)
        words = [rng.choice(_WORDS) for _ in range(length)] if title_words else rng.sample(_WORDS, length)
        acronym = "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(3, 4))) + "PO"
        while acronym in seen:
            acronym = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + "PO"
        seen.add(acronym)
        ids.append(f"{2590 + index // 99_999}.{index % 99_999:05d}")
        titles.append(f"{acronym}: " + " ".join(words).capitalize())
        acronyms.append(acronym)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    papers = pl.DataFrame(
        {
            "arxiv_id": ids,
            "title": titles,
            "published_at": [start + timedelta(hours=index) for index in range(count)],
        },
        schema={"arxiv_id": pl.Utf8, "title": pl.Utf8, "published_at": pl.Datetime("us", "UTC")},
    )
    aliases = pl.DataFrame({"arxiv_id": ids, "alias": acronyms}).with_columns(
        normalized=alias_key(pl.col("alias")),
        source=pl.lit("generated"),
        ambiguous=pl.lit(False),
        case_sensitive=pl.lit(True),
    )
    return papers, aliases


def linking_inputs(
    data: dict[str, pl.DataFrame], count: int, title_words: Sequence[int] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The recorded papers with their aliases, padded with generated ones up to `count`:
    all papers, all aliases, and the generated papers alone."""
    real_aliases = paper_aliases_of(data["papers"], read_alias_overrides())
    real_papers = data["papers"].select("arxiv_id", "title", "published_at")
    fake_papers, fake_aliases = generated_papers(max(0, count - real_papers.height), title_words=title_words)
    # A generated acronym that is a real paper's name would make that name ambiguous.
    fake_aliases = fake_aliases.filter(~pl.col("normalized").is_in(real_aliases["normalized"].implode()))
    papers = pl.concat([real_papers, fake_papers])
    aliases = pl.concat([real_aliases, fake_aliases.select(real_aliases.columns).cast(real_aliases.schema)])
    return papers, aliases, fake_papers


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def naive_pairs(places: pl.DataFrame, papers: pl.DataFrame, aliases: pl.DataFrame) -> set[tuple[int, str]]:
    """(place_id, arxiv_id) found by one regular expression per paper: what the
    multi-pattern pass replaces. Each paper's id forms, title and aliases become one
    alternation run over every text, and its alias keys are looked up in every
    token list."""
    found: set[tuple[int, str]] = set()
    normalized_text = places.select(
        "place_id",
        text=pl.col("text").fill_null(""),
        keys=pl.col("tokens").list.eval(alias_key(pl.element())),
    )
    for paper in papers.iter_rows(named=True):
        names = aliases.filter(pl.col("arxiv_id") == paper["arxiv_id"])
        forms = [re.escape(paper["arxiv_id"]) + r"(?:v\d+)?(?!\d)"]
        title_words = re.findall(r"[A-Za-z0-9+]+", paper["title"] or "")
        if len(title_words) > 3:
            forms.append(r"(?i:" + r"[^A-Za-z0-9+]+".join(map(re.escape, title_words)) + r")")
        for alias in names["alias"].to_list():
            forms.append(r"(?<![A-Za-z0-9])" + re.escape(alias) + r"(?![A-Za-z0-9])")
        pattern = "|".join(forms)
        keys = names["normalized"].to_list()
        hits = normalized_text.filter(
            pl.col("text").str.contains(_to_rust(pattern)) | pl.col("keys").list.eval(pl.element().is_in(keys)).list.any()
        )["place_id"]
        found.update((place_id, paper["arxiv_id"]) for place_id in hits.to_list())
    return found


def _to_rust(pattern: str) -> str:
    # The Rust regex engine has no look-around: word edges stand in for them.
    return pattern.replace(r"(?<![A-Za-z0-9])", r"\b").replace(r"(?![A-Za-z0-9])", r"\b").replace(r"(?!\d)", r"\b")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--papers", type=int, default=10_000, help="papers in all, real ones included")
    parser.add_argument("--naive-sample", type=int, default=40, help="papers the naive loop is timed on")
    parser.add_argument("--json", metavar="OUT", help="also write the figures to this file")
    args = parser.parse_args()

    started = time.perf_counter()
    data = load_snapshots(args.snapshot)
    papers, aliases, fake_papers = linking_inputs(data, args.papers)
    real_papers = data["papers"]
    loaded = time.perf_counter() - started
    rss_loaded = peak_rss_mb()
    print(
        f"loaded in {loaded:.1f} s: {data['commits'].height} commits, {data['files'].height} file rows, "
        f"{data['threads'].height} threads, {data['comments'].height} comments; {papers.height} papers "
        f"({real_papers.height} real), {aliases.height} aliases; peak RSS so far {rss_loaded:.0f} MB"
    )

    started = time.perf_counter()
    evidence = evidence_of(data["commits"], data["files"], data["threads"], data["comments"], papers, aliases)
    linked = time.perf_counter() - started
    rss = peak_rss_mb()
    print(
        f"evidence_of over everything: {linked:.2f} s (target <= 10 s), {evidence.height} evidence rows; "
        f"peak RSS {rss:.0f} MB (target <= 2048 MB)"
    )

    # The naive loop on a sample of papers: the real ones that have evidence first
    # (the interesting ones), then generated ones.
    places = evidence_places(data["commits"], data["files"], data["threads"], data["comments"])
    rng = random.Random(11)
    with_evidence = evidence["arxiv_id"].unique().sort().to_list()
    sample_ids = rng.sample(with_evidence, min(len(with_evidence), args.naive_sample // 2))
    sample_ids += rng.sample(fake_papers["arxiv_id"].to_list(), args.naive_sample - len(sample_ids))
    sample_papers = papers.filter(pl.col("arxiv_id").is_in(sample_ids))
    sample_aliases = aliases.filter(pl.col("arxiv_id").is_in(sample_ids) & ~pl.col("ambiguous"))
    started = time.perf_counter()
    naive = naive_pairs(places, sample_papers, sample_aliases)
    naive_seconds = time.perf_counter() - started
    per_paper = naive_seconds / sample_papers.height
    extrapolated = per_paper * papers.height
    print(
        f"naive per-paper regex loop: {naive_seconds:.2f} s for {sample_papers.height} papers "
        f"({per_paper * 1000:.0f} ms a paper) -> {extrapolated:.0f} s for {papers.height} papers"
    )
    print(f"speed-up of the multi-pattern pass: {extrapolated / linked:.0f}x (target >= 20x)")

    ours = set(
        paper_mentions(places, sample_papers, sample_aliases).select("place_id", "arxiv_id").iter_rows()
    )
    print(
        f"on the sample: multi-pattern finds {len(ours)} (place, paper) pairs, the naive loop {len(naive)}, "
        f"both {len(ours & naive)}"
    )
    if args.json:
        figures = {"papers": papers.height, "evidence_s": linked, "peak_rss_mb": rss, "speed_up": extrapolated / linked,
                   "sample_pairs_same": ours == naive}  # fmt: skip
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
