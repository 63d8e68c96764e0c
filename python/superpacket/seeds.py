"""The one parser of seeds, for a run, a sweep and an experiment alike, written on the
command line (`run --seed 7`, `sweep --seeds 1..10`, `reproduce NAME --seeds 3..5,9`) or
passed from Python (`superpacket.run(..., seed=7)`, `superpacket.sweep(..., seeds=10)`,
an experiment's `run(seeds=[3, 1])`).

A seed is an integer in 0..2^64-1 (the simulator's seed is a u64). Seeds are given as

- an integer N: seeds 1..N;
- text: `N` (1..N), `A..B` (inclusive), a list `1,4,9`, or spans and seeds `3..5,9`, every
  number in ASCII digits; the seeds come back sorted, a repeat dropped (text names a set);
- a list (a tuple, a range, any iterable of integers, numpy's too): those seeds in that
  order; a repeat is refused (it would repeat a run and narrow an interval with no new
  data).

Refused with a SeedError (a ValueError) whose message is one line naming the argument: a
bool, a float (2.0 too), text that is not ASCII digits (`1_0`, `+3`, `٣`, which int()
would read as other seeds), a negative seed or one past 2^64-1, no seeds, and more than
`limit` seeds (counted before any list is made)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sized
from typing import Any

from superpacket.limits import MAX_EXPERIMENT_SEEDS, U64_MAX

__all__ = ["SeedError", "check_seed", "parse_seed", "parse_seeds"]


class SeedError(ValueError):
    """A seed or seeds refused: the message is one line naming the argument."""


_U64_DIGITS = len(str(U64_MAX))
_BLANKS = " \t\r\n"  # ASCII only: str.strip() would also drop other scripts' spaces


def _show(text: str) -> str:
    """The user's text in a message: one line, at most 60 characters."""
    one = text if text and text.isprintable() and text == text.strip() else repr(text)
    return one if len(one) <= 60 else one[:57] + "..."


def _got(value: Any) -> str:
    """A Python value in a message: its repr, at most 60 characters (an integer too long
    for int's repr is named by its size)."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits()
        return f"an integer of {int(value).bit_length()} bits"
    return text if len(text) <= 60 else text[:57] + "..."


def _is_integer(value: Any) -> bool:
    """An integer, Python's or numpy's; not a bool (True is not seed 1), not a float."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def parse_seed(text: str, name: str = "--seed") -> int:
    """One seed written as text: ASCII digits only, 0..2^64-1. Python's int() would also
    take `1_0` (10), `+3`, ` 3` and other scripts' digits (`٣`), each a seed the user did
    not write; they are refused. The length is checked before int() (no 4300-digit
    limit, no time spent on a megabyte of 9s). ASCII blanks around the number are
    dropped (` 3` is 3), none inside it."""
    digits = text.strip(_BLANKS)
    body = digits.lstrip("0") or "0"
    if not digits.isascii() or not digits.isdigit():
        raise SeedError(f"{name} {_show(text)}: a seed is written in ASCII digits 0-9 only "
                        f"(no sign, underscore, space or other digits)")
    if len(body) > _U64_DIGITS or int(body) > U64_MAX:
        raise SeedError(f"{name} {_show(text)}: a seed must be at most {U64_MAX}")
    return int(body)


def check_seed(value: Any, name: str = "seed") -> int:
    """One seed given as a Python value: an integer in 0..2^64-1 (numpy's integers too).
    A bool or a float (2.0 too) is refused."""
    if not _is_integer(value) or not 0 <= value <= U64_MAX:
        raise SeedError(f"{name}: must be an integer in 0..{U64_MAX} (got {_got(value)})")
    return int(value)


def parse_seeds(seeds: Any, name: str = "seeds", limit: int = MAX_EXPERIMENT_SEEDS,
                what: str = "experiment") -> list[int]:
    """The seeds to run: an integer N (1..N), text (`N`, `A..B`, `1,4,9`, `3..5,9`; sorted,
    repeats dropped) or a list of seeds (in its order, no repeats); at most `limit`
    seeds. Anything else raises SeedError naming `name` (`seeds` from Python, the flag on
    the command line); `what` ("experiment", "sweep") is what the limit is of."""
    if isinstance(seeds, str):
        return _parse_text(seeds, name, limit, what)
    if _is_integer(seeds):
        if not 1 <= seeds <= limit:
            raise SeedError(f"{name}: must be an integer in 1..{limit} (got {_got(seeds)})")
        return list(range(1, int(seeds) + 1))
    if isinstance(seeds, (bool, bytes, bytearray, Mapping)) or not isinstance(seeds, Iterable):
        raise SeedError(f"{name}: must be an integer N >= 1 or a list of seeds, or text such as 1..10 "
                        f"or 1,3,5 (got {_got(seeds)})")
    n = None  # a generator: counted while walked, below
    if isinstance(seeds, Sized):  # a list's length before it is walked: range(10**12) is refused at once
        try:
            n = len(seeds)
        except OverflowError:  # range(10**30)
            raise SeedError(f"{name}: must hold 1..{limit} seeds (got more than {limit})") from None
    if n is not None and not 1 <= n <= limit:
        raise SeedError(f"{name}: must hold 1..{limit} seeds (got {n})")
    out: list[int] = []
    seen: set[int] = set()
    for s in seeds:
        if not _is_integer(s) or not 0 <= s <= U64_MAX:
            raise SeedError(f"{name}: each seed must be an integer in 0..{U64_MAX} (got {_got(s)})")
        seed = int(s)
        if seed in seen:
            raise SeedError(f"{name}: seed {seed} is given more than once")
        seen.add(seed)
        out.append(seed)
        if len(out) > limit:
            raise SeedError(f"{name}: must hold 1..{limit} seeds (got more than {limit})")
    if not out:
        raise SeedError(f"{name}: must hold 1..{limit} seeds (got 0)")
    return out


def _parse_text(text: str, name: str, limit: int, what: str) -> list[int]:
    """`N` (seeds 1..N), `A..B` (inclusive), a list `1,4,9` or spans and seeds `3..5,9`:
    the seeds sorted, without repeats; each number by `parse_seed`. At most `limit` seeds
    ("at most LIMIT in one WHAT"), counted from the spans before any list is made."""
    text = text.strip(_BLANKS)
    spans: list[tuple[int, int]] = []
    if text.isascii() and text.isdigit():
        spans = [(1, parse_seed(text, name))]
    else:
        for part in text.split(","):
            lo, dots, hi = (x.strip(_BLANKS) for x in part.partition(".."))
            if not (lo + hi).isascii() or not all(x.isdigit() for x in ((lo, hi) if dots else (lo,))):
                raise SeedError(f"{name} {_show(text)}: expected N, A..B or a list such as 1,3,5 "
                                f"(ASCII digits 0-9 only)")
            a = parse_seed(lo, name)
            spans.append((a, parse_seed(hi, name) if dots else a))
    count = sum(max(0, hi - lo + 1) for lo, hi in spans)
    if count > limit:
        raise SeedError(f"{name} {_show(text)}: {count} seeds; at most {limit} in one {what}")
    seeds = sorted({s for lo, hi in spans for s in range(lo, hi + 1)})
    if not seeds:  # 0 (seeds 1..0) or A..B with B < A
        raise SeedError(f"{name} {_show(text)}: no seeds (N means seeds 1..N, N >= 1; A..B needs A <= B)")
    return seeds
