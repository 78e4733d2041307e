"""How a job's model runs call their model (inspect_ai keeps these apart from ``GenerateConfig`` too): where,
with which key variable, how long to wait, how often to try, how many calls at once, and whether through a
batch API. Frozen and typed, on every job spec (``core.jobs.spec.JobSpec.call``), in place of the untyped
``extra`` dict and the loose fields a spec carried before; :meth:`CallSettings.from_old` reads a spec as
those versions stored it. They do not change an answer: none of them is in a cache key (``api_base`` is in
the run's params, as the run's own record of where it was sent).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from core.judges.batchfiles import BatchOptions


@dataclass(frozen=True)
class CallSettings:
    """The call settings of a job's model runs (module docstring); never a key, only the NAME of its variable."""

    api_base: tuple[str, ...] = ()  # overrides every model task's configured endpoint; several: replicas
    api_key_env: str | None = None  # the NAME of the variable holding the key for api_base
    timeout: float = 120.0
    max_retries: int = 4
    concurrency: int = 8
    local_only: bool | None = None  # None: the setting (RADCONCORD_LOCAL_ONLY)
    batch: BatchOptions | None = None  # send through the provider's batch API (judge --batch)

    def __post_init__(self):
        base = self.api_base
        object.__setattr__(self, "api_base", () if not base else (base,) if isinstance(base, str) else tuple(base))
        if isinstance(self.batch, dict):
            object.__setattr__(self, "batch", BatchOptions.from_dict(self.batch))
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")

    @property
    def endpoint(self) -> str | list[str] | None:
        """``api_base`` as the runner takes it: None, one URL, or a list of replicas."""
        return None if not self.api_base else self.api_base[0] if len(self.api_base) == 1 else list(self.api_base)

    def run_options(self) -> dict:
        """The runner's keywords these settings give (``batch`` only when set: other runners take none)."""
        out = {"local_only": self.local_only, "concurrency": self.concurrency, "timeout": self.timeout,
               "max_retries": self.max_retries}
        if self.batch is not None:
            out["batch"] = self.batch
        return out

    def to_dict(self) -> dict:
        d = asdict(self)
        d["api_base"] = list(self.api_base)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> CallSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown call settings in the job spec: {', '.join(unknown)}")
        return cls(**d)

    @classmethod
    def from_old(cls, d: dict) -> CallSettings:
        """The settings of a spec stored before they were typed: loose fields and ``extra["batch"]``."""
        old = {k: d[k] for k in ("api_base", "api_key_env", "timeout", "max_retries", "concurrency", "local_only")
               if d.get(k) is not None}
        batch = (d.get("extra") or {}).get("batch")
        return cls(**old, batch=BatchOptions.from_dict(batch) if batch is not None else None)
