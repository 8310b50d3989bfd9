//! Widgets shared by several pages.

pub mod a2ui_surface;
pub mod artifact;
pub mod cancel_task;
pub mod copy_id;
pub mod dialog;
pub mod error_alert;
pub mod heading;
pub mod icon;
pub mod keys;
pub mod nav;
pub mod placeholder;
pub mod shortcuts;
pub mod state_chip;
pub mod structured_form;
pub mod theme_switch;
pub mod trace;
pub mod when;
