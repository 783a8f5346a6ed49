"""Where a training's time goes: wall-clock and CPU seconds (of the thread that runs it) per named section."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Stopwatch:
    """Adds up the time spent in each section: ``with watch("core step"): ...`` (a section is timed by one thread;
    different sections may run in different threads at once)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        """Wall-clock seconds per section."""
        self.cpu: dict[str, float] = {}
        """CPU seconds of the thread that ran each section (``time.thread_time``): sections that run at once in
        different threads (the learner's update beside its collection) each count their own thread's work."""

    @contextmanager
    def __call__(self, section: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.wall[section] = self.wall.get(section, 0.0) + time.perf_counter() - wall
            self.cpu[section] = self.cpu.get(section, 0.0) + time.thread_time() - cpu

    def table(self) -> dict[str, dict[str, float]]:
        """Each section's wall and CPU seconds, rounded, in the order the sections were first timed."""
        return {name: {"wall_seconds": round(self.wall[name], 3), "cpu_seconds": round(self.cpu[name], 3)}
                for name in self.wall}
