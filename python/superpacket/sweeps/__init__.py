"""Parameter sweeps: one scenario, a grid of parameter values, many seeds; every run an
independent task on Dask; results as one hive-partitioned Parquet dataset.

    superpacket.sweep("examples/incast.toml",
                      params={"topology.receiver_link.queue.limit": [20, 50]},
                      seeds=range(1, 11), out="sweeps/incast")
    data = superpacket.load_sweep("sweeps/incast")      # data.flows, data.links, data.summary

A parameter is a path into the scenario: dotted table keys and array indices
(`traffic[0].count`). A value is a TOML scalar or a whole table, which REPLACES the table
at the path (no merge with the fields there before):

    superpacket.sweep("examples/dumbbell.toml", params={"topology.bottleneck.queue": [
        {"kind": "red", "min_th": 5, "max_th": 15}, {"kind": "droptail", "limit": 100}]})
    # command line: --param 'topology.bottleneck.queue={kind="red", min_th=5, max_th=15},{kind="droptail", limit=100}'

A table's keys are sorted (at every level); its folder holds a short readable form
(`kind=red;max_th=15;min_th=5`, percent-encoded, cut and given a hash of the value when
long) and its loaded column is a String of its canonical JSON (sweeps/load.py). Every
parameter point is validated by the Rust schema before any run starts (`ScenarioError`
naming the field -> `SweepError` naming the parameter).

Layout of OUT (each run is written atomically: into a sibling `.OUT.partial/` folder,
then renamed into place, so a run folder exists whole or not at all; a restarted sweep
skips the runs whose folder exists):

    OUT/sweep.json                          the base scenario, parameters and seeds
    OUT/failures.jsonl                      runs that failed (parameters, seed, error)
    OUT/<path>=<value>/.../seed=<n>/        one run: flows, links, queue_series,
                                            queue_counters, flow_series and summary as
                                            .parquet, summary.json, and the scenario.toml
                                            it ran (flow_series has rows only when the
                                            scenario sets `[output] sample_flows`)

Read a table with `polars.read_parquet(OUT/"**/flows.parquet", hive_partitioning=True)`
(one table per glob: the tables have different columns) or with `load_sweep(OUT)`. A
folder name may hold brackets (`traffic[0].count=10`): read one file of it with
`glob=False`.

The package's parts: `grid` (parameters, linked groups, seeds, points), `runs` (running
the points and writing OUT), `load` (reading OUT back) and `bench` (`superpacket bench
--sweep`). Their names are importable from here, as they were from the one module.
"""

from __future__ import annotations

from superpacket.seeds import SeedError
from superpacket.sweeps.grid import (
    MAX_LABEL,
    Linked,
    Point,
    SweepError,
    axes_of,
    build_points,
    check_dir_names,
    load_base,
    normalize_links,
    normalize_params,
    normalize_seeds,
    parse_links,
    parse_param,
    parse_path,
    parse_seeds,
    parse_value,
    set_path,
)
from superpacket.sweeps.load import (
    TABLES,
    SweepData,
    canonical,
    dir_value,
    load_sweep,
    load_table,
    read_meta,
    value_label,
)
from superpacket.sweeps.runs import (
    RunFiles,
    Runner,
    RunResult,
    SweepOutcome,
    commit_run,
    run_chunk,
    run_to_files,
    sweep,
)

#: Every name of the parts that was a name of the one module before (the documented API:
#: sweep, load_sweep, SweepData, SweepError, TABLES).
__all__ = [
    "MAX_LABEL",
    "TABLES",
    "Linked",
    "Point",
    "RunFiles",
    "RunResult",
    "Runner",
    "SeedError",
    "SweepData",
    "SweepError",
    "SweepOutcome",
    "axes_of",
    "build_points",
    "canonical",
    "check_dir_names",
    "commit_run",
    "dir_value",
    "load_base",
    "load_sweep",
    "load_table",
    "normalize_links",
    "normalize_params",
    "normalize_seeds",
    "parse_links",
    "parse_param",
    "parse_path",
    "parse_seeds",
    "parse_value",
    "read_meta",
    "run_chunk",
    "run_to_files",
    "set_path",
    "sweep",
    "value_label",
]
