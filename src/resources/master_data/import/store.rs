//! An import's reads and writes. SurrealDB's cost per write grows with the
//! writes already in its transaction, so a file is written in chunks, each
//! its own transaction, and made all or nothing another way: each chunk
//! keeps what it changed (`catalog_import_chunk`: the ids it wrote, the
//! keys it made, the records it replaced as they were), and a failure, or a
//! crash noticed later, takes every chunk back. Chunks follow one another
//! on the Company's revision, so nothing else changes the catalogue between
//! two of them.

use serde_json::Value;

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::master_data::store::BUMP_REVISION;
use crate::resources::master_data::store::RecordKind;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;

/// The Company's records of one kind as an import sees them.
#[derive(Debug, Clone, Default)]
pub struct RecordIndex {
    /// The master-data revision read.
    pub revision: i64,
    /// Each record not deleted: `rid`, `code`, `keys`, `created_at`.
    pub records: Vec<Value>,
}

/// One chunk of an import's write.
#[derive(Debug, Clone, Default)]
pub struct ImportChunk {
    /// New records (with `id` for the `INSERT`).
    pub created: Vec<Value>,
    /// Records that replace stored ones of the same code.
    pub replaced: Vec<Value>,
    /// The keys the replaced records held (`{key, rid}`), freed first
    /// unless another record of the file took them already.
    pub old_keys: Vec<Value>,
    /// Every key of the chunk's records (with `id` for the `INSERT`).
    pub keys: Vec<Value>,
    /// Those of `keys` another record holds when the chunk is written
    /// (moved from a record the file replaces later on).
    pub taken_keys: Vec<String>,
}

/// An import under way: its Company, id and kind.
#[derive(Debug, Clone, Copy)]
pub struct ImportBatch<'a> {
    /// The Company.
    pub company: &'a str,
    /// The import's id (`imp_...`).
    pub batch: &'a str,
    /// What it writes.
    pub kind: RecordKind,
}

impl Store {
    /// Every record of `kind` not deleted, and the revision read.
    pub async fn record_index(&self, kind: RecordKind, company: &str) -> ApiResult<RecordIndex> {
        let read: Option<Value> = first(
            self.db
                .query(
                    "RETURN {
                         revision: (type::record('master_revision', [$company]).revision) ?? 0,
                         records: (SELECT rid, code, keys, created_at FROM type::table($table)
                             WHERE company = $company AND deleted_at = NONE),
                     }",
                )
                .bind(("company", company.to_string()))
                .bind(("table", kind.table)),
        )
        .await?;
        let read = read.unwrap_or_default();
        Ok(RecordIndex {
            revision: read["revision"].as_i64().unwrap_or(0),
            records: read["records"].as_array().cloned().unwrap_or_default(),
        })
    }

    /// Records the import as under way at `now`; `concurrent_modification`
    /// when the master data moved past `expected` since its checks.
    pub async fn start_import(
        &self,
        import: ImportBatch<'_>,
        expected: i64,
        now: &Value,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             IF ((type::record('master_revision', [$company]).revision) ?? 0) != $expected {{
                 THROW '{REFUSED}{moved}|the catalogue changed while the file was checked; import it again';
             }};
             CREATE type::record('catalog_import', [$company, $batch]) CONTENT {{
                 company: $company, batch: $batch, table: $table, keys_table: $keys_table,
                 state: 'writing', chunks: 0, started_at: $now, heartbeat_at: $now,
             }} RETURN NONE;
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code(),
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", import.company.to_string()))
                .bind(("batch", import.batch.to_string()))
                .bind(("table", import.kind.table))
                .bind(("keys_table", import.kind.keys_table))
                .bind(("expected", expected))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// Writes chunk number `number` of the import, keeping what it changed;
    /// `concurrent_modification` when the master data is no longer at
    /// `expected` or the import was taken back.
    pub async fn write_import_chunk(
        &self,
        import: ImportBatch<'_>,
        (number, expected): (u64, i64),
        chunk: &ImportChunk,
        now: &Value,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $import = type::record('catalog_import', [$company, $batch]);
             IF ($import.state) != 'writing' {{
                 THROW '{REFUSED}{moved}|the import was taken back (it stalled); import the file again';
             }};
             IF ((type::record('master_revision', [$company]).revision) ?? 0) != $expected {{
                 THROW '{REFUSED}{moved}|the catalogue changed while the file was written; import it again';
             }};
             -- What it changes, as it was: the records it replaces, the
             -- keys it gives that other records hold.
             LET $replaced_ids = $replaced_rids.map(|$rid| type::record('{table}', [$company, $rid]));
             LET $taken_ids = $taken.map(|$key| type::record('{keys_table}', [$company, $key]));
             LET $previous = IF array::len($replaced_ids) > 0 {{ SELECT * FROM $replaced_ids }} ELSE {{ [] }};
             LET $previous_keys = IF array::len($taken_ids) > 0 {{ SELECT * FROM $taken_ids }} ELSE {{ [] }};
             FOR $old IN $old_keys {{
                 DELETE type::record('{keys_table}', [$company, $old.key]) WHERE rid = $old.rid RETURN NONE;
             }};
             FOR $taken IN $taken_ids {{
                 DELETE $taken RETURN NONE;
             }};
             FOR $document IN $replaced {{
                 UPSERT type::record('{table}', [$company, $document.rid]) CONTENT $document RETURN NONE;
             }};
             IF array::len($created) > 0 {{
                 INSERT INTO {table} $created RETURN NONE;
             }};
             INSERT INTO {keys_table} $keys RETURN NONE;
             CREATE type::record('catalog_import_chunk', [$company, $batch, $number]) CONTENT {{
                 company: $company, batch: $batch, number: $number,
                 written: $written, keys: $key_names,
                 previous: $previous, previous_keys: $previous_keys, freed: $old_keys,
             }} RETURN NONE;
             UPDATE $import SET chunks = $number + 1, heartbeat_at = $now RETURN NONE;
             {BUMP_REVISION}
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code(),
            table = import.kind.table,
            keys_table = import.kind.keys_table,
        );
        // Plain values: the record ids are built in the query.
        let rid_of = |document: &Value| document["rid"].as_str().unwrap_or_default().to_string();
        let written: Vec<String> = chunk
            .created
            .iter()
            .chain(&chunk.replaced)
            .map(rid_of)
            .collect();
        let key_names: Vec<Value> = chunk.keys.iter().map(|key| key["id"][1].clone()).collect();
        let replaced_rids: Vec<String> = chunk.replaced.iter().map(rid_of).collect();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", import.company.to_string()))
                .bind(("batch", import.batch.to_string()))
                .bind(("number", number))
                .bind(("written", written.clone()))
                .bind(("key_names", key_names.clone()))
                .bind(("replaced_rids", replaced_rids.clone()))
                .bind(("taken", chunk.taken_keys.clone()))
                .bind(("expected", expected))
                .bind(("old_keys", chunk.old_keys.clone()))
                .bind(("replaced", chunk.replaced.clone()))
                .bind(("created", chunk.created.clone()))
                .bind(("keys", chunk.keys.clone()))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// Marks the import done: its chunks are kept no more.
    pub async fn finish_import(&self, import: ImportBatch<'_>) -> ApiResult<()> {
        self.transact(|db| {
            db.query(
                "BEGIN TRANSACTION;
                 UPDATE type::record('catalog_import', [$company, $batch]) SET state = 'done' RETURN NONE;
                 DELETE catalog_import_chunk WHERE company = $company AND batch = $batch RETURN NONE;
                 COMMIT TRANSACTION;",
            )
            .bind(("company", import.company.to_string()))
            .bind(("batch", import.batch.to_string()))
        })
        .await?;
        Ok(())
    }

    /// Takes back every chunk the import wrote, last first, each in its own
    /// transaction (so taking back is as cheap as writing): its records
    /// deleted or put back as they were, its keys deleted and those of the
    /// records put back made again. Safe to run again after a crash.
    pub async fn roll_back_import(&self, import: ImportBatch<'_>) -> ApiResult<()> {
        self.transact(|db| {
            db.query("UPDATE type::record('catalog_import', [$company, $batch]) SET state = 'rolling_back' RETURN NONE;")
                .bind(("company", import.company.to_string()))
                .bind(("batch", import.batch.to_string()))
        })
        .await?;
        let numbers: Vec<i64> = first(
            self.db
                .query(
                    "SELECT VALUE number FROM catalog_import_chunk
                         WHERE company = $company AND batch = $batch ORDER BY number DESC",
                )
                .bind(("company", import.company.to_string()))
                .bind(("batch", import.batch.to_string())),
        )
        .await?;
        let query = format!(
            "BEGIN TRANSACTION;
             LET $chunk = type::record('catalog_import_chunk', [$company, $batch, $number]).*;
             IF $chunk != NONE {{
                 -- Undone in the reverse order of the chunk: its keys, the
                 -- keys it freed, then its records.
                 FOR $k IN $chunk.keys {{
                     DELETE type::record('{keys_table}', [$company, $k]) RETURN NONE;
                 }};
                 FOR $held IN $chunk.previous_keys {{
                     IF $held.id {{
                         UPSERT $held.id CONTENT $held RETURN NONE;
                     }};
                 }};
                 FOR $old IN $chunk.freed {{
                     UPSERT type::record('{keys_table}', [$company, $old.key])
                         SET company = $company, rid = $old.rid RETURN NONE;
                 }};
                 FOR $rid IN $chunk.written {{
                     DELETE type::record('{table}', [$company, $rid]) RETURN NONE;
                 }};
                 FOR $document IN $chunk.previous {{
                     UPSERT $document.id CONTENT $document RETURN NONE;
                 }};
                 DELETE type::record('catalog_import_chunk', [$company, $batch, $number]) RETURN NONE;
                 {BUMP_REVISION}
             }};
             COMMIT TRANSACTION;",
            table = import.kind.table,
            keys_table = import.kind.keys_table,
        );
        for number in numbers {
            self.transact(|db| {
                db.query(query.as_str())
                    .bind(("company", import.company.to_string()))
                    .bind(("batch", import.batch.to_string()))
                    .bind(("number", number))
            })
            .await?;
        }
        self.transact(|db| {
            db.query("UPDATE type::record('catalog_import', [$company, $batch]) SET state = 'rolled_back' RETURN NONE;")
                .bind(("company", import.company.to_string()))
                .bind(("batch", import.batch.to_string()))
        })
        .await?;
        Ok(())
    }

    /// Imports left unfinished (their process stopped) whose last chunk is
    /// older than `stalled_before`: (Company, batch, table).
    pub async fn stalled_imports(
        &self,
        stalled_before: &Value,
    ) -> ApiResult<Vec<(String, String, String)>> {
        first_rows(self.db
                .query(
                    "SELECT company, batch, table FROM catalog_import
                         WHERE (state = 'writing' AND heartbeat_at < $before) OR state = 'rolling_back'",
                )
                .bind(("before", stalled_before.clone())), &["company", "batch", "table"]).await
    }
}
