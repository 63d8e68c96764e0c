//! PyO3 bindings: `superpacket._core`. Thin: parse, build, run (without holding the
//! interpreter), hand back columns. Every scenario error comes back as
//! `superpacket._core.ScenarioError` (a ValueError) naming the field; no panic crosses:
//! a panic inside the simulator (a bug) comes back as `superpacket._core.SimulationError`
//! (a RuntimeError, so sweeps record it as a failed run) naming the scenario, and the
//! simulation refuses further calls.

use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use sim::output::results::{Column, Table};
use sim::{Scenario, SimTime};

create_exception!(_core, ScenarioError, PyValueError, "A scenario file or dict is invalid.");
create_exception!(
    _core,
    SimulationError,
    pyo3::exceptions::PyRuntimeError,
    "The simulator failed inside a run (an internal error): the message names the scenario."
);

thread_local! {
    /// Where the last panic on this thread happened (the panic hook's record).
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The module's panic hook: records the location for `guarded`'s one-line error instead of
/// printing a backtrace over the user's terminal (the error names it).
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        PANIC_AT.with(|p| *p.borrow_mut() = Some(at));
    }));
}

/// Runs `f`, turning a panic into SimulationError naming scenario `name` and what it did.
fn guarded<T>(name: &str, what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = PANIC_AT.with(|p| p.borrow_mut().take()).map(|a| format!(" at {a}")).unwrap_or_default();
        format!(
            "scenario {name:?}: internal error while {what}: {msg}{at} (a bug in superpacket; please report it with the scenario)"
        )
        .replace('\n', " ")
    })
}

fn parse(text: &str, fmt: &str) -> PyResult<Scenario> {
    let r = match fmt {
        "toml" => Scenario::from_toml_str(text),
        "json" => Scenario::from_json_str(text),
        _ => return Err(PyValueError::new_err(format!("format must be \"toml\" or \"json\", got {fmt:?}"))),
    };
    r.map_err(ScenarioError::new_err)
}

/// A table as `{name: ("list", kind, list)}` (small tables: one polars call builds them
/// fastest), or, from `buffers_from` rows on, as `{name: (kind, payload...)}` with each column in one
/// buffer instead of a list of Python objects (a full-scale riops-web run has 1.6 M
/// flows: as lists its flow table took 0.8 GB more at its peak). Kinds: "u64", "f64",
/// "bool" (little-endian bytes, bool as one byte); "optf64" (values with NaN for None,
/// then one validity byte each); "str" (the distinct values in first-seen order, then u32
/// codes). api.py builds the same DataFrame from either.
fn table<'py>(py: Python<'py>, t: Table, buffers_from: usize) -> PyResult<Bound<'py, PyDict>> {
    let buffers = t.columns.first().map_or(0, |(_, c)| c.len()) >= buffers_from;
    let d = PyDict::new(py);
    // each column is freed as soon as its Python form exists: the table is held once, not twice
    for (name, c) in t.columns {
        put_column(py, &d, &name, c, buffers)?;
    }
    Ok(d)
}

/// `v` as little-endian bytes written straight into a Python bytes object.
fn le<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    v: &[T],
    f: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * N, |b| {
        for (chunk, &x) in b.chunks_exact_mut(N).zip(v) {
            chunk.copy_from_slice(&f(x));
        }
        Ok(())
    })
}

/// One column of `table`, as a list or (`buffers`) as bytes.
fn put_column(py: Python<'_>, d: &Bound<'_, PyDict>, name: &str, c: Column, buffers: bool) -> PyResult<()> {
    if !buffers {
        return match c {
            Column::U64(v) => d.set_item(name, ("list", "u64", v)),
            Column::F64(v) => d.set_item(name, ("list", "f64", v)),
            Column::OptF64(v) => d.set_item(name, ("list", "optf64", v)),
            Column::Str(v) => d.set_item(name, ("list", "str", v)),
            Column::Dict { values, codes } => {
                let v: Vec<&str> = codes.iter().map(|&c| values[c as usize].as_str()).collect();
                d.set_item(name, ("list", "str", v))
            }
            Column::Bool(v) => d.set_item(name, ("list", "bool", v)),
        };
    }
    match c {
        Column::U64(v) => d.set_item(name, ("u64", le(py, &v, u64::to_le_bytes)?)),
        Column::F64(v) => d.set_item(name, ("f64", le(py, &v, f64::to_le_bytes)?)),
        Column::OptF64(v) => {
            let vals = le(py, &v, |x: Option<f64>| x.unwrap_or(f64::NAN).to_le_bytes())?;
            let valid = le(py, &v, |x: Option<f64>| [x.is_some() as u8])?;
            d.set_item(name, ("optf64", vals, valid))
        }
        Column::Str(v) => {
            let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
            let mut uniques: Vec<&str> = Vec::new();
            let codes: Vec<u32> = v
                .iter()
                .map(|s| {
                    *index.entry(s.as_str()).or_insert_with(|| {
                        uniques.push(s.as_str());
                        (uniques.len() - 1) as u32
                    })
                })
                .collect();
            d.set_item(name, ("str", uniques, le(py, &codes, u32::to_le_bytes)?))
        }
        Column::Dict { values, codes } => {
            // as `Str` sends it: the distinct values in order of first appearance
            let uniques: Vec<&str> = values.iter().map(String::as_str).collect();
            d.set_item(name, ("str", uniques, le(py, &codes, u32::to_le_bytes)?))
        }
        Column::Bool(v) => d.set_item(name, ("bool", le(py, &v, |x: bool| [x as u8])?)),
    }
}

/// Wall time between two looks at Python's signals during `run_until` (seconds).
const SLICE_WALL: f64 = 0.05;
/// Events of the first slice of a `run_until`, and the bounds of later ones.
const FIRST_SLICE_EVENTS: u64 = 1 << 16;
const MIN_SLICE_EVENTS: u64 = 1 << 10;
const MAX_SLICE_EVENTS: u64 = 1 << 26;

/// A built simulation, run in steps so Python can show progress. The simulator sits
/// behind a mutex so the object may be used and freed from any thread (Dask workers'
/// profiler threads drop objects where they like).
#[pyclass(module = "superpacket._core")]
struct Simulation {
    sim: Mutex<sim::Sim>,
    name: String,
    duration: SimTime,
    /// Set when a call panicked: the state is not trusted any more.
    failed: Mutex<Option<String>>,
}

impl Simulation {
    /// The error of an earlier panic, if any.
    fn check(&self) -> PyResult<()> {
        match &*self.failed.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(SimulationError::new_err(e.clone())),
            None => Ok(()),
        }
    }

    fn fail(&self, e: String) -> PyErr {
        *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
        SimulationError::new_err(e)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, sim::Sim> {
        // a panic never crosses into Python, so a poisoned lock still holds a usable sim
        self.sim.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, fmt = "toml", seed = None))]
    fn new(text: &str, fmt: &str, seed: Option<u64>) -> PyResult<Self> {
        let sc = parse(text, fmt)?;
        let s = guarded(&sc.name, "building it", || sc.build(seed))
            .map_err(SimulationError::new_err)?
            .map_err(ScenarioError::new_err)?;
        Ok(Simulation { sim: Mutex::new(s), name: sc.name.clone(), duration: sc.duration.0, failed: Mutex::new(None) })
    }

    #[getter]
    fn duration_s(&self) -> f64 {
        self.duration.as_secs_f64()
    }

    #[getter]
    fn now_s(&self) -> f64 {
        self.lock().now.as_secs_f64()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.lock().events_processed
    }

    /// The run's memory as estimated before it started (bytes; crates/sim/src/memory.rs).
    #[getter]
    fn memory_estimate(&self) -> f64 {
        self.lock().memory.total()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.lock().seed
    }

    /// Runs every event up to `t_s` seconds of simulated time (capped at the duration).
    ///
    /// Without the GIL, in slices of events sized to about `SLICE_WALL` of wall time;
    /// between slices Python's signal handlers run, so Ctrl-C raises KeyboardInterrupt
    /// here within a fraction of a second (the simulation stays consistent: a later call
    /// carries on, event for event as one call would).
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        self.check()?;
        let until = SimTime::from_secs_f64(t_s).min(self.duration);
        let name = self.name.clone();
        let mut g = self.lock();
        let s = &mut *g;
        // the test hook: SUPERPACKET_TEST_PANIC = a scenario's name makes its runs panic
        // (tests/test_hostile_input.py: a panic becomes an error, never a hang)
        let inject = std::env::var("SUPERPACKET_TEST_PANIC").is_ok_and(|v| !v.is_empty() && v == name);
        let mut slice = FIRST_SLICE_EVENTS;
        loop {
            let t0 = std::time::Instant::now();
            let r = py.detach(|| {
                guarded(&name, &format!("running to t = {t_s} s"), || {
                    if inject {
                        panic!("SUPERPACKET_TEST_PANIC");
                    }
                    s.run_until_bounded(until, slice)
                })
            });
            match r {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => {
                    drop(g);
                    return Err(self.fail(e));
                }
            }
            py.check_signals()?;
            // the next slice: about SLICE_WALL of wall time at this slice's pace
            let took = t0.elapsed().as_secs_f64().max(1e-6);
            let target = slice as f64 * SLICE_WALL / took;
            slice = (target as u64).clamp(slice / 4, slice * 4).clamp(MIN_SLICE_EVENTS, MAX_SLICE_EVENTS);
        }
    }

    /// Traces links by name ("R->d", "R-to-d" or "all") to pcap; `snaplen` (bytes kept
    /// per frame, 0 = whole frames) applies to every traced link when given.
    #[pyo3(signature = (links, snaplen = None))]
    fn trace(&mut self, links: Vec<String>, snaplen: Option<u32>) -> PyResult<()> {
        self.lock().trace_by_name(&links, "pcap", 0).map_err(ScenarioError::new_err)?;
        self.lock().charge_traces("output.pcap", self.duration).map_err(ScenarioError::new_err)?;
        if let Some(n) = snaplen {
            self.lock().set_pcap_snaplen(n);
        }
        Ok(())
    }

    #[getter]
    fn traced_links(&self) -> Vec<String> {
        self.lock().traced_links().into_iter().map(String::from).collect()
    }

    /// Writes one pcap file per traced link into `dir`; returns their paths.
    fn write_pcaps(&mut self, py: Python<'_>, dir: std::path::PathBuf) -> PyResult<Vec<String>> {
        let mut g = self.lock();
        let s = &mut *g;
        let d = dir.as_path();
        let r = py.detach(move || s.write_pcaps(d));
        let paths = r.map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", dir.display())))?;
        Ok(paths.into_iter().map(|p| p.display().to_string()).collect())
    }

    /// The tables as dicts of columns (lists below `buffers_from` rows, else buffers: see
    /// `table`) and the summary as a JSON string.
    #[pyo3(signature = (buffers_from = 4096))]
    fn results<'py>(&self, py: Python<'py>, buffers_from: usize) -> PyResult<Bound<'py, PyDict>> {
        self.check()?;
        let sim = self.lock();
        let mut r =
            guarded(&self.name, "collecting the results", || sim::output::results::collect_tables(&sim, &self.name))
                .map_err(|e| self.fail(e))?;
        // the flows table column by column, each into Python as soon as it is built, so a
        // run of 1.66 M flows holds one 13 MB column in Rust at a time, not a 380 MB table
        let flows = PyDict::new(py);
        let buffers = sim.flows.len() >= buffers_from;
        let mut put = Ok(());
        guarded(&self.name, "collecting the flows", || {
            sim::output::results::flow_columns(&sim, |name, c| {
                if put.is_ok() {
                    put = put_column(py, &flows, name, c, buffers);
                }
            })
        })
        .map_err(|e| self.fail(e))?;
        put?;
        drop(sim);
        let d = PyDict::new(py);
        d.set_item("flows", flows)?;
        d.set_item("links", table(py, std::mem::take(&mut r.links), buffers_from)?)?;
        d.set_item("queue_series", table(py, std::mem::take(&mut r.queue_series), buffers_from)?)?;
        d.set_item("queue_counters", table(py, std::mem::take(&mut r.queue_counters), buffers_from)?)?;
        d.set_item("flow_series", table(py, std::mem::take(&mut r.flow_series), buffers_from)?)?;
        d.set_item("sources", table(py, std::mem::take(&mut r.sources), buffers_from)?)?;
        d.set_item("probe_trains", table(py, std::mem::take(&mut r.probe_trains), buffers_from)?)?;
        d.set_item("monitor", table(py, std::mem::take(&mut r.monitor), buffers_from)?)?;
        d.set_item("summary_json", serde_json::to_string(&r.summary).unwrap_or_default())?;
        Ok(d)
    }
}

/// Checks a scenario (parse and build) without running it.
#[pyfunction]
#[pyo3(signature = (text, fmt = "toml"))]
fn validate(text: &str, fmt: &str) -> PyResult<()> {
    let sc = parse(text, fmt)?;
    guarded(&sc.name, "building it", || sc.build(None))
        .map_err(SimulationError::new_err)?
        .map_err(ScenarioError::new_err)?;
    Ok(())
}

/// A TOML document as JSON text, by the parser `Simulation` uses (one TOML dialect for
/// `run` and `sweep`); a syntax error or a NaN/infinity raises ScenarioError naming it.
/// The pluggable families (congestion controls, queue disciplines, topologies, traffic
/// kinds, send gates, reordering responses) as JSON: a list of {name, field, members:
/// [[name, description], ...]}, read from the simulator's registries (scenario/registry.rs).
#[pyfunction]
fn families() -> String {
    let v: Vec<serde_json::Value> = sim::scenario::registry::families()
        .into_iter()
        .map(|f| serde_json::json!({ "name": f.name, "field": f.field, "members": f.members }))
        .collect();
    serde_json::Value::from(v).to_string()
}

#[pyfunction]
fn toml_to_json(text: &str) -> PyResult<String> {
    Scenario::toml_to_json(text).map(|v| v.to_string()).map_err(ScenarioError::new_err)
}

/// Runs benchmark scenario P1 for `duration_s` simulated seconds; returns its figures
/// as a JSON string.
#[pyfunction]
fn bench_p1(py: Python<'_>, duration_s: f64) -> PyResult<String> {
    let r = py.detach(|| sim::bench::run_p1(duration_s));
    r.map(|v| v.to_string()).map_err(PyValueError::new_err)
}

/// Runs the fast-burstiness benchmark (bench.rs `run_fast_burstiness`); JSON string.
#[pyfunction]
fn bench_fast_burstiness(py: Python<'_>, duration_s: f64, txqueuelen: u32, gate: bool) -> PyResult<String> {
    let r = py.detach(|| sim::bench::run_fast_burstiness(duration_s, txqueuelen, gate));
    r.map(|v| v.to_string()).map_err(PyValueError::new_err)
}

/// Runs the datacenter benchmark (bench.rs `run_datacenter`); JSON string.
#[pyfunction]
fn bench_datacenter(py: Python<'_>, hosts: u32, duration_s: f64, warmup_s: f64) -> PyResult<String> {
    let r = py.detach(|| sim::bench::run_datacenter(hosts, duration_s, warmup_s));
    r.map(|v| v.to_string()).map_err(PyValueError::new_err)
}

/// The scenario of the open-loop memory benchmark (bench.rs `riops_web_toml`: riops-web
/// Exp1 with RIO-PS, web sessions plus the foreground batches) for `duration_s` seconds.
#[pyfunction]
fn riops_web_toml(duration_s: f64) -> String {
    sim::bench::riops_web_toml(duration_s)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(bench_p1, m)?)?;
    m.add_function(wrap_pyfunction!(bench_fast_burstiness, m)?)?;
    m.add_function(wrap_pyfunction!(bench_datacenter, m)?)?;
    m.add_function(wrap_pyfunction!(riops_web_toml, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
