//! The database: connections, migrations and entities. One schema serves the embedded SQLite
//! file (local use) and PostgreSQL (hosted teams).

pub mod connect;
pub mod entity;
pub mod migration;

pub use connect::{Db, connect};
