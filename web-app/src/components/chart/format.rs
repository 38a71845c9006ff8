//! The app's one number formatter: every figure the page writes (axis ticks, bar labels, chart
//! tables, the results' summary table, the occupancy panel) goes through here, so the same value
//! reads the same everywhere. Two precisions of one rule: [`short`] for labels drawn in a chart
//! (three significant figures, k / M / G from 10 000) and [`cell`] for table cells (up to four
//! decimals, no suffix, so a table can be compared with the CLI's and the CSV's figures);
//! [`percent`] and [`grouped`] are the two unit forms built on them.
//!
//! ```text
//! short(1_234_567.0) = "1.23M"   short(0.5) = "0.5"   cell(2.0 / 3.0) = "0.6667"
//! percent(0.625) = "62.5%"       grouped(14560) = "14,560"
//! ```

/// A number as an axis or bar label: integers without decimals, others with two decimals below
/// 10 and one below 100 (trailing zeros dropped), and k / M / G from 10 000 up
/// (1234567 → "1.23M", 0.5 → "0.5", 12 000 → "12k").
pub fn short(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if (x - x.round()).abs() < 1e-9 || x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{}{suffix}", trim(text))
}

/// A number for a table cell: integers in full, others with up to four decimals.
pub fn cell(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.4}"))
    }
}

/// A fraction as a percentage with one decimal: `0.208 → "20.8%"`.
pub fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// An integer with thousands separators: `14560 → "14,560"`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Drops trailing zeros after a decimal point (and the point itself).
fn trim(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_short() {
        // 1 234 567 / 1e6 = 1.234567 → two decimals → "1.23" + M.
        assert_eq!(short(1_234_567.0), "1.23M");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(40.0), "40");
        // 12 000 / 1e3 = 12 exactly → "12k"; 9 999 stays below the k threshold.
        assert_eq!(short(12_000.0), "12k");
        assert_eq!(short(9_999.0), "9999");
        // 2.5 → "2.50" → trimmed "2.5".
        assert_eq!(short(2.5), "2.5");
        assert_eq!(short(-0.25), "-0.25");
    }

    #[test]
    fn cells_keep_four_decimals() {
        assert_eq!(cell(1.5), "1.5");
        assert_eq!(cell(2.0 / 3.0), "0.6667");
        assert_eq!(cell(1_234_567.0), "1234567");
        assert_eq!(cell(0.00001), "0");
    }

    #[test]
    fn percentages_and_thousands() {
        assert_eq!(percent(0.625), "62.5%");
        assert_eq!(percent(0.2083), "20.8%");
        assert_eq!(grouped(14_560), "14,560");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }
}
