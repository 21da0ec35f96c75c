//! Chart scales, pure so every chart of the app is tested natively.
//!
//! - [`LinearScale`] maps a data domain onto a pixel range (`y` ranges may
//!   run downwards: `range = (height, 0)`).
//! - [`nice_ticks`] picks round tick values (1, 2 or 5 × 10ⁿ steps) covering
//!   a domain with about `count` ticks, and [`LinearScale::nice`] widens a
//!   domain to them, so axes start and end on round numbers.
//! - [`polyline`] turns data points into an SVG `points` attribute.
//! - [`step_polyline`] draws a CDF as steps (horizontal then vertical).

/// A linear map from data to pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearScale {
    /// Data interval `(min, max)`.
    pub domain: (f64, f64),
    /// Pixel interval the domain maps onto.
    pub range: (f64, f64),
}

impl LinearScale {
    /// A scale; a zero-width or non-finite domain becomes `(d, d + 1)`.
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        let (a, b) = domain;
        let domain = if a.is_finite() && b.is_finite() && b > a {
            (a, b)
        } else {
            let a = if a.is_finite() { a } else { 0.0 };
            (a, a + 1.0)
        };
        Self { domain, range }
    }

    /// Pixel of a data value (not clamped).
    pub fn map(&self, v: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        r0 + (v - d0) / (d1 - d0) * (r1 - r0)
    }

    /// The domain widened to round ticks; returns the scale and its ticks.
    pub fn nice(self, count: usize) -> (Self, Vec<f64>) {
        let ticks = nice_ticks(self.domain.0, self.domain.1, count);
        let domain = match (ticks.first(), ticks.last()) {
            (Some(&a), Some(&b)) if b > a => (a.min(self.domain.0), b.max(self.domain.1)),
            _ => self.domain,
        };
        (Self { domain, ..self }, ticks)
    }
}

/// A round step near `span / count`: 1, 2 or 5 times a power of ten.
pub fn nice_step(span: f64, count: usize) -> f64 {
    let raw = span / count.max(1) as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// Round ticks from at or below `min` to at or above `max`, about `count`
/// of them (never more than 4 × count + 1).
pub fn nice_ticks(min: f64, max: f64, count: usize) -> Vec<f64> {
    if !(min.is_finite() && max.is_finite()) {
        return Vec::new();
    }
    let (min, max) = if max > min { (min, max) } else { (min, min + 1.0) };
    let step = nice_step(max - min, count);
    let first = (min / step).floor();
    // Round away float noise (0.6000000000000001 → 0.6) at the step's decimals.
    let scale = 10f64.powi((-step.log10().floor()).max(0.0) as i32);
    let mut out = Vec::new();
    let mut k = 0.0;
    loop {
        let v = ((first + k) * step * scale).round() / scale;
        out.push(if v == 0.0 { 0.0 } else { v });
        if v >= max - step * 1e-9 || out.len() > 4 * count.max(1) {
            break;
        }
        k += 1.0;
    }
    out
}

/// SVG `points` of `(x, y)` data through two scales.
pub fn polyline(points: &[(f64, f64)], x: &LinearScale, y: &LinearScale) -> String {
    let mut s = String::with_capacity(points.len() * 14);
    for (i, (a, b)) in points.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{:.1},{:.1}", x.map(*a), y.map(*b)));
    }
    s
}

/// SVG `points` of a CDF `(value, share)` drawn as steps from share 0.
pub fn step_polyline(cdf: &[(f64, f64)], x: &LinearScale, y: &LinearScale) -> String {
    let mut pts = Vec::with_capacity(cdf.len() * 2 + 1);
    let mut last = 0.0;
    for &(v, share) in cdf {
        pts.push((v, last));
        pts.push((v, share));
        last = share;
    }
    polyline(&pts, x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_and_inverts_ranges() {
        let s = LinearScale::new((0.0, 200.0), (0.0, 400.0));
        assert_eq!(s.map(50.0), 100.0);
        let y = LinearScale::new((0.0, 1.0), (300.0, 0.0));
        assert_eq!(y.map(1.0), 0.0);
        assert_eq!(LinearScale::new((5.0, 5.0), (0.0, 10.0)).domain, (5.0, 6.0));
        assert_eq!(LinearScale::new((f64::NAN, 1.0), (0.0, 1.0)).domain, (0.0, 1.0));
    }

    #[test]
    fn ticks_are_round_and_cover() {
        assert_eq!(nice_ticks(0.0, 1.0, 5), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(nice_ticks(113.0, 487.0, 4), [100.0, 200.0, 300.0, 400.0, 500.0]);
        let t = nice_ticks(0.013, 0.0271, 5);
        assert!(t[0] <= 0.013 && *t.last().unwrap() >= 0.0271, "{t:?}");
        assert!(nice_ticks(f64::NAN, 1.0, 5).is_empty());
        let (s, ticks) = LinearScale::new((113.0, 487.0), (0.0, 100.0)).nice(4);
        assert_eq!(s.domain, (100.0, 500.0));
        assert_eq!(ticks.len(), 5);
    }

    #[test]
    fn step_lines() {
        let x = LinearScale::new((0.0, 10.0), (0.0, 10.0));
        let y = LinearScale::new((0.0, 1.0), (10.0, 0.0));
        assert_eq!(step_polyline(&[(2.0, 0.5), (4.0, 1.0)], &x, &y), "2.0,10.0 2.0,5.0 4.0,5.0 4.0,0.0");
    }
}
