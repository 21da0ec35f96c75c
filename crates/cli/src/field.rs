//! `latency-lab field`: field data's commands; `add-site` registers a site
//! whose pages send field data to `serve`'s collector
//! ([`lab_server::field`]).

use std::path::PathBuf;

use lab_server::db::setup;
use lab_server::field::NewSite;

/// Arguments of `field`.
#[derive(Debug, clap::Args)]
pub struct FieldArgs {
    #[command(subcommand)]
    pub command: FieldCommand,
}

/// What `field` does.
#[derive(Debug, clap::Subcommand)]
pub enum FieldCommand {
    /// Register a site whose pages send field data; prints its ingest key
    /// (shown once).
    AddSite(AddSiteArgs),
}

/// Arguments of `field add-site`.
#[derive(Debug, clap::Args)]
pub struct AddSiteArgs {
    /// The site's name (letters, digits, `-`, `_`, `.`; at most 64).
    pub name: String,
    /// An origin its pages are served from, e.g. `https://shop.example`
    /// (repeat for several). Only these get CORS answers and may send.
    #[arg(long = "origin", required = true)]
    pub origins: Vec<String>,
    /// The data directory `serve --data` uses.
    #[arg(long, default_value = setup::DEFAULT_DATA_DIR)]
    pub data: PathBuf,
    /// The database `serve --db` uses, if not the data directory's SQLite file.
    #[arg(long)]
    pub db: Option<String>,
}

impl From<&AddSiteArgs> for NewSite {
    fn from(a: &AddSiteArgs) -> Self {
        NewSite { name: a.name.clone(), origins: a.origins.clone(), data: a.data.clone(), db: a.db.clone() }
    }
}
