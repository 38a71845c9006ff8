//! Embeds the bundled example kernels: reads `static/examples/index.json` and writes
//! `$OUT_DIR/examples.rs`, a static table of `{id, title, description, file, source}` whose sources
//! come from `include_str!`. The JSON index stays the one list of examples (Trunk also copies the
//! folder into the site, so each kernel can be downloaded as `./examples/<file>`).

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let dir = manifest.join("..").join("static").join("examples");
    let index_path = dir.join("index.json");
    println!("cargo:rerun-if-changed={}", index_path.display());
    let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&index_path)?)?;
    let entries = index.as_array().ok_or("static/examples/index.json: expected a JSON array")?;
    let mut out = String::from("/// The bundled examples, in the order of `static/examples/index.json`.\n");
    out.push_str("pub static EXAMPLES: &[Example] = &[\n");
    for entry in entries {
        let field = |name: &str| -> Result<String, Box<dyn Error>> {
            let value = entry.get(name).and_then(|v| v.as_str());
            Ok(value
                .ok_or_else(|| format!("static/examples/index.json: an entry lacks the string '{name}'"))?
                .to_owned())
        };
        let file = field("file")?;
        let path = dir.join(&file).canonicalize()?;
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    Example {{ id: {:?}, title: {:?}, description: {:?}, file: {:?}, source: include_str!({:?}) }},",
            field("id")?,
            field("title")?,
            field("description")?,
            file,
            path.display().to_string(),
        )?;
    }
    out.push_str("];\n");
    let out_path = PathBuf::from(std::env::var("OUT_DIR")?).join("examples.rs");
    std::fs::write(out_path, out)?;
    Ok(())
}
