//! What changes from one run of a scenario to the next, replaced in its
//! answers so that snapshots stay stable: Customer ids by their scenario
//! names, generated ids by their kind, Voucher codes, wall-clock times, the
//! temporary folder of inline campaigns and the campaigns folder (wherever
//! it lies, the same file reads `{{campaigns}}/demo/x.yaml:3`).

use std::collections::BTreeMap;

use serde_json::Value;

/// Identifiers and instants that change from run to run, replaced so
/// snapshots stay stable: Customer ids by their scenario names, generated
/// ids by their kind, Voucher codes, wall-clock times, and the folder
/// `campaigns` (as the service writes it in `source` and `at`).
pub(crate) fn redact(value: &Value, ids: &BTreeMap<String, String>, campaigns: &str) -> Value {
    const GENERATED: [&str; 17] = [
        "evt_", "pt_", "op_", "drw_", "vch_", "lrh_", "ch_", "lk_", "ls_", "dtx_", "rdm_", "rsv_",
        "rwt_", "prd_", "loc_", "ftr_", "imp_",
    ];
    match value {
        Value::String(text) => {
            let mut text = text.clone();
            if let Some(within) = text
                .strip_prefix(campaigns)
                .filter(|rest| !campaigns.is_empty() && rest.starts_with('/'))
            {
                text = format!("{{{{campaigns}}}}{within}");
            }
            for (name, id) in ids {
                text = text.replace(id.as_str(), &format!("{{{{{name}}}}}"));
            }
            // An id alone (`evt_...`) or at the end of a source key
            // (`custom_event:evt_...`).
            if let Some(prefix) = GENERATED.iter().find(|prefix| text.starts_with(**prefix)) {
                return Value::String(format!("[{prefix}]"));
            }
            let (kind, id) = text.rsplit_once(':').unwrap_or(("", ""));
            match GENERATED.iter().find(|prefix| id.starts_with(**prefix)) {
                Some(prefix) => Value::String(format!("{kind}:[{prefix}]")),
                None => Value::String(text),
            }
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| redact(v, ids, campaigns)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    // Instants the service stamps itself (`created_at`,
                    // `enrolled_at`, ...); `expires_at` comes from the scenario.
                    let wall_clock = key.ends_with("_at") && key != "expires_at";
                    let value = if wall_clock && v.is_string() {
                        Value::String("[time]".into())
                    } else if key == "voucher_code" && v.is_string() {
                        Value::String("[voucher_code]".into())
                    } else if let Some(inline) = v.as_str().and_then(inline_source) {
                        Value::String(inline)
                    } else {
                        redact(v, ids, campaigns)
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// An explanation's `source` in a scenario's inline campaigns (a
/// temporary folder of its own, [`write_inline`]) as `{{inline}}/...`.
fn inline_source(text: &str) -> Option<String> {
    let start = text.find(INLINE_PREFIX)?;
    let rest = &text[start..];
    let end = rest.find('/')?;
    Some(format!("{{{{inline}}}}{}", &rest[end..]))
}

/// How the temporary folders of inline campaigns are named.
pub(crate) const INLINE_PREFIX: &str = "loyalty-scenario-";
