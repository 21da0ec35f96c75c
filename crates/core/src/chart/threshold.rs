//! The data of a threshold study's charts, in pixels of a `width` ×
//! `height` box (the app's components only draw it):
//!
//! - [`staircase`]: one participant's levels by trial (x: trial, y: level
//!   on a log scale), each answer a dot (correct filled), reversals
//!   marked, their threshold a horizontal line.
//! - [`curve`]: the pooled psychometric function (x: level, log scale; y:
//!   share picking the reference, 0.5–1), its 95% bootstrap band, and
//!   the answers at each level as dots whose area grows with their count.
//!   A level answered below chance (fewer than half picked the reference)
//!   is drawn where it is: the axis then starts at the quarter below it
//!   and a dashed line marks chance (50%).
//!
//! Levels are positive (a threshold study's range starts above 0), so
//! both use log scales; ticks are 1, 2 and 5 × 10ⁿ inside the domain.

use super::scale::{LinearScale, polyline};
use crate::study::threshold::psychometric::{Fitted, Point, log_levels};

/// Inner margin left for tick labels (px).
pub const MARGIN: f64 = 36.0;

/// One answer of a staircase.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    /// Centre x (px).
    pub x: f64,
    /// Centre y (px).
    pub y: f64,
    /// The reference was picked.
    pub correct: bool,
    /// The staircase turned here.
    pub reversal: bool,
}

/// A participant's staircase.
#[derive(Debug, Clone, PartialEq)]
pub struct StaircasePlot {
    /// The levels joined in order (SVG points).
    pub line: String,
    /// Each answer.
    pub dots: Vec<Dot>,
    /// y of the threshold line.
    pub threshold_y: Option<f64>,
    /// y ticks: pixel and label.
    pub ticks: Vec<(f64, String)>,
}

/// The pooled curve.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePlot {
    /// The fitted function (SVG points).
    pub curve: String,
    /// The 95% band as a closed polygon (SVG points).
    pub band: String,
    /// Answers per level: x, y (share correct), radius, and a label.
    pub dots: Vec<(f64, f64, f64, String)>,
    /// x of the threshold α.
    pub threshold_x: f64,
    /// x ticks: pixel and label.
    pub x_ticks: Vec<(f64, String)>,
    /// y ticks: pixel and label.
    pub y_ticks: Vec<(f64, String)>,
    /// y of chance (50%) when the axis starts below it.
    pub chance_y: Option<f64>,
}

/// Log-scale ticks (1, 2, 5 × 10ⁿ) within `[lo, hi]`, as (value, label);
/// powers of ten only when that gives more than `most`.
pub fn log_ticks(lo: f64, hi: f64, most: usize) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return out;
    }
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                out.push((v, format!("{}", (v * 1000.0).round() / 1000.0)));
            }
        }
        decade *= 10.0;
    }
    if out.len() > most {
        out.retain(|(v, _)| (v.log10() - v.log10().round()).abs() < 1e-9);
    }
    out
}

fn log_scale(lo: f64, hi: f64, range: (f64, f64)) -> impl Fn(f64) -> f64 {
    let s = LinearScale::new((lo.ln(), hi.ln()), range);
    move |v: f64| s.map(v.max(f64::MIN_POSITIVE).ln())
}

/// One participant's staircase in a `width` × `height` box; levels span
/// the design's `range`.
pub fn staircase(
    track: &[(f64, bool)],
    reversals: &[usize],
    threshold: Option<f64>,
    range: (f64, f64),
    width: f64,
    height: f64,
) -> StaircasePlot {
    let y = log_scale(range.0, range.1, (height - 8.0, 8.0));
    let x = LinearScale::new((0.0, track.len().saturating_sub(1).max(1) as f64), (MARGIN, width - 8.0));
    let dots: Vec<Dot> = track
        .iter()
        .enumerate()
        .map(|(i, &(level, correct))| Dot {
            x: x.map(i as f64),
            y: y(level),
            correct,
            reversal: reversals.contains(&i),
        })
        .collect();
    let line = dots.iter().map(|d| format!("{:.1},{:.1}", d.x, d.y)).collect::<Vec<_>>().join(" ");
    let ticks = log_ticks(range.0, range.1, 4).into_iter().map(|(v, l)| (y(v), l)).collect();
    StaircasePlot { line, dots, threshold_y: threshold.map(&y), ticks }
}

/// The pooled fit over the answers `data`, in a `width` × `height` box;
/// levels span the design's `range`.
pub fn curve(fitted: &Fitted, data: &[Point], range: (f64, f64), width: f64, height: f64) -> CurvePlot {
    let x = log_scale(range.0, range.1, (MARGIN, width - 8.0));
    let share = |d: &Point| f64::from(d.correct) / f64::from(d.n);
    let lowest = data.iter().filter(|d| d.n > 0).map(share).fold(0.5, f64::min);
    let bottom = if lowest < 0.5 { (lowest / 0.25).floor() * 0.25 } else { 0.5 };
    let y = LinearScale::new((bottom, 1.0), (height - 20.0, 8.0));
    let pts: Vec<(f64, f64)> =
        log_levels(range.0, range.1, 80).into_iter().map(|l| (l, fitted.fit.p(l))).collect();
    let to_px = |&(l, p): &(f64, f64)| (x(l), y.map(p));
    let px: Vec<(f64, f64)> = pts.iter().map(to_px).collect();
    let identity = LinearScale::new((0.0, 1.0), (0.0, 1.0));
    let curve = polyline(&px, &identity, &identity);
    let upper: Vec<(f64, f64)> = fitted.band.iter().map(|&(l, _, hi)| (x(l), y.map(hi))).collect();
    let lower: Vec<(f64, f64)> = fitted.band.iter().rev().map(|&(l, lo, _)| (x(l), y.map(lo))).collect();
    let band = polyline(&[upper, lower].concat(), &identity, &identity);
    let most = data.iter().map(|d| d.n).max().unwrap_or(1).max(1) as f64;
    let dots = data
        .iter()
        .filter(|d| d.n > 0)
        .map(|d| {
            let r = 2.0 + 6.0 * (f64::from(d.n) / most).sqrt();
            (
                x(d.level),
                y.map(share(d)),
                r,
                format!("{}: {} of {} picked the reference", d.level, d.correct, d.n),
            )
        })
        .collect();
    let x_ticks = log_ticks(range.0, range.1, 10).into_iter().map(|(v, l)| (x(v), l)).collect();
    let y_ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .filter(|&&p| p >= bottom)
        .map(|&p| (y.map(p), format!("{:.0}%", p * 100.0)))
        .collect();
    let chance_y = (bottom < 0.5).then(|| y.map(0.5));
    CurvePlot { curve, band, dots, threshold_x: x(fitted.fit.alpha), x_ticks, y_ticks, chance_y }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::threshold::psychometric::{Psychometric, Shape};

    #[test]
    fn ticks_are_round_and_inside() {
        let labels = |lo, hi, most| log_ticks(lo, hi, most).into_iter().map(|(_, l)| l).collect::<Vec<_>>();
        assert_eq!(labels(10.0, 1000.0, 10), ["10", "20", "50", "100", "200", "500", "1000"]);
        assert_eq!(labels(10.0, 1000.0, 4), ["10", "100", "1000"], "crowded: decades only");
        assert_eq!(labels(0.05, 2.0, 10), ["0.05", "0.1", "0.2", "0.5", "1", "2"]);
        assert!(log_ticks(0.0, 5.0, 10).is_empty());
    }

    #[test]
    fn a_staircase_goes_down_the_box_as_levels_fall() {
        let track = [(1000.0, true), (1000.0, true), (500.0, false), (1000.0, true)];
        let p = staircase(&track, &[2], Some(700.0), (10.0, 1000.0), 200.0, 100.0);
        assert_eq!(p.dots.len(), 4);
        assert!((p.dots[0].y - 8.0).abs() < 1e-9, "the top of the range at the top");
        assert!(p.dots[2].y > p.dots[0].y && p.dots[2].reversal && !p.dots[2].correct);
        assert!((p.dots[0].x - MARGIN).abs() < 1e-9 && (p.dots[3].x - 192.0).abs() < 1e-9);
        let ty = p.threshold_y.unwrap();
        assert!(p.dots[0].y < ty && ty < p.dots[2].y);
    }

    #[test]
    fn the_curve_rises_from_chance_and_crosses_its_threshold() {
        let fit = Psychometric { shape: Shape::Logistic, alpha: 100.0, beta: 3.0, lapse: 0.0 };
        let band = vec![(10.0, 0.5, 0.52), (1000.0, 0.97, 1.0)];
        let f = Fitted { fit, alpha_ci: (80.0, 120.0), beta_ci: (2.0, 4.0), band };
        let data = [Point { level: 100.0, n: 10, correct: 7 }, Point { level: 400.0, n: 2, correct: 2 }];
        let c = curve(&f, &data, (10.0, 1000.0), 300.0, 120.0);
        assert!(
            (c.threshold_x - (MARGIN + (300.0 - 8.0 - MARGIN) / 2.0)).abs() < 1e-9,
            "α = 100: mid-decade"
        );
        assert_eq!(c.band.split(' ').count(), 4, "upper then lower edge");
        assert_eq!(c.dots.len(), 2);
        assert!(c.dots[0].2 > c.dots[1].2, "more answers, a larger dot");
        assert!(c.dots[1].1 < c.dots[0].1, "all correct sits higher");
        let first: Vec<f64> =
            c.curve.split(' ').next().unwrap().split(',').map(|v| v.parse().unwrap()).collect();
        assert!((first[1] - 100.0).abs() < 1.0, "near 50% (bottom) at the low end: {first:?}");
        assert_eq!(c.chance_y, None, "every level at or above chance: the axis starts at 50%");
        assert_eq!(c.y_ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(), ["50%", "75%", "100%"]);
    }

    #[test]
    fn answers_below_chance_are_drawn_where_they_are() {
        // The walk of 2026-12-04: 31 ms at 0 of 1 and 62.5 ms at 6 of 13 sat on the 50% line.
        let fit = Psychometric { shape: Shape::Logistic, alpha: 100.0, beta: 3.0, lapse: 0.0 };
        let f = Fitted { fit, alpha_ci: (80.0, 120.0), beta_ci: (2.0, 4.0), band: vec![] };
        let data = [
            Point { level: 31.0, n: 1, correct: 0 },
            Point { level: 62.5, n: 13, correct: 6 },
            Point { level: 125.0, n: 10, correct: 9 },
        ];
        let c = curve(&f, &data, (10.0, 1000.0), 300.0, 120.0);
        let chance = c.chance_y.expect("the axis starts below 50%");
        assert_eq!(c.y_ticks.first().unwrap().1, "0%");
        assert!((c.dots[0].1 - 100.0).abs() < 1e-9, "0 of 1 at the bottom (0%)");
        assert!(c.dots[1].1 > chance + 1.0, "6 of 13 below the chance line");
        assert!(c.dots[2].1 < chance);
        let d = [Point { level: 62.5, n: 13, correct: 6 }];
        let quarter = curve(&f, &d, (10.0, 1000.0), 300.0, 120.0);
        assert_eq!(quarter.y_ticks.first().unwrap().1, "25%", "the quarter below the lowest share");
    }
}
