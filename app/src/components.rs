//! Widgets shared by several pages.

pub mod icon;
pub mod nav;
pub mod placeholder;
pub mod theme_switch;
