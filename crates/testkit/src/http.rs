//! Plain HTTP/1.0 requests for the tests and examples: the status and
//! body of one request, or an error when the server is gone.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One request, its status and body; an error when the server is gone.
pub fn try_call(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    s.write_all(body)?;
    let mut all = Vec::new();
    s.read_to_end(&mut all)?;
    let text = String::from_utf8_lossy(&all).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or(std::io::ErrorKind::UnexpectedEof)?;
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).ok_or(std::io::ErrorKind::InvalidData)?;
    Ok((code, body.to_string()))
}

/// [`try_call`] that must reach the server.
pub fn call(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    try_call(addr, method, path, headers, body).unwrap()
}
