"""A real model for the local-model tests: llama.cpp's server with SmolLM2-135M (the optional LLM extra,
requirements-llm.txt), started once per session on a free loopback port behind a counting proxy
(tests/local_server.py), stopped at the end. No fake is in the path: every answer is the model's."""

from __future__ import annotations

import pytest

from tests.local_server import CountingProxy, LlamaServer


class Local:
    """The running server, the proxy in front of it (``url``: the ``--api-base`` to give), the product's
    model string (``model``)."""

    def __init__(self, server: LlamaServer, proxy: CountingProxy):
        self.server, self.proxy = server, proxy
        self.url = proxy.url
        self.model = "openai/" + server.alias


@pytest.fixture(scope="session")
def local_model(tmp_path_factory: pytest.TempPathFactory):
    server = LlamaServer(log=tmp_path_factory.mktemp("llama") / "server.log").start(deadline=180)
    proxy = CountingProxy(server.url)
    try:
        yield Local(server, proxy)
    finally:
        proxy.stop()
        server.stop()
