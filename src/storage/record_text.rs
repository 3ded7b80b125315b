//! A record id written as SurrealQL text, for a statement to read many
//! records at once: `(<array<record>> $ids).field` reads each record of the
//! list in a few microseconds, where a closure building each id
//! (`$rows.map(|$row| type::record('t', $row.id))`) costs some 45 µs per row
//! (BENCHMARKS.md, "Reading a record by its id"). The text is SurrealDB's own
//! rendering of the id, so a key holding quotes, brackets or any other
//! character reads the record it names.

use serde_json::Value;
use surrealdb::types::{RecordId, RecordIdKey, SurrealValue, ToSql};

/// The SurrealQL text of the record of `table` whose key is `key` (a string,
/// an integer or an array of them, as the rows' `id`), or `None` for a key of
/// another shape.
pub(crate) fn record_text(table: &str, key: &Value) -> Option<String> {
    let key = match key.clone().into_value() {
        surrealdb::types::Value::Array(parts) => RecordIdKey::Array(parts),
        surrealdb::types::Value::String(text) => RecordIdKey::String(text),
        surrealdb::types::Value::Number(surrealdb::types::Number::Int(number)) => {
            RecordIdKey::Number(number)
        }
        _ => return None,
    };
    Some(RecordId::new(table, key).to_sql())
}

/// [`record_text`] as a row of a batch's binding: null for a key of
/// another shape, which the statement's cast then refuses.
pub(crate) fn record_value(table: &str, key: &Value) -> Value {
    record_text(table, key).map_or(Value::Null, Value::String)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Store;
    use serde_json::json;

    #[tokio::test]
    async fn the_text_of_a_key_of_any_characters_reads_its_record() {
        let store = Store::connect("mem://", None).await.unwrap();
        let keys = [
            json!(["acme", "plain"]),
            json!(["acme", "it's a \\ back'slash"]),
            json!(["ac`me", "⟨bracketed⟩ ] ) ; DELETE cart;"]),
            json!(["acme", 42, "gift", 0]),
            json!("solo'key"),
            json!(7),
        ];
        let rows: Vec<Value> = keys
            .iter()
            .enumerate()
            .map(|(n, key)| json!({"id": key, "n": n}))
            .collect();
        store
            .db
            .query("INSERT INTO probe_record $rows RETURN NONE")
            .bind(("rows", Value::Array(rows)))
            .await
            .unwrap()
            .check()
            .unwrap();
        let mut texts: Vec<String> = keys
            .iter()
            .map(|key| record_text("probe_record", key).unwrap())
            .collect();
        texts.push(record_text("probe_record", &json!(["acme", "missing"])).unwrap());
        let mut answer = store
            .db
            .query("RETURN (<array<record>> $ids).n")
            .bind(("ids", texts))
            .await
            .unwrap();
        let found: Vec<Option<i64>> = answer.take(0).unwrap();
        assert_eq!(
            found,
            vec![Some(0), Some(1), Some(2), Some(3), Some(4), Some(5), None]
        );
        assert_eq!(record_text("probe_record", &json!({"a": 1})), None);
    }
}
