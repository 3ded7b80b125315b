//! `loyalty export`: a Company's records of a period as NDJSON, written to
//! stdout or a file while the back office streams them (or, with no server
//! running, while the store itself is read), with its progress on a
//! terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use crate::cli::back_office::back_office;
use crate::cli::back_office_client::BackOffice;
use crate::cli::back_office_client::answer;
use crate::common::process::peak_resident_bytes;
use crate::common::url::encode_component;
use crate::config::ExportArgs;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::back_office::API_PREFIX;
use crate::resources::exports::model::{ExportWhat, Period};
use crate::resources::exports::stream::chunk_channel;

/// Runs `loyalty export`.
pub(crate) async fn export(args: ExportArgs) -> ApiResult<()> {
    let office = back_office(&args.back_office, None).await?;
    let cannot_write = |error: std::io::Error| {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!("cannot write the export: {error}"),
        )
    };
    let mut out: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(cannot_write)?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let request = ExportRequest {
        company: &args.company,
        what: args.what,
        from: args.from.as_deref(),
        to: args.to.as_deref(),
    };
    office
        .export(&request, |chunk| {
            out.write_all(chunk)?;
            progress.add(chunk);
            Ok(())
        })
        .await?;
    out.flush().map_err(cannot_write)?;
    progress.finish(args.out.as_deref());
    Ok(())
}

/// What an export asks for.
pub struct ExportRequest<'a> {
    /// The Company.
    pub company: &'a str,
    /// The records.
    pub what: ExportWhat,
    /// The first day or instant.
    pub from: Option<&'a str>,
    /// The last day, or the instant after the period.
    pub to: Option<&'a str>,
}

impl BackOffice {
    /// Exports what `request` asks, handing `write` the NDJSON a chunk at a
    /// time as it comes; fails when the export is cut short, so a partial
    /// one is never taken for whole.
    pub async fn export(
        &self,
        request: &ExportRequest<'_>,
        mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> ApiResult<()> {
        let cut_short = |error: String| {
            ApiError::new(
                ErrorCode::ServerError,
                format!("the export was cut short: {error}"),
            )
        };
        let written = |result: std::io::Result<()>| {
            result.map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!("cannot write the export: {e}"),
                )
            })
        };
        match self {
            BackOffice::Local(services) => {
                let company = services.company(request.company).await?;
                let period = Period::read(request.from, request.to, &company.locale())?;
                let (sink, mut reader) = chunk_channel();
                let services = services.clone();
                let (slug, what) = (request.company.to_string(), request.what);
                let producer = tokio::spawn(async move {
                    services.export_records(&slug, what, period, &sink).await
                });
                let mut buffer = vec![0u8; 64 * 1024];
                loop {
                    let read = reader
                        .read(&mut buffer)
                        .await
                        .map_err(|e| cut_short(e.to_string()))?;
                    if read == 0 {
                        break;
                    }
                    written(write(&buffer[..read]))?;
                }
                producer
                    .await
                    .map_err(|e| cut_short(e.to_string()))?
                    .map(drop)
            }
            BackOffice::Remote {
                client,
                base_url,
                token,
            } => {
                let mut url = format!(
                    "{base_url}{API_PREFIX}/companies/{}/export?what={}",
                    encode_component(request.company),
                    request.what.as_str(),
                );
                for (name, value) in [("from", request.from), ("to", request.to)] {
                    if let Some(value) = value {
                        url.push_str(&format!("&{name}={}", encode_component(value)));
                    }
                }
                let mut response =
                    client
                        .get(&url)
                        .bearer_auth(token)
                        .send()
                        .await
                        .map_err(|e| {
                            ApiError::new(
                                ErrorCode::StoreUnavailable,
                                format!("calling {url}: {e}"),
                            )
                        })?;
                if !response.status().is_success() {
                    // The refusal, in the documented shape.
                    return answer::<serde_json::Value>(&url, response).await.map(drop);
                }
                while let Some(chunk) = response
                    .chunk()
                    .await
                    .map_err(|e| cut_short(e.to_string()))?
                {
                    written(write(&chunk))?;
                }
                Ok(())
            }
        }
    }
}

/// An export's progress on a terminal: rows and bytes so far, at most ten
/// times a second.
struct Progress {
    shown: bool,
    rows: u64,
    bytes: u64,
    started: Instant,
    last_shown: Option<Instant>,
}

impl Progress {
    fn new(shown: bool) -> Progress {
        Progress {
            shown,
            rows: 0,
            bytes: 0,
            started: Instant::now(),
            last_shown: None,
        }
    }

    /// Counts `chunk`, whole lines of NDJSON or parts of them.
    fn add(&mut self, chunk: &[u8]) {
        self.rows += chunk.iter().filter(|byte| **byte == b'\n').count() as u64;
        self.bytes += chunk.len() as u64;
        let due = self
            .last_shown
            .is_none_or(|at| at.elapsed() >= Duration::from_millis(100));
        if self.shown && due {
            self.last_shown = Some(Instant::now());
            eprint!("\r{}", self.line());
        }
    }

    fn line(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(0.001);
        format!(
            "{} rows · {:.1} MB · {:.0} rows/s   ",
            self.rows,
            self.bytes as f64 / 1_000_000.0,
            self.rows as f64 / seconds
        )
    }

    /// The last line: on the terminal, or as a note when the rows went to
    /// a file, with the most memory the export held at once (it streams:
    /// that stays the same however many rows there are).
    fn finish(&self, out: Option<&std::path::Path>) {
        let peak = peak_resident_bytes()
            .map(|bytes| format!(", peak memory {:.1} MB", bytes as f64 / 1_000_000.0))
            .unwrap_or_default();
        if self.shown {
            eprintln!("\r{}{peak}", self.line());
        } else if let Some(out) = out {
            eprintln!(
                "{} row{} ({:.1} MB) written to {}{peak}",
                self.rows,
                if self.rows == 1 { "" } else { "s" },
                self.bytes as f64 / 1_000_000.0,
                out.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn progress_counts_rows_across_chunks() {
        let mut progress = Progress::new(false);
        progress.add(b"{\"a\":1}\n{\"b\"");
        progress.add(b":2}\n");
        assert_eq!((progress.rows, progress.bytes), (2, 16));
    }
}
