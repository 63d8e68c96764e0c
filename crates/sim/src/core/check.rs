//! The shared checks of a scenario table's fields, for every family's
//! `validate(&self, path)` (congestion controls, send gates, queue disciplines, traffic
//! kinds): each error names the field, "{path}.{field}: must be ...", in the words every
//! table uses for the same bound.

/// A scenario table's checks that serde cannot make and that need nothing built: run in
/// the validate phase (`Scenario::validate` walks the whole tree with it), before the
/// cost and every build. Each error names its field, "{path}.{field}: message"; a table
/// calls it on its sub-tables with their paths.
pub trait Validate {
    /// Refuses a value out of range, naming the field under `path`.
    fn validate(&self, path: &str) -> Result<(), String>;
}

impl<T: Validate> Validate for Option<T> {
    fn validate(&self, path: &str) -> Result<(), String> {
        self.as_ref().map_or(Ok(()), |t| t.validate(path))
    }
}

/// A count, a limit or a duration above zero: "{path}.{field}: must be > 0".
pub fn positive<T: Default + PartialEq>(path: &str, field: &str, v: T) -> Result<(), String> {
    if v == T::default() {
        return Err(format!("{path}.{field}: must be > 0"));
    }
    Ok(())
}

/// A finite number above zero: "{path}.{field}: must be > 0".
pub fn positive_finite(path: &str, field: &str, x: f64) -> Result<(), String> {
    if !(x.is_finite() && x > 0.0) {
        return Err(format!("{path}.{field}: must be > 0"));
    }
    Ok(())
}

/// An integer in lo..=hi: "{path}.{field}: must be lo..hi (got v)".
pub fn int_range(path: &str, field: &str, v: u64, lo: u64, hi: u64) -> Result<(), String> {
    if !(lo..=hi).contains(&v) {
        return Err(format!("{path}.{field}: must be {lo}..{hi} (got {v})"));
    }
    Ok(())
}

/// A fraction above 0, at most 1: "{path}.{field}: must be in (0, 1] (got x)".
pub fn unit_fraction(path: &str, field: &str, x: f64) -> Result<(), String> {
    if !(x > 0.0 && x <= 1.0) {
        return Err(format!("{path}.{field}: must be in (0, 1] (got {x})"));
    }
    Ok(())
}

/// A fraction strictly between 0 and 1: "{path}.{field}: must be in (0, 1) (got x)".
pub fn open_unit(path: &str, field: &str, x: f64) -> Result<(), String> {
    if !(x > 0.0 && x < 1.0) {
        return Err(format!("{path}.{field}: must be in (0, 1) (got {x})"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::SimTime;

    /// The texts the tables wrote before they shared these checks.
    #[test]
    fn messages_name_the_field() {
        assert_eq!(positive("traffic[0]", "epoch", SimTime::ZERO).unwrap_err(), "traffic[0].epoch: must be > 0");
        assert!(positive("t", "limit", 3u64).is_ok());
        assert_eq!(positive_finite("t", "rate_per_s", f64::NAN).unwrap_err(), "t.rate_per_s: must be > 0");
        assert!(positive_finite("t", "rate_per_s", f64::INFINITY).is_err());
        assert_eq!(int_range("t", "trials", 0, 1, 100).unwrap_err(), "t.trials: must be 1..100 (got 0)");
        assert!(int_range("t", "trials", 100, 1, 100).is_ok());
        assert_eq!(open_unit("t", "beta", 1.0).unwrap_err(), "t.beta: must be in (0, 1) (got 1)");
        assert!(open_unit("t", "beta", f64::NAN).is_err());
        assert_eq!(unit_fraction("t", "gamma", 0.0).unwrap_err(), "t.gamma: must be in (0, 1] (got 0)");
        assert!(unit_fraction("t", "gamma", 1.0).is_ok());
    }
}
