//! The HTTP surface: the router, operational endpoints and request metrics.

pub mod health;
pub mod metrics;
pub mod router;
