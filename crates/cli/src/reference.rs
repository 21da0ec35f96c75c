//! The command line's reference page (`docs/src/reference/cli.md`), made
//! from clap's own description of every command and flag, so the page is
//! what `--help` says. The test fails when the page differs;
//! `LAB_BLESS=1 cargo test -p latency-lab reference` writes it again.

use clap::CommandFactory;

/// One line of help text, safe in a table cell.
fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

/// A command's section and its subcommands'.
fn section(out: &mut String, path: &str, cmd: &clap::Command) {
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| s.get_name() != "help").collect();
    let args: Vec<&clap::Arg> =
        cmd.get_arguments().filter(|a| !matches!(a.get_id().as_str(), "help" | "version")).collect();
    if !path.contains(' ') || !args.is_empty() || subs.is_empty() {
        out.push_str(&format!("\n## `{path}`\n\n"));
        let about = cmd.get_long_about().or(cmd.get_about()).map(|a| a.to_string()).unwrap_or_default();
        if !about.is_empty() {
            out.push_str(&format!("{}\n", cell(&about)));
        }
        if !args.is_empty() {
            out.push_str("\n| argument | default | what |\n|---|---|---|\n");
            for a in args {
                let name = match a.get_long() {
                    Some(l) => format!("--{l}"),
                    None => a
                        .get_value_names()
                        .and_then(|v| v.first())
                        .map_or(a.get_id().to_string(), |v| v.to_string()),
                };
                let value = match (a.get_long(), a.get_action().takes_values()) {
                    (Some(_), true) => {
                        let v = a
                            .get_value_names()
                            .and_then(|v| v.first())
                            .map_or("VALUE".to_string(), |v| v.to_string());
                        format!(" {v}")
                    }
                    _ => String::new(),
                };
                let default: Vec<String> =
                    a.get_default_values().iter().map(|d| d.to_string_lossy().into_owned()).collect();
                let help = a.get_long_help().or(a.get_help()).map(|h| h.to_string()).unwrap_or_default();
                let default =
                    if default.is_empty() { String::new() } else { format!("`{}`", default.join(", ")) };
                out.push_str(&format!("| `{name}{value}` | {default} | {} |\n", cell(&help)));
            }
        }
    }
    for s in subs {
        section(out, &format!("{path} {}", s.get_name()), s);
    }
}

/// The page.
pub fn page() -> String {
    let cmd = crate::Cli::command();
    let mut out = String::from(
        "# The command line\n\nEvery command and flag of `latency-lab`, as `latency-lab COMMAND --help` says them (this page is made from the same definitions, and `./lab test` fails when it differs).\n",
    );
    for s in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        section(&mut out, &format!("latency-lab {}", s.get_name()), s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_page_is_what_clap_says() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/reference/cli.md");
        let made = page();
        for needle in [
            "## `latency-lab serve`",
            "`--max-wait-ms MS`",
            "## `latency-lab field add-site`",
            "## `latency-lab run`",
        ] {
            assert!(made.contains(needle), "{needle} not in the page");
        }
        lab_testkit::reference_page::check(
            std::path::Path::new(path),
            &made,
            "clap",
            "cargo test -p latency-lab reference",
        );
    }
}
