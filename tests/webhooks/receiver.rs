//! A webhook receiver on loopback: it records every request and answers
//! the statuses it is given, in turn (then 200); `None` hangs up without
//! answering after holding the request for `hold`.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    /// Its headers, by lower-case name.
    pub headers: HashMap<String, String>,
    /// Its body, as sent.
    pub body: String,
}

/// A running receiver.
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    seen: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    /// A receiver answering `answers` in turn (`None`: no answer for
    /// `hold`), then 200.
    pub async fn start(answers: Vec<Option<u16>>, hold: Duration) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let answers = Arc::new(Mutex::new(VecDeque::from(answers)));
        let recorded = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let recorded = recorded.clone();
                let answers = answers.clone();
                tokio::spawn(async move {
                    let Some(received) = read_request(&mut socket).await else {
                        return;
                    };
                    recorded.lock().unwrap().push(received);
                    let answer = answers.lock().unwrap().pop_front().unwrap_or(Some(200));
                    match answer {
                        Some(status) => {
                            let head = format!(
                                "HTTP/1.1 {status} Answer\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            );
                            let _ = socket.write_all(head.as_bytes()).await;
                        }
                        None => tokio::time::sleep(hold).await,
                    }
                });
            }
        });
        Receiver { addr, seen }
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// What it got so far.
    pub fn received(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// Waits (at most `within`) until it got `count` requests; what it got.
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let received = self.received();
            if received.len() >= count || tokio::time::Instant::now() >= deadline {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// One HTTP/1.1 request read from `socket`: its head and its body
/// (`content-length` bytes).
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Received> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..read]);
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let headers: HashMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_string()))
        .collect();
    let length: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = bytes[head_end + 4..].to_vec();
    while body.len() < length {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Some(Received {
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
