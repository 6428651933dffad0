//! Decimal text for the few fractional numbers the page writes (SVG coordinates, stage
//! times), in integer arithmetic: formatting an `f64` through `core::fmt` links the
//! standard float printer (Grisu, Dragon4 and their big-number code, about 15 KB of wasm;
//! issue 19, docs/loading.md).

/// `value` with exactly `decimals` digits after the point: the text `format!("{value:.N}")`
/// gives (rounded half to even on the exact binary value, `-` on every negative value).
/// Meant for screen coordinates and milliseconds: values of 2^53 units or more print
/// their nearest integer count of units.
pub fn fixed(value: f64, decimals: u32) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_infinite() {
        return format!("{sign}inf");
    }
    let scale = 10u64.pow(decimals);
    let units = round_half_even(value.abs(), scale as f64);
    let whole = units / scale;
    if decimals == 0 {
        return format!("{sign}{whole}");
    }
    let fraction = (units % scale).to_string();
    let zeros = "0".repeat(decimals as usize - fraction.len());
    format!("{sign}{whole}.{zeros}{fraction}")
}

/// An SVG length or coordinate: one decimal, none when it is zero (`58`, `37.5`).
pub fn coordinate(value: f64) -> String {
    let text = fixed(value, 1);
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => text,
    }
}

/// The integer nearest to the exact product `value * scale` (`value` ≥ 0, `scale` a power
/// of ten), ties to even. The rounded product alone can land on or across a tie the exact
/// one does not: its rounding error, found exactly with Dekker's product, decides those.
fn round_half_even(value: f64, scale: f64) -> u64 {
    const TWO_POW_53: f64 = 9_007_199_254_740_992.0;
    let product = value * scale;
    if product >= TWO_POW_53 {
        return product as u64;
    }
    let error = product_error(value, scale, product);
    let below = product.floor();
    // Exact: `product` and `below` share their exponent's grid, and 0.5 lies on it.
    let above_half = (product - below) - 0.5;
    let below = below as u64;
    let up = if above_half != 0.0 {
        above_half > 0.0
    } else if error != 0.0 {
        error > 0.0
    } else {
        below % 2 == 1
    };
    below + u64::from(up)
}

/// `a * b - product` exactly, for `product` = `a * b` rounded (Dekker's two-product).
fn product_error(a: f64, b: f64, product: f64) -> f64 {
    let (a_high, a_low) = split(a);
    let (b_high, b_low) = split(b);
    ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
}

/// Veltkamp's split of `x` into two halves of 26 significant bits each.
fn split(x: f64) -> (f64, f64) {
    let scaled = 134_217_729.0 * x; // 2^27 + 1
    let high = scaled - (scaled - x);
    (high, x - high)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard formatter is the reference: the same text for every value tried.
    #[test]
    fn fixed_matches_the_standard_formatter() {
        let mut values = vec![0.0, -0.0, 0.25, 0.35, 0.5, 1.5, 2.5, -2.5, -0.04, 12.345, 0.05, 0.15, 1e-9, 123456.785];
        // Ties and near-ties on every decimal grid the page uses, and irrational values.
        for n in 0..4000 {
            let n = f64::from(n);
            values.extend([n / 8.0, n / 40.0, n / 200.0, n * 0.1, n * 0.01 + 0.005, (n * 0.37).sin() * 500.0, n.sqrt() * 13.7]);
        }
        for v in values {
            assert_eq!(fixed(v, 0), format!("{v:.0}"), "{v:e} with 0 decimals");
            assert_eq!(fixed(v, 1), format!("{v:.1}"), "{v:e} with 1 decimal");
            assert_eq!(fixed(v, 2), format!("{v:.2}"), "{v:e} with 2 decimals");
        }
        assert_eq!(fixed(f64::NAN, 1), format!("{:.1}", f64::NAN));
        assert_eq!(fixed(f64::NEG_INFINITY, 1), format!("{:.1}", f64::NEG_INFINITY));
    }

    #[test]
    fn coordinates_drop_a_zero_decimal() {
        assert_eq!(coordinate(58.0), "58");
        assert_eq!(coordinate(37.5), "37.5");
        assert_eq!(coordinate(3.0 * 6.4 + 14.0), "33.2");
        assert_eq!(coordinate(-4.5), "-4.5");
    }
}
