"""What a job runs: judges (and for a model, prompts and generation parameters) over pairs.

One spec for the CLI and the dashboard. It round-trips through JSON into the store's ``jobs``
table, so any process can run or resume it (a spec stored before the settings were typed loads too:
:meth:`JobSpec.from_json`). Each model task's generation settings are a frozen
:class:`~core.judges.generate.GenerateConfig` (``Task.params``); the calls' settings, a frozen
:class:`~core.judges.callsettings.CallSettings` (``JobSpec.call``). It never holds a key: a model's key is
read by the process that runs the job (its environment, Streamlit's secrets file, or the variable named by
``call.api_key_env``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace

from core.judges.callsettings import CallSettings
from core.judges.generate import GenerateConfig
from core.judges.messages import default_max_tokens
from core.judges.registry import OFFLINE_JUDGES
from core.judges.shots import ShotSource


def is_offline(judge: str) -> bool:
    return judge in OFFLINE_JUDGES or judge.startswith("distilled:")


@dataclass(frozen=True)
class Task:
    """One run: a judge, and for a model also a prompt and generation parameters."""

    judge: str
    prompt_id: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    effort: str | None = None
    stop: tuple[str, ...] = ()  # stop sequences (a local server's default: core.judges.localserver.stop_defaults)

    def __post_init__(self):
        object.__setattr__(self, "stop", tuple(self.stop or ()))  # a list after the JSON round trip

    @property
    def offline(self) -> bool:
        return is_offline(self.judge)

    def params(self) -> GenerateConfig | None:
        """The generation parameters; ``max_tokens`` not given: the prompt's default (8,192 for CRIMSON's,
        2,048 for the others: ``core.judges.messages.default_max_tokens``)."""
        if self.offline:
            return None
        return GenerateConfig(temperature=float(self.temperature if self.temperature is not None else 0.0),
                         max_tokens=int(self.max_tokens or default_max_tokens(self.prompt_id or "green")),
                         reasoning_effort=self.effort, stop=self.stop)

    def columns(self) -> dict:
        params = self.params()
        return {"judge": self.judge, "prompt": self.prompt_id or "", "temperature": self.temperature,
                "max tokens": params.max_tokens if params else None,
                "reasoning effort": self.effort or ("" if self.offline else "not set")}

    def label(self) -> str:
        if self.offline:
            return self.judge
        extra = f", effort {self.effort}" if self.effort else ""
        temp = f", T={self.temperature:g}" if self.temperature is not None else ""
        return f"{self.judge} · {self.prompt_id or 'green'}{temp}{extra}"


@dataclass
class JobSpec:
    """A list of runs over the same pairs, with the call settings model runs share."""

    dataset: str
    tasks: list[Task]
    pair_ids: list[str] | None = None  # None: every pair of the dataset (up to ``limit``)
    limit: int | None = None
    selection: str = ""
    shots: ShotSource | None = None
    shots_every_prompt: bool = False  # the CLI's --shots-*: given to any prompt (vert then means vert_random)
    call: CallSettings = field(default_factory=CallSettings)  # endpoint(s), key variable, timeout, retries, ...
    crimson_map: str | None = None  # the CRIMSON prompts' category map (judge --crimson-map): in their runs' params
    shard: str | None = None  # "K/N" (judge --shard, core.jobs.shard): pair_ids hold that part; never in run params

    @property
    def offline(self) -> bool:
        return all(t.offline for t in self.tasks)

    def n_pairs(self) -> int | None:
        return len(self.pair_ids) if self.pair_ids is not None else None

    def label(self) -> str:
        judges = ", ".join(t.label() for t in self.tasks[:3]) + (f" +{len(self.tasks) - 3}" if len(self.tasks) > 3
                                                                  else "")
        pairs = self.selection or (f"{len(self.pair_ids):,} pairs" if self.pair_ids is not None else
                                   (f"first {self.limit:,} pairs" if self.limit else "all pairs"))
        return f"{judges} on {pairs}"

    def retry(self, tasks: list[Task], local_only: bool = False) -> JobSpec:
        """The same job again for ``tasks`` (the runs that failed): every other field kept as it was -- pairs,
        ``limit``, shard, shots, the CRIMSON map and the call settings (endpoint, key variable, timeouts,
        retries, batch options) -- so a retry sends to the same endpoint for the same pairs and nothing more.
        ``local_only``: the retrying process's own restriction, which only ever tightens the job's."""
        call = replace(self.call, local_only=True) if local_only else self.call
        return replace(self, tasks=list(tasks), call=call)

    def to_json(self) -> str:
        d = asdict(self)
        d["shots"] = asdict(self.shots) if self.shots else None
        d["call"] = self.call.to_dict()
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        """A stored spec; one stored before the settings were typed (loose ``api_base``, ``timeout``, ...,
        ``extra`` holding ``batch`` and ``crimson_map``) loads as the same job. ValueError names what it
        cannot read."""
        d = json.loads(text)
        d["tasks"] = [Task(**t) for t in d["tasks"]]
        d["shots"] = ShotSource(**d["shots"]) if d.get("shots") else None
        if "call" in d:
            d["call"] = CallSettings.from_dict(d["call"])
        else:  # as the code before CallSettings wrote it
            extra = d.get("extra") or {}
            unknown = sorted(set(extra) - {"batch", "crimson_map"})
            if unknown:
                raise ValueError(f"unknown settings in the job spec's extra: {', '.join(unknown)}")
            d["call"] = CallSettings.from_old(d)
            d["crimson_map"] = extra.get("crimson_map")
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})
