//! Packet traces of the run's links (net/trace/): which links are traced, their memory,
//! and the pcap files written at the end of a run.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::core::packet::LinkId;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::net::trace::{file_stem, write_pcap, LinkTrace, RECORD_BYTES};

impl Sim {
    /// Charges the records of every traced link over `duration` to the run's memory
    /// estimate as `field` (memory.rs; replaces an earlier charge): each link at line rate
    /// in packets of 1500 bytes, every record kept until the run ends.
    pub fn charge_traces(&mut self, field: &str, duration: SimTime) -> Result<(), String> {
        let secs = duration.as_secs_f64();
        let records: f64 =
            self.net.links.iter().filter(|l| l.trace.is_some()).map(|l| l.rate.0 as f64 * secs / (8.0 * 1500.0)).sum();
        self.memory.set(field, records * RECORD_BYTES as f64)
    }

    /// Traces links `ids` (an already traced link is kept as it is). `snaplen`: bytes
    /// kept per frame, 0 = whole frames.
    pub fn trace_links(&mut self, ids: &[LinkId], snaplen: u32) {
        for &l in ids {
            let link = &mut self.net.links[l as usize];
            link.trace.get_or_insert_with(|| Box::new(LinkTrace::new(snaplen)));
        }
    }

    /// Sets the capture length of every traced link (0 = whole frames).
    pub fn set_pcap_snaplen(&mut self, snaplen: u32) {
        for l in &mut self.net.links {
            if let Some(tr) = l.trace.as_deref_mut() {
                tr.set_snaplen(snaplen);
            }
        }
    }

    /// Resolves link names ("R->d", its file stem "R-to-d", or "all") and traces them;
    /// errors name `path[i]`.
    pub fn trace_by_name(&mut self, names: &[String], path: &str, snaplen: u32) -> Result<(), String> {
        let mut ids = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if name == "all" {
                ids.extend(0..self.net.links.len() as LinkId);
                continue;
            }
            let links = &self.net.links;
            let id = self
                .net
                .link_by_any_name(name)
                .ok_or_else(|| {
                    format!(
                        "{path}[{i}]: unknown link {name:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?}, or \"all\")",
                        links.first().map(|l| l.name.as_str()).unwrap_or("")
                    )
                })?;
            ids.push(id);
        }
        self.trace_links(&ids, snaplen);
        Ok(())
    }

    /// Names of the traced links, in link order.
    pub fn traced_links(&self) -> Vec<&str> {
        self.net.links.iter().filter(|l| l.trace.is_some()).map(|l| l.name.as_str()).collect()
    }

    /// The trace of link `l`, if traced.
    pub fn trace(&self, l: LinkId) -> Option<&LinkTrace> {
        self.net.links[l as usize].trace.as_deref()
    }

    /// Writes one pcap file per traced link into `dir` (created if needed); returns the
    /// paths. Two links whose names sanitise alike get the link id appended.
    pub fn write_pcaps(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut out: Vec<PathBuf> = Vec::new();
        for (i, l) in self.net.links.iter().enumerate() {
            let Some(tr) = l.trace.as_deref() else { continue };
            let mut path = dir.join(format!("{}.pcap", file_stem(&l.name)));
            if out.contains(&path) {
                path = dir.join(format!("{}-{i}.pcap", file_stem(&l.name)));
            }
            let w = BufWriter::with_capacity(1 << 16, File::create(&path)?);
            write_pcap(w, l.from, l.to, tr)?.flush()?;
            out.push(path);
        }
        Ok(out)
    }
}
