//! The documented `{error, code}` body for requests refused below the API,
//! by the HTTP/1.1 parser itself: a header holding a bare CR or a NUL (400
//! `malformed_request`), a URL over 65,534 bytes (414 `url_too_long`), more
//! than 100 headers or 408 KiB of head (431 `headers_too_large`).
//!
//! The parser answers those before any endpoint or middleware runs, with a
//! head alone: no body, `connection: close`. [`JsonWireErrors`] wraps every
//! accepted connection in [`AnswersInJson`], which recognizes that answer as
//! it is written and sends it with the error body every other refusal
//! carries. The answer is recognized, not guessed: it is the last thing
//! written on the connection (the parser closes it after), a head of status
//! 400, 414 or 431 with `content-length: 0` and `connection: close` that ends
//! the buffer; no endpoint of the service answers a 4xx without a JSON body.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use poem::http::uri::Scheme;
use poem::listener::Acceptor;
use poem::web::{LocalAddr, RemoteAddr};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::error::JSON_CONTENT_TYPE;

/// An acceptor whose connections answer the parser's refusals in JSON.
#[derive(Debug)]
pub struct JsonWireErrors<A>(pub A);

impl<A: Acceptor> Acceptor for JsonWireErrors<A> {
    type Io = AnswersInJson<A::Io>;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.0.local_addr()
    }

    async fn accept(&mut self) -> io::Result<(Self::Io, LocalAddr, RemoteAddr, Scheme)> {
        let (io, local, remote, scheme) = self.0.accept().await?;
        Ok((AnswersInJson::new(io), local, remote, scheme))
    }
}

/// A connection that rewrites the parser's bodiless refusal into the
/// documented error body; every other byte passes through unchanged.
#[derive(Debug)]
pub struct AnswersInJson<Io> {
    inner: Io,
    /// The rewritten refusal and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<Io> AnswersInJson<Io> {
    /// Wraps `inner`.
    pub fn new(inner: Io) -> Self {
        AnswersInJson {
            inner,
            pending: None,
        }
    }
}

impl<Io: AsyncWrite + Unpin> AnswersInJson<Io> {
    /// Writes what is left of the rewritten refusal.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<Io: AsyncRead + Unpin> AsyncRead for AnswersInJson<Io> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<Io: AsyncWrite + Unpin> AsyncWrite for AnswersInJson<Io> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        match parser_refusal(buf) {
            // What precedes the refusal goes first, as it is; the parser
            // writes the rest again, the refusal still at its end.
            Some((start, _)) if start > 0 => {
                Pin::new(&mut self.inner).poll_write(cx, &buf[..start])
            }
            Some((_, code)) => {
                tracing::debug!(code = code.code(), "request refused by the HTTP parser");
                self.pending = Some((in_json(&buf[..buf.len() - 2], code), 0));
                // Taken whole: the rest is written by the next write, flush
                // or shutdown.
                match self.poll_pending(cx) {
                    Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
                    _ => Poll::Ready(Ok(buf.len())),
                }
            }
            None => Pin::new(&mut self.inner).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    /// Not vectored, so the parser hands each flush over as one buffer and
    /// its refusal is always seen whole, at that buffer's end.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// Where the parser's bodiless refusal starts in `buf`, and its code, when
/// `buf` ends with one.
fn parser_refusal(buf: &[u8]) -> Option<(usize, ErrorCode)> {
    if !buf.ends_with(b"\r\n\r\n") {
        return None;
    }
    let start = buf.windows(7).rposition(|window| window == b"HTTP/1.")?;
    let head = std::str::from_utf8(&buf[start..]).ok()?;
    let (status_line, headers) = head.split_once("\r\n")?;
    // One head, ending the buffer: no other blank line inside.
    if headers.len() > 2 && headers[..headers.len() - 2].contains("\r\n\r\n") {
        return None;
    }
    let code = match status_line.get(9..13)? {
        "400 " => ErrorCode::MalformedRequest,
        "414 " => ErrorCode::UrlTooLong,
        "431 " => ErrorCode::HeadersTooLarge,
        _ => return None,
    };
    let mut lines = headers.split("\r\n").map(str::to_ascii_lowercase);
    let bodiless = lines.clone().any(|line| line == "content-length: 0");
    let closing = lines.any(|line| line == "connection: close");
    (bodiless && closing).then_some((start, code))
}

/// The refusal `head` (without its final blank line) sent with the error
/// body of `code`.
fn in_json(head: &[u8], code: ErrorCode) -> Vec<u8> {
    let message = match code {
        ErrorCode::UrlTooLong => "the URL is longer than 65,534 bytes",
        ErrorCode::HeadersTooLarge => {
            "the request sends more than 100 headers or more than 408 KiB of request line and headers"
        }
        _ => {
            "the request is not valid HTTP/1.1: a header holds a character HTTP forbids (such as a bare CR or a NUL) or a line is malformed"
        }
    };
    let body = ApiError::new(code, message).body().to_string();
    let mut answer = Vec::with_capacity(head.len() + body.len() + 64);
    for line in head.split(|byte| *byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.eq_ignore_ascii_case(b"content-length: 0") {
            continue;
        }
        answer.extend_from_slice(line);
        answer.extend_from_slice(b"\r\n");
    }
    answer.extend_from_slice(format!("content-type: {JSON_CONTENT_TYPE}\r\n").as_bytes());
    answer.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    answer.extend_from_slice(body.as_bytes());
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFUSAL: &[u8] =
        b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Sun, 29 Nov 2026 02:18:09 GMT\r\n\r\n";

    #[test]
    fn the_parsers_refusal_is_found_at_the_end_of_what_is_written() {
        assert_eq!(
            parser_refusal(REFUSAL),
            Some((0, ErrorCode::HeadersTooLarge))
        );
        let answered =
            b"HTTP/1.1 403 Forbidden\r\ncontent-length: 23\r\n\r\n{\"message\":\"Forbidden\"}";
        let both = [answered.as_slice(), REFUSAL].concat();
        assert_eq!(
            parser_refusal(&both),
            Some((answered.len(), ErrorCode::HeadersTooLarge))
        );
    }

    #[test]
    fn answers_of_the_service_are_left_alone() {
        let cases: [&[u8]; 4] = [
            // A 400 with a body.
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{\"code\":\"x\"}",
            // A bodiless 204 that keeps the connection.
            b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n",
            // A bodiless 400 that keeps the connection.
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n",
            // Half a head.
            b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\n",
        ];
        for case in cases {
            assert_eq!(
                parser_refusal(case),
                None,
                "{}",
                String::from_utf8_lossy(case)
            );
        }
    }

    #[test]
    fn the_refusal_keeps_its_head_and_gains_the_error_body() {
        let answer = in_json(&REFUSAL[..REFUSAL.len() - 2], ErrorCode::HeadersTooLarge);
        let text = String::from_utf8(answer).expect("ASCII");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("connection: close\r\ndate: Sun, 29 Nov 2026"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(!head.contains("content-length: 0"));
        let body: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(body["code"], "headers_too_large");
    }
}
