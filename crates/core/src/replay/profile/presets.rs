//! Named profiles (served as `profile:<name>` and used by the stories).

use super::Profile;

/// A preset from its spec; a spec that does not parse (a bug the tests
/// catch) yields a plain profile whose name says so, never a panic.
fn named(name: &str, spec: &str) -> Profile {
    match spec.parse::<Profile>() {
        Ok(mut p) => {
            p.name = name.to_string();
            p
        }
        Err(_) => Profile::simple(&format!("{name} (invalid preset)"), 200.0, 25.0, 200),
    }
}

/// Named profiles served by `latency-lab serve` as `profile:<name>` and used
/// by the replay presets. Pairs are built to tell one story each: e.g.
/// `fast-start` and `slow-start` stream the same 80 tokens in the same
/// 3.31 s (equal tokens/s) but feel nothing alike.
pub fn presets() -> Vec<Profile> {
    vec![
        named("fast-start", "ttft=150,tpot=40,jitter=constant,tokens=80,text=chat"),
        named("slow-start", "ttft=2520,tpot=10,jitter=constant,tokens=80,text=chat"),
        named("smooth", "ttft=300,tpot=30,jitter=normal:0.05,tokens=150,text=article"),
        named("jittery", "ttft=300,tpot=30,jitter=gamma:1.2,tokens=150,text=article"),
        named(
            "stalling",
            "ttft=300,tpot=25,jitter=normal:0.1,stall=0.03:900:0.4,tokens=200,text=article,seed=3",
        ),
        // The steady stream with stalls and nothing else changed: the
        // stalls story's second pane (same pace between tokens).
        named(
            "steady-stalls",
            "ttft=300,tpot=30,jitter=normal:0.05,stall=0.03:900:0.4,tokens=150,text=article,seed=3",
        ),
        named("code-fast", "ttft=80,tpot=12,jitter=normal:0.1,tokens=60,text=code"),
        named("code-slow", "ttft=600,tpot=12,jitter=normal:0.1,tokens=60,text=code"),
        named("rag-long-prompt", "ttft=120,prefill=0.35,tpot=20,jitter=normal:0.15,tokens=60,text=chat"),
        named("bursty", "ttft=250,tpot=15,jitter=lognormal:0.3,burst=6,tokens=180,text=article"),
        named("ttft300-itl20", "ttft=300,tpot=20,jitter=constant,tokens=100,text=chat"),
    ]
}

/// A preset by name.
pub fn preset(name: &str) -> Option<Profile> {
    presets().into_iter().find(|p| p.name == name)
}
