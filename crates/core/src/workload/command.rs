//! The `latency-lab run` command that sends a workload file as the file
//! has it: at its own times, each answer as long as its row asks
//! (`--exact-output`, so a server that stops early does not shorten the
//! load), to a named server and model. The Import view shows it for each
//! workload it reads, aimed at the lab's own replay endpoint as a serving
//! engine ([`LAB_SERVER_MODEL`]).

/// The replay endpoint's server model a workload is sent to by default:
/// prefill per prompt token with a prefix cache and four decode slots
/// (docs/src/guide/replay-endpoint.md, "Server model").
pub const LAB_SERVER_MODEL: &str = "profile:ttft=40,tpot=15,prefill=0.3,slots=4";

/// `word` as one shell word (single-quoted unless plainly safe).
pub fn shell_word(word: &str) -> String {
    let plain =
        !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@+%".contains(&b));
    if plain { word.to_string() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// The command sending `file` to `target` (`http://host:port`) asking for
/// `model`; `exact_output` when the file gives output lengths.
pub fn run_command(file: &str, target: &str, model: &str, exact_output: bool) -> String {
    format!(
        "latency-lab run {} --target {} --model {}{} -o run.trace.json",
        shell_word(file),
        shell_word(target),
        shell_word(model),
        if exact_output { " --exact-output" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_names_server_model_and_lengths_and_quotes_what_a_shell_would_split() {
        let c = run_command("mooncake_trace.jsonl", "http://127.0.0.1:8377", LAB_SERVER_MODEL, true);
        assert_eq!(
            c,
            "latency-lab run mooncake_trace.jsonl --target http://127.0.0.1:8377 --model profile:ttft=40,tpot=15,prefill=0.3,slots=4 --exact-output -o run.trace.json"
        );
        let c = run_command("my trace's.csv", "http://h:1", "m", false);
        assert_eq!(c, r"latency-lab run 'my trace'\''s.csv' --target http://h:1 --model m -o run.trace.json");
        assert_eq!(shell_word("a|b"), "'a|b'");
        assert_eq!(shell_word(""), "''");
    }
}
