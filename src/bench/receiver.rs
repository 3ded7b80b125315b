//! A webhook receiver for `loyalty bench --webhook`: on loopback, it
//! answers 200 to every request at once and counts them, so that a run
//! measures what reporting every change costs the server, not a receiver.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A running receiver.
pub struct WebhookReceiver {
    /// The URL an endpoint points at.
    pub url: String,
    received: Arc<AtomicU64>,
}

impl WebhookReceiver {
    /// Starts a receiver on a free loopback port.
    pub async fn start() -> anyhow::Result<WebhookReceiver> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hooks", listener.local_addr()?);
        let received = Arc::new(AtomicU64::new(0));
        let counted = received.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer_each(stream, counted.clone()));
            }
        });
        Ok(WebhookReceiver { url, received })
    }

    /// Requests received so far.
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }
}

/// Answers 200 to each request of a kept-alive connection until it closes.
async fn answer_each(mut stream: TcpStream, received: Arc<AtomicU64>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        // A request is its headers and `Content-Length` bytes of body.
        let request_end = loop {
            if let Some(end) = complete_request(&buffer) {
                break end;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        };
        buffer.drain(..request_end);
        received.fetch_add(1, Ordering::Relaxed);
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        if stream.write_all(answer).await.is_err() {
            return;
        }
    }
}

/// Where the first request of `buffer` ends, when it is all there.
fn complete_request(buffer: &[u8]) -> Option<usize> {
    let head_end = buffer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buffer[..head_end]);
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    (buffer.len() >= head_end + length).then_some(head_end + length)
}

#[cfg(test)]
mod tests {
    use super::complete_request;

    #[test]
    fn a_request_is_complete_with_its_whole_body() {
        let request = b"POST /hooks HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody";
        assert_eq!(complete_request(request), Some(request.len()));
        assert_eq!(complete_request(&request[..request.len() - 1]), None);
        assert_eq!(complete_request(b"GET / HTTP/1.1\r\n"), None);
    }
}
