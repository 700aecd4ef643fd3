import warnings

import pytest

# fastmcp's dependencies (authlib) warn about themselves on import; recording swallows that noise.
with warnings.catch_warnings(record=True):
    import fastmcp  # noqa: F401


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
