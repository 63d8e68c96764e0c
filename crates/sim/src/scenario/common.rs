//! What every table of the scenario shares: durations and rates as strings with a unit,
//! queue units, errors that name their field path (`de_path`, the `tagged!` enums
//! selected by `kind`), node names, the run's bounds and its random streams.

pub(crate) use crate::core::tagged::{de_path, split_path, tagged};
pub use crate::core::units::{Dur, Rate, UnitSpec};
use crate::engine::sim::Sim;

/// `name: type = expr;` lines as functions returning `Some(expr)`: the schema's defaults
/// of optional fields, taken from the simulator's own `Default`s.
macro_rules! defaults {
    ($($name:ident: $t:ty = $e:expr;)+) => {
        $(pub fn $name() -> Option<$t> {
            Some($e)
        })+
    };
}
pub(crate) use defaults;

/// Rows the monitor, the queue series or the flow series may write in one run
/// (duration / interval, times the links sampled).
pub const MONITOR_MAX_ROWS: u64 = 20_000_000;

/// One row of the per-flow series (engine/sim.rs `FlowSample`), bytes.
pub(crate) const FLOW_SAMPLE_BYTES: f64 = std::mem::size_of::<crate::engine::sim::FlowSample>() as f64;

/// The largest initial window (segments): a flow's first flight is built in one event
/// (10^9 segments took all memory). 10^6 segments of 1460 bytes (1.46 GB) exceed any
/// bandwidth-delay product simulated here (100 Gb/s x 100 ms is 0.86 x 10^6).
pub const MAX_INIT_CWND: f64 = 1_000_000.0;

/// Hosts (dumbbell pairs, star senders) or routers (chain) a built-in topology may have.
pub const MAX_HOSTS: u32 = 100_000;

/// Stream ids of the run's random streams (rng.rs).
pub(crate) const STREAM_LINK_LOSS: u64 = 1 << 20;
pub(crate) const STREAM_QUEUE: u64 = 2 << 20;
pub(crate) const STREAM_TRAFFIC: u64 = 3 << 20;
pub(crate) const STREAM_REORDER: u64 = 4 << 20;

pub(crate) fn node_of(sim: &Sim, name: &str, path: &str) -> Result<u32, String> {
    sim.net.node(name).ok_or_else(|| {
        let names: Vec<&str> = sim.net.node_names().take(8).collect();
        format!(
            "{path}: unknown node {name:?} (nodes: {}{})",
            names.join(", "),
            if sim.net.nodes.len() > 8 { ", ..." } else { "" }
        )
    })
}

/// An "unknown field / variant / kind / name" message with a suggestion appended: the
/// allowed value closest to the unknown one (edit distance, case ignored) when it is
/// close enough to be a misspelling: "(did you mean `cubic`?)". Other messages unchanged.
pub(crate) fn with_suggestion(msg: &str) -> String {
    let Some(at) = msg.find("unknown ") else { return msg.to_string() };
    let rest = &msg[at..];
    // the unknown word: the first `...` or "..." after "unknown"
    let word = |s: &str| -> Option<(String, usize)> {
        let (i, q) = s.char_indices().find(|&(_, c)| c == '`' || c == '"')?;
        let j = s[i + 1..].find(q)? + i + 1;
        Some((s[i + 1..j].to_string(), j + 1))
    };
    let Some((unknown, end)) = word(rest) else { return msg.to_string() };
    let tail = &rest[end..];
    let candidates: Vec<String> = if let Some(k) = tail.find("allowed: ") {
        tail[k + 9..].split(&[',', ';', ' ', '(', ')'][..]).filter(|w| !w.is_empty()).map(str::to_string).collect()
    } else if tail.contains("expected") {
        tail.split('`').skip(1).step_by(2).map(str::to_string).collect()
    } else {
        return msg.to_string();
    };
    let u = unknown.to_lowercase();
    let best = candidates
        .iter()
        .filter(|c| !c.is_empty() && **c != unknown)
        .map(|c| (edit_distance(&u, &c.to_lowercase()), c))
        .min_by_key(|&(d, _)| d);
    match best {
        Some((d, c)) if d <= (u.chars().count() / 3).max(1) => format!("{msg} (did you mean `{c}`?)"),
        _ => msg.to_string(),
    }
}

/// serde's Rust type names in a type error as the scenario's words, with an example:
/// `pairs = "two"` read "invalid type: string \"two\", expected u32"; now "... expected a
/// whole number (0 or more), e.g. 4 (written without quotes)".
pub(crate) fn plain_types(msg: &str) -> String {
    const WHOLE: &str = "a whole number (0 or more), e.g. 4";
    const REAL: &str = "a number, e.g. 0.5";
    let mut out = msg.to_string();
    for (t, plain) in [
        ("u8", WHOLE),
        ("u16", WHOLE),
        ("u32", WHOLE),
        ("u64", WHOLE),
        ("usize", WHOLE),
        ("i64", WHOLE),
        ("f32", REAL),
        ("f64", REAL),
    ] {
        let from = format!("expected {t}");
        let mut at = 0;
        while let Some(k) = out[at..].find(&from).map(|k| k + at) {
            let end = k + from.len();
            if out[end..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric()) {
                at = end;
                continue;
            }
            out.replace_range(k..end, &format!("expected {plain}"));
            at = k;
        }
    }
    if out != msg && out.contains("invalid type: string") {
        out.push_str(" (written without quotes)");
    }
    out
}

/// Edit distance between two strings by characters, a swap of two neighbours counting
/// as one edit (optimal string alignment: "strat" is one edit from "start").
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::{plain_types, with_suggestion};

    /// A number field given a string or a number of the wrong kind: the message names what
    /// the field takes in the scenario's words, with an example, and says to drop the
    /// quotes when a string was given; other messages and type names inside longer words
    /// are left alone.
    #[test]
    fn type_errors_in_the_scenarios_words() {
        assert_eq!(
            plain_types("invalid type: string \"two\", expected u32"),
            "invalid type: string \"two\", expected a whole number (0 or more), e.g. 4 (written without quotes)"
        );
        assert_eq!(
            plain_types("invalid type: floating point `2.5`, expected u64"),
            "invalid type: floating point `2.5`, expected a whole number (0 or more), e.g. 4"
        );
        assert_eq!(
            plain_types("invalid type: string \"10\", expected f64"),
            "invalid type: string \"10\", expected a number, e.g. 0.5 (written without quotes)"
        );
        assert_eq!(plain_types("expected u32x"), "expected u32x");
        assert_eq!(plain_types("must be > 0"), "must be > 0");
    }

    /// serde's unknown field and variant messages, a `kind` list and a name list: the
    /// closest allowed value when it is one or two edits away, nothing when none is.
    #[test]
    fn suggestions_for_misspellings_only() {
        let f = "unknown field `strat`, expected one of `from`, `to`, `count`, `start`, `start_jitter`";
        assert!(with_suggestion(f).ends_with("(did you mean `start`?)"));
        let v = "unknown variant `sak`, expected `newreno` or `sack`";
        assert!(with_suggestion(v).ends_with("(did you mean `sack`?)"));
        let k = "unknown topology kind \"dumbel\"; allowed: dumbbell, star, chain, graph";
        assert!(with_suggestion(k).ends_with("(did you mean `dumbbell`?)"));
        let c = "unknown congestion control \"CUBCI\"; allowed: newreno, cubic, bic";
        assert!(with_suggestion(c).ends_with("(did you mean `cubic`?)"));
        // nothing close: unchanged
        let far = "unknown field `zzzzzz`, expected one of `from`, `to`";
        assert_eq!(with_suggestion(far), far);
        assert_eq!(with_suggestion("must be > 0"), "must be > 0");
    }
}
