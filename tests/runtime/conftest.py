import contextlib
import warnings

import pytest

# fastmcp's dependencies (authlib) warn about themselves on import; recording swallows that noise.
# (Without an SDK the tests marked `sdk` are skipped: tests/conftest.py.)
with warnings.catch_warnings(record=True), contextlib.suppress(ModuleNotFoundError):
    import fastmcp  # noqa: F401


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
