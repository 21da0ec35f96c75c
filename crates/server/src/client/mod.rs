//! The server as a client: one request sent over HTTP and its stream
//! recorded ([`send`]) over a keep-alive HTTP/1.1 or HTTP/2 client with TLS
//! ([`tls`]). The built-in load ([`crate::replay::load`]) sends with it, and
//! so does `latency-lab run`.

pub mod send;
pub mod tls;
