import pytest

from assets.links.evidence import FRAMEWORK_NAMES
from orchestration.settings import ConfigError, frameworks, parse_frameworks


def test_the_names_a_framework_goes_by_come_from_frameworks_toml():
    assert set(FRAMEWORK_NAMES) == {name for framework in frameworks() for name in framework.names}
    assert {"nemorl", "nemo"} <= set(FRAMEWORK_NAMES)


def test_a_framework_without_names_goes_by_its_slug_without_hyphens():
    (framework,) = parse_frameworks({"framework": [{"slug": "nemo-rl", "repo": "NVIDIA-NeMo/RL"}]})
    assert framework.names == ("nemorl",)


def test_a_name_that_is_not_normalized_is_a_config_error():
    with pytest.raises(ConfigError, match=r"framework #1 \(acme\): 'names' must be"):
        parse_frameworks({"framework": [{"slug": "acme", "repo": "acme/rl", "names": ["Acme RL"]}]})
