import pytest

from assets.links.evidence import FRAMEWORK_NAMES
from orchestration.settings import ConfigError, MaintainerCompany, frameworks, maintainer_companies, parse_frameworks


def test_the_names_a_framework_goes_by_come_from_frameworks_toml():
    assert set(FRAMEWORK_NAMES) == {name for framework in frameworks() for name in framework.names}
    assert {"nemorl", "nemo"} <= set(FRAMEWORK_NAMES)


def test_a_framework_without_names_goes_by_its_slug_without_hyphens():
    (framework,) = parse_frameworks({"framework": [{"slug": "nemo-rl", "repo": "NVIDIA-NeMo/RL"}]})
    assert framework.names == ("nemorl",)


def test_a_name_that_is_not_normalized_is_a_config_error():
    with pytest.raises(ConfigError, match=r"framework #1 \(acme\): 'names' must be"):
        parse_frameworks({"framework": [{"slug": "acme", "repo": "acme/rl", "names": ["Acme RL"]}]})


def acme(**company) -> dict:
    return {"framework": [{"slug": "acme", "repo": "acme/rl", "maintainer_companies": [{"name": "Acme", **company}]}]}


def test_a_maintainer_company_has_variants_organisations_and_email_domains():
    (framework,) = parse_frameworks(acme(variants=["Acme", "Acme Labs"], github_organisations=["acme-ai"], email_domains=["acme.com"]))
    assert framework.maintainer_companies == (MaintainerCompany("Acme", ("Acme", "Acme Labs"), ("acme-ai",), ("acme.com",)),)
    (bare,) = parse_frameworks(acme())
    assert bare.maintainer_companies == (MaintainerCompany("Acme", ("Acme",)),)


@pytest.mark.parametrize(
    ("company", "message"),
    [
        ({"email_domains": ["@acme.com"]}, r"'email_domains' of Acme must be a list like \["),
        ({"email_domains": "acme.com"}, r"'email_domains' of Acme must be a list"),
        ({"github_organisations": ["https://github.com/acme"]}, r"'github_organisations' of Acme must be a list"),
        ({"github_orgs": ["acme"]}, r"a maintainer company takes \['email_domains', 'github_organisations', 'name', 'variants'\]"),
    ],
)
def test_a_malformed_maintainer_company_is_a_config_error(company, message):
    with pytest.raises(ConfigError, match=r"framework #1 \(acme\): " + message):
        parse_frameworks(acme(**company))


def test_each_configured_maintainer_company_once():
    names = [company.name for company in maintainer_companies()]
    assert len(names) == len(set(names)) and {"ByteDance", "Alibaba", "Ant Group", "NVIDIA"} <= set(names)
