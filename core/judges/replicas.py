"""Several replicas of one served model: calls spread over them by litellm's Router.

A served model often runs as several vLLM/TGI replicas, each with its own URL. Given more than one
``api_base`` (``judge --api-base URL`` repeated, or several URLs in ``RADCONCORD_API_BASE``), a run's
calls go through one ``litellm.Router`` whose deployments are those replicas, all under one model
group: the Router picks a replica per call (``least-busy``: the one with the fewest calls in flight
from this process) and keeps a replica that failed out of rotation for ``cooldown_time`` seconds
(``allowed_fails=0``: the first failure, a refused connection, a 5xx, a 429 or a timeout, rests it);
after that it is tried again, so a replica that comes back is back in rotation after one rest.

Everything else is the direct path's (:class:`core.judges.caller.Caller`): our own retries with backoff
(the Router's are off: ``num_retries=0``), so a call that failed on a replica is retried and lands on
another one; one logical model, so the cache key, leases and journal do not depend on the replicas,
and the run is identified by the first URL (``api_base`` in the run's params), as a run on that one
endpoint would be. A call that a replica received but never answered (it died mid-call) is paid for
by nobody and retried elsewhere: it shows as a failed call of that replica.

Per replica the run reports calls, answers, failures, latency (mean, and median in 1 ms bins) and
how many times it was taken out of rotation (``RunSummary.replicas``).
"""

from __future__ import annotations

import bisect
import re
import time
from collections import Counter
from functools import partial

from core.judges.caller import Caller
from core.judges.endpoints import check_endpoint, safe_api_base
from core.judges.generate import GenerateConfig as GenParams

ROUTING_STRATEGY = "least-busy"  # litellm's strategies: simple-shuffle, least-busy, latency-based-routing, ...
COOLDOWN_SECONDS = 5.0  # how long a failed replica stays out of rotation before it is tried again
GROUP = "radconcord-replicas"  # the Router's model group: every replica of the one model


def endpoints(api_base) -> list[str]:
    """The endpoints in ``api_base``: None, one URL, several URLs separated by spaces or commas, or a list.

    Distinct, in the order given; an empty list for none.
    """
    if api_base is None:
        return []
    items = api_base if isinstance(api_base, list | tuple) else [api_base]
    out: list[str] = []
    for item in items:
        for url in re.split(r"[\s,]+", str(item).strip()):
            if url and url not in out:
                out.append(url)
    return out


def split_endpoints(model: str, api_base, local_only: bool) -> tuple[str | None, list[str]]:
    """(the first endpoint, every endpoint when there are several else []), each checked against ``local_only``.

    The first endpoint identifies the run (its ``api_base`` param) and receives the calls when it is alone.
    """
    urls = endpoints(api_base)
    for url in urls or [None]:
        check_endpoint(model, url, local_only)
    return (urls[0] if urls else None), (urls if len(urls) > 1 else [])


def caller_for(model: str, params: GenParams, api_base: str | None, replicas: list[str], api_key: str | None,
               timeout: float, max_retries: int, backoff: float, summary=None):
    """What builds the run's caller: a :class:`ReplicaCaller` over ``replicas`` (reporting into
    ``summary.replicas``), or the direct :class:`~core.judges.caller.Caller` of ``api_base``."""
    if replicas:
        return partial(ReplicaCaller, model, params, replicas, api_key, timeout, max_retries, backoff,
                       summary.replicas if summary is not None else None)
    return partial(Caller, model, params, api_base, api_key, timeout, max_retries, backoff)


class AllReplicasResting(ConnectionError):
    """Every replica is out of rotation now: retried with backoff like a dropped connection."""


class _Replica:
    def __init__(self, api_base: str):
        self.row = {"api_base": safe_api_base(api_base), "calls": 0, "ok": 0, "failed": 0,
                    "latency_ms_mean": None, "latency_ms_median": None, "out_of_rotation": 0}
        self.bins: Counter = Counter()  # latency of answered calls, in whole milliseconds
        self.bin_order: list[int] = []  # the keys of ``bins``, kept sorted as they appear
        self.total_ms = 0.0
        self.resting = False

    def answered(self, ms: float) -> None:
        self.row["ok"] += 1
        self.resting = False
        self.total_ms += ms
        if int(ms) not in self.bins:
            bisect.insort(self.bin_order, int(ms))
        self.bins[int(ms)] += 1
        n = self.row["ok"]
        self.row["latency_ms_mean"] = round(self.total_ms / n, 1)
        half, seen = (n + 1) // 2, 0
        for ms_bin in self.bin_order:
            seen += self.bins[ms_bin]
            if seen >= half:
                self.row["latency_ms_median"] = ms_bin
                break


class ReplicaCaller(Caller):
    """A :class:`~core.judges.caller.Caller` whose calls go to one of several replicas through litellm's Router.

    ``report`` (the run summary's ``replicas`` list) receives one row per replica, updated as calls end.
    """

    def __init__(self, model: str, params: GenParams, replicas: list[str], api_key: str | None, timeout: float,
                 max_retries: int, backoff: float, report: list | None = None, *,
                 routing_strategy: str = ROUTING_STRATEGY, cooldown_seconds: float = COOLDOWN_SECONDS):
        super().__init__(model, params, replicas[0], api_key, timeout, max_retries, backoff)
        self.direct = False  # the Router sends every call (and prices it)
        self.replicas = {f"replica-{i}": _Replica(url) for i, url in enumerate(replicas)}
        if report is not None:
            report[:] = [r.row for r in self.replicas.values()]
        deployments = [{"model_name": GROUP, "model_info": {"id": rid},
                        "litellm_params": {"model": model, "api_base": url,
                                           **({"api_key": self.api_key} if self.api_key else {})}}
                       for rid, url in zip(self.replicas, replicas, strict=True)]
        known = set(self.litellm.model_cost)
        self.router = self.litellm.Router(model_list=deployments, routing_strategy=routing_strategy,
                                          num_retries=0, allowed_fails=0, cooldown_time=cooldown_seconds)
        # The Router enters its deployments' models in litellm's price table, with price 0 when litellm has
        # no price for them: every later call in this process would then cost 0 instead of unknown. Removed.
        for name in set(self.litellm.model_cost) - known:
            self.litellm.model_cost.pop(name, None)
        self.complete = self._routed

    async def _routed(self, **kwargs):
        """One attempt through the Router, counted on the replica that took it."""
        for name in ("model", "api_base", "api_key"):  # the Router's deployments carry these
            kwargs.pop(name, None)
        t0 = time.monotonic()
        try:
            resp = await self.router.acompletion(model=GROUP, **kwargs)
        except Exception as exc:
            replica = self.replicas.get(getattr(exc, "failed_deployment_id", None) or "")
            if replica is None:  # no replica was tried: all of them are resting
                raise AllReplicasResting(f"every replica is out of rotation for now ({type(exc).__name__})") from None
            replica.row["calls"] += 1
            replica.row["failed"] += 1
            if not replica.resting and await self._in_cooldown(str(exc.failed_deployment_id)):
                replica.resting = True
                replica.row["out_of_rotation"] += 1
            raise
        hidden = getattr(resp, "_hidden_params", None) or {}
        replica = self.replicas.get(str(hidden.get("model_id")))
        if replica is not None:
            replica.row["calls"] += 1
            replica.answered((time.monotonic() - t0) * 1000)
        return resp

    async def _in_cooldown(self, deployment_id: str) -> bool:
        try:
            active = await self.router.cooldown_cache.async_get_active_cooldowns(model_ids=[deployment_id],
                                                                                parent_otel_span=None)
        except Exception:  # bookkeeping only: never fail a call over it
            return False
        return bool(active)
