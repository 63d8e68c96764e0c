//! The results of a run as columnar tables (flows, links, series, sources), read from a
//! finished `Sim`.

pub mod results;
