#!/usr/bin/env python3
"""Draws ordinary dumbbells and judges a sound stack's invariants on each
(superpacket.validation.ordinary); prints one markdown row per scenario and the count
that break one.

    python scripts/ordinary_dumbbells.py [--seed 1] [--n 36] [--only 3,7] [--out rows.parquet]
"""

from __future__ import annotations

import argparse
import sys

from superpacket.validation import ordinary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    ap.add_argument("--n", type=int, default=36, help="scenarios drawn (default 36)")
    ap.add_argument("--only", default=None, help="comma-separated indices to run (default all)")
    ap.add_argument("--out", default=None, help="write the rows to this parquet file")
    a = ap.parse_args(argv)
    only = None if a.only is None else {int(x) for x in a.only.split(",")}
    rows = []
    print("| # | rate | one-way delay | flows | queue | cc | SACK | busy after start-up | max window / path holds "
          "| timeouts after start-up | NIC losses | breaks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in ordinary.draw(a.seed, a.n):
        if only is not None and c.index not in only:
            continue
        r = ordinary.judge(c)
        rows.append({"index": c.index, "rate_mbps": c.rate_mbps, "delay_ms": c.delay_ms, "flows": c.flows,
                     "queue": c.queue, "limit": c.limit, "ccs": ",".join(sorted(set(c.ccs))), "sack": c.sack,
                     "holds_pkts": c.holds, **{k: v for k, v in r.items() if k != "fails"},
                     "fails": "; ".join(r["fails"])})
        busy = f"{r['busy']:.3f}" + ("" if c.judged_busy else " (not judged)")
        print(f"| {c.index} | {c.rate_mbps} Mb/s | {c.delay_ms:.1f} ms | {c.flows} | {c.queue} {c.limit} "
              f"| {','.join(sorted(set(c.ccs)))} | {'yes' if c.sack else 'no'} | {busy} "
              f"| {r['max_window']:.0f} / {c.holds:.0f} | {r['timeouts_after']} | {r['nic_losses']} "
              f"| {'; '.join(r['fails']) or '-'} |", flush=True)
    bad = sum(1 for r in rows if r["fails"])
    print(f"\n{bad} of {len(rows)} break an invariant")
    if a.out:
        import polars as pl

        pl.DataFrame(rows).write_parquet(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
