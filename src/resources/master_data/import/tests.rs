//! Taking an import back restores the catalogue exactly, whatever its
//! chunks replaced and whichever keys moved between records.

use serde_json::{Value, json};

use crate::resources::master_data::import::store::{ImportBatch, ImportChunk};
use crate::resources::master_data::store::RecordWrite;
use crate::resources::products::service::PRODUCTS;
use crate::storage::Store;
use crate::storage::first;

/// A stored Product `rid` with `keys` (its code first).
fn product(rid: &str, keys: &[&str], name: &str) -> Value {
    json!({"rid": rid, "code": keys[0], "name": name, "aliases": keys[1..], "feature_keys": [],
           "discountable": true, "company": "demo", "created_at": "2026-11-01T00:00:00Z"})
}

/// Every Product and key of the Company, in id order.
async fn catalogue(store: &Store) -> (Vec<Value>, Vec<Value>) {
    let products: Vec<Value> = first(store.db.query("SELECT * FROM product ORDER BY id"))
        .await
        .unwrap();
    let keys: Vec<Value> = first(store.db.query("SELECT * FROM product_key ORDER BY id"))
        .await
        .unwrap();
    (products, keys)
}

/// A chunk replacing `rid` (holding `old`) with `keys`, at `revision`.
fn replacing(
    rid: &str,
    old: &[&str],
    keys: &[&str],
    revision: i64,
) -> (Value, Vec<Value>, Vec<Value>) {
    let mut document = product(rid, keys, "Imported");
    document["keys"] = json!(keys);
    document["revision"] = json!(revision);
    let old = old
        .iter()
        .map(|key| json!({"key": key, "rid": rid}))
        .collect();
    let keys = keys
        .iter()
        .map(|key| json!({"id": ["demo", key], "company": "demo", "rid": rid}))
        .collect();
    (document, old, keys)
}

#[tokio::test]
async fn taking_an_import_back_restores_records_and_keys_exactly() {
    let store = Store::connect("mem://", None).await.unwrap();
    for (rid, keys) in [("prd_a", ["A", "EA"]), ("prd_b", ["B", "EB"])] {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        store
            .write_master_record(
                PRODUCTS,
                "demo",
                RecordWrite {
                    document: &product(rid, &["X"], "Stored"),
                    keys: &keys,
                    feature_refs: &[],
                },
                false,
            )
            .await
            .unwrap();
    }
    let before = catalogue(&store).await;
    assert_eq!(before.1.len(), 4);

    // Chunk 0 gives A the key B held (EB); chunk 1 gives B the key A
    // freed (EA) and creates C.
    let (a, a_old, a_keys) = replacing("prd_a", &["A", "EA"], &["A", "EB"], 3);
    let (b, b_old, b_keys) = replacing("prd_b", &["B", "EB"], &["B", "EA"], 4);
    let mut c = product("prd_c", &["C"], "New");
    c["id"] = json!(["demo", "prd_c"]);
    c["keys"] = json!(["C"]);
    let chunks = [
        ImportChunk {
            created: vec![],
            replaced: vec![a],
            old_keys: a_old,
            keys: a_keys,
            taken_keys: vec!["EB".into()],
        },
        ImportChunk {
            created: vec![c],
            replaced: vec![b],
            old_keys: b_old,
            keys: [
                b_keys,
                vec![json!({"id": ["demo", "C"], "company": "demo", "rid": "prd_c"})],
            ]
            .concat(),
            taken_keys: vec!["EA".into()],
        },
    ];
    let import = ImportBatch {
        company: "demo",
        batch: "imp_test",
        kind: PRODUCTS,
    };
    let now = json!("2026-11-25T10:00:00Z");
    store.start_import(import, 2, &now).await.unwrap();
    for (number, chunk) in chunks.iter().enumerate() {
        store
            .write_import_chunk(import, (number as u64, 2 + number as i64), chunk, &now)
            .await
            .unwrap();
    }
    let (_, keys) = catalogue(&store).await;
    let holders: Vec<(String, String)> = keys
        .iter()
        .map(|k| {
            (
                k["id"].as_str().unwrap().to_string(),
                k["rid"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        holders.contains(&("product_key:['demo', 'EB']".into(), "prd_a".into())),
        "{holders:?}"
    );
    assert!(
        holders.contains(&("product_key:['demo', 'EA']".into(), "prd_b".into())),
        "{holders:?}"
    );
    assert_eq!(holders.len(), 5, "{holders:?}");

    // A chunk that finds the catalogue moved refuses and writes nothing.
    let refused = store
        .write_import_chunk(import, (2, 2), &chunks[0], &now)
        .await
        .unwrap_err();
    assert_eq!(
        refused.code,
        crate::error::ErrorCode::ConcurrentModification
    );

    store.roll_back_import(import).await.unwrap();
    assert_eq!(catalogue(&store).await, before);
    // Taking it back again changes nothing; a stalled import is found.
    store.roll_back_import(import).await.unwrap();
    assert_eq!(catalogue(&store).await, before);
    let stalled = store
        .stalled_imports(&json!("2026-11-25T11:00:00Z"))
        .await
        .unwrap();
    assert!(stalled.is_empty(), "{stalled:?}");
}
