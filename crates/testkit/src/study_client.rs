//! A study server's client, as a participant's browser and a researcher's
//! script use it (for the tests and the load example): publish, join,
//! every answer a participant gives, the results.
#![allow(dead_code)]

use lab_core::study::Question;
use lab_core::study::Study;
use lab_core::study::plan::plan;
use lab_core::study::results::{Answer, StudyResults};
use lab_core::study::session::Session;
use lab_core::study::submit::Submission;
use serde_json::Value;

use crate::http::{call, try_call};

/// `Authorization` header of a token.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Publishes `study`; its short id.
pub fn publish(addr: &str, token: &str, study: &Study) -> String {
    let (code, body) =
        call(addr, "POST", "/api/studies", &[("Authorization", &bearer(token))], study.to_json().as_bytes());
    assert_eq!(code, 201, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["id"].as_str().unwrap().to_string()
}

/// Joins study `id`: the participant id and number the server gave.
pub fn join(addr: &str, id: &str) -> (String, u32) {
    let (code, body) = call(addr, "POST", &format!("/api/studies/{id}/participants"), &[], b"");
    assert_eq!(code, 201, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    (v["participant"].as_str().unwrap().to_string(), v["number"].as_u64().unwrap() as u32)
}

/// Every answer participant `number` gives in `study`, as bodies to send
/// (ratings from the trial index, so they differ; choices alternate).
pub fn answers(study: &Study, participant: &str, number: u32) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for t in plan(study, number) {
        for q in Session::questions(study, &t) {
            let k = (t.index + number as usize) as u64;
            let answer = match q {
                Question::Rating { points, .. } => Answer::Rating(1 + (k % u64::from(*points)) as u8),
                Question::Choice { .. } => Answer::Choice((k % 2) as u8),
            };
            let s = Submission {
                participant: participant.into(),
                number,
                trial: t.index,
                question: q.id().into(),
                answer,
                rt_ms: 500.0 + t.index as f64,
                level: None,
                timing: None,
            };
            out.push(serde_json::to_vec(&s).unwrap());
        }
    }
    out
}

/// Sends one answer: the status, or an error when the server is gone.
pub fn send(addr: &str, id: &str, body: &[u8]) -> std::io::Result<(u16, String)> {
    try_call(addr, "POST", &format!("/api/studies/{id}/answers"), &[], body)
}

/// The results of study `id`.
pub fn results(addr: &str, token: &str, id: &str) -> StudyResults {
    let (code, body) =
        call(addr, "GET", &format!("/api/studies/{id}/results"), &[("Authorization", &bearer(token))], b"");
    assert_eq!(code, 200, "{body}");
    StudyResults::from_json(&body).unwrap()
}
