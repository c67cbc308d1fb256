# SPDX-License-Identifier: MIT
"""Fixtures of the `import rsim` tests: ctest runs them with PYTHONPATH=build/python and
RSIM_BINARY / RSIM_SOURCE_DIR set (tests/CMakeLists.txt)."""
import os

import pytest


@pytest.fixture(scope="session")
def rsim_binary():
    return os.environ["RSIM_BINARY"]


@pytest.fixture(scope="session")
def tiny_room():
    return os.path.join(os.environ["RSIM_SOURCE_DIR"], "scenes", "tiny-room", "scene.toml")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Every test with its own K cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
