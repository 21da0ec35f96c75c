//! Share links of this page: `#share=v1.…` after the page's own address, so
//! the link opens the same build of the lab wherever it is hosted.

use lab_core::share::link::Shared;
use lab_core::share::route::Route;

use super::page;

/// A full link to this page that opens `shared`, copied to the clipboard.
pub fn link_for(shared: &Shared) -> String {
    let url = format!("{}{}", page::base_url(), Route::Share(shared.encode()).fragment());
    page::copy(&url);
    url
}
