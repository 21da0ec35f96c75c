//! Dates as traces, workload files and field data write them: [`datetime_ms`]
//! reads `YYYY-MM-DD HH:MM:SS[.fraction][Z|±HH:MM]` (Azure's traces, the
//! runner's `--start`), [`iso_ms`] writes ms since 1970 back (UTC).

/// `YYYY-MM-DD HH:MM:SS[.fraction][Z|±HH:MM]` (or with `T`) as ms since
/// 1970 (UTC).
pub fn datetime_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let (date, rest) = s.split_at_checked(10)?;
    let mut d = date.split('-');
    let (y, m, day): (i64, i64, i64) =
        (d.next()?.parse().ok()?, d.next()?.parse().ok()?, d.next()?.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let rest = rest.strip_prefix([' ', 'T'])?;
    // The offset: Z, or ±HH:MM after the seconds.
    let (clock, offset_min) = if let Some(c) = rest.strip_suffix('Z') {
        (c, 0)
    } else if rest.len() > 8 && matches!(rest.as_bytes()[rest.len() - 6], b'+' | b'-') {
        let (c, o) = rest.split_at(rest.len() - 6);
        let sign = if o.starts_with('-') { -1 } else { 1 };
        let (h, mm) = o[1..].split_once(':')?;
        (c, sign * (h.parse::<i64>().ok()? * 60 + mm.parse::<i64>().ok()?))
    } else {
        (rest, 0)
    };
    let mut t = clock.split(':');
    let (h, mi): (i64, i64) = (t.next()?.parse().ok()?, t.next()?.parse().ok()?);
    let sec: f64 = t.next()?.parse().ok()?;
    if t.next().is_some() || h > 23 || mi > 59 || !(0.0..61.0).contains(&sec) {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let minutes = days * 1440 + h * 60 + mi - offset_min;
    Some(minutes as f64 * 60_000.0 + sec * 1000.0)
}

/// The proleptic Gregorian date (year, month 1–12, day 1–31) of `days`
/// since 1970-01-01 (Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Ms since 1970 (UTC) as `YYYY-MM-DDTHH:MM:SS.mmmZ`, the inverse of
/// [`datetime_ms`] (`None` for a time outside years 0–9999).
pub fn iso_ms(ms: f64) -> Option<String> {
    if !ms.is_finite() || !(-62_167_219_200_000.0..253_402_300_800_000.0).contains(&ms) {
        return None;
    }
    let ms = ms.round() as i64;
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, mi, sec, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    Some(format!("{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{sec:02}.{milli:03}Z"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes_are_utc_milliseconds() {
        assert_eq!(datetime_ms("1970-01-01 00:00:00"), Some(0.0));
        assert_eq!(datetime_ms("2000-03-01T00:00:00Z"), Some(951_868_800_000.0));
        assert_eq!(iso_ms(951_868_800_000.0).as_deref(), Some("2000-03-01T00:00:00.000Z"));
        for s in [
            "1970-01-01T00:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "2026-12-05T10:00:00.250Z",
            "1969-12-31T23:59:59.000Z",
        ] {
            assert_eq!(iso_ms(datetime_ms(s).unwrap()).as_deref(), Some(s), "round trip");
        }
        assert_eq!(iso_ms(f64::NAN), None);
        let plain = datetime_ms("2024-05-10 00:00:00.5").unwrap();
        assert_eq!(datetime_ms("2024-05-10 02:00:00.5+02:00"), Some(plain));
        assert_eq!(datetime_ms("2024-05-09 22:00:00.5-02:00"), Some(plain));
        for bad in ["2024-13-01 00:00:00", "2024-05-10", "2024-05-10 25:00:00", "10/05/2024 00:00:00"] {
            assert_eq!(datetime_ms(bad), None, "{bad}");
        }
    }
}
