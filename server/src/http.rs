//! The HTTP surface: the router, operational endpoints and request metrics.

pub mod api;
pub mod guard;
pub mod health;
pub mod identity;
pub mod live;
pub mod metrics;
pub mod router;
pub mod site;
