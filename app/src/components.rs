//! Widgets shared by several pages.

pub mod artifact;
pub mod cancel_task;
pub mod icon;
pub mod nav;
pub mod placeholder;
pub mod state_chip;
pub mod theme_switch;
pub mod when;
