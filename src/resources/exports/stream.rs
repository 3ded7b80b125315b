//! A response body written while it is sent: the producer hands it chunks
//! through a channel of a few, so it waits for a slow client instead of
//! holding the whole export in memory, and an error it meets cuts the
//! response short (the client sees the body end without its last chunk,
//! never a body that looks whole).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;

/// Chunks the producer may have written ahead of the client.
const CHUNKS_AHEAD: usize = 4;

/// Where a producer writes its chunks.
pub type ChunkSink = mpsc::Sender<io::Result<Vec<u8>>>;

/// The body side of the channel, read as bytes.
pub struct ChunkReader {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    read: usize,
}

/// A channel of chunks: the sink a producer writes to and the reader a
/// response body reads from.
pub fn chunk_channel() -> (ChunkSink, ChunkReader) {
    let (sink, chunks) = mpsc::channel(CHUNKS_AHEAD);
    (
        sink,
        ChunkReader {
            chunks,
            current: Vec::new(),
            read: 0,
        },
    )
}

impl AsyncRead for ChunkReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let this = &mut *self;
            if this.read < this.current.len() {
                let taken = buffer.remaining().min(this.current.len() - this.read);
                buffer.put_slice(&this.current[this.read..this.read + taken]);
                this.read += taken;
                return Poll::Ready(Ok(()));
            }
            match ready!(this.chunks.poll_recv(context)) {
                Some(Ok(chunk)) => {
                    this.current = chunk;
                    this.read = 0;
                }
                Some(Err(error)) => return Poll::Ready(Err(error)),
                None => return Poll::Ready(Ok(())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn the_reader_gives_the_chunks_in_order_then_ends_or_fails() {
        let (sink, mut reader) = chunk_channel();
        tokio::spawn(async move {
            for chunk in [&b"{\"a\":1}\n"[..], b"", b"{\"b\":2}\n"] {
                sink.send(Ok(chunk.to_vec())).await.unwrap();
            }
        });
        let mut text = String::new();
        reader.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "{\"a\":1}\n{\"b\":2}\n");

        let (sink, mut reader) = chunk_channel();
        tokio::spawn(async move {
            sink.send(Ok(b"{}\n".to_vec())).await.unwrap();
            sink.send(Err(io::Error::other("the store failed")))
                .await
                .unwrap();
        });
        let mut text = String::new();
        assert!(reader.read_to_string(&mut text).await.is_err());
    }
}
