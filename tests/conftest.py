"""Shared fixtures: stores on fresh DuckDB files, and a dashboard under AppTest.

- ``tmp_store``: an empty, migrated store in ``tmp_path``.
- ``demo_store``: one store per test session holding ``build_demo(n_pairs=120,
  seed=3)``. Shared: tests must not write to it (use ``demo_store_copy``).
- ``demo_store_copy``: a private copy of the demo store, safe to import into.
- ``app_test``: ``app_test(store)`` -> an ``AppTest`` of app.py reading ``store``.
- ``marked_store(path, n, markers)``: a store of ``n`` pairs, some marked for tests/fake_openai.py.
- ``run_cli``: ``run_cli(*argv, env=None, cwd=None, input=None)`` -> ``python -m core``'s main run in this
  process (tests/cli_inprocess.py): exit code, stdout and stderr as ``subprocess.run`` gives them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.settings import apply_offline_defaults
from core.store.db import Store

apply_offline_defaults()  # before anything can import litellm

ROOT = Path(__file__).resolve().parents[1]
DEMO_PAIRS = 120
DEMO_SEED = 3


@pytest.fixture
def tmp_store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.duckdb")


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    from core.ingest.demo import build_demo

    store = Store(tmp_path_factory.mktemp("demo") / "demo.duckdb")
    build_demo(store, n_pairs=DEMO_PAIRS, seed=DEMO_SEED)
    return store


def copy_store(store: Store, dest: Path) -> Store:
    """Copy a store file (and its WAL, if any) and open the copy."""
    shutil.copyfile(store.path, dest)
    wal = Path(f"{store.path}.wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{dest}.wal"))
    return Store(dest)


def marked_store(path: Path, n: int, markers: dict[int, str] | None = None, dataset: str = "d") -> Store:
    """A store at ``path`` with ``n`` pairs in ``dataset``; candidate ``i`` carries ``markers[i]`` (a
    tests/fake_openai.py plan marker, so the fake server misbehaves on that pair)."""
    import pandas as pd

    from core.ingest.importers import PairColumns, import_pairs

    store = Store(path)
    markers = markers or {}
    df = pd.DataFrame({
        "id": [f"p{i:03d}" for i in range(n)],
        "ref": [f"Reference report {i}. Small left pleural effusion." for i in range(n)],
        "cand": [f"Candidate report {i}. {markers.get(i, '')} Effusion on the right." for i in range(n)],
    })
    import_pairs(store, df, dataset=dataset, columns=PairColumns("id", "ref", "cand"), name="x.csv")
    return store


@pytest.fixture
def demo_store_copy(demo_store: Store, tmp_path: Path) -> Store:
    return copy_store(demo_store, tmp_path / "demo-copy.duckdb")


@pytest.fixture
def run_cli():
    """``python -m core ARGV`` in the test process (tests/cli_inprocess.py); real processes stay for the tests
    about process behaviour (kills, signals, locks between processes, import time)."""
    from tests.cli_inprocess import run_cli

    return run_cli


@pytest.fixture
def use_store(monkeypatch: pytest.MonkeyPatch):
    """``use_store(store)`` points ``RADCONCORD_STORE`` at it for this test."""

    def _use(store: Store | os.PathLike | str) -> Path:
        path = Path(store.path if isinstance(store, Store) else store).resolve()
        monkeypatch.setenv("RADCONCORD_STORE", str(path))
        return path

    return _use


@pytest.fixture
def app_test(use_store, monkeypatch: pytest.MonkeyPatch):
    """``app_test(store, query_params=None)`` -> an AppTest of app.py, not yet run.

    In a server's steady state (tests/apptest_steady.py says why AppTest needs that patch).
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    from tests.apptest_steady import steady_init

    monkeypatch.setattr(PagesManager, "__init__", steady_init(PagesManager.__init__))

    def _make(store: Store | os.PathLike | str, query_params: dict | None = None) -> AppTest:
        use_store(store)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        if query_params:
            at.query_params.update(query_params)
        return at

    return _make


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch):
    """No model configured: the pages offer only the offline judges."""
    for var in ("RADCONCORD_MODELS", "RADCONCORD_API_BASE", "RADCONCORD_LOCAL_ONLY"):
        monkeypatch.delenv(var, raising=False)


# -- outbound network guard ---------------------------------------------------------------------
# Every test runs with connections to anything but loopback refused (and names other than
# localhost unresolvable), so the suite's default paths prove that nothing reaches the network
# without an explicit run against a configured endpoint. Subprocesses started by tests are not
# covered (they get their own interpreter); their endpoints are loopback servers by construction.


class OutboundConnectionBlocked(ConnectionRefusedError):
    """A test tried to reach a non-loopback address."""


def _loopback_address(address) -> bool:
    import ipaddress

    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other non-IP families stay on this machine
    host = str(address[0]).split("%")[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost


@pytest.fixture(scope="session", autouse=True)
def block_outbound_network():
    import socket

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback_address(address):
            raise OutboundConnectionBlocked(f"test network guard: outbound connection to {address!r} blocked")
        return real_connect(self, address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback_address(address):
            raise OutboundConnectionBlocked(f"test network guard: outbound connection to {address!r} blocked")
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and not _loopback_address((name,)):
            import ipaddress

            try:
                ipaddress.ip_address(str(name).split("%")[0])  # an address literal needs no lookup
            except ValueError:
                raise socket.gaierror(socket.EAI_NONAME, f"test network guard: no DNS for {name!r}") from None
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        mp.setattr(socket, "getaddrinfo", getaddrinfo)
        yield
