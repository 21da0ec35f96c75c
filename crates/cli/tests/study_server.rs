//! The study server of `latency-lab serve` over HTTP, on SQLite and on a
//! real PostgreSQL (a throwaway cluster): publishing, joining, answers kept
//! once, every bad input refused with a 4xx and a message while the
//! database stays unchanged, and a server killed with SIGKILL mid-study
//! that loses no acknowledged answer and takes the queued ones after its
//! restart.

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::pg_cluster::PgCluster;
use common::study_client::{answers, bearer, join, publish, results, send};
use common::{Server, call, data_dir, start, start_in};
use lab_core::study::Study;
use lab_core::study::submit::Submission;
use serde_json::Value;

fn error_of(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Number of studies and of answers of study `id` the server holds.
fn counts(srv: &Server, token: &str, id: Option<&str>) -> (usize, usize) {
    let (code, body) = call(&srv.addr, "GET", "/api/studies", &[("Authorization", &bearer(token))], b"");
    assert_eq!(code, 200, "{body}");
    let studies = serde_json::from_str::<Vec<Value>>(&body).unwrap().len();
    (studies, id.map_or(0, |id| results(&srv.addr, token, id).responses.len()))
}

#[test]
fn sqlite_takes_answers_once_and_refuses_bad_input() {
    api_checks(&start(&[]));
}

#[test]
fn postgres_takes_answers_once_and_refuses_bad_input() {
    let pg = PgCluster::start("api");
    api_checks(&start(&["--db", &pg.url()]));
}

fn api_checks(srv: &Server) {
    let (addr, token) = (srv.addr.as_str(), srv.token());
    let auth = bearer(&token);
    let study = Study::example();
    // Publishing: token, shape and size checked before anything is kept.
    type Refused<'a> = (&'a [(&'a str, &'a str)], Vec<u8>, u16, &'a str);
    let refused: [Refused; 5] = [
        (&[], study.to_json().into_bytes(), 401, "token missing"),
        (
            &[("Authorization", "Bearer llr_wrong")],
            study.to_json().into_bytes(),
            401,
            "wrong researcher token",
        ),
        (&[("Authorization", &auth)], b"{\"id\": ".to_vec(), 400, "not a valid study"),
        (&[("Authorization", &auth)], br#"{"id":"x"}"#.to_vec(), 400, "not a valid study"),
        (&[("Authorization", &auth)], vec![b' '; 4 * 1024 * 1024 + 10], 413, "over 4 MiB"),
    ];
    for (headers, body, code, says) in refused {
        let (got, text) = call(addr, "POST", "/api/studies", headers, &body);
        assert_eq!(got, code, "{text}");
        assert!(error_of(&text).contains(says), "{text}");
    }
    assert_eq!(counts(srv, &token, None).0, 0, "nothing published");
    let id = publish(addr, &token, &study);
    assert_eq!(id.len(), 8);
    // Anyone with the link reads the study; nobody without the token reads answers.
    let (code, body) = call(addr, "GET", &format!("/api/studies/{id}"), &[], b"");
    assert_eq!(code, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((v["open"].as_bool(), v["study"]["id"].as_str()), (Some(true), Some("ttft-vs-jitter")));
    assert!(!body.contains("fast start, jittery"), "participants get no condition names: {body}");
    for path in
        [format!("/api/studies/{id}/results"), format!("/api/studies/{id}/design"), "/api/studies".into()]
    {
        assert_eq!(call(addr, "GET", &path, &[], b"").0, 401);
    }
    // The researcher reads the design as published, names and all: results are computed from it.
    let (code, body) =
        call(addr, "GET", &format!("/api/studies/{id}/design"), &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    assert_eq!(Study::from_json(&body).unwrap(), study);
    let (code, _) = call(addr, "GET", "/api/studies/zzzzzzzz", &[], b"");
    assert_eq!(code, 404);
    // The participant link opens the app on the study.
    let (code, _) = call(addr, "GET", &format!("/s/{id}"), &[], b"");
    assert!(code == 303 || code == 307, "{code}");
    // The server numbers participants in joining order.
    let (p0, n0) = join(addr, &id);
    let (p1, n1) = join(addr, &id);
    assert_eq!((n0, n1), (0, 1));
    assert!(p0.starts_with("p001-") && p1.starts_with("p002-"), "{p0} {p1}");
    let good = answers(&study, &p0, n0);
    // Bad answers: each a 4xx with a message, none stored.
    let mut sub: Submission = serde_json::from_slice(&good[0]).unwrap();
    let with = |f: &dyn Fn(&mut Submission)| {
        let mut s = sub.clone();
        f(&mut s);
        serde_json::to_vec(&s).unwrap()
    };
    let bad: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"{not json".to_vec(), 400, "not an answer"),
        (br#"{"participant":"p"}"#.to_vec(), 400, "not an answer"),
        (with(&|s| s.participant = "p999-nobody".into()), 400, "has not joined"),
        (with(&|s| s.number = 1), 400, "has not joined"),
        (with(&|s| s.trial = 999), 400, "trial 999"),
        (with(&|s| s.question = "mood".into()), 400, "question \"mood\""),
        (with(&|s| s.rt_ms = -5.0), 400, "response time"),
        (vec![b' '; 5000], 413, "over 4096 bytes"),
        (vec![b' '; 200_000], 413, ""),
    ];
    for (body, code, says) in bad {
        let (got, text) = call(addr, "POST", &format!("/api/studies/{id}/answers"), &[], &body);
        assert_eq!(got, code, "{text}");
        assert!(says.is_empty() || error_of(&text).contains(says), "{says}: {text}");
    }
    let cross = [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")];
    let (got, text) = call(addr, "POST", &format!("/api/studies/{id}/answers"), &cross, &good[0]);
    assert_eq!(got, 403, "{text}");
    let (got, _) = call(
        addr,
        "POST",
        &format!("/api/studies/{id}/answers"),
        &[("Origin", &format!("http://{addr}"))],
        &good[0],
    );
    assert_eq!(got, 201, "same origin");
    assert_eq!(counts(srv, &token, Some(&id)), (1, 1), "only the good answer is stored");
    // A retry is a no-op.
    let (got, text) = send(addr, &id, &good[0]).unwrap();
    assert_eq!(got, 200, "{text}");
    assert!(text.contains("duplicate"));
    for body in &good[1..] {
        assert_eq!(send(addr, &id, body).unwrap().0, 201);
    }
    let r = results(addr, &token, &id);
    assert_eq!(r.responses.len(), good.len());
    assert_eq!(r.study_id, study.id);
    let (code, csv) =
        call(addr, "GET", &format!("/api/studies/{id}/results?format=csv"), &[("Authorization", &auth)], b"");
    assert_eq!((code, csv.lines().count()), (200, good.len() + 1));
    // Closing stops new answers and new participants.
    assert_eq!(call(addr, "POST", &format!("/api/studies/{id}/close"), &[], b"").0, 401);
    assert_eq!(
        call(addr, "POST", &format!("/api/studies/{id}/close"), &[("Authorization", &auth)], b"").0,
        200
    );
    let late = answers(&study, &p1, n1);
    let (got, text) = send(addr, &id, &late[0]).unwrap();
    assert_eq!(got, 410, "{text}");
    assert!(error_of(&text).contains("closed"));
    assert_eq!(call(addr, "POST", &format!("/api/studies/{id}/participants"), &[], b"").0, 410);
    assert_eq!(counts(srv, &token, Some(&id)), (1, good.len()), "nothing stored after closing");
    sub.participant.clear();
}

#[test]
fn sqlite_loses_no_answer_when_killed() {
    kill_and_restart(&[]);
}

#[test]
fn postgres_loses_no_answer_when_killed() {
    let pg = PgCluster::start("kill");
    kill_and_restart(&["--db", &pg.url()]);
}

/// Participants send every answer as it is given, keep unacknowledged ones
/// and retry them with backoff (as the app's outbox does); the server is
/// killed with SIGKILL when about half are in and started again on the
/// same data.
fn kill_and_restart(extra: &[&str]) {
    const PARTICIPANTS: usize = 6;
    let data = data_dir();
    let mut srv = start_in(&data, extra);
    let token = srv.token();
    let study = Study::example();
    let id = publish(&srv.addr, &token, &study);
    let all: Vec<Vec<u8>> = (0..PARTICIPANTS)
        .flat_map(|_| {
            let (p, n) = join(&srv.addr, &id);
            answers(&study, &p, n)
        })
        .collect();
    let addr = Arc::new(Mutex::new(srv.addr.clone()));
    let acked = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let senders: Vec<_> = all
        .chunks(all.len() / PARTICIPANTS)
        .map(|mine| {
            let (mine, addr, acked, id) = (mine.to_vec(), Arc::clone(&addr), Arc::clone(&acked), id.clone());
            std::thread::spawn(move || {
                for body in mine {
                    let mut wait = Duration::from_millis(20);
                    let t0 = Instant::now();
                    loop {
                        let at = addr.lock().unwrap().clone();
                        match send(&at, &id, &body) {
                            Ok((200 | 201, _)) => break,
                            Ok((code, text)) => panic!("answer refused: {code} {text}"),
                            Err(_) => {
                                assert!(t0.elapsed() < Duration::from_secs(60), "never delivered");
                                std::thread::sleep(wait);
                                wait = (wait * 2).min(Duration::from_millis(500));
                            }
                        }
                    }
                    acked.lock().unwrap().push(body);
                    std::thread::sleep(Duration::from_millis(30));
                }
            })
        })
        .collect();
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < all.len() / 2 {
        assert!(t0.elapsed() < Duration::from_secs(30), "answers do not arrive");
        std::thread::sleep(Duration::from_millis(5));
    }
    srv.kill();
    let acked_before: Vec<Vec<u8>> = acked.lock().unwrap().clone();
    std::thread::sleep(Duration::from_millis(300));
    let srv = start_in(&data, extra);
    *addr.lock().unwrap() = srv.addr.clone();
    // Every answer acknowledged before the kill is there.
    let r = results(&srv.addr, &token, &id);
    let key = |p: &str, t: usize, q: &str| (p.to_string(), t, q.to_string());
    let stored: HashSet<_> = r.responses.iter().map(|x| key(&x.participant, x.trial, &x.question)).collect();
    for body in &acked_before {
        let s: Submission = serde_json::from_slice(body).unwrap();
        assert!(stored.contains(&s.key()), "acknowledged answer lost: {s:?}");
    }
    for s in senders {
        s.join().unwrap();
    }
    // The queued ones arrived after the restart, each exactly once.
    let r = results(&srv.addr, &token, &id);
    let stored: HashSet<_> = r.responses.iter().map(|x| key(&x.participant, x.trial, &x.question)).collect();
    assert_eq!((r.responses.len(), stored.len()), (all.len(), all.len()));
    assert!(acked_before.len() < all.len(), "the kill came mid-study");
}

/// The status, `Retry-After` and error of one request with `body`.
fn limited(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<u64>, String) {
    let (head, s, rest) = common::request(addr, method, path, headers, body);
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let retry = common::header(&head, "retry-after").and_then(|v| v.parse().ok());
    (code, retry, error_of(&String::from_utf8_lossy(&common::read_all(s, rest))))
}

/// Sends until the server answers 429 (at most `most` requests): what the
/// refusal said, and how many requests went through before it.
fn until_429(
    most: usize,
    mut send: impl FnMut() -> (u16, Option<u64>, String),
) -> (Option<u64>, String, usize) {
    for n in 0..most {
        let (code, retry, error) = send();
        if code == 429 {
            return (retry, error, n);
        }
        assert!(code < 300, "request {n}: {code} {error}");
    }
    panic!("no 429 after {most} requests");
}

#[test]
fn each_cross_origin_signal_alone_refuses_a_write() {
    let srv = start(&[]);
    let (addr, token) = (srv.addr.as_str(), srv.token());
    let study = Study::example();
    let id = publish(addr, &token, &study);
    let (p, n) = join(addr, &id);
    let good = answers(&study, &p, n);
    let path = format!("/api/studies/{id}/answers");
    // `Origin` naming another host, no `Sec-Fetch-Site` (an older browser).
    let (got, text) = call(addr, "POST", &path, &[("Origin", "http://evil.example")], &good[0]);
    assert_eq!((got, error_of(&text).contains("own page")), (403, true), "{text}");
    // The same port on another host name is another origin too.
    let (got, _) = call(addr, "POST", &path, &[("Origin", "http://localhost.evil.example")], &good[0]);
    assert_eq!(got, 403);
    // `Sec-Fetch-Site` alone, without `Origin`.
    for site in ["cross-site", "same-site"] {
        let (got, text) = call(addr, "POST", &path, &[("Sec-Fetch-Site", site)], &good[0]);
        assert_eq!(got, 403, "{site}: {text}");
    }
    // Joining is a write too.
    let (got, _) = call(
        addr,
        "POST",
        &format!("/api/studies/{id}/participants"),
        &[("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!(got, 403);
    assert_eq!(counts(&srv, &token, Some(&id)), (1, 0), "nothing refused was stored");
    // The study's own page, and a script without browser headers, are taken.
    let (got, text) = call(addr, "POST", &path, &[("Sec-Fetch-Site", "same-origin")], &good[0]);
    assert_eq!(got, 201, "{text}");
    assert_eq!(send(addr, &id, &good[1]).unwrap().0, 201);
}

#[test]
fn rate_limits_answer_429_with_retry_after_over_http() {
    use lab_core::serve::limit::{ANSWERS, JOINS, RESEARCHER};
    let srv = start(&[]);
    let (addr, token) = (srv.addr.clone(), srv.token());
    let auth = bearer(&token);
    let study = Study::example();
    let id = publish(&addr, &token, &study);
    // Answers: a burst per participant (a retried answer counts too).
    let (p, n) = join(&addr, &id);
    let body = String::from_utf8(answers(&study, &p, n).remove(0)).unwrap();
    let path = format!("/api/studies/{id}/answers");
    let (retry, error, n_ok) =
        until_429(10 * ANSWERS.burst as usize, || limited(&addr, "POST", &path, &[], &body));
    assert!(n_ok as f64 >= ANSWERS.burst - 1.0, "answers limited after {n_ok}");
    assert!(retry.is_some_and(|s| s >= 1), "Retry-After {retry:?}");
    assert!(error.contains("too many requests"), "{error}");
    // Joins: a burst per study.
    let join_path = format!("/api/studies/{id}/participants");
    let (retry, error, n_ok) =
        until_429(4 * JOINS.burst as usize, || limited(&addr, "POST", &join_path, &[], ""));
    assert!(n_ok as f64 >= JOINS.burst - 1.0, "joins limited after {n_ok}");
    assert!(retry.is_some_and(|s| s >= 1) && error.contains("too many requests"), "{retry:?} {error}");
    // Researcher requests: a burst per server, before the token is checked.
    let (retry, error, n_ok) = until_429(4 * RESEARCHER.burst as usize, || {
        limited(&addr, "GET", "/api/studies", &[("Authorization", &auth)], "")
    });
    assert!(n_ok as f64 >= RESEARCHER.burst - 2.0, "researcher limited after {n_ok}");
    assert!(retry.is_some_and(|s| s >= 1) && error.contains("too many requests"), "{retry:?} {error}");
    // The bucket refills at 10/s, so on a busy machine a token may be back
    // by the next request; of a few guesses sent at once, some must meet
    // the limit (were the token checked first, every one would get 401).
    let guesses: Vec<u16> = (0..5)
        .map(|_| limited(&addr, "GET", "/api/studies", &[("Authorization", "Bearer llr_guess")], "").0)
        .collect();
    assert!(guesses.contains(&429), "a guessed token meets the limit before the check: {guesses:?}");
    assert!(guesses.iter().all(|c| matches!(c, 401 | 429)), "{guesses:?}");
}

#[test]
fn two_servers_on_one_postgres_give_concurrent_joins_distinct_numbers() {
    const PER_SERVER: usize = 40;
    let pg = PgCluster::start("joins");
    let data = data_dir();
    let token_file = data.join("researcher-token");
    let args = ["--db", &pg.url(), "--token-file", token_file.to_str().unwrap()];
    let a = start_in(&data, &args);
    let b = start_in(&data, &args);
    let study = Study::example();
    let id = publish(&a.addr, &a.token(), &study);
    let threads: Vec<_> = [a.addr.clone(), b.addr.clone()]
        .into_iter()
        .flat_map(|addr| std::iter::repeat_n(addr, 4))
        .map(|addr| {
            let id = id.clone();
            std::thread::spawn(move || (0..PER_SERVER / 4).map(|_| join(&addr, &id)).collect::<Vec<_>>())
        })
        .collect();
    let joined: Vec<(String, u32)> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    let numbers: HashSet<u32> = joined.iter().map(|j| j.1).collect();
    let ids: HashSet<&str> = joined.iter().map(|j| j.0.as_str()).collect();
    assert_eq!(joined.len(), 2 * PER_SERVER);
    assert_eq!(numbers.len(), joined.len(), "two servers gave one number twice");
    assert_eq!(ids.len(), joined.len());
    assert_eq!(
        numbers,
        (0..2 * PER_SERVER as u32).collect(),
        "numbers run 0…{} without gaps",
        2 * PER_SERVER - 1
    );
}
