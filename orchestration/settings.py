"""Project configuration files under orchestration/config/, validated when loaded."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

CONFIG_DIR = Path(__file__).parent / "config"

#: First day the tracker follows: the study's window opens on 2025-01-01.
HARVEST_START = date(2025, 1, 1)

#: Who answers for the tracker's assets (shown in the catalog).
ASSET_OWNERS = ["team:inclusion-tracker"]

#: arXiv refuses pages larger than this.
ARXIV_MAX_PAGE_SIZE = 2000


class ConfigError(ValueError):
    """A configuration file is missing, malformed or has an unknown entry."""


@dataclass(frozen=True)
class ArxivQuery:
    categories: tuple[str, ...]
    keywords: tuple[str, ...]
    page_size: int


def _load_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: configuration file not found") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error


def _string_list(path: Path, raw: dict, key: str) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{path}: '{key}' must be a non-empty list of non-empty strings")
    return tuple(v.strip() for v in value)


def parse_arxiv_query(raw: dict, path: Path = CONFIG_DIR / "arxiv.toml") -> ArxivQuery:
    unknown = set(raw) - {"categories", "keywords", "page_size"}
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {sorted(unknown)}")
    page_size = raw.get("page_size", 1000)
    if not isinstance(page_size, int) or not 1 <= page_size <= ARXIV_MAX_PAGE_SIZE:
        raise ConfigError(f"{path}: 'page_size' must be an integer from 1 to {ARXIV_MAX_PAGE_SIZE}, got {page_size!r}")
    return ArxivQuery(
        categories=_string_list(path, raw, "categories"),
        keywords=_string_list(path, raw, "keywords"),
        page_size=page_size,
    )


@cache
def arxiv_query() -> ArxivQuery:
    path = CONFIG_DIR / "arxiv.toml"
    return parse_arxiv_query(_load_toml(path), path)


@dataclass(frozen=True)
class MaintainerCompany:
    """A company that maintains a framework: the names an affiliation may print
    (`variants`), the GitHub organisations its code is published under and the e-mail
    domains of its staff, all as configured in frameworks.toml."""

    name: str
    variants: tuple[str, ...]
    github_organisations: tuple[str, ...] = ()
    email_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class Framework:
    slug: str
    repo: str
    default_branch: str
    maintainer_companies: tuple[MaintainerCompany, ...]
    contribution_docs: tuple[str, ...]
    names: tuple[str, ...] = ()

    @property
    def owner(self) -> str:
        return self.repo.split("/")[0]

    @property
    def name(self) -> str:
        return self.repo.split("/")[1]

    @property
    def snapshot_stem(self) -> str:
        """File stem of this repository in the snapshot format: `<owner>__<repo>`."""
        return f"{self.owner}__{self.name}"


_SLUG = re.compile(r"^[a-z][a-z0-9-]*$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_FRAMEWORK_KEYS = {"slug", "repo", "default_branch", "names", "maintainer_companies", "contribution_docs"}
_NAME = re.compile(r"^[a-z0-9]+$")
_COMPANY_KEYS = {"name", "variants", "github_organisations", "email_domains"}
#: A GitHub user or organisation name.
_GITHUB_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
_EMAIL_DOMAIN = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$")


def _parse_company(where: str, company: dict) -> MaintainerCompany:
    name = company.get("name")
    if set(company) - _COMPANY_KEYS or not isinstance(name, str) or not name:
        raise ConfigError(
            f"{where}: a maintainer company takes {sorted(_COMPANY_KEYS)} and needs 'name', got {company!r}"
        )
    variants = company.get("variants", [name])
    if not isinstance(variants, list) or not all(isinstance(v, str) and v for v in variants):
        raise ConfigError(f"{where}: 'variants' of {name} must be a list of names")
    lists = {}
    for key, form, example in (
        ("github_organisations", _GITHUB_OWNER, "volcengine"),
        ("email_domains", _EMAIL_DOMAIN, "bytedance.com"),
    ):
        values = company.get(key, [])
        if not isinstance(values, list) or not all(isinstance(v, str) and form.match(v) for v in values):
            raise ConfigError(f"{where}: '{key}' of {name} must be a list like [\"{example}\"], got {values!r}")
        lists[key] = tuple(values)
    return MaintainerCompany(name, tuple(variants), **lists)


def parse_frameworks(raw: dict, path: Path = CONFIG_DIR / "frameworks.toml") -> tuple[Framework, ...]:
    unknown = set(raw) - {"framework"}
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {sorted(unknown)}; expected [[framework]] tables")
    entries = raw.get("framework")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: no [[framework]] entries")
    frameworks = []
    for index, entry in enumerate(entries, start=1):
        where = f"{path}: framework #{index} ({entry.get('slug', '?')})"
        unknown = set(entry) - _FRAMEWORK_KEYS
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}")
        slug, repo = entry.get("slug"), entry.get("repo")
        if not isinstance(slug, str) or not _SLUG.match(slug):
            raise ConfigError(f"{where}: 'slug' must be lower-case letters, digits and hyphens, got {slug!r}")
        if not isinstance(repo, str) or not _REPO.match(repo):
            raise ConfigError(f"{where}: 'repo' must be 'owner/name', got {repo!r}")
        branch = entry.get("default_branch", "main")
        if not isinstance(branch, str) or not branch:
            raise ConfigError(f"{where}: 'default_branch' must be a branch name")
        companies = [_parse_company(where, company) for company in entry.get("maintainer_companies", [])]
        docs = entry.get("contribution_docs", ["CONTRIBUTING.md"])
        if not isinstance(docs, list) or not all(isinstance(d, str) and d for d in docs):
            raise ConfigError(f"{where}: 'contribution_docs' must be a list of paths")
        names = entry.get("names", [slug.replace("-", "")])
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and _NAME.match(n) for n in names):
            raise ConfigError(f"{where}: 'names' must be a list of normalized names (lower-case letters and digits)")
        frameworks.append(Framework(slug, repo, branch, tuple(companies), tuple(docs), tuple(names)))
    slugs = [f.slug for f in frameworks]
    duplicated = sorted({s for s in slugs if slugs.count(s) > 1})
    if duplicated:
        raise ConfigError(f"{path}: duplicate slug(s) {duplicated}")
    return tuple(frameworks)


@cache
def frameworks() -> tuple[Framework, ...]:
    path = CONFIG_DIR / "frameworks.toml"
    return parse_frameworks(_load_toml(path), path)


def maintainer_companies() -> tuple[MaintainerCompany, ...]:
    """The maintainer companies of all configured frameworks, each once."""
    return tuple({company.name: company for f in frameworks() for company in f.maintainer_companies}.values())


def framework(slug: str) -> Framework:
    """The configured framework with this slug; a clear error for an unknown one."""
    for candidate in frameworks():
        if candidate.slug == slug:
            return candidate
    known = ", ".join(f.slug for f in frameworks())
    raise ConfigError(f"unknown framework {slug!r}; configured in {CONFIG_DIR / 'frameworks.toml'}: {known}")
