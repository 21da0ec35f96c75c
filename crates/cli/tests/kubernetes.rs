//! deploy/kubernetes/latency-lab-run.yaml as Kubernetes would run it: the
//! manifest parses, its Job is an Indexed Job whose shard count matches its
//! completions, and the command each pod runs — with `JOB_COMPLETION_INDEX`
//! set as Kubernetes sets it, the volume at a temporary directory and the
//! target at a local `latency-lab serve` — sends the whole workload across
//! the shards; the merge command the manifest gives makes it one run.

mod common;

use std::path::Path;
use std::process::Command;

use lab_core::Trace;
use serde_norway::Value;

fn manifest() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/kubernetes/latency-lab-run.yaml");
    std::fs::read_to_string(p).unwrap()
}

fn env_of(container: &Value, name: &str) -> String {
    let env = container["env"].as_sequence().expect("env");
    let var = env.iter().find(|e| e["name"].as_str() == Some(name)).unwrap_or_else(|| panic!("no {name}"));
    var["value"].as_str().unwrap().to_string()
}

#[test]
fn the_indexed_job_runs_its_shards_and_they_merge_into_the_whole_workload() {
    let text = manifest();
    let docs: Vec<Value> = serde_norway::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    let job = docs.iter().find(|d| d["kind"].as_str() == Some("Job")).expect("a Job");
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"].as_str(), Some("Never"));
    let container = &pod["containers"][0];
    let shards: u64 = env_of(container, "SHARDS").parse().unwrap();
    assert_eq!(spec["completions"].as_u64(), Some(shards), "one pod per shard");
    assert_eq!(spec["parallelism"].as_u64(), Some(shards), "all shards at once");
    let claim = pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as_str().unwrap();
    assert!(docs.iter().any(|d| d["kind"].as_str() == Some("PersistentVolumeClaim")
        && d["metadata"]["name"].as_str() == Some(claim)));
    let command: Vec<&str> =
        container["command"].as_sequence().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(command, ["/bin/sh", "-c"]);
    let script = container["args"][0].as_str().unwrap();
    assert!(
        script.contains("--shard \"$JOB_COMPLETION_INDEX/$SHARDS\"")
            && script.contains("--start-at \"$START_AT\""),
        "{script}"
    );
    let mount = container["volumeMounts"][0]["mountPath"].as_str().unwrap();
    // The pods' volume is a directory here; the target a local server.
    let srv = common::start(&[]);
    let data = common::data_dir().with_extension("k8s");
    std::fs::create_dir_all(&data).unwrap();
    let rows: Vec<String> = (0..24)
        .map(|i| {
            format!(
                "{{\"timestamp\": {}, \"input_length\": 300, \"output_length\": 4, \"hash_ids\": [{}]}}",
                i * 50,
                i % 3
            )
        })
        .collect();
    std::fs::write(data.join("workload.jsonl"), rows.join("\n") + "\n").unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_latency-lab")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let script = script.replace(mount, data.to_str().unwrap());
    let start_at =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() + 1.5;
    let pods: Vec<_> = (0..shards)
        .map(|i| {
            Command::new(command[0])
                .args(&command[1..])
                .arg(&script)
                .env("PATH", &path)
                .env("TARGET", format!("http://{}", srv.addr))
                .env("MODEL", "profile:ttft=10,tpot=2,tokens=4")
                .env("SHARDS", shards.to_string())
                .env("START_AT", format!("{start_at:.3}"))
                .env("JOB_COMPLETION_INDEX", i.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let pods: Vec<_> = pods.into_iter().map(|p| p.wait_with_output().unwrap()).collect();
    for (i, o) in pods.iter().enumerate() {
        assert!(
            o.status.success(),
            "pod {i}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The merge command the manifest gives, as written.
    let merge = text
        .lines()
        .find_map(|l| l.trim_start_matches('#').trim().strip_prefix("latency-lab analyze"))
        .expect("a merge command in the manifest");
    let merge = format!("latency-lab analyze{}", merge.replace(mount, data.to_str().unwrap()));
    let o = Command::new("/bin/sh").args(["-c", &merge]).env("PATH", &path).output().unwrap();
    assert!(o.status.success(), "{merge}: {}", String::from_utf8_lossy(&o.stderr));
    let run =
        Trace::from_json(&std::fs::read_to_string(data.join("results/run.trace.json")).unwrap()).unwrap();
    assert_eq!(run.requests.len(), 24, "every row, once, across {shards} shards");
    assert!(run.requests.iter().all(|r| r.failure.is_none()));
    assert!(run.requests.windows(2).all(|w| w[0].scheduled_ms <= w[1].scheduled_ms));
    let lateness: Vec<f64> = run.requests.iter().map(|r| r.sent_ms - r.scheduled_ms.unwrap()).collect();
    let late =
        common::check_sent_on_time(&lateness).unwrap_or_else(|e| panic!("on the pods' shared clock: {e}"));
    eprintln!("median send lateness across {shards} pods {late:.3} ms");
}
