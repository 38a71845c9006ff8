//! The scheme instances of the lab (`LabState::schemes`, spec texts `NAME[:k=v,…]`) as the scheme
//! panel edits them: add, remove, duplicate (the same scheme twice, to give the copy other
//! parameters), set one parameter from its form field (checked against the scheme's schema, the
//! reason given when refused), and whether the list can run (no two instances alike). Pure, tested
//! natively; `components/scheme_panel.rs` draws it.
//!
//! ```text
//! ["baseline"] --Duplicate(0)--> ["baseline", "baseline"]  (cannot run: two alike)
//!              --field collector_units = "2" on 1--> ["baseline", "baseline:collector_units=2"]
//!              --field collector_units = "0" on 1--> refused: "… out of range 1 ..= 64 …"
//! ```

use sim_core::gpu::GpuConfig;
use sim_core::timing::regfile::params::{ParamKind, ParamSpec, ParamValue};
use sim_core::timing::regfile::registry;
use sim_core::timing::{EnergyModel, SchemeSpec};

/// The spec of a text (a name alone when it does not parse: the lab only keeps checked texts).
pub fn spec_of(text: &str) -> SchemeSpec {
    SchemeSpec::parse(text).unwrap_or_else(|_| SchemeSpec::named(text))
}

/// The parameter schema of `scheme` on `gpu` (empty for an unknown scheme).
pub fn schema(scheme: &str, gpu: &GpuConfig) -> Vec<ParamSpec> {
    registry::by_name(scheme).map_or_else(Vec::new, |e| (e.params)(gpu, &EnergyModel::default()))
}

/// A form field's text as a value of `p`'s kind, checked against its range: the value, or the
/// reason it is refused (naming the scheme, the parameter, the range and the unit).
pub fn field_value(scheme: &str, p: &ParamSpec, text: &str) -> Result<ParamValue, String> {
    let t = text.trim();
    let value = match &p.kind {
        ParamKind::Int => t.parse::<i64>().map(ParamValue::Int).map_err(|_| "an integer"),
        ParamKind::Float => t.parse::<f64>().map(ParamValue::Float).map_err(|_| "a number"),
        ParamKind::Bool => t.parse::<bool>().map(ParamValue::Bool).map_err(|_| "true or false"),
        ParamKind::Enum { .. } => Ok(ParamValue::Text(t.to_owned())),
    };
    let value = value.map_err(|what| format!("{scheme}: {} must be {what}, not '{t}'", p.name))?;
    p.check(scheme, &value).map_err(|e| e.to_string())
}

/// `specs` with parameter `name` of instance `index` set to `value` (removed from the overrides
/// when it equals the default, so the label stays short).
pub fn set_param(specs: &[String], index: usize, p: &ParamSpec, value: ParamValue) -> Vec<String> {
    let mut out = specs.to_vec();
    if let Some(text) = out.get_mut(index) {
        let mut spec = spec_of(text);
        if value == p.default {
            spec.params.remove(p.name);
        } else {
            spec.params.insert(p.name.to_owned(), value);
        }
        *text = spec.label();
    }
    out
}

/// `specs` with a copy of instance `index` right after it.
pub fn duplicate(specs: &[String], index: usize) -> Vec<String> {
    let mut out = specs.to_vec();
    if let Some(text) = specs.get(index) {
        out.insert(index + 1, text.clone());
    }
    out
}

/// `specs` without instance `index`.
pub fn remove(specs: &[String], index: usize) -> Vec<String> {
    specs.iter().enumerate().filter(|(i, _)| *i != index).map(|(_, s)| s.clone()).collect()
}

/// Why the instances cannot run together: two with the same scheme and parameters (they would be
/// one column twice).
pub fn duplicate_error(specs: &[String]) -> Option<String> {
    let labels: Vec<String> = specs.iter().map(|s| spec_of(s).label()).collect();
    labels.iter().enumerate().find(|(i, l)| labels[..*i].contains(l)).map(|(_, l)| {
        format!("Two instances of {l} have the same parameters: change one (or remove it) to compare them.")
    })
}

/// The value instance `spec` gives parameter `p` (its default when not set), as form text.
pub fn value_text(spec: &SchemeSpec, p: &ParamSpec) -> String {
    spec.params.get(p.name).unwrap_or(&p.default).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> GpuConfig {
        sim_core::gpu::presets::by_name("fermi-gtx480").unwrap_or_else(|| unreachable!())
    }

    fn param(scheme: &str, name: &str) -> ParamSpec {
        schema(scheme, &gpu()).into_iter().find(|p| p.name == name).unwrap_or_else(|| unreachable!())
    }

    #[test]
    fn duplicate_then_edit_gives_two_instances() {
        let specs = duplicate(&["baseline".to_owned(), "rfc-ob".to_owned()], 0);
        assert_eq!(specs, ["baseline", "baseline", "rfc-ob"]);
        assert!(duplicate_error(&specs).is_some_and(|e| e.contains("baseline")));
        let cu = param("baseline", "collector_units");
        let two = field_value("baseline", &cu, " 2 ");
        assert_eq!(two, Ok(ParamValue::Int(2)));
        let specs = set_param(&specs, 1, &cu, ParamValue::Int(2));
        assert_eq!(specs, ["baseline", "baseline:collector_units=2", "rfc-ob"]);
        assert_eq!(duplicate_error(&specs), None);
        // Back to the default: the override goes away.
        let back = set_param(&specs, 1, &cu, cu.default.clone());
        assert_eq!(back[1], "baseline");
        assert_eq!(remove(&specs, 0), ["baseline:collector_units=2", "rfc-ob"]);
        assert_eq!(value_text(&spec_of(&specs[1]), &cu), "2");
    }

    #[test]
    fn invalid_values_are_refused_with_the_reason() {
        let rfc = param("rfc-ob", "rfc_entries");
        let typo = field_value("rfc-ob", &rfc, "eight");
        assert_eq!(typo, Err("rfc-ob: rfc_entries must be an integer, not 'eight'".to_owned()));
        let range = field_value("rfc-ob", &rfc, "0");
        assert!(range.as_ref().is_err_and(|e| e.contains("rfc_entries") && e.contains(&rfc.range_text())), "{range:?}");
        let flag = param("rfc-ob", "two_level");
        assert_eq!(field_value("rfc-ob", &flag, "true"), Ok(ParamValue::Bool(true)));
    }
}
