//! The Chat screen: the landing (`/chat`: start a chat, recent conversations) and one
//! conversation (`/chat/:id`, or `/chat/new?agent=` for a chat not started yet).
//!
//! - [`landing`] and [`conversation`]: the two routed pages.
//! - [`state`]: the conversation page's shared state; [`fold`]: live frames into it;
//!   [`follow`]: keeping the newest item in view.
//! - [`timeline`] (+ [`pending`] sends, [`starters`] for an empty chat), [`composer`] (+ [`attach`], [`options`]) and [`wire`] (+ [`wire_http`]): its parts.
//! - [`extension_controls`]: the skill picker and the active-extensions summary.
//! - [`outgoing`] and [`targets`]: what a send contains and where it goes (pure).
//! - [`summary`]: how a bubble shows the data parts the chat understands (each thing once).
//! - [`prompt_form`]: forms and quick replies in an agent's prompt; [`start_form`]: "Start with a form".

pub mod approval_card;
pub mod attach;
pub mod composer;
pub mod conversation;
pub mod extension_controls;
pub mod fold;
pub mod follow;
pub mod landing;
pub mod options;
pub mod outgoing;
pub mod pending;
pub mod prompt_form;
pub mod start_form;
pub mod starters;
pub mod state;
pub mod summary;
pub mod targets;
pub mod timeline;
pub mod wire;
pub mod wire_http;
#[cfg(feature = "hydrate")]
mod wire_park;

pub use conversation::ConversationPage;
pub use landing::ChatPage;
