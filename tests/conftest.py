import pytest
from hypothesis import settings

pytest_plugins = ["pytester"]

# The suite draws the same inputs everywhere: the settings Hypothesis loads on
# CI machines (its "ci" profile), loaded on every machine.
settings.register_profile(
    "littleghost-suite", derandomize=True, database=None, deadline=None, print_blob=True
)
settings.load_profile("littleghost-suite")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Every async test runs on both event loops anyio supports."""
    return request.param
