"""Draw a batch of (paper, framework) pairs to label for bench/labels/inclusion_sample.csv.

    .venv/bin/python bench/draw_link_sample.py --batch recall_1 --pool recall \\
        --size id_or_title=16 --size alias=12 --seed 20261207 [--out rows.csv]

Reproducible: the pool is computed on the recorded snapshot with the rules of the
checked-out commit, pairs already labelled (any batch) are left out, and each stratum is
sampled with the seed from its pairs in (arxiv_id, framework) order. The rows are
written (to --out, else standard output) in the sample's columns with `included`,
`commit_sha` and `note` empty, plus columns that help the labeller (`stratum`, the rules'
commit or the first candidate commit, the terms found); label them by reading the
commits, keep the sample's six columns and append them to the sample.

Pools and their strata:
- `rules` (what the rules give): `inclusion`, a pair the rules include (no overrides);
  `citation_only`, a pair with evidence of any kind (commit, thread, comment) but no
  inclusion.
- `recall` (bench/link_recall.py): the candidate pairs of the rule-free name search that
  the rules do not include, `id_or_title` (the id or the title is written somewhere) or
  `alias` (only a name is).

How the existing batches were drawn (from the history of the sample and of
bench/link_quality.py; no script was committed before this one):
- `tuning` (65 pairs, c3f45a1, 2026-12-03): not drawn at random. The pairs the rules
  were written against: the inclusions and citations the rules of the time found for
  the papers looked at while writing them, labelled by reading each pair's commits.
- `held_out` (32 pairs, cce6b6b): pool `rules` after the rules were frozen, seed
  20261203, 20 `inclusion` and 12 `citation_only`, labelled pairs left out.
- `held_out_2` (23 pairs, 437dee1): the same after the next rule change, seed 20261204,
  15 and 8.
- `held_out_3` (26 pairs, 4815623): after the own-system-paper rule, seed 20261205, 20
  and 6.
- `held_out_4` (13 pairs, be841c6): seed 20261206, the last 3 unlabelled inclusions
  (every one left) and 10 `citation_only`.
Those draws ran on the rules of their time, which have changed since: this script gives
the same kind of draw today, not the same rows. Drawn with this script:
- `recall_1` (28 pairs, 6fba694): `--pool recall --size id_or_title=16 --size alias=12
  --seed 20261207` on the rules of 08543f8, before any rule change of issue 16.
- `recall_2` (12 pairs, 16bf6d3): `--pool recall --size id_or_title=12 --seed 20261208`
  (every id_or_title candidate left) on the rules of fb91b54.
- `held_out_5` (3 pairs): `--pool rules --size inclusion=10 --size citation_only=0 --seed
  20261209` on the rules of 1c1556f: every unlabelled inclusion left (IcePop of 2510.18855,
  which the rules include since the aliases found its name). The rule changes of 1c1556f
  and its parent added three pairs, all already labelled (the misses they were written
  for), so there was nothing new of theirs to draw.
- `recall_3` (15 pairs): `--pool recall --size alias=15 --seed 20261209` on the rules of
  1c1556f (15 of the 35 alias candidates left).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.link_quality import DEFAULT_SNAPSHOT, SAMPLE, load_snapshots, read_sample, rules_output  # noqa: E402
from bench.link_recall import candidate_hits, candidate_pairs, rejected_candidates  # noqa: E402

SAMPLE_COLUMNS = ("arxiv_id", "framework", "included", "commit_sha", "note", "batch")


def rules_pool(evidence: pl.DataFrame, inclusions: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, framework, stratum, hint) of every pair the rules include or only cite."""
    included = inclusions.select("arxiv_id", "framework", stratum=pl.lit("inclusion"), hint=pl.col("commit_sha"))
    cited = (
        evidence.select("arxiv_id", "framework")
        .unique()
        .join(included, on=["arxiv_id", "framework"], how="anti")
        .with_columns(stratum=pl.lit("citation_only"), hint=pl.lit(None, pl.Utf8))
    )
    return pl.concat([included, cited])


def recall_pool(candidates: pl.DataFrame, inclusions: pl.DataFrame) -> pl.DataFrame:
    """(arxiv_id, framework, stratum, hint) of the rule-free candidates the rules reject."""
    return rejected_candidates(candidates, inclusions).select(
        "arxiv_id", "framework", "stratum", hint=pl.concat_str("first_commit", pl.lit(" "), "terms")
    )


def drawn_batch(pool: pl.DataFrame, labelled: pl.DataFrame, sizes: dict[str, int], seed: int, batch: str) -> pl.DataFrame:
    """Per stratum, `sizes[stratum]` pairs (all when fewer) of `pool` not in `labelled`,
    drawn with `seed` from the pairs in (arxiv_id, framework) order; unlabelled rows in the
    sample's columns plus `stratum` and `hint`."""
    open_pairs = pool.join(labelled.select("arxiv_id", "framework"), on=["arxiv_id", "framework"], how="anti").sort(
        "arxiv_id", "framework"
    )
    drawn = [
        open_pairs.filter(pl.col("stratum") == stratum).pipe(
            lambda rows, n=n: rows.sample(n=min(n, rows.height), seed=seed)
        )
        for stratum, n in sizes.items()
    ]
    return (
        pl.concat(drawn)
        .sort("arxiv_id", "framework")
        .select(
            "arxiv_id",
            "framework",
            included=pl.lit(None, pl.Utf8),
            commit_sha=pl.lit(None, pl.Utf8),
            note=pl.lit(None, pl.Utf8),
            batch=pl.lit(batch),
            stratum="stratum",
            hint="hint",
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", required=True, help="the new batch's name")
    parser.add_argument("--pool", choices=("rules", "recall"), required=True)
    parser.add_argument("--size", action="append", required=True, help="stratum=n, once per stratum")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--snapshot", type=Path, default=DEFAULT_SNAPSHOT)
    parser.add_argument("--out", type=Path, help="CSV to write (default: standard output)")
    args = parser.parse_args()

    sample = read_sample()
    if args.batch in sample["batch"].to_list():
        raise SystemExit(f"{SAMPLE}: batch {args.batch} exists already; name the new batch otherwise")
    sizes = {stratum: int(n) for stratum, n in (size.split("=", 1) for size in args.size)}
    data = load_snapshots(args.snapshot)
    aliases, evidence, inclusions = rules_output(data)
    if args.pool == "rules":
        pool = rules_pool(evidence, inclusions)
    else:
        candidates = candidate_pairs(candidate_hits(data["commits"], data["files"], data["papers"], aliases), data["commits"])
        pool = recall_pool(candidates, inclusions)
    unknown = set(sizes) - set(pool["stratum"].unique().to_list())
    if unknown:
        raise SystemExit(f"--size: no stratum {sorted(unknown)} in pool {args.pool} (it has {sorted(pool['stratum'].unique())})")
    batch = drawn_batch(pool, sample, sizes, args.seed, args.batch)
    if args.out:
        batch.write_csv(args.out)
        print(f"{batch.height} pairs of batch {args.batch} to label in {args.out}", file=sys.stderr)
    else:
        print(batch.write_csv(), end="")


if __name__ == "__main__":
    main()
