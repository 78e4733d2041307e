"""Time left for a job, from the rate of answers over a recent window (issue 43, point 9).

The time before the first answer (loading the model client, the first prompts' latency) says nothing
about the rate, so the estimate is timed from the first answer, and is given only once enough answers exist: at least ``MIN_ANSWERS`` (or ``MIN_SHARE`` of what is left to do) over at least
``MIN_SECONDS``. The rate is the answers of the last ``WINDOW_SECONDS`` over their time, so a slow start
or a burst of answers copied from the cache fades out. Used by the worker (written to ``jobs.eta_seconds``
for the dashboard and ``jobs``) and by the CLI's progress line.
"""

from __future__ import annotations

import time
from collections import deque

MIN_ANSWERS = 5
MIN_SHARE = 0.05
MIN_SECONDS = 3.0
WINDOW_SECONDS = 30.0

#: What a job says before its first answer: a model task first loads the model client (litellm: seconds).
STARTING_MODEL = "starting: loading the model client"
STARTING = "starting"


class RateWindow:
    """``add(done)`` at each progress report; ``eta(total)`` the seconds left, or None while too early."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.samples: deque[tuple[float, int]] = deque()
        self.start: int | None = None  # done at the first report (answers kept or copied, not timed)
        self.base: tuple[float, int] | None = None  # the first answer after it: the rate is timed from there

    def add(self, done: int) -> None:
        now, done = self.clock(), int(done)
        if self.start is None:
            self.start = done
        if self.base is None:
            if done > self.start:
                self.base = (now, done)
            return
        self.samples.append((now, done))
        while len(self.samples) > 2 and self.samples[1][0] <= now - WINDOW_SECONDS:
            self.samples.popleft()

    def eta(self, total: int) -> float | None:
        if self.base is None or not self.samples:
            return None
        now, done = self.clock(), self.samples[-1][1]
        t0, d0 = self.base
        timed, left = done - self.start, total - done
        if left <= 0 or now - t0 < MIN_SECONDS or timed < min(MIN_ANSWERS, max(1, MIN_SHARE * (total - self.start))):
            return None
        since, then = self.samples[0]
        if now - since < MIN_SECONDS or now - t0 < WINDOW_SECONDS:  # a young window: timed from the first answer
            since, then = t0, d0
        answered = done - then
        if answered <= 0:
            return None
        return left * (now - since) / answered


def starting_text(any_model: bool) -> str:
    return STARTING_MODEL if any_model else STARTING
