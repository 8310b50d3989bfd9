//! Integration tests of the server through its public surface: the router, the binary and
//! the store. One test binary so it links once.

mod cli;
mod health;
mod ssr;
mod store;
mod support;
