//! sea-orm entities, one file per table. They never leave the server: the browser gets
//! purpose-named types from `app`.

pub mod agent;
pub mod agent_card_snapshot;
pub mod organization;
