//! Chart export: an on-screen SVG chart as a standalone `.svg` file (with
//! its colours written in, since page CSS does not travel) or as a `.png`
//! rendered at twice its on-screen size through a canvas.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::files::{self, FileError, download_text, js_message};

/// Colours of exported charts (the light theme's), so the file looks the
/// same anywhere.
pub const EXPORT_CSS: &str = "svg{font:11px system-ui,sans-serif;color:#1b2333;background:#fff}\
.axis line,.axis path,.grid line{stroke:#c9cfdb}.axis text,.label{fill:#566079}\
.s0{stroke:#1f5fd1;fill:#1f5fd1}.s1{stroke:#c2410c;fill:#c2410c}.s2{stroke:#15803d;fill:#15803d}.s3{stroke:#7e22ce;fill:#7e22ce}\
.line{fill:none;stroke-width:1.8}.paint{fill:none;stroke-dasharray:4 3;stroke-width:1.2}.stall{fill:#b3261e;opacity:.18}\
.bar{fill:#1f5fd1}.bar.over{fill:#b3261e}.slo{stroke:#b3261e;stroke-dasharray:5 4;stroke-width:1.5}.lost{fill:#d8dce6}\
.knee{stroke:#9a6a00;stroke-dasharray:3 3}.dot{stroke:none}";

/// PNG scale factor.
pub const PNG_SCALE: f64 = 2.0;

/// The SVG text of a chart element, standalone.
pub fn svg_text(svg: &web_sys::Element) -> Result<String, JsValue> {
    let clone: web_sys::Element = svg.clone_node_with_deep(true)?.unchecked_into();
    clone.set_attribute("xmlns", "http://www.w3.org/2000/svg")?;
    let rect = svg.get_bounding_client_rect();
    let _ = clone.set_attribute("width", &format!("{:.0}", rect.width().max(1.0)));
    let _ = clone.set_attribute("height", &format!("{:.0}", rect.height().max(1.0)));
    let html = clone.outer_html();
    // The style goes right after the opening tag.
    let at = html.find('>').ok_or_else(|| JsValue::from_str("not an SVG element"))? + 1;
    Ok(format!("{}<style>{EXPORT_CSS}</style>{}", &html[..at], &html[at..]))
}

/// Downloads a chart as SVG.
pub fn download_svg(svg: &web_sys::Element, name: &str) -> Result<(), FileError> {
    let name = format!("{name}.svg");
    let text = svg_text(svg).map_err(|e| FileError::Offer { name: name.clone(), message: js_message(&e) })?;
    download_text(&name, "image/svg+xml", &text)
}

/// Downloads a chart as PNG (white background, [`PNG_SCALE`]×).
pub fn download_png(svg: &web_sys::Element, name: &str) -> Result<(), FileError> {
    let name = format!("{name}.png");
    let (img, canvas, url, w, h) =
        png_parts(svg).map_err(|e| FileError::Offer { name: name.clone(), message: js_message(&e) })?;
    let (img2, url2) = (img.clone(), url.clone());
    let onload = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url2);
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, w, h);
        let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(&img2, 0.0, 0.0, w, h);
        let done = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
            if let Some(b) = blob {
                let _ = files::download_blob(&b, &name);
            }
        });
        let _ = canvas.to_blob(done.unchecked_ref());
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
    Ok(())
}

/// The image (to load the SVG into), the canvas to draw it on, the SVG's
/// `blob:` URL and the PNG's size.
type PngParts = (web_sys::HtmlImageElement, web_sys::HtmlCanvasElement, String, f64, f64);

fn png_parts(svg: &web_sys::Element) -> Result<PngParts, JsValue> {
    let text = svg_text(svg)?;
    let rect = svg.get_bounding_client_rect();
    let (w, h) = (rect.width().max(1.0) * PNG_SCALE, rect.height().max(1.0) * PNG_SCALE);
    let url = files::blob_url(&text, "image/svg+xml")?;
    let doc = web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))?;
    let img = web_sys::HtmlImageElement::new()?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.unchecked_into();
    canvas.set_width(w as u32);
    canvas.set_height(h as u32);
    Ok((img, canvas, url, w, h))
}
