//! A Company's records of one kind over a period, read a page at a time
//! in the order of their ids and written as NDJSON to a [`ChunkSink`], so
//! that an export of a million rows holds one page in memory.

use poem_openapi::types::ToJSON;
use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::exports::model::{ExportWhat, Period};
use crate::resources::exports::stream::ChunkSink;
use crate::services::Services;

/// Records read per page.
pub const EXPORT_PAGE: usize = 500;

/// One page of an export: its lines, and the cursor of the next page
/// (`None` after the last).
struct ExportPage {
    lines: Vec<Value>,
    next: Option<String>,
}

impl ExportPage {
    /// The page of `records` read with a limit of [`EXPORT_PAGE`], keyed
    /// by `key`, keeping those `keep` says, each as the API answers it.
    fn of<T: ToJSON>(
        records: Vec<T>,
        key: impl Fn(&T) -> String,
        keep: impl Fn(&T) -> bool,
    ) -> ExportPage {
        let next = (records.len() == EXPORT_PAGE)
            .then(|| records.last().map(&key))
            .flatten();
        ExportPage {
            lines: records
                .iter()
                .filter(|record| keep(record))
                .filter_map(ToJSON::to_json)
                .collect(),
            next,
        }
    }
}

impl Services {
    /// Writes the records `what` of `company` in `period` to `sink`, one
    /// JSON object per line, until the last or until the client is gone;
    /// how many it wrote.
    pub async fn export_records(
        &self,
        company: &str,
        what: ExportWhat,
        period: Period,
        sink: &ChunkSink,
    ) -> ApiResult<u64> {
        let mut after: Option<String> = None;
        let mut written = 0;
        loop {
            let page = self
                .export_page(company, what, period, after.as_deref())
                .await?;
            if !page.lines.is_empty() {
                let mut chunk = Vec::with_capacity(page.lines.len() * 512);
                for line in &page.lines {
                    serde_json::to_writer(&mut chunk, line).map_err(ApiError::internal)?;
                    chunk.push(b'\n');
                }
                if sink.send(Ok(chunk)).await.is_err() {
                    // The client went away: nothing more to write.
                    return Ok(written);
                }
                written += page.lines.len() as u64;
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(written),
            }
        }
    }

    /// The page of `what` after the record `after`.
    async fn export_page(
        &self,
        company: &str,
        what: ExportWhat,
        period: Period,
        after: Option<&str>,
    ) -> ApiResult<ExportPage> {
        let store = &self.store;
        Ok(match what {
            ExportWhat::Customers => {
                let customers = store
                    .search_customers(company, &[], after, EXPORT_PAGE)
                    .await?;
                ExportPage::of(customers, |c| c.id.clone(), |c| period.holds(c.created_at))
            }
            ExportWhat::Carts => {
                let carts = store.carts_after(company, after, EXPORT_PAGE).await?;
                ExportPage::of(
                    carts,
                    |cart| cart.id.clone(),
                    |cart| period.holds(cart.date),
                )
            }
            ExportWhat::Events => {
                let events = store
                    .custom_events_after(company, after, EXPORT_PAGE)
                    .await?;
                ExportPage::of(
                    events,
                    |event| event.id.clone(),
                    |event| period.holds(event.date),
                )
            }
            ExportWhat::Ledger => {
                let (entries, next) = store
                    .ledger_export(company, period, after, EXPORT_PAGE)
                    .await?;
                ExportPage {
                    lines: entries.iter().filter_map(ToJSON::to_json).collect(),
                    next,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use tokio::io::AsyncReadExt;

    use super::*;
    use crate::engine::catalog::Catalog;
    use crate::resources::exports::stream::chunk_channel;
    use crate::storage::Store;

    /// `count` carts of Customer `x` of Company `c`, stored as they are.
    async fn carts(store: &Store, count: usize) {
        let documents = (0..count)
            .map(|n| {
                json!({
                    "id": ["c", format!("T-{n:06}")], "code": format!("T-{n:06}"), "company": "c",
                    "customer_id": "x", "date": "2026-05-04T10:00:00Z",
                    "lines": [{"product_code": "A", "quantity": 1.0, "price": "2.50"}],
                    "total": "2.50", "discount_total": "0", "points_earned": 0,
                    "created_at": "2026-05-04T10:00:01Z",
                })
            })
            .collect();
        store.insert_raw_documents("cart", documents).await.unwrap();
    }

    #[tokio::test]
    async fn an_export_reads_a_few_pages_ahead_of_its_reader_and_then_every_record_once() {
        const CARTS: usize = 20 * EXPORT_PAGE;
        let store = Store::connect("mem://", None).await.unwrap();
        carts(&store, CARTS).await;
        let services = Services::new(store, None, Arc::new(Catalog::empty()));
        let (sink, mut reader) = chunk_channel();
        let before = services.store.queries_sent();
        let exporting = services.clone();
        let producer = tokio::spawn(async move {
            exporting
                .export_records("c", ExportWhat::Carts, Period::default(), &sink)
                .await
        });
        // Nobody reads: the export stops when the channel is full.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let read_ahead = services.store.queries_sent() - before;
        assert!(
            !producer.is_finished() && read_ahead <= 6,
            "{read_ahead} pages read ahead of a reader that reads nothing"
        );
        let mut text = String::new();
        reader.read_to_string(&mut text).await.unwrap();
        assert_eq!(producer.await.unwrap().unwrap(), CARTS as u64);
        let codes: Vec<String> = text
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap()["id"].to_string())
            .collect();
        assert_eq!(codes.len(), CARTS);
        assert!(
            codes.windows(2).all(|pair| pair[0] < pair[1]),
            "in id order, each once"
        );
    }
}
