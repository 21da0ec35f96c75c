//! The service files README installs (deploy/systemd/) run as written:
//! serve starts with the unit's `ExecStart` and the environment file's
//! settings (expanded as systemd expands them), is ready, hands out links
//! on the public URL, logs JSON, and stops cleanly on the unit's
//! `KillSignal` within its `TimeoutStopSec`. Where `systemd-analyze` is
//! installed, it checks the unit too.

mod common;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::study_client::bearer;
use common::{call, data_dir};
use lab_core::study::Study;
use serde_json::Value;

fn deploy(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/systemd").join(file)
}

/// `KEY=value` lines of an environment file (comments and blanks skipped).
fn env_file(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("not KEY=value: {l}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The unit's `Key=value` in `[Service]`.
fn setting<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("the unit has no {key}="))
}

/// `ExecStart` as systemd runs it: `${NAME}` is one word, `$NAME` is split
/// on whitespace (and vanishes when empty).
fn expand(line: &str, env: &HashMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for word in line.split_whitespace() {
        if let Some(name) = word.strip_prefix("${").and_then(|w| w.strip_suffix('}')) {
            out.push(
                env.get(name).unwrap_or_else(|| panic!("{name} is not in the environment file")).clone(),
            );
        } else if let Some(name) = word.strip_prefix('$') {
            let v = env.get(name).unwrap_or_else(|| panic!("{name} is not in the environment file"));
            out.extend(v.split_whitespace().map(str::to_string));
        } else {
            out.push(word.to_string());
        }
    }
    out
}

#[test]
fn the_systemd_unit_and_its_environment_file_run_serve_as_readme_installs_it() {
    let unit = std::fs::read_to_string(deploy("latency-lab.service")).unwrap();
    let file = env_file(&std::fs::read_to_string(deploy("latency-lab.env")).unwrap());
    let exec = setting(&unit, "ExecStart");
    // Every setting is used, and every one used is set.
    for (k, _) in &file {
        assert!(
            exec.contains(&format!("${{{k}}}")) || exec.contains(&format!("${k}")),
            "{k} is set but unused"
        );
    }
    let mut env: HashMap<String, String> = file.into_iter().collect();
    let public = env["LAB_PUBLIC_URL"].clone();
    assert_eq!(setting(&unit, "KillSignal"), "SIGTERM");
    let stop_within: u64 = setting(&unit, "TimeoutStopSec").parse().unwrap();
    // This machine's stand-ins for the install's paths and port.
    let data = data_dir();
    let url_file = data.with_extension("url");
    let port = common::free_port();
    env.insert("LAB_BIND".into(), format!("127.0.0.1:{port}"));
    env.insert("LAB_DATA".into(), data.display().to_string());
    env.insert("LAB_EXTRA_ARGS".into(), format!("--api-only --url-file {}", url_file.display()));
    let argv = expand(exec, &env);
    assert_eq!(argv[0], "/usr/local/bin/latency-lab", "README installs the binary there");
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(&argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let addr = loop {
        if let Ok(u) = std::fs::read_to_string(&url_file)
            && !u.is_empty()
        {
            break u.trim().trim_start_matches("http://").trim_end_matches('/').to_string();
        }
        assert!(child.try_wait().unwrap().is_none(), "serve exited with the unit's command line: {argv:?}");
        assert!(t0.elapsed() < Duration::from_secs(20), "serve did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(call(&addr, "GET", "/readyz", &[], b"").0, 200);
    let token = std::fs::read_to_string(data.join("researcher-token")).unwrap().trim().to_string();
    let (code, body) = call(
        &addr,
        "POST",
        "/api/studies",
        &[("Authorization", &bearer(&token))],
        Study::example().to_json().as_bytes(),
    );
    assert_eq!(code, 201, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let link = reply["url"].as_str().unwrap();
    assert!(link.starts_with(&format!("{}s/", public)), "{link} is on {public}");
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(stop_within), "not stopped within TimeoutStopSec");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    let lines: Vec<Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert!(
        lines.iter().any(|l| l["route"] == "/api/studies" && l["status"] == 201),
        "JSON request lines:\n{log}"
    );
    assert!(!log.contains(&token), "the researcher token reached the log");
    // systemd's own check of the unit, where systemd is installed.
    if let Ok(analyze) = Command::new("systemd-analyze").arg("--version").output()
        && analyze.status.success()
    {
        let dir = data_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let env_path = dir.join("latency-lab.env");
        std::fs::copy(deploy("latency-lab.env"), &env_path).unwrap();
        let local = unit
            .replace("/usr/local/bin/latency-lab", env!("CARGO_BIN_EXE_latency-lab"))
            .replace("/etc/default/latency-lab", &env_path.display().to_string());
        let unit_path = dir.join("latency-lab.service");
        std::fs::write(&unit_path, local).unwrap();
        let out = Command::new("systemd-analyze").arg("verify").arg(&unit_path).output().unwrap();
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(
            out.status.success() && !said.contains("latency-lab.service:"),
            "systemd-analyze verify:\n{said}"
        );
    }
}
