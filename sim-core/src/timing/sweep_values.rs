//! The points of a parameter sweep (`reglab sweep` and the page's sweeps): the parameter and its values from `--param KEY=V1,V2,…`, a range
//! `KEY=A..B*F` (geometric: A, A·F, A·F², … up to B) or `KEY=A..B+S` (arithmetic, step S;
//! `KEY=A..B` steps by 1), and `--shard I/N` (the points whose index mod N is I).
//!
//! ```text
//! rfc_entries=2..512*2   → 2, 4, 8, 16, 32, 64, 128, 256, 512
//! collector_units=1..7+3 → 1, 4, 7
//! --shard 1/3 of 9 points → indices 1, 4, 7
//! ```

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The most points a range may expand to (a guard against `1..1e12+1`).
pub const MAX_POINTS: usize = 100_000;

/// `KEY=…` split into the key and its values, or `None` when the text has no `=` (the old
/// `--param KEY --values …` form).
pub fn split_param(text: &str) -> Option<Result<(String, Vec<String>), String>> {
    let (key, values) = text.split_once('=')?;
    let key = key.trim();
    if key.is_empty() {
        return Some(Err(format!("--param {text}: no parameter name before '='")));
    }
    Some(values_of(values).map(|v| (key.to_owned(), v)))
}

/// A comma-separated list whose items may be ranges, expanded in order.
pub fn values_of(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(format!("empty value in '{text}'"));
        }
        match item.split_once("..") {
            Some((from, rest)) => out.extend(range(from, rest)?),
            None => out.push(item.to_owned()),
        }
        if out.len() > MAX_POINTS {
            return Err(format!("'{text}' gives more than {MAX_POINTS} points"));
        }
    }
    Ok(out)
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("range {what} '{}' is not a number", text.trim()))
}

/// `A..B*F`, `A..B+S` or `A..B`: the values from A up to B inclusive.
fn range(from: &str, rest: &str) -> Result<Vec<String>, String> {
    let start = number(from, "start")?;
    let (end, step, geometric) = if let Some((end, f)) = rest.split_once('*') {
        (number(end, "end")?, number(f, "factor")?, true)
    } else if let Some((end, s)) = rest.split_once('+') {
        (number(end, "end")?, number(s, "step")?, false)
    } else {
        (number(rest, "end")?, 1.0, false)
    };
    if geometric && (step <= 1.0 || start <= 0.0) {
        return Err(format!("range {from}..{rest}: a geometric range needs a start > 0 and a factor > 1"));
    }
    if !geometric && step <= 0.0 {
        return Err(format!("range {from}..{rest}: the step must be > 0"));
    }
    if end < start {
        return Err(format!("range {from}..{rest}: the end is below the start"));
    }
    let integral = [start, step].iter().all(|v| libm::trunc(*v) == *v);
    let mut out = Vec::new();
    let mut v = start;
    // A little slack so that 0.1..0.3+0.1 includes 0.3.
    while v <= end * (1.0 + 1e-12) + 1e-12 {
        out.push(if integral { format!("{}", v as i64) } else { format!("{v}") });
        if out.len() > MAX_POINTS {
            return Err(format!("range {from}..{rest} gives more than {MAX_POINTS} points"));
        }
        v = if geometric { v * step } else { start + step * out.len() as f64 };
    }
    Ok(out)
}

/// `I/N` as `(I, N)` with `I < N`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {text}: expected I/N with 0 <= I < N (e.g. 0/4)");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The indices of `count` points that shard `I/N` runs (all of them without a shard).
pub fn shard_indices(count: usize, shard: Option<(usize, usize)>) -> Vec<usize> {
    (0..count).filter(|i| shard.is_none_or(|(k, n)| i % n == k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn lists_and_ranges_expand_in_order() {
        assert_eq!(values_of("2,8,512"), Ok(vec!["2".into(), "8".into(), "512".into()]));
        let powers: Vec<String> = [2, 4, 8, 16, 32, 64, 128, 256, 512].iter().map(|v| v.to_string()).collect();
        assert_eq!(values_of("2..512*2"), Ok(powers));
        assert_eq!(values_of("1..7+3"), Ok(vec!["1".into(), "4".into(), "7".into()]));
        assert_eq!(values_of("1..3,10"), Ok(vec!["1".into(), "2".into(), "3".into(), "10".into()]));
        // 0.1 + 2 × 0.1 is 0.30000000000000004 in binary: the slack keeps it.
        assert_eq!(values_of("0.1..0.3+0.1").map(|v| v.len()), Ok(3));
        assert!(values_of("2..1").is_err());
        assert!(values_of("1..8*1").is_err());
        assert!(values_of("0..8*2").is_err());
        assert!(values_of("1..1e9").is_err());
        assert!(values_of("1,,2").is_err());
    }

    #[test]
    fn the_key_splits_off() {
        assert_eq!(split_param("rfc_entries"), None);
        assert_eq!(split_param("k=1,2"), Some(Ok(("k".into(), vec!["1".into(), "2".into()]))));
        assert!(matches!(split_param("=1"), Some(Err(_))));
    }

    #[test]
    fn shards_partition_the_indices() {
        assert_eq!(parse_shard("1/3"), Ok((1, 3)));
        assert!(parse_shard("3/3").is_err() && parse_shard("0/0").is_err() && parse_shard("1").is_err());
        assert_eq!(shard_indices(9, Some((1, 3))), vec![1, 4, 7]);
        assert_eq!(shard_indices(3, None), vec![0, 1, 2]);
        let mut all: Vec<usize> = (0..4).flat_map(|k| shard_indices(10, Some((k, 4)))).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
    }
}
