"""A plain progress bar on stderr, for long replays and simulations (no dependency).

Shown when asked (`--progress`), or by default when the input is long and stderr is a
terminal, so pipes and logs stay clean.
"""

import sys
import time
from typing import TextIO

#: Inputs at least this long get a bar by default (when stderr is a terminal).
LONG_INPUT = 5000
WIDTH = 30


def wanted(flag: bool | None, total: int, stream: TextIO | None = None) -> bool:
    if flag is not None:
        return flag
    stream = stream or sys.stderr
    return total >= LONG_INPUT and stream.isatty()


class Progress:
    """`advance()` once per item; redraws at most every `interval` seconds; `close()` at the end."""

    def __init__(
        self,
        total: int,
        label: str,
        *,
        enabled: bool,
        stream: TextIO | None = None,
        interval: float = 0.1,
    ) -> None:
        self.total = max(total, 0)
        self.label = label
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.interval = interval
        self.done = 0
        self._started = time.monotonic()
        self._drawn = -1.0
        self._drawn_count = -1

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._drawn >= self.interval or self.done >= self.total:
            self._draw(now)

    def _draw(self, now: float) -> None:
        self._drawn = now
        self._drawn_count = self.done
        share = min(self.done / self.total, 1.0) if self.total else 1.0
        filled = int(share * WIDTH)
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        self.stream.write(
            f"\r{self.label} [{bar}] {share:4.0%} {self.done}/{self.total} {rate:,.0f}/s"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            if self._drawn_count != self.done:
                self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
