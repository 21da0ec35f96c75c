//! `latency-lab`: the native side of Latency Lab.
//!
//! - `latency-lab serve`: serves the built app on 127.0.0.1 (with the
//!   cross-origin isolation headers that give the page a fine-grained clock)
//!   and an OpenAI-compatible replay endpoint that streams profiles and
//!   recorded traces with exact timing.
//! - `latency-lab analyze FILE`: metrics, goodput and scenario scores of a
//!   trace file, as a table or as JSON (`--json`).
//! - `latency-lab csp`: prints the app's Content-Security-Policy;
//!   `--inject` writes it into the built `index.html` for static hosting.
//! - `latency-lab fingerprint`: content-hashed names for the on-demand
//!   modules, listed in `index.html`.
//! - `latency-lab compress`: writes the build's precompressed copies
//!   (`.br`, `.gz`) that `serve` sends ([`assets`]).
//! - `latency-lab run WORKLOAD --target URL`: sends a workload open loop
//!   and records every answer ([`run`]).
//! - `latency-lab backup`: a consistent copy of the study database while
//!   `serve` runs ([`backup`]).
//! - `latency-lab field add-site NAME --origin URL`: registers a site whose
//!   pages send field data to `serve`'s collector ([`field`]).
//! - `latency-lab size`: what a visitor downloads, module by module, against
//!   the page's budgets (`--check` fails over budget; [`size`]).
//!
//! Exit codes: 0 success, 1 runtime failure (e.g. the port is taken),
//! 2 bad input (unreadable or invalid file, bad option).

mod analyze;
mod backup;
mod field;
mod fingerprint;
#[cfg(test)]
mod reference;
mod run;
mod serve;
mod size;
mod workload;

use lab_server::site::{assets, csp};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Command line of `latency-lab`.
#[derive(Debug, Parser)]
#[command(name = "latency-lab", version, about = "Feel and measure LLM streaming latency")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the built lab (and its API) on 127.0.0.1.
    Serve(serve::ServeArgs),
    /// Metrics, goodput and scenario scores of a trace file.
    Analyze(analyze::AnalyzeArgs),
    /// Print the app's Content-Security-Policy (or inject it as a meta tag).
    Csp(CspArgs),
    /// Write Brotli and gzip copies beside the built app's files.
    Compress(DistArgs),
    /// Give the on-demand modules content-hashed names (listed in index.html).
    Fingerprint(DistArgs),
    /// Print what a visitor downloads, module by module, against the budgets.
    Size(SizeArgs),
    /// Copy the study database consistently while `serve` runs (SQLite's
    /// online backup).
    Backup(backup::BackupArgs),
    /// Send a workload open loop at its own rate and record every answer.
    Run(run::RunArgs),
    /// Field data: register the sites whose pages send it to `serve`.
    Field(field::FieldArgs),
}

/// Arguments naming the built app.
#[derive(Debug, clap::Args)]
pub struct DistArgs {
    /// Directory of the built app.
    #[arg(long, default_value = "dist")]
    pub dist: PathBuf,
}

/// Arguments of `size`.
#[derive(Debug, clap::Args)]
pub struct SizeArgs {
    /// Directory of the built app.
    #[arg(long, default_value = "dist")]
    pub dist: PathBuf,
    /// Fail (exit 1) when a module is over its budget, naming it.
    #[arg(long)]
    pub check: bool,
}

fn run_size(args: &SizeArgs) -> ExitCode {
    let sizes = match size::measure(&args.dist, &size::BUDGETS) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("latency-lab size: {e}");
            return ExitCode::from(2);
        }
    };
    print!("{}", size::table(&sizes));
    let over = size::over_budget(&sizes);
    if args.check && !over.is_empty() {
        for line in over {
            eprintln!("latency-lab size: {line}");
        }
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Arguments of `csp`.
#[derive(Debug, clap::Args)]
pub struct CspArgs {
    /// Directory of the built app.
    #[arg(long, default_value = "dist")]
    pub dist: PathBuf,
    /// Write the policy into `index.html` as `<meta http-equiv>`.
    #[arg(long)]
    pub inject: bool,
}

fn run_csp(args: &CspArgs) -> Result<String, String> {
    let path = args.dist.join("index.html");
    let html = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if args.inject {
        std::fs::write(&path, csp::inject_meta(&html)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(csp::policy(&html, true))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Analyze(args) => match analyze::run(&args) {
            Ok(out) => {
                println!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab analyze: {e}");
                ExitCode::from(2)
            }
        },
        Command::Csp(args) => match run_csp(&args) {
            Ok(p) => {
                println!("{p}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab csp: {e}");
                ExitCode::from(2)
            }
        },
        Command::Compress(args) => match assets::compress_dist(&args.dist) {
            Ok(n) => {
                println!("{n} files of {} compressed (Brotli and gzip)", args.dist.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab compress: {e}");
                ExitCode::from(2)
            }
        },
        Command::Fingerprint(args) => match fingerprint::fingerprint(&args.dist) {
            Ok(stems) => {
                println!("on-demand modules named {}", stems.join(", "));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab fingerprint: {e}");
                ExitCode::from(2)
            }
        },
        Command::Size(args) => run_size(&args),
        Command::Field(args) => match &args.command {
            field::FieldCommand::AddSite(a) => match lab_server::field::add_site(&a.into()) {
                Ok(key) => {
                    println!(
                        "Site \"{}\" added; its ingest key (shown once, keep it with the page's config):",
                        a.name
                    );
                    println!("{key}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("latency-lab field add-site: {e}");
                    ExitCode::from(e.exit_code())
                }
            },
        },
        Command::Run(args) => match run::run(&args) {
            Ok(report) => {
                println!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab run: {e}");
                ExitCode::from(e.exit_code())
            }
        },
        Command::Backup(args) => match backup::run(&args) {
            Ok(c) => {
                println!(
                    "{}: {} studies, {} answers (integrity checked)",
                    args.out.display(),
                    c.studies,
                    c.answers
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("latency-lab backup: {e}");
                ExitCode::from(1)
            }
        },
        Command::Serve(args) => match lab_server::serve::run(args.into()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("latency-lab serve: {e}");
                ExitCode::from(e.exit_code())
            }
        },
    }
}
