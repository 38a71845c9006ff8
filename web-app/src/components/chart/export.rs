//! A chart's one export path: its SVG document (the markup on screen, [`super::ChartSpec::svg`])
//! as a `data:` URL for the SVG download link, and the same document drawn through an `<img>`
//! onto a `<canvas>` at twice its size on white, offered as the PNG download.
//!
//! ```text
//! svg text → data:image/svg+xml URL → <a download> (SVG)
//!                                   → <img>.onload → canvas 2× (white) → toDataURL("image/png") → <a download> (PNG)
//! ```
//!
//! The canvas calls go through `js_sys::Reflect` (no extra `web-sys` features, so adding PNG
//! export does not rebuild the DOM bindings).

use std::fmt::Write as _;

/// A `data:` URL of an SVG document, for a download link.
pub fn data_url(svg: &str) -> String {
    let mut out = String::from("data:image/svg+xml;charset=utf-8,");
    for b in svg.bytes() {
        if b == b' ' {
            out.push_str("%20");
        } else if b.is_ascii_alphanumeric() || b"-_.~=:/;,()'!*".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Scale of the PNG over the SVG's user units (crisp on high-density screens and in slides).
pub const SCALE: f64 = 2.0;

/// The `width` and `height` of an SVG document from its `viewBox` (`0 0 W H`), if it has one.
pub fn view_box_size(svg: &str) -> Option<(f64, f64)> {
    let start = svg.find("viewBox=\"")? + "viewBox=\"".len();
    let rest = svg.get(start..)?;
    let numbers: Vec<f64> = rest.split('"').next()?.split([' ', ',']).filter_map(|n| n.parse().ok()).collect();
    match numbers.as_slice() {
        [_, _, w, h] if *w > 0.0 && *h > 0.0 => Some((*w, *h)),
        _ => None,
    }
}

/// Offers the SVG document `svg` as a PNG download called `name`; does nothing off the browser
/// or when the browser refuses a step.
pub fn download_png(name: &str, svg: &str) {
    #[cfg(target_arch = "wasm32")]
    browser::start(name, svg);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (name, svg);
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use js_sys::{Array, Function, Reflect};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    use super::{view_box_size, SCALE};

    /// `obj.name(...args)`.
    fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
        let f: Function = Reflect::get(obj, &JsValue::from_str(name))?.dyn_into()?;
        f.apply(obj, &args.iter().collect::<Array>())
    }

    fn set(obj: &JsValue, name: &str, value: &JsValue) -> Result<bool, JsValue> {
        Reflect::set(obj, &JsValue::from_str(name), value)
    }

    pub fn start(name: &str, svg: &str) {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let (w, h) = view_box_size(svg).unwrap_or((480.0, 270.0));
        let Ok(img) = doc.create_element("img") else { return };
        let img: JsValue = img.into();
        let (name, image) = (name.to_owned(), img.clone());
        let onload = Closure::once_into_js(move || {
            let _ = draw(&doc, &image, &name, w, h);
        });
        let _ = set(&img, "onload", &onload);
        let _ = set(&img, "src", &JsValue::from_str(&super::data_url(svg)));
    }

    fn draw(doc: &web_sys::Document, img: &JsValue, name: &str, w: f64, h: f64) -> Result<(), JsValue> {
        let canvas: JsValue = doc.create_element("canvas")?.into();
        let (cw, ch) = ((w * SCALE).round(), (h * SCALE).round());
        set(&canvas, "width", &JsValue::from_f64(cw))?;
        set(&canvas, "height", &JsValue::from_f64(ch))?;
        let ctx = call(&canvas, "getContext", &[JsValue::from_str("2d")])?;
        set(&ctx, "fillStyle", &JsValue::from_str("#ffffff"))?;
        let rect = [0.0, 0.0, cw, ch].map(JsValue::from_f64);
        call(&ctx, "fillRect", &rect)?;
        call(&ctx, "drawImage", &[img.clone(), rect[0].clone(), rect[1].clone(), rect[2].clone(), rect[3].clone()])?;
        let url = call(&canvas, "toDataURL", &[JsValue::from_str("image/png")])?;
        let a = doc.create_element("a")?.dyn_into::<web_sys::HtmlAnchorElement>()?;
        a.set_href(&url.as_string().unwrap_or_default());
        a.set_download(name);
        a.click();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_url_escapes_what_a_url_cannot_hold() {
        // '<' is 0x3C, '"' 0x22, '#' 0x23, ' ' 0x20; letters, '=' and '/' stay.
        assert_eq!(data_url("<a b=\"#1\"/>"), "data:image/svg+xml;charset=utf-8,%3Ca%20b=%22%231%22/%3E");
    }

    #[test]
    fn the_size_comes_from_the_view_box() {
        assert_eq!(view_box_size(r#"<svg xmlns="…" viewBox="0 0 380 265" role="img">"#), Some((380.0, 265.0)));
        assert_eq!(view_box_size(r#"<svg viewBox="0,0,10,20">"#), Some((10.0, 20.0)));
        assert_eq!(view_box_size("<svg width=\"3\">"), None);
        assert_eq!(view_box_size(r#"<svg viewBox="0 0 0 5">"#), None);
    }
}
