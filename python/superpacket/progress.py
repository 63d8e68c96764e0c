"""Progress of long work (the runs of an experiment or a sweep, one long simulation) on
stderr: a tqdm bar when stderr is a terminal; plain lines when it is not (a log, a pipe,
a batch job) and the command line asked for them (`lines_when_piped`), each with the
work done, the time taken and an estimate of the time left; nothing otherwise (the
Python API stays quiet unless asked). Never on stdout."""

from __future__ import annotations

import sys
import time
from typing import Any, Self

#: Set by the command line: progress as plain lines when stderr is not a terminal.
_LINES = False
#: Plain lines: at most one per this many seconds (and always the first and the last).
LINE_EVERY_S = 2.0


def lines_when_piped(on: bool = True) -> None:
    """Show progress as plain lines when stderr is not a terminal (the command line's
    long commands: `run`, `sweep`, `reproduce`)."""
    global _LINES
    _LINES = on


def choose(progress: bool | None) -> str | None:
    """"bar", "lines" or None (nothing) for a `progress` argument: False never shows; on
    a terminal a bar; True off a terminal a bar too (as asked); None off a terminal plain
    lines if the command line asked for them, else nothing."""
    if progress is False:
        return None
    if progress is True or sys.stderr.isatty():
        return "bar"
    return "lines" if _LINES else None


def clock(s: float) -> str:
    """Seconds as a person reads them: "under 1 s", "42 s", "3 min 05 s", "1 h 02 min"."""
    s = max(0.0, s)
    if s < 1.0:
        return "under 1 s"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


class Progress:
    """`total` units of work, `initial` already done (a resumed sweep). `update(n, note)`
    after each finished unit; `write(msg)` a line that does not break the bar."""

    def __init__(self, total: int, desc: str, unit: str = "run", initial: int = 0,
                 progress: bool | None = None, **tqdm_kw: Any):
        self.mode = choose(progress)
        self.total, self.desc, self.unit = total, desc, unit
        self.done = self.initial = initial
        self.t0 = time.monotonic()
        self.last = -1.0
        self.bar = None
        if self.mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, **tqdm_kw)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: int = 1, note: str | None = None) -> None:
        self.done += n
        if self.bar is not None:
            if note:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(n)
            return
        if self.mode != "lines":
            return
        now = time.monotonic()
        if self.done < self.total and self.last >= 0 and now - self.last < LINE_EVERY_S:
            return
        self.last = now
        print(self.line(now - self.t0, note), file=sys.stderr, flush=True)

    def line(self, elapsed: float, note: str | None = None) -> str:
        """"superpacket: runs 3/12 done (25 %; dcr/q0.01 seed 2), 30 s elapsed, about 1 min 30 s left"."""
        ran = self.done - self.initial
        pct = 100.0 * self.done / self.total if self.total else 100.0
        what = f"; {note}" if note else ""
        if self.unit == "%":  # a share of one piece of work (a long simulation)
            head = f"superpacket: {self.desc} {pct:.0f} % done{f' ({note})' if note else ''}, {clock(elapsed)} elapsed"
        else:
            head = f"superpacket: {self.desc} {self.done}/{self.total} {self.unit}s done ({pct:.0f} %{what}), " \
                   f"{clock(elapsed)} elapsed"
        if self.done >= self.total:
            return head
        if ran <= 0:
            return head + ", time left unknown"
        return head + f", about {clock(elapsed / ran * (self.total - self.done))} left"

    def write(self, msg: str) -> None:
        if self.bar is not None:
            self.bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
